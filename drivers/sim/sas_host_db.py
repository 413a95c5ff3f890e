"""The SAS host twin's own database: what the simulated casino host read.

Owns: the SQLite schema of the host twin and its writes (machines, meter readings,
exceptions, commands and replies, link changes, handpays).  It is the host's record,
not the cabinet's journal: the cabinet never reads it; tests and people do.
Must not import: serial, cabinet.*.

Tables (times ``at`` are Unix seconds, UTC, as REAL):

- ``machines(address, tty, link_path, link_up, last_reply_at, game_id, additional_id,
  denomination, max_bet, paytable_id, base_percent, sas_version, serial_number,
  games, rom_seed, rom_signature)``: one row per EGM (0x1F, 0x54, 0x51, 0x21).
- ``meter_readings(id, address, at, command, name, value)``: one row per meter per
  reading; money meters in credits of the accounting denomination (0x1C, 0x1A, 0x1E); 0x50
  tickets_out/tickets_in counts and cents.
- ``exceptions(id, address, at, code, name)``: every general poll exception, in the
  order read, each once.
- ``commands(id, address, at, command, request, reply, outcome, tries)``: every long
  poll sent and what came back (``request``/``reply`` hex; ``outcome`` ``data``,
  ``ack``, ``nack``, ``busy``, ``none`` (no valid reply after ``tries``) or ``late``
  (a 0x21 answered in place of a general poll's exception byte)).
- ``meter_alarms(id, address, at, name, last, now)``: a lifetime meter read lower than
  the host last read it (``sas_host_meters``: the machine's memory was set back).
- ``link_events(id, address, at, up)``: the host's view of each link going up or down.
- ``handpays(id, address, at, progressive_group, level, amount, partial_pay, reset_id,
  raw)``: 0x1B replies (layout: nCompass ``LongPoll1BMessage.cpp``).

Thread-safety: one connection guarded by a lock; every write commits (WAL, so other
processes can read while the host writes).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS machines (
    address INTEGER PRIMARY KEY, tty TEXT, link_path TEXT, link_up INTEGER NOT NULL DEFAULT 0,
    last_reply_at REAL, game_id TEXT, additional_id TEXT, denomination INTEGER,
    max_bet INTEGER, paytable_id TEXT, base_percent TEXT, sas_version TEXT,
    serial_number TEXT, games INTEGER, rom_seed INTEGER, rom_signature INTEGER);
CREATE TABLE IF NOT EXISTS meter_readings (
    id INTEGER PRIMARY KEY, address INTEGER NOT NULL, at REAL NOT NULL,
    command INTEGER NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS exceptions (
    id INTEGER PRIMARY KEY, address INTEGER NOT NULL, at REAL NOT NULL,
    code INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commands (
    id INTEGER PRIMARY KEY, address INTEGER NOT NULL, at REAL NOT NULL,
    command INTEGER NOT NULL, request TEXT NOT NULL, reply TEXT NOT NULL,
    outcome TEXT NOT NULL, tries INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS link_events (
    id INTEGER PRIMARY KEY, address INTEGER NOT NULL, at REAL NOT NULL, up INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS handpays (
    id INTEGER PRIMARY KEY, address INTEGER NOT NULL, at REAL NOT NULL,
    progressive_group INTEGER, level INTEGER, amount INTEGER, partial_pay INTEGER,
    reset_id INTEGER, raw TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meter_alarms (
    id INTEGER PRIMARY KEY, address INTEGER NOT NULL, at REAL NOT NULL, name TEXT NOT NULL,
    last INTEGER NOT NULL, now INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS meter_readings_by_machine ON meter_readings(address, name, id);
"""

#: Columns of ``machines`` that ``HostDb.update_machine`` may set.
MACHINE_COLUMNS = frozenset(
    {
        "tty",
        "link_path",
        "link_up",
        "last_reply_at",
        "game_id",
        "additional_id",
        "denomination",
        "max_bet",
        "paytable_id",
        "base_percent",
        "sas_version",
        "serial_number",
        "games",
        "rom_seed",
        "rom_signature",
    }
)


class HostDb:
    """The host twin's SQLite database.

    Args:
        path: a file path, or ``":memory:"``.  The file and its folder are created.
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection; idempotent."""
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._lock:
            try:
                self._db.execute(sql, args)
            except sqlite3.ProgrammingError:  # closed while a poll thread finished
                pass

    def add_machine(self, address: int, tty: str, link_path: str) -> None:
        """Create (or reset the paths of) machine ``address``'s row."""
        self._write(
            "INSERT INTO machines(address, tty, link_path) VALUES (?, ?, ?) "
            "ON CONFLICT(address) DO UPDATE SET tty = excluded.tty, "
            "link_path = excluded.link_path, link_up = 0",
            (address, tty, link_path),
        )

    def update_machine(self, address: int, **fields: Any) -> None:
        """Set columns of machine ``address`` (names in ``MACHINE_COLUMNS``).

        Raises:
            ValueError: an unknown column.
        """
        bad = set(fields) - MACHINE_COLUMNS
        if bad:
            raise ValueError(f"unknown machines columns {sorted(bad)}")
        if not fields:
            return
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._write(f"UPDATE machines SET {sets} WHERE address = ?", (*fields.values(), address))

    def add_meters(self, address: int, at: float, command: int, values: Mapping[str, int]) -> None:
        """One reading of long poll ``command``: a row per meter (credits or counts)."""
        with self._lock:
            try:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT INTO meter_readings(address, at, command, name, value) VALUES (?, ?, ?, ?, ?)",
                    [(address, at, command, name, value) for name, value in values.items()],
                )
                self._db.execute("COMMIT")
            except sqlite3.ProgrammingError:
                pass

    def last_meters(self, address: int) -> dict[str, int]:
        """The last value read of each of machine ``address``'s meters (any session)."""
        rows = self._rows(
            "SELECT name, value FROM meter_readings WHERE id IN (SELECT MAX(id) "
            "FROM meter_readings WHERE address = ? GROUP BY name)",
            (address,),
        )
        return {str(n): int(v) for n, v in rows}

    def add_meter_alarm(self, address: int, at: float, name: str, last: int, now: int) -> None:
        """A lifetime meter read lower than before (``sas_host_meters.MeterAlarm``)."""
        self._write(
            "INSERT INTO meter_alarms(address, at, name, last, now) VALUES (?, ?, ?, ?, ?)",
            (address, at, name, last, now),
        )

    def add_exception(self, address: int, at: float, code: int, name: str) -> None:
        """One general poll exception read from machine ``address``."""
        self._write("INSERT INTO exceptions(address, at, code, name) VALUES (?, ?, ?, ?)", (address, at, code, name))

    def add_command(
        self, address: int, at: float, command: int, request: bytes, reply: bytes, outcome: str, tries: int
    ) -> None:
        """One long poll sent and its outcome (see the module docstring)."""
        self._write(
            "INSERT INTO commands(address, at, command, request, reply, outcome, tries) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (address, at, command, request.hex(" "), reply.hex(" "), outcome, tries),
        )

    def add_link_event(self, address: int, at: float, up: bool) -> None:
        """Machine ``address``'s link went up or down (and ``machines.link_up``)."""
        self._write("INSERT INTO link_events(address, at, up) VALUES (?, ?, ?)", (address, at, int(up)))
        self.update_machine(address, link_up=int(up))

    def add_handpay(self, address: int, at: float, fields: Mapping[str, int], raw: bytes) -> None:
        """One 0x1B handpay information reply (``fields`` from ``parse_handpay``)."""
        self._write(
            "INSERT INTO handpays(address, at, progressive_group, level, amount, partial_pay, "
            "reset_id, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                address,
                at,
                fields.get("progressive_group"),
                fields.get("level"),
                fields.get("amount"),
                fields.get("partial_pay"),
                fields.get("reset_id"),
                raw.hex(" "),
            ),
        )

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read-only query."""
        with self._lock:
            return list(self._db.execute(sql, args))

"""The journal's schema and its SQLite connection (the base every part builds on).

Owns: the tables and the columns added since (``chain``, ``mac``), opening the
file owner-only in WAL mode with ``synchronous=FULL``, the commit counter and
event-chain head read at open, and the write transaction (``BEGIN IMMEDIATE``,
rolled back on any error). I/O: SQLite and the file's permissions.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from cabinet.core.errors import StoreError
from cabinet.shell.journal.counter import CounterRecord
from cabinet.shell.paths import private_dir, private_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS critical (
    name TEXT NOT NULL, copy INTEGER NOT NULL, seq INTEGER NOT NULL,
    blob BLOB NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY (name, copy));
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, wall_s REAL NOT NULL, kind TEXT NOT NULL,
    station INTEGER NOT NULL, amount_minor INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vouchers (
    validation_number TEXT PRIMARY KEY, sequence INTEGER NOT NULL, station INTEGER NOT NULL,
    amount_minor INTEGER NOT NULL, status TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS recall (
    id INTEGER PRIMARY KEY, round_id INTEGER NOT NULL, station INTEGER NOT NULL,
    entry TEXT NOT NULL);
"""

#: The SQLite type (``typeof``) each column holds as written; a row holding another
#: was garbled on disk (SQLite's own page check does not look at types).
COLUMN_TYPES = {
    "critical": {"name": "text", "copy": "integer", "seq": "integer", "blob": "blob", "checksum": "text"},
    "events": {
        "id": "integer",
        "seq": "integer",
        "wall_s": "real",
        "kind": "text",
        "station": "integer",
        "amount_minor": "integer",
        "data": "text",
        "chain": "text null",
    },
    "vouchers": {
        "validation_number": "text",
        "sequence": "integer",
        "station": "integer",
        "amount_minor": "integer",
        "status": "text",
        "record": "text",
        "mac": "text null",
    },
    "recall": {"id": "integer", "round_id": "integer", "station": "integer", "entry": "text"},
}


def typed(table: str, cols: str) -> str:
    """A SQL condition: every column of ``cols`` (``"a, b"``) holds its type."""
    conds = []
    for col in (c.strip() for c in cols.split(",")):
        kinds = ", ".join(f"'{k}'" for k in COLUMN_TYPES[table][col].split())
        conds.append(f"typeof({col}) IN ({kinds})")
    return " AND ".join(conds)


def lenient_text(data: bytes) -> str:
    """Text as SQLite returns it, a byte that is not UTF-8 as U+FFFD: a garbled value
    then fails its checksum instead of stopping the read."""
    return data.decode("utf-8", "replace")


COPIES = (0, 1)
#: Tables copied by ``salvage``, with their columns in order.
TABLES = {
    "critical": "name, copy, seq, blob, checksum",
    "events": "id, seq, wall_s, kind, station, amount_minor, data, chain",
    "vouchers": "validation_number, sequence, station, amount_minor, status, record, mac",
    "recall": "id, round_id, station, entry",
}


def owner_only(path: Path) -> None:
    """The journal file 0600 before SQLite opens it (its -wal and -shm take the same
    mode); a folder made for it 0700 (the live round is in there)."""
    if not path.parent.exists():
        private_dir(path.parent)
    try:
        private_file(path)
    except PermissionError as e:
        raise StoreError(f"journal {path}: {e}") from None
    for side in ("-wal", "-shm"):
        p = path.with_name(path.name + side)
        if p.is_file() and not p.is_symlink() and p.stat().st_mode & 0o077:
            os.chmod(p, 0o600)


def connect(path: Path, readonly: bool) -> sqlite3.Connection:
    """Open the journal: read-only for the views, else owner-only, WAL, ``synchronous=FULL``,
    the schema created and the columns added since (``events.chain``, ``vouchers.mac``).

    Raises:
        StoreError: SQLite cannot open the file or it is not a journal.
    """
    try:
        if readonly:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        else:
            owner_only(path)
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            cols = [r[1] for r in db.execute("PRAGMA table_info(events)")]
            if "chain" not in cols:
                db.execute("ALTER TABLE events ADD COLUMN chain TEXT")
            cols = [r[1] for r in db.execute("PRAGMA table_info(vouchers)")]
            if "mac" not in cols:
                db.execute("ALTER TABLE vouchers ADD COLUMN mac TEXT")
        db.text_factory = lenient_text
        db.execute("PRAGMA busy_timeout=5000")
    except sqlite3.Error as e:
        raise StoreError(f"journal {path}: {e}") from None
    return db


class JournalBase:
    """What every part of the journal shares: the connection and the counters
    (set up by ``Store.__init__``), the transaction and the raw critical rows."""

    path: Path
    readonly: bool
    key: bytes | None
    #: Plain SHA-256 rows are accepted (and migrated) only on a journal that
    #: never had a keyed commit recorded.
    legacy_ok: bool
    db: sqlite3.Connection
    seq: int
    _event_id: int
    _chain: str
    salvage_findings: list[str]
    committed: tuple[bytes, bytes] | None
    _last_blobs: dict[str, bytes]
    _durable: bool
    fsyncs: int
    #: The fitted hardware monotonic counter (``journal.counter``), or ``None``.
    hw: CounterRecord | None

    def close(self) -> None:
        self.db.close()

    def _max_seq(self) -> int:
        try:
            row = self.db.execute("SELECT MAX(seq) FROM critical WHERE typeof(seq) = 'integer'").fetchone()
        except sqlite3.Error:
            return 0
        return int(row[0] or 0)

    def _chain_head(self) -> tuple[int, str]:
        try:
            row = self.db.execute("SELECT id, chain FROM events ORDER BY id DESC LIMIT 1").fetchone()
        except sqlite3.Error:
            return 0, ""
        return (0, "") if row is None else (int(row[0]), str(row[1] or ""))

    def _read_rows(self, name: str) -> dict[int, tuple[int, bytes, str]]:
        """Each copy's ``(seq, blob, checksum)``; a copy whose values are not of their
        column's type as ``(-1, b"", "")`` (it fails its check)."""
        rows = self.db.execute(
            "SELECT copy, seq, blob, checksum FROM critical WHERE name=? AND typeof(copy) = 'integer'", (name,)
        ).fetchall()
        out: dict[int, tuple[int, bytes, str]] = {}
        for c, s, b, h in rows:
            ok = isinstance(s, int) and isinstance(b, bytes) and isinstance(h, str)
            out[int(c)] = (s, b, h) if ok else (-1, b"", "")
        return out

    def _tx(self) -> Any:
        store = self

        class _Tx:
            def __enter__(self) -> None:
                store.db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
                if exc_type is None:
                    try:
                        store.db.execute("COMMIT")
                    except sqlite3.Error:  # disk full at COMMIT: leave no open tx
                        store._rollback()
                        raise
                else:
                    store._rollback()

        return _Tx()

    def _rollback(self) -> None:
        try:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

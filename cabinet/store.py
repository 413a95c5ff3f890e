"""The journal: SQLite storage of the cabinet's critical state and history.

Owns: the database file and its schema; committing the state, the round and
the journal effects of one ``Cabinet.handle`` in one transaction; verifying
and repairing the two checksummed copies of every critical row at start
(research/cabinet-features.md C "Critical memory integrity"); the read-only
history views (recall, events, vouchers). I/O: this is a shell module.

SQLite runs in WAL mode with ``synchronous=FULL``: a commit that returned is
on disk, and a power cut during one leaves the previous state whole.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from cabinet.effects import (
    ClearJournal,
    Effect,
    Journal,
    SaveRecall,
    SaveVoucher,
    SetVoucherStatus,
)
from cabinet.errors import StoreError
from cabinet.records import RecallEntry, VoucherRecord
from cabinet.state import CabinetState

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

COPIES = (0, 1)
_state_decoder = msgspec.json.Decoder(CabinetState)
_recall_decoder = msgspec.json.Decoder(RecallEntry)
_voucher_decoder = msgspec.json.Decoder(VoucherRecord)


def checksum(name: str, seq: int, blob: bytes) -> str:
    """SHA-256 over the row's name, commit number and contents (hex)."""
    h = hashlib.sha256()
    h.update(f"{name}:{seq}:".encode())
    h.update(blob)
    return h.hexdigest()


@dataclass
class Loaded:
    """What ``Store.load`` found.

    Attributes:
        state: the cabinet state, or ``None`` on a first boot or a RAM error.
        round_state: the journaled round, or ``None``.
        ram_error: no good copy of the cabinet state exists.
        round_corrupt: the round row exists but no copy passes its check.
        repaired: names of rows whose bad copy was rebuilt from the good one.
    """

    state: CabinetState | None
    round_state: dict[str, Any] | None
    ram_error: bool
    round_corrupt: bool
    repaired: list[str]


class Store:
    """The journal database.

    Args:
        path: the SQLite file; its folder is created if missing.
        readonly: open for the CLI views while the engine runs.

    Raises:
        StoreError: the file cannot be opened or is not a journal.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)
        try:
            if readonly:
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                          isolation_level=None, check_same_thread=False)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None,
                                          check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
            self.db.execute("PRAGMA busy_timeout=5000")
        except sqlite3.Error as e:
            raise StoreError(f"journal {self.path}: {e}") from None
        self.seq = self._max_seq()
        self._last_blobs: dict[str, bytes] = {}
        self._durable = True
        #: Durable (fsynced) commits so far.
        self.fsyncs = 0

    def close(self) -> None:
        self.db.close()

    def _max_seq(self) -> int:
        try:
            row = self.db.execute("SELECT MAX(seq) FROM critical").fetchone()
        except sqlite3.Error:
            return 0
        return int(row[0] or 0)

    # -- loading ---------------------------------------------------------------------

    def _read_rows(self, name: str) -> dict[int, tuple[int, bytes, str]]:
        rows = self.db.execute("SELECT copy, seq, blob, checksum FROM critical WHERE name=?",
                               (name,)).fetchall()
        return {int(c): (int(s), bytes(b), str(h)) for c, s, b, h in rows}

    def _good_copy(self, name: str) -> tuple[bytes | None, bool, bool]:
        """Returns (blob of the best good copy, row exists, a copy was repaired)."""
        rows = self._read_rows(name)
        if not rows:
            return None, False, False
        good = {c: r for c, r in rows.items() if checksum(name, r[0], r[1]) == r[2]}
        if not good:
            return None, True, False
        best_copy = max(good, key=lambda c: good[c][0])
        seq, blob, digest = good[best_copy]
        repaired = False
        for c in COPIES:
            if c not in good or good[c][0] != seq:
                self.db.execute("INSERT OR REPLACE INTO critical VALUES (?,?,?,?,?)",
                                (name, c, seq, blob, digest))
                repaired = True
        return blob, True, repaired

    def load(self) -> Loaded:
        """Read and verify the critical rows; repair a bad copy from a good one.

        Returns:
            ``Loaded``; a first boot gives ``state=None`` and no error.
        """
        repaired: list[str] = []
        with self._tx():
            blob, exists, fixed = self._good_copy("cabinet")
            if fixed:
                repaired.append("cabinet")
            state = None
            ram_error = False
            if blob is not None:
                try:
                    state = _state_decoder.decode(blob)
                except msgspec.DecodeError:
                    ram_error = True
            elif exists:
                ram_error = True
            rblob, rexists, rfixed = self._good_copy("round")
            if rfixed:
                repaired.append("round")
            round_state = None
            round_corrupt = False
            if rblob is not None:
                try:
                    round_state = json.loads(rblob)
                except ValueError:
                    round_corrupt = True
            elif rexists:
                round_corrupt = True
            for name in repaired:
                self._insert_event(0.0, "critical_repaired", 0, 0, {"row": name})
        return Loaded(state, round_state, ram_error, round_corrupt, repaired)

    def load_readonly(self) -> CabinetState | None:
        """The newest good copy of the cabinet state, without repairing anything."""
        rows = self._read_rows("cabinet")
        good = [r for r in rows.values() if checksum("cabinet", r[0], r[1]) == r[2]]
        if not good:
            return None
        try:
            return _state_decoder.decode(max(good)[1])
        except msgspec.DecodeError:
            return None

    # -- committing ----------------------------------------------------------------------

    def _tx(self) -> Any:
        store = self

        class _Tx:
            def __enter__(self) -> None:
                store.db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
                if exc_type is None:
                    store.db.execute("COMMIT")
                else:
                    store.db.execute("ROLLBACK")

        return _Tx()

    def needs_commit(self, state: CabinetState, round_state: dict[str, Any] | None,
                     effects: Sequence[Effect]) -> bool:
        """Whether anything but the clock changed since the last commit."""
        if self._has_journal(effects):
            return True
        return (self._encode_state(state, for_compare=True) != self._last_blobs.get("cabinet~")
                or self._encode_round(round_state) != self._last_blobs.get("round"))

    @staticmethod
    def _has_journal(effects: Sequence[Effect]) -> bool:
        return any(isinstance(e, Journal | SaveVoucher | SetVoucherStatus | SaveRecall
                              | ClearJournal) for e in effects)

    @staticmethod
    def _encode_state(state: CabinetState, for_compare: bool = False) -> bytes:
        if for_compare:
            state = msgspec.structs.replace(state, now_ms=0, wall_s=0.0)
        return msgspec.json.encode(state)

    @staticmethod
    def _critical_view(state: CabinetState) -> bytes:
        """The state without what only shapes the next bet or the screen (bets being
        built, the selected chip, Deal pressed, the menu page, the clock)."""
        stations = [msgspec.structs.replace(st, bets_minor=[], chip_log=[],
                                            selected_chip_minor=None, ready=False, win_minor=0)
                    for st in state.stations]
        return msgspec.json.encode(msgspec.structs.replace(
            state, stations=stations, now_ms=0, wall_s=0.0, maintenance=None, message="",
            last_button="", bet_deadline_ms=None))

    @staticmethod
    def _encode_round(round_state: dict[str, Any] | None) -> bytes:
        return json.dumps(round_state, separators=(",", ":"), sort_keys=True).encode()

    def commit(self, state: CabinetState, round_state: dict[str, Any] | None,
               effects: Sequence[Effect], wall_s: float) -> None:
        """Write the state, the round and every journal effect in one transaction.

        A commit that moves money, changes a meter, the round, a lockup or
        anything journaled is durable (the WAL is fsynced before it returns).
        One that only changes a bet being built, the selected chip or the menu
        page skips the fsync: a power cut may forget that last press, never
        money, and the next durable commit syncs it along.

        Raises:
            StoreError: the write failed (nothing of it is kept).
        """
        blob = self._encode_state(state)
        rblob = self._encode_round(round_state)
        critical = self._critical_view(state)
        # a finished round left on the table for display is not critical any more
        round_key = rblob if state.round_open else b"closed"
        durable = (self._has_journal(effects) or round_key != self._last_blobs.get("round~")
                   or critical != self._last_blobs.get("critical"))
        try:
            if durable != self._durable:
                self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                self._durable = durable
            with self._tx():
                self.seq += 1
                for name, data in (("cabinet", blob), ("round", rblob)):
                    digest = checksum(name, self.seq, data)
                    for c in COPIES:
                        self.db.execute("INSERT OR REPLACE INTO critical VALUES (?,?,?,?,?)",
                                        (name, c, self.seq, data, digest))
                for e in effects:
                    self._apply(e, wall_s, state)
        except sqlite3.Error as e:
            self.seq = self._max_seq()
            raise StoreError(f"journal commit failed: {e}") from None
        if durable:
            self.fsyncs += 1
        self._last_blobs["cabinet~"] = self._encode_state(state, for_compare=True)
        self._last_blobs["round"] = rblob
        self._last_blobs["critical"] = critical
        self._last_blobs["round~"] = round_key

    def _insert_event(self, wall_s: float, kind: str, station: int, amount: int,
                      data: dict[str, Any]) -> None:
        self.db.execute("INSERT INTO events (seq, wall_s, kind, station, amount_minor, data) "
                        "VALUES (?,?,?,?,?,?)",
                        (self.seq, wall_s, kind, station, amount, json.dumps(data, default=str)))

    def _apply(self, e: Effect, wall_s: float, state: CabinetState) -> None:
        if isinstance(e, Journal):
            self._insert_event(wall_s, e.kind, e.station, e.amount_minor, e.data)
        elif isinstance(e, SaveVoucher):
            r = e.record
            self.db.execute("INSERT OR REPLACE INTO vouchers VALUES (?,?,?,?,?,?)",
                            (r.validation_number, r.sequence, r.station, r.amount_minor,
                             r.status, msgspec.json.encode(r).decode()))
        elif isinstance(e, SetVoucherStatus):
            row = self.db.execute("SELECT record FROM vouchers WHERE validation_number=?",
                                  (e.validation_number,)).fetchone()
            if row is not None:
                rec = _voucher_decoder.decode(row[0])
                changes: dict[str, Any] = {"status": e.status}
                if e.status == "redeemed":
                    changes["redeemed_wall_s"] = e.wall_s
                rec = msgspec.structs.replace(rec, **changes)
                self.db.execute("UPDATE vouchers SET status=?, record=? WHERE validation_number=?",
                                (e.status, msgspec.json.encode(rec).decode(), e.validation_number))
        elif isinstance(e, SaveRecall):
            self.db.execute("INSERT INTO recall (round_id, station, entry) VALUES (?,?,?)",
                            (e.entry.round_id, e.entry.station,
                             msgspec.json.encode(e.entry).decode()))
            keep = state.settings.recall_depth
            self.db.execute("DELETE FROM recall WHERE station=? AND id NOT IN (SELECT id FROM "
                            "recall WHERE station=? ORDER BY id DESC LIMIT ?)",
                            (e.entry.station, e.entry.station, keep))
        elif isinstance(e, ClearJournal):
            for table in ("events", "vouchers", "recall"):
                self.db.execute(f"DELETE FROM {table}")

    # -- reading (history for maintenance and the CLI) -----------------------------------------

    def voucher(self, validation_number: str) -> VoucherRecord | None:
        """The record of a validation number, or ``None`` if this cabinet never issued it."""
        row = self.db.execute("SELECT record FROM vouchers WHERE validation_number=?",
                              (validation_number,)).fetchone()
        return None if row is None else _voucher_decoder.decode(row[0])

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        rows = self.db.execute("SELECT record FROM vouchers ORDER BY sequence DESC LIMIT ?",
                               (limit,)).fetchall()
        return [_voucher_decoder.decode(r[0]) for r in rows]

    def recall(self, station: int, limit: int) -> list[RecallEntry]:
        """Newest first; ``station`` 0 for every station."""
        if station:
            rows = self.db.execute("SELECT entry FROM recall WHERE station=? ORDER BY id DESC "
                                   "LIMIT ?", (station, limit)).fetchall()
        else:
            rows = self.db.execute("SELECT entry FROM recall ORDER BY id DESC LIMIT ?",
                                   (limit,)).fetchall()
        return [_recall_decoder.decode(r[0]) for r in rows]

    def events(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` events, newest first."""
        rows = self.db.execute("SELECT id, seq, wall_s, kind, station, amount_minor, data FROM "
                               "events ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [{"id": r[0], "seq": r[1], "wall_s": r[2], "kind": r[3], "station": r[4],
                 "amount_minor": r[5], "data": json.loads(r[6])} for r in rows]

    def open_escrow(self) -> dict[str, Any] | None:
        """The newest station's unclosed escrow (see ``open_escrows``), or ``None``."""
        found = [e for e in self.open_escrows().values() if not e["credited"]]
        return found[-1] if found else None

    def open_escrows(self) -> dict[int, dict[str, Any]]:
        """Each station's newest escrow, if it still matters to its acceptor driver.

        Issue 11.4: every station's open escrow is restored (two stations can be
        past STACK when the engine dies). Issue 11.3: only a station's newest
        escrow can be open; an older one was superseded (the acceptor took a new
        item, so the old one was never stacked) and is not offered again.

        Returns:
            ``{station: {"txn", "denomination_minor", "validation_number",
            "station", "credited"}}``, ordered by journal position. ``credited``
            False: journaled as stacked-to-be, never closed (a pending VEND VALID
            or a power-up "bill in stacker" belongs to it). ``credited`` True:
            credited by a VEND VALID whose ACK the acceptor may not have seen, or
            journaled as found in the stacker before the RESET that the engine may
            not have sent (a repeat VEND VALID or a power-up "bill in stacker" owes
            nothing more).
            Closed without a credit (a return, an invalid voucher, a note left for
            the attendant's review): left out.
        """
        rows = self.db.execute(
            "SELECT kind, amount_minor, data, station, MAX(id) FROM events WHERE kind IN "
            "('note_escrowed', 'voucher_escrowed') GROUP BY station ORDER BY MAX(id)").fetchall()
        out: dict[int, dict[str, Any]] = {}
        for kind, amount, data, station, row_id in rows:
            info = json.loads(data)
            txn = info.get("txn", "")
            if not txn:
                continue
            closes = self.db.execute(
                "SELECT kind FROM events WHERE id > ? AND json_extract(data, '$.txn') = ? "
                "AND kind IN ('bill_stacked', 'voucher_in', 'note_returned', "
                "'note_repeat_ignored', 'voucher_repeat_ignored', 'voucher_stacked_invalid', "
                "'note_in_stacker', 'note_in_path')", (row_id, txn)).fetchall()
            kinds = {k for (k,) in closes}
            # a note under the attendant's review is the engine's to settle now
            credited = bool(kinds & {"bill_stacked", "voucher_in", "note_in_stacker"})
            if kinds and not credited:
                continue
            out[int(station)] = {
                "txn": txn, "denomination_minor": amount if kind == "note_escrowed" else 0,
                "validation_number": info.get("validation_number"), "station": int(station),
                "credited": credited}
        return out

    def all_events(self) -> list[dict[str, Any]]:
        """Every event, oldest first (audits and tests)."""
        return list(reversed(self.events(10**9)))

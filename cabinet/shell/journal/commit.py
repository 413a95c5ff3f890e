"""Committing to the journal: the state, the round and one event's journal effects.

Owns: ``commit`` (one transaction per ``Cabinet.handle``: both copies of the
cabinet and round rows under a new commit number, then every journal effect),
whether a commit must be durable (fsynced) or may skip the fsync, the rows each
effect writes (event log with its chain link, vouchers with their keyed
checksum, recall with its depth, a RAM clear that keeps outstanding vouchers).
I/O: SQLite and, through ``write_commit_record``, the commit-record file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import msgspec

from cabinet.core.effects import (
    ClearJournal,
    Effect,
    Journal,
    SaveRecall,
    SaveVoucher,
    SetVoucherStatus,
)
from cabinet.core.errors import StoreError
from cabinet.core.state import CabinetState
from cabinet.shell.journal.base import COPIES
from cabinet.shell.journal.keys import event_link
from cabinet.shell.journal.verify import JournalChecks, voucher_decoder

_INSERT_CRITICAL = "INSERT OR REPLACE INTO critical VALUES " + ",".join(["(?,?,?,?,?)"] * 2 * len(COPIES))


class JournalWriter(JournalChecks):
    """The journal's write path (see the module doc)."""

    def needs_commit(self, state: CabinetState, round_state: dict[str, Any] | None, effects: Sequence[Effect]) -> bool:
        """Whether anything but the clock changed since the last commit."""
        if self._has_journal(effects):
            return True
        self._encoded = (
            state,
            round_state,
            self._encode_state(state, for_compare=True),
            self._encode_round(round_state),
        )
        changed = self._encoded[2] != self._last_blobs.get("cabinet~") or self._encoded[3] != self._last_blobs.get(
            "round"
        )
        if not changed:
            self._encoded = None
        return changed

    #: ``(state, round_state, state blob without the clock, round blob)`` encoded by
    #: ``needs_commit``, taken by the ``commit`` of the same objects that follows it.
    _encoded: tuple[CabinetState, dict[str, Any] | None, bytes, bytes] | None = None

    def _encodings(self, state: CabinetState, round_state: dict[str, Any] | None) -> tuple[bytes, bytes]:
        """(state blob without the clock, round blob), from ``needs_commit`` when it just
        encoded these very objects."""
        enc, self._encoded = self._encoded, None
        if enc is not None and enc[0] is state and enc[1] is round_state:
            return enc[2], enc[3]
        return self._encode_state(state, for_compare=True), self._encode_round(round_state)

    @staticmethod
    def _has_journal(effects: Sequence[Effect]) -> bool:
        return any(isinstance(e, Journal | SaveVoucher | SetVoucherStatus | SaveRecall | ClearJournal) for e in effects)

    @staticmethod
    def _encode_state(state: CabinetState, for_compare: bool = False) -> bytes:
        if for_compare:
            state = msgspec.structs.replace(state, now_ms=0, wall_s=0.0)
        return msgspec.json.encode(state)

    @staticmethod
    def _critical_view(state: CabinetState) -> bytes:
        """The state without what only shapes the next bet or the screen (bets being
        built, the selected chip, Deal pressed, the menu page, the clock)."""
        stations = [
            msgspec.structs.replace(st, bets_minor=[], chip_log=[], selected_chip_minor=None, ready=False, win_minor=0)
            for st in state.stations
        ]
        return msgspec.json.encode(
            msgspec.structs.replace(
                state,
                stations=stations,
                now_ms=0,
                wall_s=0.0,
                maintenance=None,
                message="",
                last_button="",
                bet_deadline_ms=None,
            )
        )

    @staticmethod
    def _encode_round(round_state: dict[str, Any] | None) -> bytes:
        """Compact JSON, keys sorted: the bytes ``json.dumps(separators=(",", ":"),
        sort_keys=True)`` writes for the round's ASCII, int and bool values."""
        return msgspec.json.encode(round_state, order="sorted")

    def commit(
        self, state: CabinetState, round_state: dict[str, Any] | None, effects: Sequence[Effect], wall_s: float
    ) -> None:
        """Write the state, the round and every journal effect in one transaction.

        A commit that moves money, changes a meter, the round, a lockup or
        anything journaled is durable (the WAL is fsynced before it returns).
        One that only changes a bet being built, the selected chip or the menu
        page skips the fsync: a power cut may forget that last press, never
        money, and the next durable commit syncs it along.

        Raises:
            StoreError: the write failed (nothing of it is kept).
        """
        compare, rblob = self._encodings(state, round_state)
        blob = self._encode_state(state)
        critical = self._critical_view(state)
        # a finished round left on the table for display is not critical any more
        round_key = rblob if state.round_open else b"closed"
        durable = (
            self._has_journal(effects)
            or round_key != self._last_blobs.get("round~")
            or critical != self._last_blobs.get("critical")
        )
        saved = (self.seq, self._event_id, self._chain)
        try:
            if durable != self._durable:
                self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                self._durable = durable
            with self._tx():
                self.seq += 1
                rows: list[Any] = []
                for name, data in (("cabinet", blob), ("round", rblob)):
                    digest = self._digest(name, self.seq, data)
                    for c in COPIES:
                        rows += (name, c, self.seq, data, digest)
                self.db.execute(_INSERT_CRITICAL, rows)  # both rows' copies: one statement
                for e in effects:
                    self._apply(e, wall_s, state)
        except sqlite3.Error as e:
            self.seq, self._event_id, self._chain = saved
            raise StoreError(f"journal commit failed: {e}") from None
        self.committed = (blob, rblob)
        if durable:
            self.fsyncs += 1
            try:
                self.write_commit_record()
            except OSError as e:
                raise StoreError(f"journal commit record failed: {e.strerror or e}") from None
        self._last_blobs["cabinet~"] = compare
        self._last_blobs["round"] = rblob
        self._last_blobs["critical"] = critical
        self._last_blobs["round~"] = round_key

    def _insert_event(self, wall_s: float, kind: str, station: int, amount: int, data: dict[str, Any]) -> None:
        assert self.key is not None
        row = (self._event_id + 1, self.seq, float(wall_s), kind, station, amount, json.dumps(data, default=str))
        link = event_link(self.key, self._chain, row)
        self.db.execute(
            "INSERT INTO events (id, seq, wall_s, kind, station, amount_minor, data, chain) VALUES (?,?,?,?,?,?,?,?)",
            (*row, link),
        )
        self._event_id, self._chain = row[0], link

    def _apply(self, e: Effect, wall_s: float, state: CabinetState) -> None:
        if isinstance(e, Journal):
            self._insert_event(wall_s, e.kind, e.station, e.amount_minor, e.data)
        elif isinstance(e, SaveVoucher):
            r = e.record
            text = msgspec.json.encode(r).decode()
            self.db.execute(
                "INSERT OR REPLACE INTO vouchers (validation_number, sequence, "
                "station, amount_minor, status, record, mac) VALUES (?,?,?,?,?,?,?)",
                (
                    r.validation_number,
                    r.sequence,
                    r.station,
                    r.amount_minor,
                    r.status,
                    text,
                    self._voucher_mac(r.validation_number, text),
                ),
            )
        elif isinstance(e, SetVoucherStatus):
            row = self.db.execute(
                "SELECT record FROM vouchers WHERE validation_number=?", (e.validation_number,)
            ).fetchone()
            if row is not None:
                rec = voucher_decoder.decode(row[0])
                changes: dict[str, Any] = {"status": e.status}
                if e.status == "redeemed":
                    changes["redeemed_wall_s"] = e.wall_s
                rec = msgspec.structs.replace(rec, **changes)
                text = msgspec.json.encode(rec).decode()
                self.db.execute(
                    "UPDATE vouchers SET status=?, record=?, mac=? WHERE validation_number=?",
                    (e.status, text, self._voucher_mac(e.validation_number, text), e.validation_number),
                )
        elif isinstance(e, SaveRecall):
            self.db.execute(
                "INSERT INTO recall (round_id, station, entry) VALUES (?,?,?)",
                (e.entry.round_id, e.entry.station, msgspec.json.encode(e.entry).decode()),
            )
            keep = state.settings.recall_depth
            self.db.execute(
                "DELETE FROM recall WHERE station=? AND id NOT IN (SELECT id FROM "
                "recall WHERE station=? ORDER BY id DESC LIMIT ?)",
                (e.entry.station, e.entry.station, keep),
            )
        elif isinstance(e, ClearJournal):
            # An outstanding (issued, unredeemed) voucher's record survives
            # decided by the keyed record, never by the plain status column; a row that
            # fails its checksum is kept as evidence
            gone = [
                vn
                for vn, rec, digest in self.db.execute("SELECT validation_number, record, mac FROM vouchers").fetchall()
                if self._voucher_ok(vn, rec, digest) and voucher_decoder.decode(rec).status != "issued"
            ]
            self.db.executemany("DELETE FROM vouchers WHERE validation_number=?", [(vn,) for vn in gone])
            for table in ("events", "recall"):
                self.db.execute(f"DELETE FROM {table}")
            self._chain = ""  # a new chain; event ids keep counting

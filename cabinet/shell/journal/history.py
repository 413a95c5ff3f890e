"""Reading the journal's history: vouchers, recall, the event log, open escrows.

Owns: the read-only queries maintenance, the CLI views and the engine's start
use (a voucher by validation number, the outstanding vouchers by their keyed
record, the game recall, the newest events, each station's escrow still open
after a restart). I/O: SQLite reads only.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from cabinet.core.records import RecallEntry, VoucherRecord
from cabinet.shell.journal.keys import log
from cabinet.shell.journal.verify import JournalChecks, voucher_decoder

recall_decoder = msgspec.json.Decoder(RecallEntry)


class JournalHistory(JournalChecks):
    """The journal's history queries (see the module doc)."""

    def voucher(self, validation_number: str) -> VoucherRecord | None:
        """The record of a validation number, or ``None`` if this cabinet never issued it."""
        row = self.db.execute(
            "SELECT record, mac FROM vouchers WHERE validation_number=?", (validation_number,)
        ).fetchone()
        if row is None:
            return None
        if not self._voucher_ok(validation_number, row[0], row[1]):
            log.error("voucher ...%s: its journal row fails its keyed checksum; refused", validation_number[-4:])
            return None
        return voucher_decoder.decode(row[0])

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        rows = self.db.execute("SELECT record FROM vouchers ORDER BY sequence DESC LIMIT ?", (limit,)).fetchall()
        return [voucher_decoder.decode(r[0]) for r in rows]

    def outstanding_vouchers(self) -> list[VoucherRecord]:
        """Every voucher printed and not yet redeemed (status ``issued``), oldest first."""
        rows = self.db.execute("SELECT validation_number, record, mac FROM vouchers ORDER BY sequence").fetchall()
        records = [voucher_decoder.decode(rec) for vn, rec, digest in rows if self._voucher_ok(vn, rec, digest)]
        return [r for r in records if r.status == "issued"]  # by the keyed record (11.14)

    def recall(self, station: int, limit: int) -> list[RecallEntry]:
        """Newest first; ``station`` 0 for every station."""
        if station:
            rows = self.db.execute(
                "SELECT entry FROM recall WHERE station=? ORDER BY id DESC LIMIT ?", (station, limit)
            ).fetchall()
        else:
            rows = self.db.execute("SELECT entry FROM recall ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [recall_decoder.decode(r[0]) for r in rows]

    def events(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` events, newest first."""
        rows = self.db.execute(
            "SELECT id, seq, wall_s, kind, station, amount_minor, data FROM events ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [
            {
                "id": r[0],
                "seq": r[1],
                "wall_s": r[2],
                "kind": r[3],
                "station": r[4],
                "amount_minor": r[5],
                "data": json.loads(r[6]),
            }
            for r in rows
        ]

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` events of one of ``kinds``, newest first."""
        marks = ",".join("?" * len(kinds))
        rows = self.db.execute(
            "SELECT id, seq, wall_s, kind, station, amount_minor, data FROM "
            f"events WHERE kind IN ({marks}) ORDER BY id DESC LIMIT ?",
            (*sorted(kinds), limit),
        ).fetchall()
        return [
            {
                "id": r[0],
                "seq": r[1],
                "wall_s": r[2],
                "kind": r[3],
                "station": r[4],
                "amount_minor": r[5],
                "data": json.loads(r[6]),
            }
            for r in rows
        ]

    def open_escrow(self) -> dict[str, Any] | None:
        """The newest station's unclosed escrow (see ``open_escrows``), or ``None``."""
        found = [e for e in self.open_escrows().values() if not e["credited"]]
        return found[-1] if found else None

    def open_escrows(self) -> dict[int, dict[str, Any]]:
        """Each station's newest escrow, if it still matters to its acceptor driver.

        Every station's open escrow is restored (two stations can be
        past STACK when the engine dies). Only a station's newest
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
            "('note_escrowed', 'voucher_escrowed') GROUP BY station ORDER BY MAX(id)"
        ).fetchall()
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
                "'note_in_stacker', 'note_in_path', 'bill_test_stacked', 'bill_test_returned', "
                "'bill_test_in_path')",
                (row_id, txn),
            ).fetchall()
            kinds = {k for (k,) in closes}
            # a note under the attendant's review is the engine's to settle now; a test
            # note in the cash box is owed nothing either
            credited = bool(kinds & {"bill_stacked", "voucher_in", "note_in_stacker", "bill_test_stacked"})
            if kinds and not credited:
                continue
            out[int(station)] = {
                "txn": txn,
                "denomination_minor": amount if kind == "note_escrowed" else 0,
                "validation_number": info.get("validation_number"),
                "station": int(station),
                "credited": credited,
            }
        return out

    def all_events(self) -> list[dict[str, Any]]:
        """Every event, oldest first (audits and tests)."""
        return list(reversed(self.events(10**9)))

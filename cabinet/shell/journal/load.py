"""Loading the journal at start: read, verify, repair and migrate the critical rows.

Owns: ``Loaded`` (what a start found), picking the good copy of each critical
row and rebuilding the bad one from it (research/cabinet-features.md C
"Critical memory integrity"), migrating an old journal's plain checksums to
keyed ones once (``Store(upgrade=True)``: ``cabinet upgrade-journal``), and the
read-only state the CLI views use.
I/O: SQLite and the commit-record file.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import msgspec

from cabinet.core.state import CabinetState
from cabinet.shell.journal.base import COPIES
from cabinet.shell.journal.commit import JournalWriter
from cabinet.shell.journal.guard import keyed_evidence
from cabinet.shell.journal.keys import event_link, log
from cabinet.shell.paths import commit_file

state_decoder = msgspec.json.Decoder(CabinetState)


@dataclass
class Loaded:
    """What ``Store.load`` found.

    Attributes:
        state: the cabinet state, or ``None`` on a first boot or a RAM error.
        round_state: the journaled round, or ``None``.
        ram_error: no good copy of the cabinet state exists.
        round_corrupt: the round row exists but no copy passes its check.
        repaired: names of rows whose bad copy was rebuilt from the good one.
        salvaged: the journal was rebuilt from a corrupt one (``open_journal``);
            ``state`` is what could be read of it, kept for the technician.
        findings: what verification found (a rolled-back or tampered journal);
            any finding is a RAM error.
    """

    state: CabinetState | None
    round_state: dict[str, Any] | None
    ram_error: bool
    round_corrupt: bool
    repaired: list[str]
    findings: list[str] = dataclasses.field(default_factory=list)
    salvaged: bool = False


class JournalLoader(JournalWriter):
    """The journal's start-up path (see the module doc)."""

    def _good_copy(self, name: str) -> tuple[bytes | None, bool, bool]:
        """Returns (blob of the best good copy, row exists, a copy was repaired)."""
        rows = self._read_rows(name)
        if not rows:
            return None, False, False
        good = {c: r for c, r in rows.items() if self._row_ok(name, r[0], r[1], r[2])}
        if not good:
            return None, True, False
        best_copy = max(good, key=lambda c: good[c][0])
        seq, blob, digest = good[best_copy]
        repaired = False
        for c in COPIES:
            if c not in good or good[c][0] != seq:
                self.db.execute("INSERT OR REPLACE INTO critical VALUES (?,?,?,?,?)", (name, c, seq, blob, digest))
                repaired = True
        return blob, True, repaired

    def load(self) -> Loaded:
        """Read and verify the critical rows; repair a bad copy from a good one.

        Returns:
            ``Loaded``; a first boot gives ``state=None`` and no error.
        """
        repaired: list[str] = []
        findings: list[str] = list(self.salvage_findings)
        with self._tx():
            migrating = (
                self.legacy_ok
                and self.db.execute(
                    "SELECT 1 FROM critical WHERE checksum NOT LIKE 'hmac:%' UNION ALL SELECT 1 "
                    "FROM events WHERE chain IS NULL UNION ALL SELECT 1 FROM vouchers WHERE mac "
                    "IS NULL LIMIT 1"
                ).fetchone()
                is not None
            )
            if not self.legacy_ok and self.old_format():
                findings.append(
                    "the journal is in the old format (plain SHA-256 "
                    "checksums): upgrade it once with cabinet upgrade-journal"
                )
            findings += self.verify_commit_record()
            findings += self.verify_chain()
            findings += self.verify_vouchers()
            blob, exists, fixed = self._good_copy("cabinet")
            if fixed:
                repaired.append("cabinet")
            state = None
            ram_error = False
            if blob is not None:
                try:
                    state = state_decoder.decode(blob)
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
            if exists and blob is None:
                findings.append("critical row cabinet: no copy passes its keyed checksum")
            if migrating and not findings:
                self._migrate()
            for name in repaired:
                self._insert_event(0.0, "critical_repaired", 0, 0, {"row": name})
            rec = self._commit_record()
            if rec is not None and isinstance(rec.get("seq"), int):
                self.seq = max(self.seq, rec["seq"])  # the counter never goes back
        if findings:
            ram_error = True
            for f in findings:
                log.error("journal check: %s", f)
        try:
            if not findings:  # else the RAM error's own commit records it: a crash
                self.write_commit_record()  # before that must find the same again
        except OSError as e:  # the next durable commit fails and tilts
            log.error("journal commit record cannot be written: %s", e.strerror or e)
        return Loaded(
            state, round_state, ram_error, round_corrupt, repaired, findings, salvaged=bool(self.salvage_findings)
        )

    def old_format(self) -> bool:
        """Plain SHA-256 critical rows in a journal never keyed (no commit record, no
        keyed evidence: ``guard.keyed_evidence``)."""
        if commit_file(self.path).exists() or keyed_evidence(self.db):
            return False
        return self.db.execute("SELECT 1 FROM critical LIMIT 1").fetchone() is not None

    def _migrate(self) -> None:
        """Rewrite plain SHA-256 rows with keyed checksums and chain the event log
        (inside ``load``'s transaction, only on a store opened to upgrade)."""
        assert self.key is not None
        for name, copy, seq, blob in self.db.execute("SELECT name, copy, seq, blob FROM critical").fetchall():
            self.db.execute(
                "UPDATE critical SET checksum=? WHERE name=? AND copy=?",
                (self._digest(name, seq, bytes(blob)), name, copy),
            )
        prev = ""
        rows = self.db.execute(
            "SELECT id, seq, wall_s, kind, station, amount_minor, data FROM events ORDER BY id"
        ).fetchall()
        for row in rows:
            prev = event_link(self.key, prev, row)
            self.db.execute("UPDATE events SET chain=? WHERE id=?", (prev, row[0]))
        for vn, rec in self.db.execute("SELECT validation_number, record FROM vouchers WHERE mac IS NULL").fetchall():
            self.db.execute("UPDATE vouchers SET mac=? WHERE validation_number=?", (self._voucher_mac(vn, rec), vn))
        self._event_id, self._chain = self._chain_head()
        self._insert_event(0.0, "journal_migrated", 0, 0, {"events": len(rows)})
        log.warning("journal %s migrated to keyed checksums (HMAC-SHA256, %d events chained)", self.path, len(rows))

    def load_readonly(self) -> CabinetState | None:
        """The newest good copy of the cabinet state, without repairing anything."""
        rows = self._read_rows("cabinet")
        good = [r for r in rows.values() if self._row_ok("cabinet", r[0], r[1], r[2])]
        if not good:
            return None
        try:
            return state_decoder.decode(max(good)[1])
        except msgspec.DecodeError:
            return None

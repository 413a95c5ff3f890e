"""Verifying the journal: every check ``Store.load`` and ``cabinet doctor`` run.

Owns: the keyed checksum of each critical row and voucher row, the walk of the
event log's hash chain, the commit record kept outside the database (written
after each durable commit, compared at start: a rolled-back or rewritten
journal), SQLite's own page check, and the doctor's report
(``verify``). I/O: SQLite and the commit-record file.
"""

from __future__ import annotations

import hmac
import json
import sqlite3
from typing import Any

import msgspec

from cabinet.core.records import VoucherRecord
from cabinet.shell.journal.base import TABLES, JournalBase, typed
from cabinet.shell.journal.guard import keyed_evidence
from cabinet.shell.journal.keys import MAC_PREFIX, checksum, event_link, mac
from cabinet.shell.journal.record import RecordFile, read_records
from cabinet.shell.paths import commit_file

voucher_decoder = msgspec.json.Decoder(VoucherRecord)


class JournalChecks(JournalBase):
    """The journal's verification and its commit record (see the module doc)."""

    def _row_ok(self, name: str, seq: int, blob: bytes, digest: str) -> bool:
        """A keyed checksum that matches; a plain one only on a journal still to migrate."""
        if digest.startswith(MAC_PREFIX):
            return self.key is not None and hmac.compare_digest(mac(self.key, name, seq, blob), digest)
        return self.legacy_ok and checksum(name, seq, blob) == digest

    def _digest(self, name: str, seq: int, blob: bytes) -> str:
        assert self.key is not None
        return mac(self.key, name, seq, blob)

    def _voucher_mac(self, validation_number: str, record: str) -> str:
        assert self.key is not None
        return hmac.digest(self.key, f"voucher\x1f{validation_number}\x1f{record}".encode(), "sha256").hex()

    def _voucher_ok(self, validation_number: str, record: str, digest: str | None) -> bool:
        if digest is None:
            return self.legacy_ok
        return self.key is not None and hmac.compare_digest(self._voucher_mac(validation_number, record), digest)

    def verify_vouchers(self) -> list[str]:
        """Every voucher row against its keyed checksum, and its plain columns against
        the keyed record they index (a ``status`` or ``amount_minor``
        rewritten beside an intact record is found too)."""
        bad, disagree = [], []
        for vn, seq, station, amount, status, rec, digest in self.db.execute(
            "SELECT validation_number, sequence, station, amount_minor, status, record, mac "
            "FROM vouchers ORDER BY sequence"
        ):
            if not self._voucher_ok(vn, rec, digest):
                bad.append(vn)
                continue
            r = voucher_decoder.decode(rec)
            if (seq, station, amount, status) != (r.sequence, r.station, r.amount_minor, r.status):
                disagree.append(vn)
        findings = []
        if bad:
            findings.append(
                f"{len(bad)} voucher row(s) fail their keyed checksum (validation "
                f"numbers ending {', '.join(vn[-4:] for vn in bad[:5])})"
            )
        if disagree:
            findings.append(
                f"{len(disagree)} voucher row(s) whose columns disagree with their "
                f"keyed record (validation numbers ending "
                f"{', '.join(vn[-4:] for vn in disagree[:5])})"
            )
        return findings

    def verify_chain(self) -> list[str]:
        """Walk the event log's keyed hash chain; one finding per break."""
        if self.key is None:
            return ["the journal key cannot be read: the event log cannot be verified"]
        findings: list[str] = []
        prev = ""
        rows = self.db.execute(
            "SELECT id, seq, wall_s, kind, station, amount_minor, data, chain FROM events ORDER BY id"
        ).fetchall()
        for row in rows:
            if row[7] is None:
                if self.legacy_ok:
                    continue
                findings.append(f"event {row[0]} ({row[3]}) has no chain link")
            elif not hmac.compare_digest(event_link(self.key, prev, row[:7]), row[7]):
                findings.append(
                    f"event {row[0]} ({row[3]}) fails the event chain: an event before it was deleted or it was changed"
                )
            prev = row[7] or ""
            if len(findings) >= 5:
                findings.append("(more breaks not listed)")
                break
        return findings

    def _commit_record(self) -> dict[str, Any] | None:
        """The newest record in the commit-record file that passes its keyed check,
        else ``None``."""
        good = [r for r in read_records(commit_file(self.path)) or [] if self._record_ok(r)]
        return max(good, key=lambda r: int(r["seq"])) if good else None

    def _record_ok(self, rec: dict[str, Any]) -> bool:
        if self.key is None:
            return False
        try:
            seq, event_id, chain = int(rec["seq"]), int(rec["event_id"]), str(rec["chain"])
            counter = None if rec.get("counter") is None else int(rec["counter"])
            return hmac.compare_digest(self._record_mac(seq, event_id, chain, counter), str(rec["mac"]))
        except (KeyError, TypeError, ValueError):
            return False

    def _record_mac(self, seq: int, event_id: int, chain: str, counter: int | None = None) -> str:
        assert self.key is not None
        msg = f"commit:{seq}:{event_id}:{chain}" + ("" if counter is None else f":{counter}")
        return hmac.digest(self.key, msg.encode(), "sha256").hex()

    def verify_commit_record(self) -> list[str]:
        """Compare the journal with the commit record kept outside it."""
        path = commit_file(self.path)
        if not path.exists():
            # a journal ever keyed had one; without keyed evidence the old-format rows
            # fail on their own (only ``cabinet upgrade-journal`` takes them, once)
            return [f"the commit record {path.name} is missing"] if keyed_evidence(self.db) else []
        if self.key is None:
            return ["the journal key cannot be read: the commit record cannot be verified"]
        if read_records(path) is None:
            return [f"the commit record {path.name} cannot be read"]
        rec = self._commit_record()
        if rec is None:
            return [f"the commit record {path.name} fails its keyed check"]
        seq, event_id, chain = int(rec["seq"]), int(rec["event_id"]), str(rec["chain"])
        counter = None if rec.get("counter") is None else int(rec["counter"])
        journal_seq = self._max_seq()
        if journal_seq < seq:
            return [
                f"journal rolled back: commit {seq} was recorded, the journal holds "
                f"only up to commit {journal_seq} (lost WAL or an old copy)"
            ]
        if event_id:
            row = self.db.execute("SELECT chain FROM events WHERE id=?", (event_id,)).fetchone()
            if row is None or row[0] != chain:
                return [f"the event log does not end as recorded (event {event_id}): events were removed"]
        return [] if self.hw is None else self.hw.check(counter, event_id)

    def write_commit_record(self) -> None:
        """Record the last commit number and chain head (and, with a hardware counter
        fitted, the counter's value, ``journal.counter``) durably (``record.RecordFile``:
        written in place, one ``fdatasync``).

        Raises:
            OSError: the record cannot be written.
            StoreError: the fitted counter cannot be read or did not step.
        """
        if self.readonly or self.key is None:
            return
        if self._record_file is None:
            self._record_file = RecordFile(commit_file(self.path))
        counter = None if self.hw is None else self.hw.next_value(self._event_id)
        rec: dict[str, Any] = {
            "seq": self.seq,
            "event_id": self._event_id,
            "chain": self._chain,
            "mac": self._record_mac(self.seq, self._event_id, self._chain, counter),
        }
        if counter is not None:
            rec["counter"] = counter
        self._record_file.write(rec)
        self.legacy_ok = False
        if self.hw is not None and counter is not None:
            self.hw.written(counter, self._event_id)

    _record_file: RecordFile | None = None

    def close(self) -> None:
        if self._record_file is not None:
            self._record_file.close()
        super().close()

    def verify(self) -> list[str]:
        """Every check (``cabinet doctor``): SQLite's own, both copies of each critical
        row, the event chain and the commit record. Returns findings, none if good."""
        findings: list[str] = []
        try:
            res = [r[0] for r in self.db.execute("PRAGMA quick_check").fetchall()]
            if res != ["ok"]:
                findings.append("SQLite check: " + "; ".join(map(str, res[:3])))
        except sqlite3.Error as e:
            return [f"SQLite check: {e}"]
        for name in ("cabinet", "round"):
            rows = self._read_rows(name)
            bad = [c for c, r in rows.items() if not self._row_ok(name, r[0], r[1], r[2])]
            if bad:
                findings.append(f"critical row {name}: copy {', '.join(map(str, bad))} fails its keyed checksum")
        findings += self.verify_chain()
        findings += self.verify_vouchers()
        findings += self.verify_commit_record()
        ram_error = self.ram_error_text()
        if ram_error is not None:
            findings.append(
                f"the cabinet is in a RAM error ({ram_error}); only a RAM clear in the maintenance menu ends it"
            )
        return findings

    def sqlite_check(self) -> list[str]:
        """SQLite's own ``quick_check`` of every page, the critical rows read through
        their index, then every row's values against their column's type
        (``base.COLUMN_TYPES``: a garbled record header reads back a commit number as
        text); problems found, none if good."""
        try:
            res = [str(r[0]) for r in self.db.execute("PRAGMA quick_check").fetchall()]
            self.db.execute("SELECT COUNT(*) FROM critical").fetchone()
            if res != ["ok"]:
                return res[:3]
            for name in ("cabinet", "round"):  # through the index, as ``load`` reads
                self._read_rows(name)
            for table, cols in TABLES.items():
                bad = self.db.execute(f"SELECT COUNT(*) FROM {table} WHERE NOT ({typed(table, cols)})").fetchone()[0]
                if bad:
                    res.append(f"{bad} {table} row(s) hold values of the wrong type")
        except sqlite3.Error as e:
            return [str(e)]
        return [] if res == ["ok"] else res[1:4]

    def ram_error_text(self) -> str | None:
        """What the cabinet's own RAM error says, when the journal's newest good state
        is one (the journal then verifies, but the cabinet is not fit to play), else
        ``None``."""
        rows = self._read_rows("cabinet")
        good = [r for r in rows.values() if self._row_ok("cabinet", r[0], r[1], r[2])]
        if not good:
            return None
        try:
            state = json.loads(max(good)[1])
        except ValueError:
            return None
        if not isinstance(state, dict) or not state.get("ram_error"):
            return None
        faults = state.get("faults") or {}
        why = faults.get("ram_error") if isinstance(faults, dict) else None
        return str(why or "no good copy of the cabinet state")

"""The journal: SQLite storage of the cabinet's critical state and history.

Owns: the database file and its schema; committing the state, the round and
the journal effects of one ``Cabinet.handle`` in one transaction; verifying
and repairing the two checksummed copies of every critical row at start
(research/cabinet-features.md C "Critical memory integrity"); the keyed
checksums (HMAC-SHA256, per-cabinet key file), the event log's hash chain and
the commit record outside the database that find a tampered or rolled-back
journal (issues 11.2, 11.14); salvaging a journal SQLite cannot read (11.7);
the read-only history views (recall, events, vouchers). I/O: this is a shell
module.

SQLite runs in WAL mode with ``synchronous=FULL``: a commit that returned is
on disk, and a power cut during one leaves the previous state whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
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
from cabinet.core.records import RecallEntry, VoucherRecord
from cabinet.core.state import CabinetState
from cabinet.shell.paths import commit_file, key_file, private_dir, private_file

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
#: Prefix of a keyed checksum (HMAC-SHA256); a bare hex digest is the old plain SHA-256.
MAC_PREFIX = "hmac:"
log = logging.getLogger("cabinet.store")
_state_decoder = msgspec.json.Decoder(CabinetState)
_recall_decoder = msgspec.json.Decoder(RecallEntry)
_voucher_decoder = msgspec.json.Decoder(VoucherRecord)


def checksum(name: str, seq: int, blob: bytes) -> str:
    """SHA-256 over the row's name, commit number and contents (hex)."""
    h = hashlib.sha256()
    h.update(f"{name}:{seq}:".encode())
    h.update(blob)
    return h.hexdigest()


def mac(key: bytes, name: str, seq: int, blob: bytes) -> str:
    """Keyed checksum of a critical row: ``"hmac:"`` + HMAC-SHA256 hex (issue 11.14)."""
    h = hmac.new(key, f"{name}:{seq}:".encode(), hashlib.sha256)
    h.update(blob)
    return MAC_PREFIX + h.hexdigest()


def event_link(key: bytes, prev: str, row: Sequence[Any]) -> str:
    """The hash chain over the event log: HMAC-SHA256 of the previous link and the
    row ``(id, seq, wall_s, kind, station, amount_minor, data)`` as stored (hex)."""
    msg = (f"{prev}\x1f{row[0]}\x1f{row[1]}\x1f{float(row[2])!r}\x1f{row[3]}\x1f{row[4]}"
           f"\x1f{row[5]}\x1f{row[6]}")
    return hmac.digest(key, msg.encode(), "sha256").hex()


def load_key(path: Path, create: bool) -> tuple[bytes | None, bool]:
    """The per-cabinet secret: 32 random bytes, hex in a 0600 file beside the journal.

    Returns:
        ``(key, created)``; ``(None, False)`` when the file is missing and
        ``create`` is false, or cannot be read (another user).

    Raises:
        StoreError: the file exists but does not hold a key, or cannot be created.
    """
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        if not create:
            return None, False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise StoreError(f"journal key {path}: cannot create: {e.strerror or e}") from None
        _fsync_dir(path.parent)
        log.warning("journal key created: %s", path)
        return load_key(path, False)[0], True
    except OSError:
        return None, False
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise StoreError(f"journal key {path}: not a key file")
    return key, False


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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
        findings: what verification found (a rolled-back or tampered journal,
            issues 11.2 and 11.14); any finding is a RAM error.
    """

    state: CabinetState | None
    round_state: dict[str, Any] | None
    ram_error: bool
    round_corrupt: bool
    repaired: list[str]
    findings: list[str] = dataclasses.field(default_factory=list)
    salvaged: bool = False


def _owner_only(path: Path) -> None:
    """The journal file 0600 before SQLite opens it (its -wal and -shm take the same
    mode); a folder made for it 0700 (issue 11.15: the live round is in there)."""
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


class Store:
    """The journal database.

    Args:
        path: the SQLite file; its folder is created if missing.
        readonly: open for the CLI views while the engine runs.
        key: the HMAC secret; by default read from ``paths.key_file(path)``,
            created there (0600, ``secrets``) on a read-write open.

    Critical rows carry a keyed checksum (HMAC-SHA256), the event log a keyed
    hash chain, and each durable commit is recorded outside the database in
    ``paths.commit_file(path)`` (commit number and chain head, HMAC'd, fsynced,
    replaced atomically), so a journal rolled back by a lost WAL or rewritten
    by hand is found at start (issues 11.2, 11.14).

    Raises:
        StoreError: the file cannot be opened or is not a journal; the key
            file is unreadable on a read-write open or is not a key.
    """

    def __init__(self, path: str | Path, readonly: bool = False,
                 key: bytes | None = None) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.key_created = False
        if key is None:
            key, self.key_created = load_key(key_file(self.path), create=not readonly)
            if key is None and not readonly:
                raise StoreError(f"journal key {key_file(self.path)}: cannot be read")
        self.key = key
        #: Plain SHA-256 rows are accepted (and migrated) only on a journal that
        #: never had a keyed commit recorded.
        self.legacy_ok = not commit_file(self.path).exists()
        try:
            if readonly:
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                          isolation_level=None, check_same_thread=False)
            else:
                _owner_only(self.path)
                self.db = sqlite3.connect(self.path, isolation_level=None,
                                          check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
                cols = [r[1] for r in self.db.execute("PRAGMA table_info(events)")]
                if "chain" not in cols:
                    self.db.execute("ALTER TABLE events ADD COLUMN chain TEXT")
                cols = [r[1] for r in self.db.execute("PRAGMA table_info(vouchers)")]
                if "mac" not in cols:
                    self.db.execute("ALTER TABLE vouchers ADD COLUMN mac TEXT")
            self.db.execute("PRAGMA busy_timeout=5000")
        except sqlite3.Error as e:
            raise StoreError(f"journal {self.path}: {e}") from None
        self.seq = self._max_seq()
        self._event_id, self._chain = self._chain_head()
        #: Set by ``open_journal`` when this journal was salvaged from a corrupt one.
        self.salvage_findings: list[str] = []
        #: ``(state blob, round blob)`` of the last commit that returned.
        self.committed: tuple[bytes, bytes] | None = None
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

    def _row_ok(self, name: str, seq: int, blob: bytes, digest: str) -> bool:
        """A keyed checksum that matches; a plain one only on a journal still to migrate."""
        if digest.startswith(MAC_PREFIX):
            return self.key is not None and hmac.compare_digest(
                mac(self.key, name, seq, blob), digest)
        return self.legacy_ok and checksum(name, seq, blob) == digest

    def _digest(self, name: str, seq: int, blob: bytes) -> str:
        assert self.key is not None
        return mac(self.key, name, seq, blob)

    def _voucher_mac(self, validation_number: str, record: str) -> str:
        assert self.key is not None
        return hmac.digest(self.key, f"voucher\x1f{validation_number}\x1f{record}".encode(),
                           "sha256").hex()

    def _voucher_ok(self, validation_number: str, record: str, digest: str | None) -> bool:
        if digest is None:
            return self.legacy_ok
        return self.key is not None and hmac.compare_digest(
            self._voucher_mac(validation_number, record), digest)

    def verify_vouchers(self) -> list[str]:
        """Every voucher row against its keyed checksum, and its plain columns against
        the keyed record they index (issue 11.14: a ``status`` or ``amount_minor``
        rewritten beside an intact record is found too)."""
        bad, disagree = [], []
        for vn, seq, station, amount, status, rec, digest in self.db.execute(
                "SELECT validation_number, sequence, station, amount_minor, status, record, mac "
                "FROM vouchers ORDER BY sequence"):
            if not self._voucher_ok(vn, rec, digest):
                bad.append(vn)
                continue
            r = _voucher_decoder.decode(rec)
            if (seq, station, amount, status) != (r.sequence, r.station, r.amount_minor, r.status):
                disagree.append(vn)
        findings = []
        if bad:
            findings.append(f"{len(bad)} voucher row(s) fail their keyed checksum (validation "
                            f"numbers ending {', '.join(vn[-4:] for vn in bad[:5])})")
        if disagree:
            findings.append(f"{len(disagree)} voucher row(s) whose columns disagree with their "
                            f"keyed record (validation numbers ending "
                            f"{', '.join(vn[-4:] for vn in disagree[:5])})")
        return findings

    def _chain_head(self) -> tuple[int, str]:
        try:
            row = self.db.execute("SELECT id, chain FROM events ORDER BY id DESC "
                                  "LIMIT 1").fetchone()
        except sqlite3.Error:
            return 0, ""
        return (0, "") if row is None else (int(row[0]), str(row[1] or ""))

    def verify_chain(self) -> list[str]:
        """Walk the event log's keyed hash chain; one finding per break (issue 11.14)."""
        if self.key is None:
            return ["the journal key cannot be read: the event log cannot be verified"]
        findings: list[str] = []
        prev = ""
        rows = self.db.execute("SELECT id, seq, wall_s, kind, station, amount_minor, data, "
                               "chain FROM events ORDER BY id").fetchall()
        for row in rows:
            if row[7] is None:
                if self.legacy_ok:
                    continue
                findings.append(f"event {row[0]} ({row[3]}) has no chain link")
            elif not hmac.compare_digest(event_link(self.key, prev, row[:7]), row[7]):
                findings.append(f"event {row[0]} ({row[3]}) fails the event chain: "
                                "an event before it was deleted or it was changed")
            prev = row[7] or ""
            if len(findings) >= 5:
                findings.append("(more breaks not listed)")
                break
        return findings

    def _commit_record(self) -> dict[str, Any] | None:
        try:
            return dict(json.loads(commit_file(self.path).read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def _record_mac(self, seq: int, event_id: int, chain: str) -> str:
        assert self.key is not None
        return hmac.new(self.key, f"commit:{seq}:{event_id}:{chain}".encode(),
                        hashlib.sha256).hexdigest()

    def verify_commit_record(self) -> list[str]:
        """Compare the journal with the commit record kept outside it (issue 11.2)."""
        path = commit_file(self.path)
        if not path.exists():
            keyed = self.db.execute("SELECT 1 FROM critical WHERE checksum LIKE 'hmac:%' "
                                    "LIMIT 1").fetchone()
            return [f"the commit record {path.name} is missing"] if keyed else []
        rec = self._commit_record()
        if self.key is None:
            return ["the journal key cannot be read: the commit record cannot be verified"]
        if rec is None:
            return [f"the commit record {path.name} cannot be read"]
        try:
            seq, event_id, chain = int(rec["seq"]), int(rec["event_id"]), str(rec["chain"])
            ok = hmac.compare_digest(self._record_mac(seq, event_id, chain), str(rec["mac"]))
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            return [f"the commit record {path.name} fails its keyed check"]
        journal_seq = self._max_seq()
        if journal_seq < seq:
            return [f"journal rolled back: commit {seq} was recorded, the journal holds "
                    f"only up to commit {journal_seq} (lost WAL or an old copy)"]
        if event_id:
            row = self.db.execute("SELECT chain FROM events WHERE id=?", (event_id,)).fetchone()
            if row is None or row[0] != chain:
                return [f"the event log does not end as recorded (event {event_id}): "
                        "events were removed"]
        return []

    def write_commit_record(self) -> None:
        """Record the last commit number and chain head: fsynced, replaced atomically."""
        if self.readonly or self.key is None:
            return
        path = commit_file(self.path)
        tmp = path.with_name(path.name + ".tmp")
        rec = {"seq": self.seq, "event_id": self._event_id, "chain": self._chain,
               "mac": self._record_mac(self.seq, self._event_id, self._chain)}
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(rec))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
        self.legacy_ok = False

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
                findings.append(f"critical row {name}: copy {', '.join(map(str, bad))} fails "
                                "its keyed checksum")
        findings += self.verify_chain()
        findings += self.verify_vouchers()
        findings += self.verify_commit_record()
        return findings

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
                self.db.execute("INSERT OR REPLACE INTO critical VALUES (?,?,?,?,?)",
                                (name, c, seq, blob, digest))
                repaired = True
        return blob, True, repaired

    def sqlite_check(self) -> list[str]:
        """SQLite's own ``quick_check`` of every page; problems found, none if good."""
        try:
            res = [str(r[0]) for r in self.db.execute("PRAGMA quick_check").fetchall()]
            self.db.execute("SELECT COUNT(*) FROM critical").fetchone()
        except sqlite3.Error as e:
            return [str(e)]
        return [] if res == ["ok"] else res[:3]

    def load(self) -> Loaded:
        """Read and verify the critical rows; repair a bad copy from a good one.

        Returns:
            ``Loaded``; a first boot gives ``state=None`` and no error.
        """
        repaired: list[str] = []
        findings: list[str] = list(self.salvage_findings)
        with self._tx():
            migrating = self.legacy_ok and self.db.execute(
                "SELECT 1 FROM critical WHERE checksum NOT LIKE 'hmac:%' UNION ALL SELECT 1 "
                "FROM events WHERE chain IS NULL UNION ALL SELECT 1 FROM vouchers WHERE mac "
                "IS NULL LIMIT 1").fetchone() is not None
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
            if exists and blob is None:
                findings.append("critical row cabinet: no copy passes its keyed checksum")
            if migrating and not findings:
                self._migrate()
            for name in repaired:
                self._insert_event(0.0, "critical_repaired", 0, 0, {"row": name})
            rec = self._commit_record()
            if rec is not None and isinstance(rec.get("seq"), int):
                self.seq = max(self.seq, rec["seq"])     # the counter never goes back
        if findings:
            ram_error = True
            for f in findings:
                log.error("journal check: %s", f)
        try:
            if not findings:        # else the RAM error's own commit records it: a crash
                self.write_commit_record()  # before that must find the same again
        except OSError as e:            # the next durable commit fails and tilts
            log.error("journal commit record cannot be written: %s", e.strerror or e)
        return Loaded(state, round_state, ram_error, round_corrupt, repaired, findings,
                      salvaged=bool(self.salvage_findings))

    def _migrate(self) -> None:
        """Rewrite plain SHA-256 rows with keyed checksums and chain the event log
        (inside ``load``'s transaction; issue 11.14)."""
        assert self.key is not None
        for name, copy, seq, blob in self.db.execute(
                "SELECT name, copy, seq, blob FROM critical").fetchall():
            self.db.execute("UPDATE critical SET checksum=? WHERE name=? AND copy=?",
                            (self._digest(name, seq, bytes(blob)), name, copy))
        prev = ""
        rows = self.db.execute("SELECT id, seq, wall_s, kind, station, amount_minor, data "
                               "FROM events ORDER BY id").fetchall()
        for row in rows:
            prev = event_link(self.key, prev, row)
            self.db.execute("UPDATE events SET chain=? WHERE id=?", (prev, row[0]))
        for vn, rec in self.db.execute("SELECT validation_number, record FROM vouchers "
                                       "WHERE mac IS NULL").fetchall():
            self.db.execute("UPDATE vouchers SET mac=? WHERE validation_number=?",
                            (self._voucher_mac(vn, rec), vn))
        self._event_id, self._chain = self._chain_head()
        self._insert_event(0.0, "journal_migrated", 0, 0, {"events": len(rows)})
        log.warning("journal %s migrated to keyed checksums (HMAC-SHA256, %d events chained)",
                    self.path, len(rows))

    def load_readonly(self) -> CabinetState | None:
        """The newest good copy of the cabinet state, without repairing anything."""
        rows = self._read_rows("cabinet")
        good = [r for r in rows.values() if self._row_ok("cabinet", r[0], r[1], r[2])]
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
                    try:
                        store.db.execute("COMMIT")
                    except sqlite3.Error:       # disk full at COMMIT: leave no open tx
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
        saved = (self.seq, self._event_id, self._chain)
        try:
            if durable != self._durable:
                self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                self._durable = durable
            with self._tx():
                self.seq += 1
                for name, data in (("cabinet", blob), ("round", rblob)):
                    digest = self._digest(name, self.seq, data)
                    for c in COPIES:
                        self.db.execute("INSERT OR REPLACE INTO critical VALUES (?,?,?,?,?)",
                                        (name, c, self.seq, data, digest))
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
        self._last_blobs["cabinet~"] = self._encode_state(state, for_compare=True)
        self._last_blobs["round"] = rblob
        self._last_blobs["critical"] = critical
        self._last_blobs["round~"] = round_key

    def _insert_event(self, wall_s: float, kind: str, station: int, amount: int,
                      data: dict[str, Any]) -> None:
        assert self.key is not None
        row = (self._event_id + 1, self.seq, float(wall_s), kind, station, amount,
               json.dumps(data, default=str))
        link = event_link(self.key, self._chain, row)
        self.db.execute("INSERT INTO events (id, seq, wall_s, kind, station, amount_minor, data, "
                        "chain) VALUES (?,?,?,?,?,?,?,?)", (*row, link))
        self._event_id, self._chain = row[0], link

    def _apply(self, e: Effect, wall_s: float, state: CabinetState) -> None:
        if isinstance(e, Journal):
            self._insert_event(wall_s, e.kind, e.station, e.amount_minor, e.data)
        elif isinstance(e, SaveVoucher):
            r = e.record
            text = msgspec.json.encode(r).decode()
            self.db.execute("INSERT OR REPLACE INTO vouchers (validation_number, sequence, "
                            "station, amount_minor, status, record, mac) VALUES (?,?,?,?,?,?,?)",
                            (r.validation_number, r.sequence, r.station, r.amount_minor,
                             r.status, text, self._voucher_mac(r.validation_number, text)))
        elif isinstance(e, SetVoucherStatus):
            row = self.db.execute("SELECT record FROM vouchers WHERE validation_number=?",
                                  (e.validation_number,)).fetchone()
            if row is not None:
                rec = _voucher_decoder.decode(row[0])
                changes: dict[str, Any] = {"status": e.status}
                if e.status == "redeemed":
                    changes["redeemed_wall_s"] = e.wall_s
                rec = msgspec.structs.replace(rec, **changes)
                text = msgspec.json.encode(rec).decode()
                self.db.execute("UPDATE vouchers SET status=?, record=?, mac=? WHERE "
                                "validation_number=?",
                                (e.status, text, self._voucher_mac(e.validation_number, text),
                                 e.validation_number))
        elif isinstance(e, SaveRecall):
            self.db.execute("INSERT INTO recall (round_id, station, entry) VALUES (?,?,?)",
                            (e.entry.round_id, e.entry.station,
                             msgspec.json.encode(e.entry).decode()))
            keep = state.settings.recall_depth
            self.db.execute("DELETE FROM recall WHERE station=? AND id NOT IN (SELECT id FROM "
                            "recall WHERE station=? ORDER BY id DESC LIMIT ?)",
                            (e.entry.station, e.entry.station, keep))
        elif isinstance(e, ClearJournal):
            # issue 11.12: an outstanding (issued, unredeemed) voucher's record survives
            # decided by the keyed record, never by the plain status column; a row that
            # fails its checksum is kept as evidence
            gone = [vn for vn, rec, digest in self.db.execute(
                        "SELECT validation_number, record, mac FROM vouchers").fetchall()
                    if self._voucher_ok(vn, rec, digest)
                    and _voucher_decoder.decode(rec).status != "issued"]
            self.db.executemany("DELETE FROM vouchers WHERE validation_number=?",
                                [(vn,) for vn in gone])
            for table in ("events", "recall"):
                self.db.execute(f"DELETE FROM {table}")
            self._chain = ""                    # a new chain; event ids keep counting

    # -- reading (history for maintenance and the CLI) -----------------------------------------

    def voucher(self, validation_number: str) -> VoucherRecord | None:
        """The record of a validation number, or ``None`` if this cabinet never issued it."""
        row = self.db.execute("SELECT record, mac FROM vouchers WHERE validation_number=?",
                              (validation_number,)).fetchone()
        if row is None:
            return None
        if not self._voucher_ok(validation_number, row[0], row[1]):
            log.error("voucher ...%s: its journal row fails its keyed checksum; refused",
                      validation_number[-4:])
            return None
        return _voucher_decoder.decode(row[0])

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        rows = self.db.execute("SELECT record FROM vouchers ORDER BY sequence DESC LIMIT ?",
                               (limit,)).fetchall()
        return [_voucher_decoder.decode(r[0]) for r in rows]

    def outstanding_vouchers(self) -> list[VoucherRecord]:
        """Every voucher printed and not yet redeemed (status ``issued``), oldest first."""
        rows = self.db.execute("SELECT validation_number, record, mac FROM vouchers "
                               "ORDER BY sequence").fetchall()
        records = [_voucher_decoder.decode(rec) for vn, rec, digest in rows
                   if self._voucher_ok(vn, rec, digest)]
        return [r for r in records if r.status == "issued"]   # by the keyed record (11.14)

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


# -- a journal SQLite cannot read (issue 11.7) ------------------------------------------------

#: Tables copied by ``salvage``, with their columns in order.
_TABLES = {
    "critical": "name, copy, seq, blob, checksum",
    "events": "id, seq, wall_s, kind, station, amount_minor, data, chain",
    "vouchers": "validation_number, sequence, station, amount_minor, status, record, mac",
    "recall": "id, round_id, station, entry",
}


def open_journal(path: str | Path) -> tuple[Store, list[str]]:
    """Open the engine's journal; salvage it first if SQLite finds it corrupt.

    Returns:
        ``(store, findings)``: findings empty for a sound journal; else what was
        found and salvaged (``store.load()`` then reports a RAM error with them).

    Raises:
        StoreError: the journal cannot be opened nor a fresh one made (folder
            not writable, key unreadable).
    """
    path = Path(path)
    try:
        store = Store(path)
        problems = store.sqlite_check()
        if not problems:
            return store, []
        store.close()
    except StoreError as e:
        if not path.exists() or "key" in str(e).split(":")[0]:
            raise
        problems = [str(e).removeprefix(f"journal {path}: ")]
    findings = salvage(path, problems)
    store = Store(path)
    store.salvage_findings = findings
    return store, findings


def _readable_rows(db: sqlite3.Connection, table: str, cols: str) -> tuple[list[Any], bool]:
    """Every row of ``table`` SQLite can still read, by rowid, skipping damaged pages.

    Returns ``(rows, complete)``; ``complete`` is false when something was skipped."""
    rows: list[Any] = []
    try:
        top = db.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0]
    except sqlite3.Error:
        top = None
    lo = -(2**63)
    complete = True
    for _attempt in range(200):
        try:
            for row in db.execute(f"SELECT rowid, {cols} FROM {table} WHERE rowid > ? "
                                  "ORDER BY rowid", (lo,)):
                rows.append(row[1:])
                lo = row[0]
            return rows, complete
        except sqlite3.Error:
            complete = False
            if top is None or lo >= top:
                return rows, complete
            lo = lo + 1 if lo < 0 else lo + max(1, (top - lo) // 64)
    return rows, False


def salvage(path: Path, problems: list[str]) -> list[str]:
    """Move the corrupt journal aside (``<name>.corrupt-<UTC time>``, with its WAL) and
    copy every readable row into a fresh journal at ``path``.

    Returns:
        One finding: what was wrong, where the file is, what was kept.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(aside) + suffix))
    kept: dict[str, int] = {}
    lost: list[str] = []
    try:
        old = sqlite3.connect(aside, isolation_level=None)
    except sqlite3.Error:
        old = None
    fresh = Store(path)
    try:
        with fresh._tx():
            for table, cols in _TABLES.items():
                rows: list[Any] = []
                complete = False
                if old is not None:
                    rows, complete = _readable_rows(old, table, cols)
                    if not rows and table in ("events", "vouchers"):
                        # an old-format journal has no chain / mac column
                        rows, complete = _readable_rows(old, table, cols.rsplit(",", 1)[0])
                        rows = [(*r, None) for r in rows]
                marks = ",".join("?" * len(cols.split(",")))
                for row in rows:
                    fresh.db.execute(f"INSERT OR REPLACE INTO {table} ({cols}) VALUES "
                                     f"({marks})", row)
                kept[table] = len(rows)
                if not complete:
                    lost.append(table)
        fresh.seq = fresh._max_seq()
        fresh._event_id, fresh._chain = fresh._chain_head()
        finding = (f"journal {path.name} was corrupt ({'; '.join(problems)[:120]}); kept as "
                   f"{aside.name}; salvaged {kept.get('critical', 0)} critical rows, "
                   f"{kept.get('events', 0)} events, {kept.get('vouchers', 0)} vouchers, "
                   f"{kept.get('recall', 0)} recall entries"
                   + (f" (unreadable parts of: {', '.join(lost)})" if lost else ""))
        with fresh._tx():
            fresh._insert_event(time.time(), "journal_salvaged", 0, 0,
                                {"corrupt_file": aside.name, "kept": kept, "lost": lost})
    finally:
        fresh.close()
        if old is not None:
            old.close()
    log.error("%s", finding)
    return [finding]

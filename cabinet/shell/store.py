"""The journal: SQLite storage of the cabinet's critical state and history.

``Store`` is the one object callers use; its parts live in ``cabinet/shell/journal/``,
one concern each:

- ``base``: the schema, the connection (WAL, ``synchronous=FULL``), the transaction;
- ``keys``: the keyed checksums (HMAC-SHA256), the event-chain link, the key file;
- ``verify``: the checks of every row, the event chain and the commit record kept
  outside the database, and the doctor's report;
- ``commit``: the state, the round and one event's journal effects in one transaction;
- ``load``: reading, repairing and migrating the critical rows at start
  (research/cabinet-features.md C "Critical memory integrity");
- ``history``: the read-only views (vouchers, recall, events, open escrows).

This module owns opening a journal and salvaging one SQLite cannot read (11.7).
I/O: this is a shell module.

SQLite runs in WAL mode with ``synchronous=FULL``: a commit that returned is
on disk, and a power cut during one leaves the previous state whole.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cabinet.core.errors import StoreError
from cabinet.shell.journal.base import COLUMN_TYPES, COPIES, SCHEMA, TABLES, connect, lenient_text
from cabinet.shell.journal.counter import CounterRecord
from cabinet.shell.journal.guard import journal_format
from cabinet.shell.journal.history import JournalHistory
from cabinet.shell.journal.keys import MAC_PREFIX, checksum, event_link, load_key, log, mac
from cabinet.shell.journal.load import JournalLoader, Loaded
from cabinet.shell.paths import commit_file, key_file

if TYPE_CHECKING:  # the drivers' contracts load only with a counter fitted
    from drivers.interfaces import MonotonicCounter

__all__ = [
    "COPIES",
    "MAC_PREFIX",
    "SCHEMA",
    "Loaded",
    "Store",
    "checksum",
    "event_link",
    "load_key",
    "mac",
    "open_journal",
    "salvage",
    "salvage_and_open",
    "upgrade_journal",
]


class Store(JournalLoader, JournalHistory):
    """The journal database.

    Args:
        path: the SQLite file; its folder is created if missing.
        readonly: open for the CLI views while the engine runs.
        upgrade: take plain SHA-256 rows (``upgrade_journal`` only).
        key: the HMAC secret; by default read from ``paths.key_file(path)``,
            created there (0600, ``secrets``) on a read-write open.
        counter: the fitted hardware monotonic counter (``[journal] counter``, opened
            by ``journal.counter.open_fitted``; its opener closes it), or ``None``.

    Critical rows carry a keyed checksum (HMAC-SHA256), the event log a keyed
    hash chain, and each durable commit is recorded outside the database in
    ``paths.commit_file(path)`` (commit number and chain head, HMAC'd, fsynced,
    replaced atomically), so a journal rolled back by a lost WAL or rewritten
    by hand is found at start.

    Raises:
        StoreError: the file cannot be opened or is not a journal; the key
            file is unreadable on a read-write open or is not a key.
    """

    def __init__(
        self,
        path: str | Path,
        readonly: bool = False,
        key: bytes | None = None,
        upgrade: bool = False,
        counter: MonotonicCounter | None = None,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.key_created = False
        if key is None:
            key, self.key_created = load_key(key_file(self.path), create=not readonly)
            if key is None and not readonly:
                raise StoreError(f"journal key {key_file(self.path)}: cannot be read")
        self.key = key
        self.hw = None if counter is None else CounterRecord(counter)
        #: Plain SHA-256 rows are accepted (and migrated by ``load``) only when opened
        #: to upgrade (``upgrade_journal``) a journal that never had a commit record.
        self.legacy_ok = upgrade and not commit_file(self.path).exists()
        self.db = connect(self.path, readonly)
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


# -- a journal SQLite cannot read ------------------------------------------------


def open_journal(path: str | Path, counter: MonotonicCounter | None = None) -> tuple[Store, list[str]]:
    """Open the engine's journal (with the fitted hardware ``counter``, if any); salvage
    it first if SQLite finds it corrupt.

    Returns:
        ``(store, findings)``: findings empty for a sound journal; else what was
        found and salvaged (``store.load()`` then reports a RAM error with them).

    Raises:
        StoreError: the journal cannot be opened nor a fresh one made (folder
            not writable, key unreadable).
    """
    path = Path(path)
    try:
        store = Store(path, counter=counter)
        problems = store.sqlite_check()
        if not problems:
            return store, []
        store.close()
    except StoreError as e:
        if not path.exists() or "key" in str(e).split(":")[0]:
            raise
        problems = [str(e).removeprefix(f"journal {path}: ")]
    store = salvage_and_open(path, problems, counter)
    return store, store.salvage_findings


def salvage_and_open(path: Path, problems: list[str], counter: MonotonicCounter | None = None) -> Store:
    """``salvage`` the journal at ``path`` for ``problems`` and open the fresh one (with
    ``counter``), its ``salvage_findings`` set (its ``load`` is then a RAM error saying
    them)."""
    findings = salvage(path, problems)
    store = Store(path, counter=counter)
    store.salvage_findings = findings
    return store


def upgrade_journal(path: Path) -> str:
    """Upgrade a journal in the old format (plain SHA-256 checksums, no event chain) to
    keyed checksums, once: verified under the old rules, every row keyed, the event log
    chained, ``journal_migrated`` journaled, the commit record written. A journal ever
    keyed (commit record or keyed evidence, ``guard.keyed_evidence``) is never taken:
    plain rows in it were written without the key.

    Returns:
        The one line to print.

    Raises:
        StoreError: no journal, already keyed, nothing to upgrade, or the old rows do
            not verify (then nothing is changed); the message says which.
    """
    fmt = journal_format(path)
    if fmt in ("keyed", "empty", "none", "foreign"):
        raise StoreError(
            {
                "keyed": f"journal {path} is already in the keyed format: not "
                "upgraded (plain rows in it were not written by the "
                "cabinet)",
                "empty": f"journal {path} holds nothing to upgrade",
                "none": f"no journal at {path}",
                "foreign": f"{path} is not a cabinet journal",
            }[fmt]
        )
    had_key = key_file(path).exists()
    store = Store(path, upgrade=True)
    try:
        events = store.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        vouchers = store.db.execute("SELECT COUNT(*) FROM vouchers").fetchone()[0]
        loaded = store.load()
    finally:
        store.close()
    if loaded.findings or loaded.ram_error:
        if not had_key:
            key_file(path).unlink(missing_ok=True)
        raise StoreError(
            f"journal {path} not upgraded: " + ("; ".join(loaded.findings) or "no good copy of the cabinet state")
        )
    return (
        f"journal {path} upgraded to keyed checksums (HMAC-SHA256): {events} "
        f"event{'s' if events != 1 else ''} chained, {vouchers} voucher"
        f"{'s' if vouchers != 1 else ''}; journaled as journal_migrated"
    )


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
            for row in db.execute(f"SELECT rowid, {cols} FROM {table} WHERE rowid > ? ORDER BY rowid", (lo,)):
                rows.append(row[1:])
                lo = row[0]
            return rows, complete
        except sqlite3.Error:
            complete = False
            if top is None or lo >= top:
                return rows, complete
            lo = lo + 1 if lo < 0 else lo + max(1, (top - lo) // 64)
    return rows, False


_SQL_TYPES = {"integer": int, "real": float, "text": str, "blob": bytes, "null": type(None)}


def _typed_row(table: str, cols: str, row: Any) -> bool:
    """Whether every value of ``row`` is of its column's type (``base.COLUMN_TYPES``)."""
    names = [c.strip() for c in cols.split(",")]
    return all(
        type(v) in tuple(_SQL_TYPES[k] for k in COLUMN_TYPES[table][n].split()) for n, v in zip(names, row, strict=True)
    )


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
        old.text_factory = lenient_text
    except sqlite3.Error:
        old = None
    fresh = Store(path)
    try:
        with fresh._tx():
            for table, cols in TABLES.items():
                rows: list[Any] = []
                complete = False
                if old is not None:
                    rows, complete = _readable_rows(old, table, cols)
                    if not rows and table in ("events", "vouchers"):
                        # an old-format journal has no chain / mac column
                        rows, complete = _readable_rows(old, table, cols.rsplit(",", 1)[0])
                        rows = [(*r, None) for r in rows]
                    # a row whose values are not of their column's type is garbled
                    good = [r for r in rows if _typed_row(table, cols, r)]
                    complete = complete and len(good) == len(rows)
                    rows = good
                marks = ",".join("?" * len(cols.split(",")))
                for row in rows:
                    fresh.db.execute(f"INSERT OR REPLACE INTO {table} ({cols}) VALUES ({marks})", row)
                kept[table] = len(rows)
                if not complete:
                    lost.append(table)
        fresh.seq = fresh._max_seq()
        fresh._event_id, fresh._chain = fresh._chain_head()
        finding = (
            f"journal {path.name} was corrupt ({'; '.join(problems)[:120]}); kept as "
            f"{aside.name}; salvaged {kept.get('critical', 0)} critical rows, "
            f"{kept.get('events', 0)} events, {kept.get('vouchers', 0)} vouchers, "
            f"{kept.get('recall', 0)} recall entries" + (f" (unreadable parts of: {', '.join(lost)})" if lost else "")
        )
        with fresh._tx():
            fresh._insert_event(
                time.time(), "journal_salvaged", 0, 0, {"corrupt_file": aside.name, "kept": kept, "lost": lost}
            )
    finally:
        fresh.close()
        if old is not None:
            old.close()
    log.error("%s", finding)
    return [finding]

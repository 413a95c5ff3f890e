"""What the engine refuses to open as its journal, before it opens it.

Owns: ``journal_format`` (what a file at the journal's path is: none, an empty or
keyed journal, a journal in the old plain SHA-256 format, or not a journal of
ours) and ``place_problem`` (the one line the engine exits 2 with: a folder that
does not exist or that others may enter, a file that is not a cabinet journal, a
journal still in the old format). The salvage of a corrupt journal
(``cabinet.shell.store.open_journal``) is only for a file that was ours: one with
our key or commit record beside it, or SQLite with our tables.
I/O: reads the file (SQLite read-only) and the folder's mode; writes nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from cabinet.shell.paths import commit_file, key_file, open_to_others

#: What ``journal_format`` finds.
Format = Literal["none", "empty", "keyed", "old", "foreign"]
SQLITE_HEADER = b"SQLite format 3\x00"
#: Where a keyed journal shows it was keyed: a keyed row checksum, an event-chain
#: link, a voucher checksum, or the journaled upgrade.
KEYED_EVIDENCE = (
    "SELECT 1 FROM critical WHERE checksum LIKE 'hmac:%'",
    "SELECT 1 FROM events WHERE chain IS NOT NULL",
    "SELECT 1 FROM vouchers WHERE mac IS NOT NULL",
    "SELECT 1 FROM events WHERE kind = 'journal_migrated'",
)


def keyed_evidence(db: sqlite3.Connection) -> bool:
    """Whether the journal open in ``db`` was ever written in the keyed format (a
    column added by the keyed format that is missing counts as no evidence)."""
    for query in KEYED_EVIDENCE:
        try:
            if db.execute(query + " LIMIT 1").fetchone() is not None:
                return True
        except sqlite3.Error:
            continue
    return False


def journal_format(path: Path) -> Format:
    """What the file at ``path`` is.

    Returns:
        ``none`` (no file), ``empty`` (a file of no bytes, or a journal with no
        critical row yet), ``keyed`` (a commit record beside it, or any keyed
        evidence in it), ``old`` (plain SHA-256 rows, never keyed: the one-time
        ``cabinet upgrade-journal`` takes it), ``foreign`` (not a cabinet journal
        and nothing of ours beside it). A journal SQLite cannot read with our key or
        commit record beside it is ``keyed`` (the salvage takes it).
    """
    if not path.exists():
        return "none"
    ours = key_file(path).exists() or commit_file(path).exists()
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError:
        return "keyed" if ours else "foreign"
    if not head:
        return "empty"
    if head != SQLITE_HEADER:
        return "keyed" if ours else "foreign"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return "keyed" if ours else "foreign"
    try:
        try:
            plain = db.execute("SELECT 1 FROM critical LIMIT 1").fetchone() is not None
        except sqlite3.Error:
            return "keyed" if ours else "foreign"
        if commit_file(path).exists() or keyed_evidence(db):
            return "keyed"
        return "old" if plain else "empty"
    finally:
        db.close()


def place_problem(path: Path) -> str | None:
    """Why the engine must not open ``path`` as its journal, in one line, or ``None``.

    Refused: a folder that does not exist (a mistyped ``--journal`` is not a new
    cabinet), a folder others may enter or write (``paths.open_to_others``: mode
    0750 at most; the journal, its key and the live round are in it), a file that
    is not a cabinet journal (it is the user's: never renamed aside), a journal in
    the old plain SHA-256 format (taken only by ``cabinet upgrade-journal``).
    """
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        return f"journal folder {folder} {what}: create it (mode 0700) or pass another --journal"
    problem = open_to_others(folder, group_ok=True)
    if problem is not None:
        return f"journal folder {problem}"
    fmt = journal_format(path)
    if fmt == "foreign":
        return (
            f"{path} is not a cabinet journal (no journal key beside it): refusing to touch it; pass another --journal"
        )
    if fmt == "old":
        return (
            f"journal {path} is in the old format (plain SHA-256 checksums): with the "
            f"engine stopped, upgrade it once: cabinet upgrade-journal --journal {path}"
        )
    return None

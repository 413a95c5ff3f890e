"""``cabinet meters --export FILE.csv``: the audit report of a journal.

Owns: reading the journal read-only (so it may run while the engine does) and
writing the report the menu's Export item writes (``cabinet.core.maintenance.
export.audit_rows``: meters per station, bills by denomination, handpays, the
period since the last export from the menu). Reading marks no period: only the
menu's Export starts a new one (the engine owns the journal).
"""

from __future__ import annotations

import sys
from pathlib import Path

from cabinet.core.maintenance.export import audit_rows
from cabinet.shell.audit_export import write_csv
from cabinet.shell.program_check import current
from cabinet.tools.views_cli import load_state


def export(journal: Path, out: Path) -> int:
    """Write ``journal``'s audit report to ``out``; returns the exit status (0 written,
    1 no valid state, 2 no journal, ``out``'s folder missing or ``out`` not writable).
    Makes no folder: the menu's export makes its folder on the USB stick, this does not."""
    got = load_state(journal)
    if isinstance(got, int):
        return got
    store, state = got
    if not out.parent.is_dir():  # the report's folder is the caller's to make
        print(f"{out}: cannot write the report (folder {out.parent} does not exist)", file=sys.stderr)
        return 2
    # the program this install runs, as the engine names it in the menu's report
    rows = audit_rows(state, store, current().program_id)
    try:
        write_csv(rows, out)
    except OSError as e:
        print(f"{out}: cannot write the report ({e.strerror or e})", file=sys.stderr)
        return 2
    print(f"audit report written to {out} ({len(rows) - 1} rows)")
    return 0

"""What runs after ``cabinet install`` restarted the cabinet: its closing summary.

Owns: the bounded wait for the services to settle and the one line said for each
(running, or not and why, with the last lines of a failed unit's log), the printed
summary of a run, and the command runner of a real run. I/O: subprocesses (the
runner), stdout.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Protocol


class Report(Protocol):
    """What a run did (``cabinet.tools.install.Report``), one line each."""

    done: list[str]
    kept: list[str]
    skipped: list[str]
    running: list[str]
    not_running: list[str]


#: States a service passes through on its way up or down.
SETTLING = {"activating", "deactivating", "reloading"}
#: Lines of a failed service's log shown in the summary.
LOG_LINES = 3


def unit_state(probe: Callable[[Sequence[str]], tuple[int, str]], unit: str) -> dict[str, str]:
    """``ActiveState``, ``SubState``, ``Result`` and ``ExecMainStatus`` of ``unit``
    (``systemctl show``; empty values when systemctl does not answer)."""
    _rc, out = probe(["systemctl", "show", "--property=ActiveState,SubState,Result,ExecMainStatus", unit])
    state = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return {k: state.get(k, "") for k in ("ActiveState", "SubState", "Result", "ExecMainStatus")}


def settle(
    probe: Callable[[Sequence[str]], tuple[int, str]],
    units: Sequence[str],
    wait_s: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> tuple[list[str], list[str]]:
    """Poll ``units`` every second until none is activating (or ``wait_s`` seconds
    passed); returns (running lines, not running lines), in ``units``' order."""
    end = clock() + wait_s
    while True:
        states = {u: unit_state(probe, u) for u in units}
        if all(s["ActiveState"] not in SETTLING for s in states.values()) or clock() >= end:
            break
        sleep(min(1.0, max(0.0, end - clock())))
    running, not_running = [], []
    for unit, s in states.items():
        active, sub = s["ActiveState"], s["SubState"]
        if active == "active":
            running.append(f"{unit}: active ({sub})")
        elif active in SETTLING:
            not_running.append(f"{unit}: still {active} ({sub}) after {wait_s:g} s: journalctl -u {unit} -f")
        elif active == "failed":
            _rc, log = probe(["journalctl", "--unit", unit, "--lines", str(LOG_LINES), "--output", "cat", "--no-pager"])
            tail = "".join(f"\n    {line}" for line in log.strip().splitlines()[-LOG_LINES:])
            not_running.append(
                f"{unit}: failed ({s['Result']}, exit status {s['ExecMainStatus']})"
                + (f"; its log ends:{tail}" if tail else "")
            )
        else:
            not_running.append(
                f"{unit}: {active or 'unknown'} ({sub or '?'})"
                + (": it starts with the engine" if unit == "cabinet-ui.service" else "")
            )
    return running, not_running


def commands(
    root: str | None,
) -> tuple[Callable[[Sequence[str], bool], None] | None, Callable[[Sequence[str]], tuple[int, str]] | None]:
    """The command runner and query of a real install (``root`` ``None``: each
    command printed, then run), or ``(None, None)`` under ``--root``."""
    if root is not None:
        return None, None

    def run(argv: Sequence[str], check: bool) -> None:
        print("+ " + " ".join(argv), flush=True)
        subprocess.run(list(argv), check=check)

    def probe(argv: Sequence[str]) -> tuple[int, str]:
        r = subprocess.run(list(argv), capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout

    return run, probe


def print_report(report: Report, root: str | None) -> int:
    """The summary of a run, one line each; the exit status (1: a service not running)."""
    for line in report.done:
        print(line)
    for line in report.kept:
        print(f"kept {line}")
    for line in report.skipped:
        print(f"skipped (--root): {line}" if root is not None else f"skipped: {line}")
    for line in report.running:
        print(f"running: {line}")
    for line in report.not_running:
        print(f"NOT running: {line}")
    if report.not_running:
        print(
            "cabinet install: installed, but the cabinet is not running (see above; cabinet doctor tells more)",
            file=sys.stderr,
        )
        return 1
    return 0

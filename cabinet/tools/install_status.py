"""What runs after ``cabinet install`` restarted the cabinet: its closing summary.

Owns: the bounded wait for the services to settle and the one line said for each
(running, or not and why, with the last lines of a failed unit's log). I/O: only
through the ``probe`` it is given (``systemctl show``, ``journalctl``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


def settle(probe: Callable[[Sequence[str]], tuple[int, str]], units: Sequence[str], wait_s: float,
           clock: Callable[[], float], sleep: Callable[[float], None]) -> tuple[list[str], list[str]]:
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
            not_running.append(f"{unit}: still {active} ({sub}) after {wait_s:g} s: "
                               f"journalctl -u {unit} -f")
        elif active == "failed":
            _rc, log = probe(["journalctl", "--unit", unit, "--lines", str(LOG_LINES),
                              "--output", "cat", "--no-pager"])
            tail = "".join(f"\n    {line}" for line in log.strip().splitlines()[-LOG_LINES:])
            not_running.append(f"{unit}: failed ({s['Result']}, exit status {s['ExecMainStatus']})"
                               + (f"; its log ends:{tail}" if tail else ""))
        else:
            not_running.append(f"{unit}: {active or 'unknown'} ({sub or '?'})"
                               + (": it starts with the engine" if unit == "cabinet-ui.service" else ""))
    return running, not_running

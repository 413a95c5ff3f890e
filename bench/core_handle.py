"""Throughput of the cabinet core alone: ``Cabinet.handle`` (and the ``Snapshot`` the
engine builds after each step), no journal, no devices.

Plays rounds on one station with basic play (hit below 17, else stand; decline
insurance), a note in whenever credits run low, from a seeded ``random.Random``,
and reports per variant: rounds per CPU second, events handled per CPU second, and
the mean CPU microseconds of one ``handle`` and of one ``snapshot`` (the thread's CPU
time, ``time.thread_time``: on a loaded machine wall time measures the neighbours). Uses only the
public API (``Cabinet``, ``handle``, ``mode``, ``legal_actions``, ``snapshot``), so
the same script measures two trees: ``PYTHONPATH=<tree> python bench/core_handle.py``.

Run: ``.venv/bin/python bench/core_handle.py [--rounds N] [--variant V]``.
"""

from __future__ import annotations

import argparse
import random
import time

from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.settings import GameSettings


def run(rounds: int, variant: str) -> dict[str, float]:
    cab = Cabinet(new_state(GameSettings(variant=variant)), rng=random.Random(1))
    cab.handle(PowerUp(0, 1_700_000_000.0))
    handled = snaps = 0
    handle_s = snap_s = 0.0
    txn = 0

    def step(ev: object) -> None:
        nonlocal handled, snaps, handle_s, snap_s
        t0 = time.thread_time()
        cab.handle(ev)  # type: ignore[arg-type]
        t1 = time.thread_time()
        cab.snapshot(handled)
        t2 = time.thread_time()
        handled += 1
        snaps += 1
        handle_s += t1 - t0
        snap_s += t2 - t1

    start = time.thread_time()
    for _ in range(rounds):
        st = cab.s.stations[0]
        if st.credits_minor < 1000:
            txn += 1
            step(NoteStacked(1, 10_000, f"t{txn}"))
        if cab.uses_chips:
            step(IntentReceived(1, "chip", 100))
            step(IntentReceived(1, "place", 1))
        elif not st.bets_minor or not st.bets_minor[0]:
            step(IntentReceived(1, "bet_up"))
        step(IntentReceived(1, "deal"))
        while cab.mode == "in_round":
            legal = cab.legal_actions(1)
            total = cab.round._current()[1].total if "hit" in legal else 0  # type: ignore[union-attr]
            act = "decline" if "decline" in legal else "hit" if total < 17 and "hit" in legal else "stand"
            step(IntentReceived(1, act))
    cpu_s = time.thread_time() - start
    return {
        "rounds_per_s": rounds / cpu_s,
        "events_per_s": handled / cpu_s,
        "handle_us": handle_s / handled * 1e6,
        "snapshot_us": snap_s / snaps * 1e6,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--variant", default=None)
    args = ap.parse_args()
    for v in [args.variant] if args.variant else ["classic", "classic-multi", "american"]:
        r = run(args.rounds, v)
        print(
            f"{v:14s} {r['rounds_per_s']:8.0f} rounds/s {r['events_per_s']:8.0f} events/s "
            f"handle {r['handle_us']:6.1f} us  snapshot {r['snapshot_us']:6.1f} us"
        )


if __name__ == "__main__":
    main()

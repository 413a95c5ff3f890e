"""Journal cost per round: fsyncs and milliseconds of commits, persistence on.

Plays rounds through the real ``Engine.step`` (core + SQLite journal in WAL mode
with ``synchronous=FULL``) on a temporary file, with basic play, and reports per
round: commits (each one fsyncs the WAL), and the median and 95th percentile of
the time spent committing. Target: under 10 ms median per round.

Run: ``.venv/bin/python bench/journal.py [--rounds N] [--variant V] [--dir D]``
(``--dir`` puts the journal on the disk you want to measure, e.g. the Pi's SD card).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
from cabinet.core.settings import GameSettings
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store


def run(rounds: int, variant: str, directory: str | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=directory) as d:
        store = Store(Path(d) / "journal.db")
        eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0, wall_s=time.time)
        from cabinet.core.machine import new_state

        eng.cab.s = new_state(GameSettings(variant=variant))
        eng.cab.rules = eng.cab.s.settings.validate()
        eng.step(PowerUp(0, time.time()))
        per_round_ms: list[float] = []
        per_round_commits: list[int] = []
        txn = 0
        for _ in range(rounds):
            st = eng.cab.s.stations[0]
            if st.credits_minor < 1000:
                txn += 1
                eng.step(NoteStacked(1, 10_000, f"t{txn}"))
            n0, c0 = store.fsyncs, len(eng.commit_ms)
            if eng.cab.uses_chips:
                eng.step(IntentReceived(1, "chip", 100))
                eng.step(IntentReceived(1, "place", 1))
            elif not st.bets_minor or not st.bets_minor[0]:
                eng.step(IntentReceived(1, "bet_up"))
            eng.step(IntentReceived(1, "deal"))
            while eng.cab.mode == "in_round":
                legal = eng.cab.legal_actions(1)
                total = eng.cab.round._current()[1].total if "hit" in legal else 0
                act = "decline" if "decline" in legal else "hit" if total < 17 and "hit" in legal else "stand"
                eng.step(IntentReceived(1, act))
            per_round_ms.append(sum(eng.commit_ms[c0:]))
            per_round_commits.append(store.fsyncs - n0)
        store.close()
    return {
        "commits_per_round": statistics.mean(per_round_commits),
        "median_ms": statistics.median(per_round_ms),
        "p95_ms": statistics.quantiles(per_round_ms, n=20)[-1],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--variant", default=None)
    ap.add_argument("--dir", default=None, help="folder for the journal (default: tmp)")
    args = ap.parse_args()
    for v in [args.variant] if args.variant else ["classic", "classic-multi", "american"]:
        r = run(args.rounds, v, args.dir)
        print(
            f"{v:14s} {r['commits_per_round']:.1f} commits (fsyncs)/round, journal "
            f"{r['median_ms']:.2f} ms median, {r['p95_ms']:.2f} ms p95 per round"
        )


if __name__ == "__main__":
    main()

"""Simulator throughput and the 10-million-round confirmation of the exact RTP.

Per variant: derives the strategy (exact analysis, timed), measures rounds
per second on one core (lazy shoe, and with a full Fisher-Yates shuffle per
round), then optionally runs ``--rounds`` rounds on ``--workers`` processes
and reports whether the exact RTP lies in the 95 % interval. Results are
printed and appended as JSON lines to ``--out`` (default
``bench/results/simulate.jsonl``).

Run: ``.venv/bin/python bench/simulate.py [--variant V] [--rounds 10000000]
[--workers 2] [--seed 1] [--probe 20000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from cabinet.game import preset
from cabinet.strategy import analyse
from cabinet.strategy.simulate import run_chunk, simulate


def probe(variant: str, rounds: int) -> dict[str, float]:
    rules = preset(variant)
    strategy = analyse(rules).strategy
    out = {}
    for full in (False, True):
        t0 = time.perf_counter()
        run_chunk(rules, strategy, "probe", 0, rounds, 2 * rules.min_bet_minor, full)
        out["full_shuffle" if full else "lazy_shoe"] = rounds / (time.perf_counter() - t0)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--variant", action="append", help="repeatable; default all three")
    p.add_argument("--rounds", type=int, default=0, help="full run size (0: probe only)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", default="1")
    p.add_argument("--probe", type=int, default=20_000, help="rounds of the one-core probe")
    p.add_argument("--out", type=Path, default=Path("bench/results/simulate.jsonl"))
    args = p.parse_args()
    for variant in args.variant or ["classic", "classic-multi", "american"]:
        rules = preset(variant)
        t0 = time.perf_counter()
        exact = analyse(rules)
        t_analysis = time.perf_counter() - t0
        rec: dict[str, object] = {
            "variant": variant,
            "exact_rtp": exact.rtp,
            "analysis_s": t_analysis,
            "cpus": os.cpu_count(),
        }
        if args.probe:
            rps = probe(variant, args.probe)
            rec["rounds_per_s_per_core"] = rps
            print(
                f"{variant}: analysis {t_analysis:.1f} s; one core: "
                f"{rps['lazy_shoe']:,.0f} rounds/s (lazy shoe), "
                f"{rps['full_shuffle']:,.0f} rounds/s (full shuffle)",
                flush=True,
            )
        if args.rounds:
            t0 = time.perf_counter()
            sim = simulate(rules, exact.strategy, args.rounds, workers=args.workers, seed=args.seed, progress=False)
            secs = time.perf_counter() - t0
            lo, hi = sim.ci95
            rec.update(
                rounds=args.rounds,
                workers=args.workers,
                seed=args.seed,
                seconds=secs,
                rounds_per_s=args.rounds / secs,
                sim_rtp=sim.rtp,
                ci95=[lo, hi],
                inside=sim.contains(exact.rtp),
                sim=sim.to_dict(),
            )
            print(
                f"{variant}: {args.rounds:,} rounds on {args.workers} workers in {secs:.0f} s "
                f"({args.rounds / secs:,.0f} rounds/s); simulated RTP {sim.rtp * 100:.4f} % "
                f"(95 % CI {lo * 100:.4f} - {hi * 100:.4f} %), exact {exact.rtp * 100:.4f} %: "
                f"{'inside' if sim.contains(exact.rtp) else 'OUTSIDE'}",
                flush=True,
            )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

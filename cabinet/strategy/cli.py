"""Entry points for ``cabinet parsheet`` and ``cabinet simulate``.

Owns: argument parsing and terminal output of the two commands; the work is
done by ``analysis``, ``simulate`` and ``parsheet``. ``cabinet.cli`` calls
``parsheet_main(argv)`` / ``simulate_main(argv)`` with the arguments after
the sub-command name. Output goes to stdout, the progress bar to stderr.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from pathlib import Path

from cabinet.game.errors import RuleSetError
from cabinet.game.rules import PRESETS, preset

from .analysis import Analysis, analyse
from .simulate import FREQUENCIES, SimResult, simulate


def _positive(text: str) -> int:
    try:
        n = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("variant", choices=sorted(PRESETS), help="variant id (RULES.md)")


def _sim_args(p: argparse.ArgumentParser, rounds_default: int | None) -> None:
    p.add_argument("--rounds", type=_positive, default=rounds_default, metavar="N",
                   help="rounds to simulate" + (f" (default {rounds_default:,})"
                                                if rounds_default else ""))
    p.add_argument("--workers", type=_positive, default=None, metavar="K",
                   help="processes (default: all cores)")
    p.add_argument("--seed", default=None, metavar="S",
                   help="seed; the same seed reproduces the run exactly (default: random, "
                        "printed)")
    p.add_argument("--full-shuffle", action="store_true",
                   help="Fisher-Yates the whole shoe every round (slower; same law)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def sim_lines(sim: SimResult, exact: Analysis | None, seed: str, seconds: float,
              workers: int) -> list[str]:
    """The simulation summary printed by ``cabinet simulate``."""
    lo, hi = sim.ci95
    out = [
        f"Simulated {sim.rounds:,} rounds of {sim.variant} (seed {seed}, {workers} worker(s), "
        f"{seconds:.1f} s, {sim.rounds / seconds / workers:,.0f} rounds/s per worker)",
        f"RTP: {sim.rtp * 100:.4f} %  (95 % CI {lo * 100:.4f} % - {hi * 100:.4f} %)",
        f"House edge: {-sim.mean * 100:.4f} %",
    ]
    if exact is not None:
        inside = "inside" if sim.contains(exact.rtp) else "OUTSIDE"
        out.append(f"Exact RTP {exact.rtp * 100:.4f} % is {inside} the 95 % interval")
    out.append(f"Std. dev. per round: {sim.std:.4f} initial bets; hold per amount wagered: "
               f"{-sim.net_minor / sim.wagered_minor * 100:.4f} %")
    out.append("Frequencies (share of rounds):")
    out += [f"  {k.replace('_', ' '):<17} {sim.frequency(k) * 100:8.3f} %" for k in FREQUENCIES]
    out.append("Net result per round (initial bets):")
    out += [f"  {k:+5g}  {v * 100:8.4f} %" for k, v in sim.distribution()]
    return out


def simulate_main(argv: list[str]) -> int:
    """``cabinet simulate VARIANT --rounds N [--workers K] [--seed S]``.

    Derives the basic strategy by the exact analysis (once, in this process),
    plays ``N`` rounds of the real game with it on ``K`` processes, and prints
    the RTP with its 95 % interval, frequencies, the net-result distribution
    and whether the exact RTP lies inside the interval.

    Returns:
        0; 2 on bad arguments (argparse exits).
    """
    p = argparse.ArgumentParser(prog="cabinet simulate",
                                description="Simulate the real game with basic strategy.")
    _common(p)
    _sim_args(p, 1_000_000)
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the tallies as JSON")
    args = p.parse_args(argv)
    rules = preset(args.variant)
    exact = analyse(rules)
    seed = args.seed if args.seed is not None else str(secrets.randbelow(2**32))
    workers = args.workers or _cpus()
    t0 = time.perf_counter()
    sim = simulate(rules, exact.strategy, args.rounds, workers=workers, seed=seed,
                   full_shuffle=args.full_shuffle, progress=not args.no_progress)
    seconds = time.perf_counter() - t0
    print("\n".join(sim_lines(sim, exact, seed, seconds, min(workers, args.rounds))))
    if args.json:
        data = sim.to_dict() | {"seed": seed, "seconds": seconds, "workers": workers,
                                "exact_rtp": exact.rtp, "inside": sim.contains(exact.rtp),
                                "full_shuffle": args.full_shuffle}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    return 0


def parsheet_main(argv: list[str]) -> int:
    """``cabinet parsheet VARIANT [--out DIR] [--rounds N] ...``.

    Prints the exact RTP and house edge as percentages (4 decimals). With
    ``--out``, also writes the par sheet (Markdown, chart PNG, text chart,
    JSON) into ``DIR``, with a simulation of ``--rounds`` rounds (default
    1,000,000; ``--rounds`` without ``--out`` also simulates and prints it).

    Returns:
        0; 2 on bad arguments (argparse exits).
    """
    p = argparse.ArgumentParser(prog="cabinet parsheet",
                                description="Exact return to player of a variant.")
    _common(p)
    p.add_argument("--out", type=Path, metavar="DIR", help="write the par sheet here")
    p.add_argument("--strategy", action="store_true", help="also print the strategy chart")
    p.add_argument("--no-sim", action="store_true", help="with --out: skip the simulation")
    _sim_args(p, None)
    args = p.parse_args(argv)
    try:
        rules = preset(args.variant)
    except RuleSetError as e:  # pragma: no cover - argparse choices catch it
        print(e, file=sys.stderr)
        return 2
    from .parsheet import summary_lines, write_parsheet

    exact = analyse(rules)
    print("\n".join(summary_lines(exact)))
    if args.strategy:
        print()
        print(exact.strategy.to_text(), end="")
    sim = None
    rounds = args.rounds if args.rounds else (1_000_000 if args.out and not args.no_sim else 0)
    if rounds:
        seed = args.seed if args.seed is not None else str(secrets.randbelow(2**32))
        workers = args.workers or _cpus()
        t0 = time.perf_counter()
        sim = simulate(rules, exact.strategy, rounds, workers=workers, seed=seed,
                       full_shuffle=args.full_shuffle, progress=not args.no_progress)
        print()
        print("\n".join(sim_lines(sim, exact, seed, time.perf_counter() - t0,
                                  min(workers, rounds))))
    if args.out:
        report = write_parsheet(exact, sim, args.out)
        print(f"\nPar sheet written to {report}")
    return 0


def _cpus() -> int:
    import os
    return os.cpu_count() or 1


if __name__ == "__main__":  # pragma: no cover
    cmd, *rest = sys.argv[1:] or ["parsheet"]
    sys.exit({"parsheet": parsheet_main, "simulate": simulate_main}[cmd](rest))

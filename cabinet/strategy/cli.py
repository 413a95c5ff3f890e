"""Entry points for ``cabinet parsheet`` and ``cabinet simulate``.

Owns: argument parsing and terminal output of the two commands; the work is
done by ``analysis``, ``simulate`` and ``parsheet``. ``cabinet.tools.cli`` calls
``parsheet_main(argv)`` / ``simulate_main(argv)`` with the arguments after
the sub-command name. Output goes to stdout, the progress bar and errors to
stderr. Output paths (``--out``, ``--json``) are checked before the long
work starts, so a bad path fails at once instead of after minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path

from cabinet.game.errors import RuleSetError
from cabinet.game.rules import PRESETS, preset

from .analysis import Analysis, analyse
from .cd import analyse_cd
from .compiled import COMPILED_DIR, is_current, running_compiled
from .simulate import FREQUENCIES, SimResult, simulate

#: Rounds ``cabinet simulate`` plays without ``--rounds`` (and ``parsheet --out``).
DEFAULT_ROUNDS = 1_000_000


def _whole(text: str, least: int, why: str = "") -> int:
    try:
        n = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}{why}, got {n}")
    return n


def _positive(text: str) -> int:
    return _whole(text, 1)


def _rounds(text: str) -> int:
    # One round has no spread, so no 95 % interval to set the exact RTP against.
    return _whole(text, 2, " (the 95 % interval needs 2 rounds)")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("variant", choices=sorted(PRESETS), help="variant id (RULES.md)")


def _sim_args(p: argparse.ArgumentParser, rounds_default: int | None, rounds_help: str) -> None:
    p.add_argument(
        "--rounds",
        type=_rounds,
        default=rounds_default,
        metavar="N",
        help=f"rounds to simulate, at least 2 ({rounds_help})",
    )
    p.add_argument("--workers", type=_positive, default=None, metavar="K", help="processes (default: all cores)")
    p.add_argument(
        "--seed",
        default=None,
        metavar="S",
        help="seed; the same seed reproduces the run exactly (default: random, printed)",
    )
    p.add_argument(
        "--full-shuffle", action="store_true", help="Fisher-Yates the whole shoe every round (slower; same law)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def sim_lines(sim: SimResult, exact: Analysis | None, seed: str, seconds: float, workers: int) -> list[str]:
    """The simulation summary printed by ``cabinet simulate``.

    Args:
        sim: the tallies of at least one round.
        exact: the exact analysis to compare with, or ``None``.
        seed: the run's seed, as printed.
        seconds: wall time of the simulation, > 0.
        workers: processes that played.

    Returns:
        Lines without newlines. With fewer than 2 rounds there is no 95 %
        interval: the lines say so instead of giving one, or a verdict.
    """
    interval = sim.rounds >= 2
    if interval:
        lo, hi = sim.ci95
        spread = f"(95 % CI {lo * 100:.4f} % - {hi * 100:.4f} %)"
    else:
        spread = "(no 95 % interval from fewer than 2 rounds)"
    out = [
        f"Simulated {sim.rounds:,} rounds of {sim.variant} (seed {seed}, {workers} worker(s), "
        f"{seconds:.1f} s, {sim.rounds / seconds / workers:,.0f} rounds/s per worker)",
        f"RTP: {sim.rtp * 100:.4f} %  {spread}",
        f"House edge: {-sim.mean * 100:.4f} %",
    ]
    if exact is not None and interval:
        inside = "inside" if sim.contains(exact.rtp) else "OUTSIDE"
        out.append(f"Exact RTP {exact.rtp * 100:.4f} % is {inside} the 95 % interval")
    elif exact is not None:
        out.append(f"Exact RTP {exact.rtp * 100:.4f} % (no interval to compare it with)")
    out.append(
        f"Std. dev. per round: {sim.std:.4f} initial bets; hold per amount wagered: "
        f"{-sim.net_minor / sim.wagered_minor * 100:.4f} %"
    )
    out.append("Frequencies (share of rounds):")
    out += [f"  {k.replace('_', ' '):<17} {sim.frequency(k) * 100:8.3f} %" for k in FREQUENCIES]
    out.append("Net result per round (initial bets):")
    out += [f"  {k:+5g}  {v * 100:8.4f} %" for k, v in sim.distribution()]
    return out


def simulate_main(argv: list[str]) -> int:
    """``cabinet simulate VARIANT [--rounds N] [--workers K] [--seed S] [--json FILE] [--compiled]``.

    Derives the basic strategy by the exact analysis (once, in this process),
    plays ``N`` rounds (at least 2; default ``DEFAULT_ROUNDS``, 1,000,000) of
    the real game with it on ``K`` processes, and prints the RTP with its
    95 % interval, frequencies, the net-result distribution and whether the
    exact RTP lies inside the interval. ``--compiled`` replaces this process
    by the same command in the mypyc-compiled copy (``compiled``).

    Returns:
        0; 2 on bad arguments (argparse exits), a ``--json`` file that
        cannot be written or ``--compiled`` without a current compiled copy
        (checked first, one line on stderr); 1 when writing the JSON fails
        after the simulation after all.
    """
    p = argparse.ArgumentParser(prog="cabinet simulate", description="Simulate the real game with basic strategy.")
    _common(p)
    _sim_args(p, DEFAULT_ROUNDS, f"default {DEFAULT_ROUNDS:,}")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the tallies as JSON")
    p.add_argument(
        "--compiled", action="store_true", help="run in the mypyc-compiled copy (make compiled): same tallies, faster"
    )
    args = p.parse_args(argv)
    if args.json is not None and (why := _unwritable_file(args.json)):
        print(f"cabinet simulate: --json {args.json}: {why}", file=sys.stderr)
        return 2
    if args.compiled and not running_compiled():
        if not is_current():
            print(
                f"cabinet simulate: --compiled: {COMPILED_DIR} is missing or older than the "
                "sources; build it with `make compiled`",
                file=sys.stderr,
            )
            return 2
        # -P: not the working directory first, whose cabinet/ would be the pure one.
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join([str(COMPILED_DIR), *filter(None, [os.environ.get("PYTHONPATH")])])
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, "-P", "-m", "cabinet", "simulate", *argv], env)
    rules = preset(args.variant)
    exact = analyse(rules)
    seed = args.seed if args.seed is not None else str(secrets.randbelow(2**32))
    workers = args.workers or _cpus()
    t0 = time.perf_counter()
    sim = simulate(
        rules,
        exact.strategy,
        args.rounds,
        workers=workers,
        seed=seed,
        full_shuffle=args.full_shuffle,
        progress=not args.no_progress,
    )
    seconds = time.perf_counter() - t0
    print("\n".join(sim_lines(sim, exact, seed, seconds, min(workers, args.rounds))))
    if args.json:
        data = sim.to_dict() | {
            "seed": seed,
            "seconds": seconds,
            "workers": workers,
            "exact_rtp": exact.rtp,
            "inside": sim.contains(exact.rtp),
            "full_shuffle": args.full_shuffle,
        }
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(data, indent=1) + "\n")
        except OSError as e:
            print(f"cabinet simulate: --json {args.json}: cannot write: {e.strerror or e}", file=sys.stderr)
            return 1
    return 0


def parsheet_main(argv: list[str]) -> int:
    """``cabinet parsheet VARIANT [--play td|cd|cdp] [--out DIR] [--rounds N] ...``.

    Prints the exact RTP and house edge as percentages: of the
    total-dependent basic strategy (``--play td``, the default, 4 decimals)
    or of composition-dependent play (``--play cd``, CDZ- after a split, or
    ``--play cdp``, CDP after a split; 6 decimals; ``cd.analyse_cd``). The simulation and the strategy chart are
    always of the basic strategy; the report gives both figures. With
    ``--out``, also writes the par sheet (Markdown, chart PNG, text chart,
    JSON) into ``DIR``, with a simulation of ``--rounds`` rounds (at least 2;
    default 1,000,000; ``--rounds`` without ``--out`` also simulates and
    prints it). ``DIR`` is created and checked before any work starts.

    Returns:
        0; 2 on bad arguments (argparse exits) or an ``--out`` that cannot be
        created or written into (one line on stderr, within a moment); 1
        when writing fails after the work after all (disk full, say).
    """
    p = argparse.ArgumentParser(prog="cabinet parsheet", description="Exact return to player of a variant.")
    _common(p)
    p.add_argument("--out", type=Path, metavar="DIR", help="write the par sheet here")
    p.add_argument(
        "--play",
        choices=("td", "cd", "cdp"),
        default="td",
        help="td: the total-dependent basic strategy (default); cd: every "
        "composition takes its best action (CDZ- after a split); cdp: "
        "the same with CDP after a split",
    )
    p.add_argument("--strategy", action="store_true", help="also print the strategy chart")
    p.add_argument("--no-sim", action="store_true", help="with --out: skip the simulation")
    _sim_args(p, None, f"default {DEFAULT_ROUNDS:,} with --out unless --no-sim; none without --out")
    args = p.parse_args(argv)
    try:
        rules = preset(args.variant)
    except RuleSetError as e:  # pragma: no cover - argparse choices catch it
        print(e, file=sys.stderr)
        return 2
    from .parsheet import cd_summary_lines, prepare_out_dir, summary_lines, write_parsheet

    if args.out is not None:
        try:
            prepare_out_dir(args.out, rules.variant)
        except OSError as e:
            print(f"cabinet parsheet: --out {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2

    rounds = args.rounds if args.rounds else (DEFAULT_ROUNDS if args.out is not None and not args.no_sim else 0)
    cd = analyse_cd(rules) if args.play == "cd" or args.out is not None else None
    cdp = analyse_cd(rules, post_split="CDP") if args.play == "cdp" or args.out is not None else None
    shown = cd if args.play == "cd" else cdp if args.play == "cdp" else None
    if shown is not None:
        print("\n".join(cd_summary_lines(shown)))
    if args.play == "td" or args.strategy or rounds or args.out is not None:
        exact = analyse(rules)
        if args.play == "td":
            print("\n".join(summary_lines(exact)))
    else:
        return 0
    if args.strategy:
        print()
        print(exact.strategy.to_text(), end="")
    sim = None
    if rounds:
        seed = args.seed if args.seed is not None else str(secrets.randbelow(2**32))
        workers = args.workers or _cpus()
        t0 = time.perf_counter()
        sim = simulate(
            rules,
            exact.strategy,
            rounds,
            workers=workers,
            seed=seed,
            full_shuffle=args.full_shuffle,
            progress=not args.no_progress,
        )
        print()
        print("\n".join(sim_lines(sim, exact, seed, time.perf_counter() - t0, min(workers, rounds))))
    if args.out is not None:
        two = analyse(rules, two_tables=True)
        try:
            report = write_parsheet(exact, sim, args.out, cd, two, cdp)
        except OSError as e:
            print(f"cabinet parsheet: --out {args.out}: cannot write the par sheet: {e.strerror or e}", file=sys.stderr)
            return 1
        print(f"\nPar sheet written to {report}")
    return 0


def _unwritable_file(path: Path) -> str | None:
    """Why ``path`` cannot be written (its parents are created), or ``None``.

    Writes nothing but the parent directories (a probe file is created in
    the parent and removed at once).
    """
    from .parsheet import check_writable

    if path.is_dir():
        return "is a directory"
    try:
        check_writable(path.parent, [path.name])
    except OSError as e:
        return f"{path.parent}: {e.strerror or e}"
    return None


def _cpus() -> int:
    return os.cpu_count() or 1


if __name__ == "__main__":  # pragma: no cover
    cmd, *rest = sys.argv[1:] or ["parsheet"]
    sys.exit({"parsheet": parsheet_main, "simulate": simulate_main}[cmd](rest))

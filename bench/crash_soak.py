"""Crash soak: SIGKILL the engine at N random points of scripted play (default
10,000), restart it each time and verify the journal after every kill (issue:
engine "Done when"; research/cabinet-features.md (b) 1).

Run: ``.venv/bin/python bench/crash_soak.py [--points N] [--jobs J] [--seed S]
[--jackpot-limit-minor M] [--out FILE]``.

``--jobs`` runs J independent soaks side by side (seeds S, S+1, ...; each its
own engine, journal and share of the points) and adds up their counts: each
kill point mostly waits on the engine's start-up and the scripted play, so
four jobs on two cores finish 10,000 points in a bit over an hour.
``--jackpot-limit-minor`` starts the journals with that jackpot limit (e.g.
100: every winning round is a jackpot handpay). Prints progress and a summary;
with ``--out`` also appends the summary to FILE and keeps a running tally in
FILE's ``.progress`` twin. The same harness runs in
``tests/integration/test_crash_recovery.py``.

Each soak runs its device twins in a process of their own
(``cabinet sim-devices``) that survives every kill, cuts the acceptor's power now
and then (also at STACKING / VEND VALID), and after every restart checks the
meters against the twins' physical truth (cash box; tickets cut).
``--in-engine-twins`` runs the twins inside the engine as before (no truth checks).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tqdm import tqdm  # noqa: E402

from cabinet.core.settings import GameSettings  # noqa: E402
from tests.integration.crash_harness import SoakResult, soak  # noqa: E402


def _job(args: tuple[int, int, int | None, bool, multiprocessing.Queue]) -> SoakResult:  # type: ignore[type-arg]
    """One soak of ``points`` kills with ``seed``; reports each kill on ``queue``."""
    points, seed, jackpot_limit, physical, queue = args
    settings = None if jackpot_limit is None else GameSettings(jackpot_limit_minor=jackpot_limit)
    with tempfile.TemporaryDirectory(prefix="crash-soak-") as d:
        return soak(
            Path(d),
            points,
            seed=seed,
            settings=settings,
            physical=physical,
            progress=lambda res: queue.put((seed, res.kills, len(res.failures), res.rounds_resumed)),
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=1, help="soaks side by side (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jackpot-limit-minor", type=int, default=None)
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--in-engine-twins",
        action="store_true",
        help="twins inside the engine (no separate process): no physical-truth checks",
    )
    args = ap.parse_args()
    if args.points < 1 or not 1 <= args.jobs <= args.points:
        ap.error("--points must be >= 1 and --jobs 1..points")
    shares = [args.points // args.jobs + (i < args.points % args.jobs) for i in range(args.jobs)]
    t0 = time.monotonic()
    manager = multiprocessing.Manager()
    queue = manager.Queue()
    tasks = [
        (n, args.seed + i, args.jackpot_limit_minor, not args.in_engine_twins, queue) for i, n in enumerate(shares)
    ]
    state: dict[int, tuple[int, int, int]] = {}
    bar = tqdm(total=args.points, unit="kill", file=sys.stderr)
    with multiprocessing.Pool(args.jobs) as pool:
        pending = pool.map_async(_job, tasks)
        while not pending.ready() or not queue.empty():
            try:
                seed, kills, failures, resumed = queue.get(timeout=1.0)
            except Exception:  # queue.Empty: nothing new this second
                continue
            state[seed] = (kills, failures, resumed)
            done = sum(k for k, _, _ in state.values())
            bar.n = done
            bar.set_postfix(failures=sum(f for _, f, _ in state.values()), resumed=sum(r for _, _, r in state.values()))
            bar.refresh()
            if args.out and done % 50 == 0:  # a running tally, in case of a stop
                args.out.with_suffix(".progress").write_text(
                    f"{done} kills, {sum(f for _, f, _ in state.values())} failures, "
                    f"{(time.monotonic() - t0) / 60:.1f} min\n"
                )
        results = pending.get()
    bar.close()
    res = SoakResult()
    kinds: Counter[str] = Counter()
    for r in results:
        res.kills += r.kills
        res.checks += r.checks
        res.rounds_resumed += r.rounds_resumed
        res.truth_checks += r.truth_checks
        res.power_cuts += r.power_cuts
        res.failures += r.failures
        kinds.update(r.kinds)
    elapsed = time.monotonic() - t0
    top = ", ".join(f"{k} {v}" for k, v in kinds.most_common())
    setup = f"{args.jobs} job(s), seeds {args.seed}-{args.seed + args.jobs - 1}"
    if args.jackpot_limit_minor is not None:
        setup += f", jackpot limit {args.jackpot_limit_minor} minor"
    setup += ", twins in the engine" if args.in_engine_twins else ", twins in their own process"
    summary = (
        f"crash soak ({setup}): {res.kills} SIGKILLs, {res.checks} journal checks "
        f"passed, {res.truth_checks} physical-truth checks passed (cash box, tickets), "
        f"{res.power_cuts} acceptor power cuts, "
        f"{res.rounds_resumed} rounds resumed with the same cards, "
        f"{len(res.failures)} failures, {elapsed / 60:.1f} min\n  actions: {top}"
    )
    for f in res.failures[:10]:
        summary += f"\n  FAILURE {f}"
    print(summary)
    if args.out:
        with args.out.open("a") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M ") + summary + "\n")
    return 1 if res.failures else 0


if __name__ == "__main__":
    sys.exit(main())

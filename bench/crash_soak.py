"""Crash soak: SIGKILL the engine at N random points of scripted play (default
10,000), restart it each time and verify the journal after every kill (issue:
engine "Done when"; research/cabinet-features.md (b) 1).

Run: ``.venv/bin/python bench/crash_soak.py [--points N] [--seed S] [--out FILE]``.
Prints progress and a summary; with ``--out`` also appends the summary to FILE.
The same harness runs 200 points in ``tests/integration/test_crash_recovery.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tqdm import tqdm  # noqa: E402

from tests.integration.crash_harness import soak  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    bar = tqdm(total=args.points, unit="kill", file=sys.stderr)
    t0 = time.monotonic()
    last = [0]

    def progress(res):
        bar.update(res.kills - last[0])
        last[0] = res.kills
        bar.set_postfix(failures=len(res.failures), resumed=res.rounds_resumed)
        if args.out and res.kills % 50 == 0:            # a running tally, in case of a stop
            args.out.with_suffix(".progress").write_text(
                f"{res.kills} kills, {res.checks} checks passed, {res.rounds_resumed} rounds "
                f"resumed, {len(res.failures)} failures, "
                f"{(time.monotonic() - t0) / 60:.1f} min\n")

    with tempfile.TemporaryDirectory(prefix="crash-soak-") as d:
        res = soak(Path(d), args.points, seed=args.seed, progress=progress)
    bar.close()
    elapsed = time.monotonic() - t0
    top = ", ".join(f"{k} {v}" for k, v in res.kinds.most_common())
    summary = (f"crash soak: {res.kills} SIGKILLs, {res.checks} journal checks passed, "
               f"{res.rounds_resumed} rounds resumed with the same cards, "
               f"{len(res.failures)} failures, {elapsed / 60:.1f} min\n  actions: {top}")
    for f in res.failures[:10]:
        summary += f"\n  FAILURE {f}"
    print(summary)
    if args.out:
        with args.out.open("a") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M ") + summary + "\n")
    return 1 if res.failures else 0


if __name__ == "__main__":
    sys.exit(main())

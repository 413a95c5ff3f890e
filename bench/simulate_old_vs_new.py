"""The simulator, old code against new, in one run: times and tallies.

For each variant, runs ``cabinet simulate V --rounds N --workers K --seed S
--no-progress --json F`` once with the old source tree first on ``PYTHONPATH``
and once with this tree, alternately (old, new, old, new... with
``--repeat``), on the same machine, and compares everything printed except
the timing line, and the JSON tallies except ``seconds``: both must be equal
byte for byte. The time is what ``cabinet simulate`` prints (the simulation
alone, not the strategy's exact analysis before it).

The old tree is a checkout of an older commit, e.g.
``git worktree add /tmp/simold 7178834``.

With ``--compiled``, the mypyc copy of the new tree (``bench/build_compiled.py``)
runs third in each turn, with the same comparison.

Run: ``.venv/bin/python bench/simulate_old_vs_new.py --old /tmp/simold
[--compiled [DIR]] [--variant V ...] [--rounds 1000000] [--workers 2] [--seed 1] [--repeat 1]
[--out bench/results/simulate_old_vs_new.txt]``; exit status 1 when any
tallies differ.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SECONDS = re.compile(r", ([0-9.]+) s, ")


def _commit(tree: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(tree), "log", "-1", "--format=%h %s"], capture_output=True, text=True, check=False, timeout=60
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain", "--", "cabinet"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    ).stdout.strip()
    return out + (" (+ uncommitted changes in cabinet/)" if dirty else "")


def run_once(
    tree: Path, variant: str, rounds: int, workers: int, seed: str, extra: list[str]
) -> tuple[float, list[str], dict[str, object]]:
    """One ``cabinet simulate`` with ``tree`` first on the path.

    Returns:
        (seconds of simulation as printed, printed lines after the first, JSON
        tallies without ``seconds``).
    """
    with tempfile.TemporaryDirectory() as tmp:
        out_json = Path(tmp) / "sim.json"
        cmd = [
            sys.executable,
            "-m",
            "cabinet",
            "simulate",
            variant,
            "--rounds",
            str(rounds),
            "--workers",
            str(workers),
            "--seed",
            seed,
            "--no-progress",
            "--json",
            str(out_json),
            *extra,
        ]
        env = dict(os.environ, PYTHONPATH=str(tree))
        proc = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=False, timeout=4 * 3600)
        if proc.returncode != 0:
            raise SystemExit(f"{tree}: {' '.join(cmd)} failed:\n{proc.stderr}")
        lines = proc.stdout.splitlines()
        m = _SECONDS.search(lines[0])
        if m is None:
            raise SystemExit(f"no time in {lines[0]!r}")
        data = json.loads(out_json.read_text())
        data.pop("seconds", None)
        return float(m.group(1)), lines[1:], data


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--old", type=Path, required=True, help="the old source tree")
    p.add_argument("--new", type=Path, default=ROOT, help="the new source tree (this one)")
    p.add_argument(
        "--compiled",
        type=Path,
        nargs="?",
        const=ROOT / "build" / "compiled",
        help="also run the mypyc copy (bench/build_compiled.py; default build/compiled), which must be current",
    )
    p.add_argument("--variant", action="append", help="repeatable; default all three")
    p.add_argument("--rounds", type=int, default=1_000_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", default="1")
    p.add_argument("--repeat", type=int, default=1, help="old/new pairs per variant")
    p.add_argument(
        "--reference",
        metavar="PATTERN",
        help="also compare the tallies with a saved cabinet simulate --json file, "
        "e.g. 'bench/results/simulate-{variant}-10M.json'",
    )
    p.add_argument("--out", type=Path, help="append the report to this file, line by line")
    args = p.parse_args()
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    if args.compiled:
        from cabinet.strategy.compiled import is_current

        if not is_current(args.compiled):
            raise SystemExit(f"{args.compiled}: missing or older than the sources; run bench/build_compiled.py")
        trees["compiled"] = args.compiled.resolve()
    report = [
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start",
        *(
            f"# {k}: {v} = "
            + (_commit(v) if k != "compiled" else "mypyc build of new (bench/build_compiled.py), current")
            for k, v in trees.items()
        ),
        f"# each: PYTHONPATH=TREE {Path(sys.executable).name} -m cabinet simulate V "
        f"--rounds {args.rounds} --workers {args.workers} --seed {args.seed} "
        "--no-progress --json F (old and new alternately)",
    ]

    def say(*lines: str) -> None:
        print("\n".join(lines), flush=True)
        if args.out:  # as it goes: a long run keeps what it finished
            args.out.parent.mkdir(parents=True, exist_ok=True)
            with args.out.open("a") as f:
                f.write("".join(f"{line}\n" for line in lines))

    say(*report)
    same_all = True
    for variant in args.variant or ["classic", "classic-multi", "american"]:
        times: dict[str, list[float]] = {name: [] for name in trees}
        outputs: dict[str, tuple[list[str], dict[str, object]]] = {}
        same = True
        for _ in range(args.repeat):
            for name in trees:
                secs, lines, data = run_once(trees[name], variant, args.rounds, args.workers, args.seed, [])
                times[name].append(secs)
                if name in outputs and outputs[name] != (lines, data):
                    same = False  # not even reproducible run to run
                outputs.setdefault(name, (lines, data))
        same = same and all(outputs[name] == outputs["old"] for name in trees)
        same_all = same_all and same
        old = min(times["old"])
        parts = [
            f"{name} {', '.join(f'{t:.1f}' for t in times[name])} s"
            + ("" if name == "old" else f" ({old / min(times[name]):.2f}x)")
            for name in trees
        ]
        line = (
            f"{variant}: {args.rounds:,} rounds: {'; '.join(parts)} (speed-up: best of "
            f"each against old); tallies and printed figures "
            f"{'IDENTICAL' if same else 'DIFFER'}; {outputs['new'][0][0]}"
        )
        say(line)
        if args.reference:
            ref = json.loads(Path(args.reference.format(variant=variant)).read_text())
            keys = sorted(
                outputs["new"][1].keys() & ref.keys() - {"seconds", "workers", "inside", "full_shuffle", "exact_rtp"}
            )
            match = all(ref[k] == outputs["new"][1][k] for k in keys)
            same_all = same_all and match
            say(
                f"  against {args.reference.format(variant=variant)} ({', '.join(keys)}): "
                f"{'IDENTICAL' if match else 'DIFFER'}"
            )
        if not same:
            for name in trees:
                print(f"--- {name}\n" + "\n".join(outputs[name][0]), flush=True)
    verdict = f"verdict: tallies {'identical' if same_all else 'NOT identical'} for every variant"
    say(verdict, "")
    return 0 if same_all else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Time of the exact analysis (``cabinet parsheet VARIANT``) per variant.

Prints, per variant, the wall time of ``analyse`` (dealer model, EVs,
strategy derivation, RTP; target under 60 s) and of ``analyse_cd`` (the
composition-dependent analysis of ``--play cd``; target under 60 s) and the
resulting RTPs, and appends JSON lines to ``--out`` (default
``bench/results/parsheet.jsonl``; ``"play"`` is ``"td"`` or ``"cd"``).

Run: ``.venv/bin/python bench/parsheet.py [--variant V] [--play td|cd]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cabinet.game import preset
from cabinet.strategy import analyse
from cabinet.strategy.cd import analyse_cd


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--variant", action="append", help="repeatable; default all three")
    p.add_argument("--play", action="append", choices=("td", "cd"), help="repeatable; default both")
    p.add_argument("--out", type=Path, default=Path("bench/results/parsheet.jsonl"))
    args = p.parse_args()
    for variant in args.variant or ["classic", "classic-multi", "american"]:
        for play in args.play or ["td", "cd"]:
            t0 = time.perf_counter()
            a = (analyse if play == "td" else analyse_cd)(preset(variant))
            secs = time.perf_counter() - t0
            print(
                f"{variant} ({play}): exact analysis {secs:.1f} s; RTP {a.rtp * 100:.6f} %, "
                f"house edge {a.house_edge * 100:.6f} %",
                flush=True,
            )
            args.out.parent.mkdir(parents=True, exist_ok=True)
            with args.out.open("a") as f:
                f.write(
                    json.dumps(
                        {"variant": variant, "play": play, "seconds": secs, "rtp": a.rtp, "house_edge": a.house_edge}
                    )
                    + "\n"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

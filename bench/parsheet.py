"""Time of the exact analysis (``cabinet parsheet VARIANT``) per variant.

Prints, per variant, the wall time of ``analyse`` (dealer model, EVs,
strategy derivation, RTP; target under 60 s) and the resulting RTP, and
appends JSON lines to ``--out`` (default ``bench/results/parsheet.jsonl``).

Run: ``.venv/bin/python bench/parsheet.py [--variant V]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cabinet.game import preset
from cabinet.strategy import analyse


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--variant", action="append", help="repeatable; default all three")
    p.add_argument("--out", type=Path, default=Path("bench/results/parsheet.jsonl"))
    args = p.parse_args()
    for variant in args.variant or ["classic", "classic-multi", "american"]:
        t0 = time.perf_counter()
        a = analyse(preset(variant))
        secs = time.perf_counter() - t0
        print(f"{variant}: exact analysis {secs:.1f} s; RTP {a.rtp * 100:.4f} %, "
              f"house edge {a.house_edge * 100:.4f} %", flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as f:
            f.write(json.dumps({"variant": variant, "seconds": secs, "rtp": a.rtp,
                                "house_edge": a.house_edge}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

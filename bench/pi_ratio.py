"""The Pi 4 speed ratio this machine's benches are throttled by, from a published figure.

Basis: the Computer Language Benchmarks Game's n-body (planets' gravitational
interaction, the algorithm every language's version shares) run 5,000,000 steps in
Python on a Raspberry Pi 4 Model B (Cortex-A72 at 1.5 GHz, performance governor):
158.3 s (C. Mehta, "Performance Analysis of Languages on Raspberry Pi",
https://chaitanyamehta.github.io/projects/performance-analysis-of-programming-languages).
This script runs the same algorithm here for ``--steps`` steps on one core and scales
the time to 5,000,000 steps; the ratio is 158.3 s over that.

The ratio overstates a Pi 4 sold today: its firmware clocks the A72 at 1.8 GHz (x1.2),
and the page's Python (Raspberry Pi OS of 2020: 3.7) is slower than the 3.11 of Pi OS
bookworm (pyperformance's nbody: about 1.3x). Throttling by it is the pessimistic case.

Run: ``.venv/bin/python bench/pi_ratio.py [--steps 500000]``.
"""

from __future__ import annotations

import argparse
import sys
import time

PI4_SECONDS_5M = 158.3
PI4_STEPS = 5_000_000

PI = 3.14159265358979323
SOLAR_MASS = 4 * PI * PI
DAYS_PER_YEAR = 365.24


def bodies() -> list[list[float]]:
    """Sun, Jupiter, Saturn, Uranus, Neptune: x, y, z, vx, vy, vz, mass."""
    d, m = DAYS_PER_YEAR, SOLAR_MASS
    return [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, m],
        [
            4.84143144246472090e00,
            -1.16032004402742839e00,
            -1.03622044471123109e-01,
            1.66007664274403694e-03 * d,
            7.69901118419740425e-03 * d,
            -6.90460016972063023e-05 * d,
            9.54791938424326609e-04 * m,
        ],
        [
            8.34336671824457987e00,
            4.12479856412430479e00,
            -4.03523417114321381e-01,
            -2.76742510726862411e-03 * d,
            4.99852801234917238e-03 * d,
            2.30417297573763929e-05 * d,
            2.85885980666130812e-04 * m,
        ],
        [
            1.28943695621391310e01,
            -1.51111514016986312e01,
            -2.23307578892655734e-01,
            2.96460137564761618e-03 * d,
            2.37847173959480950e-03 * d,
            -2.96589568540237556e-05 * d,
            4.36624404335156298e-05 * m,
        ],
        [
            1.53796971148509165e01,
            -2.59193146099879641e01,
            1.79258772950371181e-01,
            2.68067772490389322e-03 * d,
            1.62824170038242295e-03 * d,
            -9.51592254519715870e-05 * d,
            5.15138902046611451e-05 * m,
        ],
    ]


def advance(b: list[list[float]], steps: int, dt: float = 0.01) -> None:
    pairs = [(b[i], b[j]) for i in range(len(b)) for j in range(i + 1, len(b))]
    for _ in range(steps):
        for b1, b2 in pairs:
            dx, dy, dz = b1[0] - b2[0], b1[1] - b2[1], b1[2] - b2[2]
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** -1.5)
            m1, m2 = b1[6] * mag, b2[6] * mag
            b1[3] -= dx * m2
            b1[4] -= dy * m2
            b1[5] -= dz * m2
            b2[3] += dx * m1
            b2[4] += dy * m1
            b2[5] += dz * m1
        for body in b:
            body[0] += dt * body[3]
            body[1] += dt * body[4]
            body[2] += dt * body[5]


def measure(steps: int, repeats: int = 3) -> float:
    """Best CPU seconds of ``repeats`` runs of ``steps`` n-body steps."""
    best = float("inf")
    for _ in range(repeats):
        b = bodies()
        t0 = time.process_time()
        advance(b, steps)
        best = min(best, time.process_time() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=500_000)
    args = ap.parse_args()
    here = measure(args.steps) * PI4_STEPS / args.steps
    print(
        f"n-body {PI4_STEPS:,} steps: here {here:.1f} s CPU (Python {sys.version.split()[0]}, "
        f"scaled from {args.steps:,}), Pi 4 at 1.5 GHz {PI4_SECONDS_5M} s (published): "
        f"ratio {PI4_SECONDS_5M / here:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""TITO crash soak: kill the engine (or the host twin) at N random moments of a
ticket's redemption through the host (0x67 .. final 0x71) and of a system-validated
cash-out (0x57 .. printed ticket), restart, and check after every kill that the host's
ticket record, the journal and the devices agree (``tests/integration/tito_harness.py``).

Run: ``.venv/bin/python bench/tito_crash.py [--points N] [--flow in|out|both|floor]
[--kill-host] [--system desk|twin] [--power-cut] [--seed S] [--out FILE]``. Prints the kills,
checks, failures and how the flows ended (``in_ended_redeemed`` / ``in_ended_valid``: credited once or handed back
and still good; ``out_ended_ticket`` / ``out_ended_handpay``).

``--power-cut`` (tickets in): the acceptor also loses power at STACKING or VEND VALID
and is power-cycled while the engine is dead; a ticket left in the cash box goes to the
host on the attendant's key. ``--flow floor``: two cabinets and the host twin
(``tests/integration/tito_floor.py``): A killed mid cash-out, its ticket inserted at B
while A is down, B killed mid-redemption and the host twin restarted now and then; no
number paid twice, every ticket cut counted out or handpaid (``--points``: rounds).
``--flow box``: validation "none": one of the cabinet's own vouchers back in with the
acceptor's power cut at STACKING / VEND VALID and the engine killed; credited once by
the key (or the acceptor) when it is in the cash box, never when it is not.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration.tito_floor import floor_soak  # noqa: E402
from tests.integration.tito_harness import box_soak, tito_soak  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--flow", choices=["in", "out", "both", "floor", "box"], default="both")
    ap.add_argument(
        "--kill-host", action="store_true", help="close and restart the host twin instead of killing the engine"
    )
    ap.add_argument(
        "--system",
        choices=["desk", "twin"],
        default="desk",
        help="the casino ticket system: the test's desk or the host twin's own",
    )
    ap.add_argument(
        "--power-cut", action="store_true", help="tickets in: the acceptor loses power at STACKING / VEND VALID too"
    )
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    t0 = time.monotonic()
    if a.flow == "floor":
        return _floor(a, t0)
    with tempfile.TemporaryDirectory(prefix="tito-crash-") as d:
        if a.flow == "box":
            res = box_soak(Path(d), a.points, seed=a.seed)
        else:
            res = tito_soak(
                Path(d),
                a.points,
                seed=a.seed,
                flow=a.flow,
                kill_host=a.kill_host,
                system=a.system,
                power_cut=a.power_cut,
            )
    summary = {
        "flow": a.flow,
        "kill_host": a.kill_host,
        "system": a.system,
        "power_cut": a.power_cut,
        "points": a.points,
        "seed": a.seed,
        "kills": res.kills,
        "checks": res.checks,
        "failures": res.failures,
        "ended": {
            k: v for k, v in sorted(res.kinds.items()) if "ended" in k or k.startswith(("in_box", "handed", "by_the"))
        },
        "desk": {
            k: v for k, v in sorted(res.kinds.items()) if k.startswith(("redeem", "returned", "validated", "twin_"))
        },
        "seconds": round(time.monotonic() - t0, 1),
    }
    text = json.dumps(summary)
    print(text)
    if a.out is not None:
        with a.out.open("a") as f:
            f.write(text + "\n")
    return 0 if not res.failures and res.kills == res.checks == a.points else 1


def _floor(a: argparse.Namespace, t0: float) -> int:
    with tempfile.TemporaryDirectory(prefix="tito-floor-") as d:
        res = floor_soak(Path(d), a.points, seed=a.seed)
    summary = {
        "flow": "floor",
        "rounds": a.points,
        "seed": a.seed,
        "kills": res.kills,
        "checks": res.checks,
        "failures": res.failures,
        "kinds": {k: v for k, v in sorted(res.kinds.items())},
        "seconds": round(time.monotonic() - t0, 1),
    }
    text = json.dumps(summary)
    print(text)
    if a.out is not None:
        with a.out.open("a") as f:
            f.write(text + "\n")
    return 0 if not res.failures and res.checks == a.points else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``cabinet`` command line.

Owns: argument parsing and dispatch to the modules that do the work. Each
sub-command imports its module lazily, so ``cabinet replay`` never loads
pygame or the drivers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cabinet", description="Blackjack cabinet firmware.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rp = sub.add_parser("replay", help="play one round from a scenario file (SCENARIOS.md)")
    rp.add_argument("files", nargs="+", metavar="FILE.json")
    rp.add_argument("--check", action="store_true",
                    help="compare with the file's expect/expect_error; status 1 on mismatch")

    sub.add_parser("run", help="run the whole cabinet with simulated devices")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cabinet`` console script; returns the exit status."""
    args = _build_parser().parse_args(argv)
    if args.command == "replay":
        from cabinet import replay
        return replay.main(args.files, check=args.check)
    if args.command == "run":
        from cabinet import demo
        return demo.main()
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())

"""``cabinet sim-device bill|printer``: run one twin on a pty and drive it by keyboard.

Owns: argument parsing and the line commands for each twin.  The team's ``cabinet``
CLI calls ``main(argv)`` with the arguments after ``sim-device``.
Must not import: serial, cabinet.*.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from drivers.id003_codec import Status
from drivers.sim.id003_device import SimId003Device
from drivers.sim.printer_device import SimPrinterDevice

BILL_HELP = """commands:
  1 5 10 20 50 100    insert a bill of that many dollars
  v DIGITS            insert a voucher (1-18 digits; validation numbers have 18)
  jam | full | open | cheat | fail   enter a fault      clear   clear it
  power               lose power now (comes back in POWER UP)
  unplug | replug     pull / reinsert the USB adapter (same path)
  drop N | corrupt N | split N       damage the next N replies
  garble | heal       every reply garbled (wrong baud or parity) / ended
  jamack              the next ACK of a VEND VALID finds a stacker jam
  loseack N | repeat N               lose N ACKs / repeat VEND VALID N times
  status | help | quit"""

PRINTER_HELP = """commands:
  out | low | paper   paper out / near end / loaded
  cover | shut        open / close the cover
  offline | online    printer offline / online
  silent | talk       stop / resume answering status
  unplug | replug     pull / reinsert the USB adapter
  list                printed tickets
  status | help | quit"""


def _count(cmd: str, args: list[str]) -> int:
    """The N of ``drop N``-style commands: 1 if absent, else a whole number 0-999999."""
    if not args:
        return 1
    word = args[0]
    if len(args) > 1 or not (word.isascii() and word.isdigit()) or len(word) > 6:
        raise ValueError(f"{cmd} takes one count N, a whole number 0-999999, not {' '.join(args)[:24]!r}")
    return int(word)


def _dollars(amount_minor: int) -> str:
    """``2000`` -> ``"$20"``, ``250`` -> ``"$2.50"``."""
    whole, cents = divmod(amount_minor, 100)
    return f"${whole}" if not cents else f"${whole}.{cents:02d}"


def _no_args(cmd: str, args: list[str]) -> None:
    if args:
        raise ValueError(f"{cmd} takes no argument, got {' '.join(args)[:24]!r}")


def bill_command(dev: SimId003Device, line: str) -> str:
    """Apply one keyboard command (see ``BILL_HELP``) to the validator twin.

    Returns:
        A reply line ("" for a blank line; the command list for ``help``).

    Raises:
        ValueError: unknown command, bad argument, a bill value the currency table
            lacks or a voucher barcode that is not 1-18 digits; the message is one
            line and the twin is left untouched.
    """
    words = line.split()
    if not words:
        return ""
    cmd, args = words[0].lower(), words[1:]
    if cmd.isascii() and cmd.isdigit():
        _no_args(cmd, args)
        try:
            dev.insert_bill_minor(int(cmd) * 100)
        except ValueError:
            known = ", ".join(_dollars(d.value_minor) for d in dev.table)
            raise ValueError(f"no ${cmd[:8]} bill in the currency table (it has {known})") from None
        return f"inserted ${cmd}"
    simple = {
        "jam": dev.jam,
        "full": dev.fill_stacker,
        "open": dev.open_stacker,
        "cheat": lambda: dev.set_fault(Status.CHEATED),
        "fail": lambda: dev.set_fault(Status.FAILURE, b"\xa2"),
        "clear": dev.clear_fault,
        "power": dev.power_cycle,
        "unplug": dev.link.unplug,
        "replug": dev.link.replug,
        "garble": dev.garble,
        "heal": dev.heal,
        "jamack": dev.jam_at_ack,
    }
    counted = {
        "drop": dev.drop_replies,
        "corrupt": dev.corrupt_replies,
        "split": dev.split_replies,
        "loseack": dev.lose_acks,
        "repeat": dev.repeat_vend_valid,
    }
    if cmd == "v":
        if len(args) != 1:
            raise ValueError("v takes one argument, the voucher's barcode digits (1-18)")
        dev.insert_voucher(args[0])
        return f"inserted voucher {args[0]}"
    if cmd in simple:
        _no_args(cmd, args)
        simple[cmd]()
        return f"{cmd}: state {dev.state.name}"
    if cmd in counted:
        n = _count(cmd, args)
        counted[cmd](n)
        return f"{cmd} {n}"
    if cmd in ("status", "help"):
        _no_args(cmd, args)
        if cmd == "help":
            return BILL_HELP
        log = dev.log
        return (
            f"{dev.state.name} inhibited={dev.inhibited} stacked={len(log.stacked)} "
            f"returned={len(log.returned)} rejected={len(log.rejected)} path={dev.path}"
        )
    raise ValueError(f"unknown bill command {cmd[:24]!r} (help lists them)")


def printer_command(dev: SimPrinterDevice, line: str) -> str:
    """Apply one keyboard command (see ``PRINTER_HELP``) to the printer twin.

    Returns:
        A reply line ("" for a blank line; the command list for ``help``).

    Raises:
        ValueError: unknown command or an argument to a command that takes none; the
            message is one line and the twin is left untouched.
    """
    words = line.split()
    if not words:
        return ""
    cmd, args = words[0].lower(), words[1:]
    actions = {
        "out": lambda: dev.set_paper(out=True),
        "low": lambda: dev.set_paper(low=True),
        "paper": lambda: dev.set_paper(),
        "cover": lambda: dev.set_cover_open(True),
        "shut": lambda: dev.set_cover_open(False),
        "offline": lambda: dev.set_offline(True),
        "online": lambda: dev.set_offline(False),
        "silent": lambda: setattr(dev, "silent", True),
        "talk": lambda: setattr(dev, "silent", False),
        "unplug": dev.link.unplug,
        "replug": dev.link.replug,
    }
    if cmd not in actions and cmd not in ("list", "status", "help"):
        raise ValueError(f"unknown printer command {cmd[:24]!r} (help lists them)")
    _no_args(cmd, args)
    if cmd in actions:
        actions[cmd]()
        return f"{cmd}: ok"
    if cmd == "list":
        return "\n".join(str(t.png_path or t.lines[:1]) for t in dev.tickets) or "no tickets"
    if cmd == "status":
        return (
            f"paper_out={dev.paper_out} low={dev.paper_low} cover_open={dev.cover_open} "
            f"offline={dev.offline} tickets={len(dev.tickets)} buffered={dev.buffered} "
            f"path={dev.path}"
        )
    return PRINTER_HELP


def main(argv: list[str], *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run ``bill`` or ``printer`` twin until "quit" or end of input.

    Args:
        argv: e.g. ``["bill", "--link", "/tmp/bill"]`` or ``["printer", "--out", "tickets"]``.
        stdin, stdout: for tests; default the process's.

    Returns:
        Process exit status (0 on a clean quit, 2 on bad arguments).
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    parser = argparse.ArgumentParser(prog="cabinet sim-device")
    sub = parser.add_subparsers(dest="device", required=True)
    bill = sub.add_parser("bill", help="ID-003 bill validator twin")
    bill.add_argument("--link", help="stable symlink path for the pty (default: temp dir)")
    bill.add_argument("--escrow-timeout-s", type=float, default=10.0)
    bill.add_argument("--bad-crc", choices=["silent", "comm_error"], default="silent")
    printer = sub.add_parser("printer", help="ESC/POS ticket printer twin")
    printer.add_argument("--link", help="stable symlink path for the pty (default: temp dir)")
    printer.add_argument("--out", help="directory for ticket PNG/txt files (default: temp dir)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    tmp = Path(tempfile.mkdtemp(prefix="cabinet-sim-device-"))
    link = args.link or str(tmp / args.device)
    dev: SimId003Device | SimPrinterDevice
    if args.device == "bill":
        dev = SimId003Device(link_path=link, escrow_timeout_s=args.escrow_timeout_s, bad_crc_reply=args.bad_crc)
        helptext = BILL_HELP
    else:
        dev = SimPrinterDevice(link_path=link, out_dir=args.out or tmp / "tickets")
        helptext = PRINTER_HELP
    dev.start()
    path = dev.path

    def handler(line: str) -> str:
        if isinstance(dev, SimId003Device):
            return bill_command(dev, line)
        return printer_command(dev, line)

    print(f"{args.device} twin listening on {path}", file=stdout)
    print(helptext, file=stdout, flush=True)
    try:
        for line in stdin:
            if line.strip().lower() in ("quit", "q", "exit"):
                break
            try:
                reply = handler(line)
            except ValueError as exc:  # a typo must not end the session
                reply = f"error: {exc}"
            if reply:
                print(reply, file=stdout, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        dev.close()
    return 0

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
  v DIGITS            insert a voucher (18 digits)
  jam | full | open | cheat | fail   enter a fault      clear   clear it
  power               lose power now (comes back in POWER UP)
  unplug | replug     pull / reinsert the USB adapter (same path)
  drop N | corrupt N | split N       damage the next N replies
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


def bill_command(dev: SimId003Device, line: str) -> str:
    """Apply one keyboard command to the validator twin; return a reply line."""
    words = line.split()
    if not words:
        return ""
    cmd, args = words[0].lower(), words[1:]
    n = int(args[0]) if args and args[0].isdigit() else 1
    if cmd.isdigit():
        try:
            dev.insert_bill_minor(int(cmd) * 100)
        except StopIteration:
            return f"no ${cmd} bill in the currency table"
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
    }
    counted = {
        "drop": dev.drop_replies,
        "corrupt": dev.corrupt_replies,
        "split": dev.split_replies,
        "loseack": dev.lose_acks,
        "repeat": dev.repeat_vend_valid,
    }
    if cmd == "v" and args:
        dev.insert_voucher(args[0])
        return f"inserted voucher {args[0]}"
    if cmd in simple:
        simple[cmd]()
        return f"{cmd}: state {dev.state.name}"
    if cmd in counted:
        counted[cmd](n)
        return f"{cmd} {n}"
    if cmd == "status":
        log = dev.log
        return (
            f"{dev.state.name} inhibited={dev.inhibited} stacked={len(log.stacked)} "
            f"returned={len(log.returned)} rejected={len(log.rejected)} path={dev.path}"
        )
    return BILL_HELP


def printer_command(dev: SimPrinterDevice, line: str) -> str:
    """Apply one keyboard command to the printer twin; return a reply line."""
    cmd = line.strip().lower()
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
    if not cmd:
        return ""
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
        dev = SimId003Device(
            link_path=link, escrow_timeout_s=args.escrow_timeout_s, bad_crc_reply=args.bad_crc
        )
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
            reply = handler(line)
            if reply:
                print(reply, file=stdout, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        dev.close()
    return 0

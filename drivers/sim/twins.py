"""All simulated twins wired together, for ``cabinet run`` in sim mode and for tests.

Owns: starting the ID-003 and printer simulators on ptys under one directory (stable
symlinks ``bill-acceptor`` and ``printer``), the mock pin factory the panel runs on,
and keyboard-style helpers to press buttons and open doors on it; and
``cabinet sim-devices`` (``sim_devices_main``): the serial twins of every station in
a process of their own, which survives the engine's death as real devices do, with
a JSON control socket that also reports their physical truth (notes in the cash
box, tickets cut).
Must not import: serial, cabinet.*.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from drivers.events import Action, Door
from drivers.id003_codec import Status
from drivers.sim.id003_device import SimId003Device
from drivers.sim.line_server import LineJsonServer
from drivers.sim.printer_device import SimPrinterDevice
from drivers.wiring import Wiring


@dataclass(slots=True)
class SimDevices:
    """Running twins.  ``close()`` stops them all.

    Attributes:
        pin_factory: the ``MockFactory`` the panel, lamps and pulse acceptor use.
        bill: the ID-003 simulator (its ``path`` is what the driver opens).
        printer: the printer simulator.
        wiring: pins, to find the mock pin behind a button or door.
    """

    pin_factory: Any
    bill: SimId003Device | None
    printer: SimPrinterDevice | None
    wiring: Wiring

    def press(self, action: Action) -> None:
        """Press and release a panel button (instantly; the debouncer settles on poll)."""
        pin = self.pin_factory.pin(self.wiring.buttons[action])
        pin.drive_low()
        threading.Event().wait(0.02)  # a 20 ms press, longer than the 5 ms settle time
        pin.drive_high()

    def set_door(self, door: Door, is_open: bool) -> None:
        """Open or shut a door (the switch closes, pin low, when shut)."""
        pin = self.pin_factory.pin(self.wiring.doors[door])
        if is_open:
            pin.drive_high()
        else:
            pin.drive_low()

    def set_key(self, on: bool) -> None:
        """Turn the operator key switch."""
        if self.wiring.key_switch is None:
            return
        pin = self.pin_factory.pin(self.wiring.key_switch)
        if on:
            pin.drive_low()
        else:
            pin.drive_high()

    def close(self) -> None:
        """Stop both serial twins (if they run here) and release mock pins."""
        if self.bill is not None:
            self.bill.close()
        if self.printer is not None:
            self.printer.close()
        self.pin_factory.reset()


def start_sim_devices(
    directory: str | Path,
    *,
    wiring: Wiring | None = None,
    ticket_dir: str | Path | None = None,
    escrow_timeout_s: float = 10.0,
) -> SimDevices:
    """Start the twins; pty symlinks go to ``directory``/{bill-acceptor,printer}.

    Args:
        directory: existing or new directory for the stable pty paths.
        wiring: pin map for the mock factory (default ``Wiring()``).
        ticket_dir: where the printer twin writes PNG/txt tickets (default
            ``directory``/tickets).
        escrow_timeout_s: the validator twin's escrow auto-return time.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    bill = SimId003Device(link_path=str(directory / "bill-acceptor"), escrow_timeout_s=escrow_timeout_s)
    printer = SimPrinterDevice(
        link_path=str(directory / "printer"),
        out_dir=Path(ticket_dir) if ticket_dir is not None else directory / "tickets",
    )
    bill.start()
    printer.start()
    return SimDevices(MockFactory(), bill, printer, wiring or Wiring())


def panel_only_devices(wiring: Wiring | None = None) -> SimDevices:
    """Mock pins only: the serial twins run in another process (``cabinet sim-devices``)."""
    return SimDevices(MockFactory(), None, None, wiring or Wiring())


# --- cabinet sim-devices: the serial twins in a process of their own -----------------

#: Acceptor states a ``power_at`` command may arm a power cut for.
POWER_AT = {
    "accepting": Status.ACCEPTING,
    "escrow": Status.ESCROW,
    "stacking": Status.STACKING,
    "vend_valid": Status.VEND_VALID,
    "stacked": Status.STACKED,
}


def station_dir(state_dir: str | Path, station: int) -> Path:
    """Where station ``station``'s pty links live: ``state_dir`` for 1, else
    ``state_dir/stationN`` (the layout ``cabinet engine --twins`` expects)."""
    return Path(state_dir) if station == 1 else Path(state_dir) / f"station{station}"


def ticket_number(ticket: Any) -> str:
    """The validation number a cut ticket carries (its barcode), "" if none."""
    codes = ticket.barcodes
    return codes[0].data if codes else ""


class TwinSet:
    """The serial twins of ``stations`` stations and what they physically did.

    Args:
        state_dir: pty links go to ``station_dir(state_dir, n)``/{bill-acceptor,printer}.
        stations: 1-3.
        escrow_timeout_s: the validators' escrow auto-return time.
    """

    def __init__(self, state_dir: str | Path, stations: int = 1, escrow_timeout_s: float = 10.0) -> None:
        self.state_dir = Path(state_dir)
        self.twins: dict[int, tuple[SimId003Device, SimPrinterDevice]] = {}
        for n in range(1, stations + 1):
            d = station_dir(state_dir, n)
            d.mkdir(parents=True, exist_ok=True)
            bill = SimId003Device(link_path=str(d / "bill-acceptor"), escrow_timeout_s=escrow_timeout_s)
            printer = SimPrinterDevice(link_path=str(d / "printer"), out_dir=d / "tickets")
            bill.start()
            printer.start()
            self.twins[n] = (bill, printer)

    def close(self) -> None:
        for bill, printer in self.twins.values():
            bill.close()
            printer.close()

    def truth(self, station: int) -> dict[str, Any]:
        """What station ``station``'s devices physically hold and did.

        Returns:
            ``cash_box_minor`` (value of the notes stacked in the cash box),
            ``notes_stacked`` (their values, in order), ``vouchers_stacked``
            (barcodes), ``tickets`` (validation numbers of the tickets cut, in
            order), ``uncut`` (validation numbers on prints begun but never cut),
            ``acceptor`` (state name) and ``idle`` (no item in the acceptor and
            none queued).
        """
        bill, printer = self.twins[station]
        values = {d.escrow_code: d.value_minor for d in bill.table}
        with bill._lock:
            stacked = list(bill.log.stacked)
            idle = bill._item is None and not bill._queue and bill.state in (Status.IDLING, Status.DISABLED)
            state = bill.state.name
        notes = [values.get(i.escrow_code, 0) for i in stacked if i.barcode is None]
        return {
            "cash_box_minor": sum(notes),
            "notes_stacked": notes,
            "vouchers_stacked": [i.barcode for i in stacked if i.barcode is not None],
            "tickets": [ticket_number(t) for t in list(printer.tickets)],
            "uncut": [ticket_number(t) for t in list(printer.uncut) + [printer.partial] if ticket_number(t)],
            "acceptor": state,
            "idle": idle,
        }

    def command(self, line: str) -> dict[str, Any]:
        """Apply one control line (JSON object); never raises for bad input.

        Commands (``"station": N`` optional, default 1): ``{"cmd": "note",
        "amount_minor": 2000}``, ``{"cmd": "voucher", "validation_number": "..."}``,
        ``{"cmd": "bill", "line": "power"}`` / ``{"cmd": "printer", "line": "out"}``
        (the keyboard commands of ``cabinet sim-device``), ``{"cmd": "power_at",
        "state": "stacking"}`` (cut the acceptor's power when it next enters that
        state: one of ``POWER_AT``), ``{"cmd": "garble_at", "state": "escrow"}`` (garble
        every reply from then on, ``{"cmd": "bill", "line": "heal"}`` ends it),
        ``{"cmd": "truth"}`` (see ``truth``) and
        ``{"cmd": "tickets"}``.

        Returns:
            ``{"ok": true, ...}`` or ``{"ok": false, "error": "<one line>"}``.
        """
        from drivers.sim.cli import bill_command, printer_command

        try:
            msg = json.loads(line)
        except ValueError as e:
            return {"ok": False, "error": f"not JSON: {' '.join(str(e).split())[:120]}"}
        if not isinstance(msg, dict) or not isinstance(msg.get("cmd"), str):
            return {"ok": False, "error": 'a command is a JSON object with "cmd", a string'}
        station = msg.get("station", 1)
        if station not in self.twins or isinstance(station, bool):
            return {
                "ok": False,
                "error": f"no station {str(station)[:8]} (twins for {', '.join(map(str, self.twins))})",
            }
        bill, printer = self.twins[station]
        cmd = msg["cmd"]
        try:
            if cmd == "note":
                amount = msg.get("amount_minor")
                if isinstance(amount, bool) or not isinstance(amount, int):
                    raise ValueError('"amount_minor" must be an integer')
                bill.insert_bill_minor(amount)
            elif cmd == "voucher":
                bill.insert_voucher(msg.get("validation_number"))  # type: ignore[arg-type]
            elif cmd == "bill":
                return {"ok": True, "reply": bill_command(bill, str(msg.get("line", "")))}
            elif cmd == "printer":
                return {"ok": True, "reply": printer_command(printer, str(msg.get("line", "")))}
            elif cmd in ("power_at", "garble_at"):
                state = POWER_AT.get(str(msg.get("state")))
                if state is None:
                    raise ValueError(f"state must be one of {', '.join(POWER_AT)}")
                bill.on_enter(state, bill.power_cycle if cmd == "power_at" else bill.garble)
            elif cmd == "truth":
                return {"ok": True, **self.truth(station)}
            elif cmd == "tickets":
                return {"ok": True, "tickets": [str(t.png_path) for t in printer.tickets]}
            else:
                return {"ok": False, "error": f"unknown command {cmd[:24]!r}"}
        except ValueError as e:
            return {"ok": False, "error": f"{cmd}: {e}"}
        return {"ok": True}


def sim_devices_main(argv: list[str]) -> int:
    """``cabinet sim-devices --state-dir D [--stations N] [--socket S]``.

    Starts the bill-acceptor and printer twins of N stations on ptys under D
    (``station_dir``), serves the control socket S (default ``D/control.sock``),
    prints ``sim devices ready: control S`` and runs until SIGTERM/SIGINT.  Point
    an engine at them with ``cabinet engine --devices sim --twins D``.
    """
    ap = argparse.ArgumentParser(prog="cabinet sim-devices", description="serial twins in a process of their own")
    ap.add_argument("--state-dir", required=True, help="directory for the pty links")
    ap.add_argument("--stations", type=int, default=1, choices=(1, 2, 3))
    ap.add_argument("--socket", help="control socket (default STATE_DIR/control.sock)")
    ap.add_argument("--escrow-timeout-s", type=float, default=10.0)
    args = ap.parse_args(argv)
    state_dir = Path(args.state_dir)
    sock = Path(args.socket) if args.socket else state_dir / "control.sock"
    try:
        twins = TwinSet(state_dir, args.stations, args.escrow_timeout_s)
        sock.parent.mkdir(parents=True, exist_ok=True)
        sock.unlink(missing_ok=True)
    except OSError as e:  # a folder under a file, no permission: said, not a traceback
        print(f"cabinet sim devices: cannot use {e.filename or state_dir}: {e.strerror or e}", file=sys.stderr)
        return 2
    server = LineJsonServer(str(sock), lambda raw: twins.command(raw.decode(errors="replace")))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"sim devices ready: control {sock}", flush=True)
    try:
        stop.wait()
    finally:
        server.shutdown()
        server.server_close()
        sock.unlink(missing_ok=True)
        twins.close()
    return 0

"""All simulated twins wired together, for ``cabinet run`` in sim mode and for tests.

Owns: starting the ID-003 and printer simulators on ptys under one directory (stable
symlinks ``bill-acceptor`` and ``printer``), the mock pin factory the panel runs on,
and keyboard-style helpers to press buttons and open doors on it.
Must not import: serial, cabinet.*.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from drivers.events import Action, Door
from drivers.sim.id003_device import SimId003Device
from drivers.sim.printer_device import SimPrinterDevice
from drivers.sim.pulse_source import PulseSource
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
    bill: SimId003Device
    printer: SimPrinterDevice
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

    def pulse_source(self) -> PulseSource | None:
        """A pulse generator on the pulse acceptor's pin, if one is wired."""
        if self.wiring.pulse is None:
            return None
        return PulseSource(self.pin_factory.pin(self.wiring.pulse.pin), rng=random.Random())

    def close(self) -> None:
        """Stop both serial twins and release mock pins."""
        self.bill.close()
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
    bill = SimId003Device(
        link_path=str(directory / "bill-acceptor"), escrow_timeout_s=escrow_timeout_s
    )
    printer = SimPrinterDevice(
        link_path=str(directory / "printer"),
        out_dir=Path(ticket_dir) if ticket_dir is not None else directory / "tickets",
    )
    bill.start()
    printer.start()
    return SimDevices(MockFactory(), bill, printer, wiring or Wiring())

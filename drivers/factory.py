"""The one place that chooses real hardware or simulated twins (STYLE.md rule 17).

Owns: ``DriverSettings``, ``DriverSet``, ``build_drivers`` and ``open_counter``.  In "hardware" mode
the panel runs on gpiozero's lgpio factory and the serial drivers open the configured
ports; in "sim" mode the same driver classes run against the twins (mock pins, ptys).
Must not import: cabinet.*.  The engine imports only this module, ``interfaces`` and
``events`` from drivers/.
"""

from __future__ import annotations

import logging
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from drivers.errors import ConfigError
from drivers.events import Action
from drivers.gpio_panel import GpioButtonPanel, GpioLampBank
from drivers.id003_acceptor import Id003BillAcceptor
from drivers.interfaces import (
    BillAcceptor,
    ButtonPanel,
    CreditCallback,
    DecideCallback,
    EventSink,
    LampBank,
    MonotonicCounter,
    OpenTransaction,
    TicketPrinter,
)
from drivers.pulse_acceptor import PulseAcceptor
from drivers.ticket_printer import EscPosTicketPrinter
from drivers.wiring import Wiring

if TYPE_CHECKING:  # the twins load only when the simulation is chosen
    from drivers.sim.twins import SimDevices

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DriverSettings:
    """Which drivers to build and where their devices are.

    Attributes:
        mode: "hardware" (Pi GPIO via lgpio, real serial ports) or "sim" (twins).
        wiring: pin map (``drivers.wiring.load_wiring``).
        bill_acceptor: "id003", "pulse" (needs ``wiring.pulse``) or "none".
        bill_acceptor_url: serial path of the ID-003 validator (hardware mode).
        printer_url: serial path of the ticket printer (hardware mode).
        enabled_denominations_minor: bill values to accept; None = all.
        accept_vouchers: let the validator read TITO tickets.
        sim_dir: directory for the twins' pty symlinks and tickets (sim mode);
            None = a new temporary directory.
        sim_twins_dir: sim mode with the serial twins in a process of their own
            (``cabinet sim-devices``): open ``sim_twins_dir``/{bill-acceptor,printer}
            like real ports and start only the mock pins here.  None = start the
            twins in this process.
        bill_poll_interval_s: ID-003 status poll period (protocols.md: ~0.2 s; the
            twins answer at once, so simulation may poll faster).
        refire_guard_overrides_s: per-action refire windows for the panel.
    """

    mode: Literal["hardware", "sim"] = "sim"
    wiring: Wiring = field(default_factory=Wiring)
    bill_acceptor: Literal["id003", "pulse", "none"] = "id003"
    bill_acceptor_url: str = "/dev/serial/by-id/usb-bill-acceptor"
    printer_url: str = "/dev/serial/by-id/usb-ticket-printer"
    enabled_denominations_minor: frozenset[int] | None = None
    accept_vouchers: bool = True
    sim_dir: Path | None = None
    sim_twins_dir: Path | None = None
    bill_poll_interval_s: float = 0.2
    refire_guard_overrides_s: dict[Action, float] = field(default_factory=dict)


def serial_ports(settings: DriverSettings) -> dict[str, str]:
    """The serial ports ``build_drivers`` opens for ``settings`` that another process
    could open too (hardware ports, or twins of ``cabinet sim-devices``): what each is
    for ("bill acceptor", "printer") -> its path.  In-process twins: none."""
    if settings.mode == "sim" and settings.sim_twins_dir is None:
        return {}
    if settings.mode == "sim":
        assert settings.sim_twins_dir is not None
        bill, printer = (str(settings.sim_twins_dir / "bill-acceptor"), str(settings.sim_twins_dir / "printer"))
    else:
        bill, printer = settings.bill_acceptor_url, settings.printer_url
    ports = {"printer": printer}
    if settings.bill_acceptor == "id003":
        ports = {"bill acceptor": bill, **ports}
    return ports


@dataclass(slots=True)
class DriverSet:
    """The built drivers; ``close()`` releases them (and stops twins in sim mode)."""

    panel: ButtonPanel
    lamps: LampBank
    bill_acceptor: BillAcceptor | None
    printer: TicketPrinter
    sim: SimDevices | None = None

    def close(self) -> None:
        parts: Iterable[Any] = (self.bill_acceptor, self.printer, self.panel, self.lamps, self.sim)
        for part in parts:
            if part is not None:
                try:
                    part.close()
                except Exception:
                    log.exception("closing %r failed", part)


def _hardware_pin_factory() -> Any:
    """gpiozero's lgpio pin factory (the Pi's GPIO).

    Raises:
        ImportError: lgpio is not installed (on the Pi: Pi OS's ``python3-lgpio``,
            which ``cabinet install`` installs).
    """
    try:
        from gpiozero.pins.lgpio import LGPIOFactory  # only importable on the Pi
    except ImportError as e:
        raise ImportError(
            f"hardware GPIO needs lgpio ({e}); on the Pi: sudo apt-get install "
            "python3-lgpio, in a venv that sees the system's packages "
            "(cabinet install makes it so)"
        ) from None
    return LGPIOFactory()


def build_drivers(
    settings: DriverSettings,
    *,
    decide: DecideCallback,
    credit: CreditCallback,
    sink: EventSink,
    open_transaction: OpenTransaction | None = None,
) -> DriverSet:
    """Build every driver for ``settings.mode``.  Nothing is started or polled yet.

    The engine then calls ``panel.start(sink, loop=loop)``, ``bill_acceptor.start()``
    and ``printer.open()`` (which may raise ``DeviceOfflineError``; the printer
    reconnects by itself on later calls).

    Args:
        settings: what to build.
        decide, credit, sink: engine callbacks (``drivers.interfaces``).
        open_transaction: the journal's unclosed escrow after a restart, or None.

    Raises:
        ConfigError: "pulse" without ``wiring.pulse``.
        gpiozero.GPIOZeroError / ImportError: hardware mode off the Pi.
    """
    sim: SimDevices | None = None
    if settings.mode == "sim" and settings.sim_twins_dir is not None:
        from drivers.sim.twins import panel_only_devices

        sim = panel_only_devices(settings.wiring)
        pin_factory = sim.pin_factory
        bill_url = str(settings.sim_twins_dir / "bill-acceptor")
        printer_url = str(settings.sim_twins_dir / "printer")
        log.info("external twins in %s", settings.sim_twins_dir)
    elif settings.mode == "sim":
        directory = settings.sim_dir or Path(tempfile.mkdtemp(prefix="cabinet-sim-"))
        from drivers.sim.twins import start_sim_devices

        sim = start_sim_devices(directory, wiring=settings.wiring)
        pin_factory = sim.pin_factory
        assert sim.bill is not None and sim.printer is not None  # started here
        bill_url, printer_url = sim.bill.path, sim.printer.path
        log.info("simulated devices in %s", directory)
    else:
        pin_factory = _hardware_pin_factory()
        bill_url, printer_url = settings.bill_acceptor_url, settings.printer_url
    log.info("driver mode %s, pin factory %r", settings.mode, pin_factory)
    try:
        panel = GpioButtonPanel(
            settings.wiring,
            pin_factory=pin_factory,
            refire_guard_overrides_s=settings.refire_guard_overrides_s,
        )
        lamps = GpioLampBank(settings.wiring, pin_factory=pin_factory)
        if sim is not None:  # the twin cabinet starts with its doors shut
            for door in settings.wiring.doors:
                sim.set_door(door, False)
            threading.Event().wait(0.05)  # longer than the panel's 30 ms switch settle time
            panel.poll()
        acceptor: BillAcceptor | None = None
        if settings.bill_acceptor == "id003":
            acceptor = Id003BillAcceptor(
                bill_url,
                decide=decide,
                credit=credit,
                sink=sink,
                open_transaction=open_transaction,
                enabled_denominations_minor=settings.enabled_denominations_minor,
                accept_vouchers=settings.accept_vouchers,
                poll_interval_s=settings.bill_poll_interval_s,
            )
        elif settings.bill_acceptor == "pulse":
            if settings.wiring.pulse is None:
                raise ConfigError("bill_acceptor", "'pulse' needs a [pulse_acceptor] wiring section")
            acceptor = PulseAcceptor(settings.wiring.pulse, credit=credit, sink=sink, pin_factory=pin_factory)
        printer = EscPosTicketPrinter(printer_url)
    except Exception:
        if sim is not None:
            sim.close()
        raise
    return DriverSet(panel, lamps, acceptor, printer, sim)


def open_counter(spec: str) -> MonotonicCounter | None:
    """The hardware monotonic counter ``spec`` names (``[journal] counter`` of
    ``cabinet.toml``):

    - ``""`` or ``"none"``: none fitted;
    - ``"atecc608:/dev/i2c-1"`` (``":1"`` after it for the chip's counter 1): an
      ATECC608 secure element on that I2C bus (``drivers.atecc608``);
    - ``"twin:PATH"``: its twin, the value in the file PATH (outside the journal's folder).

    Raises:
        ConfigError: any other spec.
        DeviceOfflineError: the I2C bus cannot be opened.
    """
    kind, _, rest = spec.strip().partition(":")
    if kind in ("", "none") and not rest:
        return None
    if kind == "twin" and rest:
        from drivers.sim.counter_twin import FileCounter

        return FileCounter(rest)
    if kind == "atecc608" and rest:
        from drivers.atecc608 import Atecc608Counter, LinuxI2c

        path, _, number = rest.partition(":")
        if number not in ("", "0", "1"):
            raise ConfigError("journal.counter", f"{spec!r}: the ATECC608 has counters 0 and 1")
        return Atecc608Counter(LinuxI2c(path), int(number or 0))
    raise ConfigError("journal.counter", f"expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got {spec!r}")

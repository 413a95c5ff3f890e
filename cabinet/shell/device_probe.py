"""Probing the cabinet's devices for ``cabinet doctor``: the wiring file's
completeness, every input pin, the bill acceptor and the ticket printer.

Owns: ``Finding`` (one line of the doctor's report) and the probes, each opening
its device through the existing drivers, reading it, and closing it again; none
takes money: an escrowed note is returned, a note found in the stacker at power-up
is left for the engine to journal. I/O: GPIO and serial ports (a shell module: the
only layer that imports ``drivers``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers import pins
from drivers.errors import DeviceBusyError, DriverError
from drivers.events import BillFoundInStacker, BillPossiblyInPath, EscrowDecision
from drivers.wiring import Wiring

#: The fix for a serial port another process holds.
STOP_ENGINE = "stop the engine first: sudo systemctl stop cabinet.target"
#: Serial settings of each device (the drivers' ``open_serial`` calls).
ACCEPTOR_SERIAL = "9600 baud, 8 data bits, even parity, 1 stop bit (8E1)"
PRINTER_SERIAL = "9600 baud, 8 data bits, no parity, 1 stop bit (8N1)"


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's outcome.

    Attributes:
        status: ``PASS``, ``WARN`` (works, but see ``fix``) or ``FAIL``.
        what: what was checked (``"station 1 bill acceptor /dev/..."``).
        detail: what was found.
        fix: what to do (``""`` for a pass).
    """

    status: str
    what: str
    detail: str
    fix: str = ""


def wiring_findings(w: Wiring, label: str) -> list[Finding]:
    """Every button, door and the key switch the game needs has a pin in ``w``.

    A button, door or key switch left out of the wiring file (a section present
    replaces the defaults entirely) is a ``FAIL``; a lamp or the tower light left
    out a ``WARN`` (play works without them).
    """
    out: list[Finding] = []
    for action, default in pins.BUTTON_PINS.items():
        if action not in w.buttons:
            out.append(
                Finding(
                    "FAIL",
                    f"{label} button {action.value}",
                    "no pin: unwired",
                    f"add '{action.value} = {default}' (its BCM pin) under [buttons] in the wiring file",
                )
            )
    for door, default in pins.DOOR_PINS.items():
        if door not in w.doors:
            out.append(
                Finding(
                    "FAIL",
                    f"{label} door {door.value}",
                    "no pin: unwired",
                    f"add '{door.value} = {default}' under [doors]",
                )
            )
    if w.key_switch is None:
        out.append(
            Finding(
                "FAIL",
                f"{label} key switch",
                "no pin: the operator menu cannot be entered",
                f"set 'pin = {pins.KEY_SWITCH_PIN}' under [key_switch]",
            )
        )
    for action in pins.LAMP_PINS:
        if action in w.buttons and action not in w.lamps:
            out.append(
                Finding(
                    "WARN",
                    f"{label} lamp {action.value}",
                    "no pin",
                    "add its pin under [lamps] if the button has a lamp",
                )
            )
    if not w.tower_light:
        out.append(Finding("WARN", f"{label} tower light", "no pins", "add red/amber/green pins under [tower_light]"))
    if not out:
        out.append(
            Finding(
                "PASS",
                f"{label} wiring",
                f"{len(w.buttons)} buttons, "
                f"{len(w.doors)} doors, key switch, {len(w.lamps)} lamps, "
                f"{len(w.tower_light)} tower light segments",
            )
        )
    return out


def input_findings(w: Wiring, pin_factory: Any, label: str) -> list[Finding]:
    """Read every input pin of ``w`` once, as the panel does (internal pull-up, a
    switch to ground; door latches pulled down; ``drivers.pin_probe``).

    A button that reads pressed is a ``FAIL`` (stuck, or another input on its pin);
    a pin that cannot be opened (in use, not a GPIO) a ``FAIL``; doors and the key
    switch are reported as they read.
    """
    from drivers.pin_probe import read_inputs

    out: list[Finding] = []
    for name, pin, active in read_inputs(w, pin_factory):
        what = f"{label} {name} (GPIO {pin})"
        if isinstance(active, str):
            out.append(Finding("FAIL", what, f"cannot read: {active}", f"check the pin number; {STOP_ENGINE}"))
        else:
            out.append(_input_finding(name, what, active))
    return out


def _input_finding(name: str, what: str, closed: bool) -> Finding:
    if name.startswith("button"):
        if closed:
            return Finding(
                "FAIL", what, "reads pressed", "a stuck button or a short to ground: free the button or check its wire"
            )
        return Finding("PASS", what, "released")
    if name.startswith("door latch"):
        return Finding("PASS", what, "holds an opening" if closed else "clear")
    if name.startswith("door"):
        # the door switch closes (pin low) while the door is shut
        return Finding("PASS", what, "open" if not closed else "shut")
    if name == "key switch":
        return Finding("PASS", what, "on" if closed else "off")
    return Finding("PASS", what, "idle" if not closed else "active")


def _return_every_note(_event: Any) -> EscrowDecision:
    return EscrowDecision.RETURN


def _no_credit(event: Any) -> None:
    raise RuntimeError(f"cabinet doctor takes no money ({event!r})")


def acceptor_findings(url: str, label: str, opener: Callable[[str], Any] | None = None) -> list[Finding]:
    """Open the ID-003 acceptor at ``url``, run its start-up, read its firmware
    version and status, close it.

    Never credits: a note in escrow is returned; a note found in the stacker at
    power-up is refused (the driver keeps it and does not RESET) and reported, so
    the engine journals it at its next start.
    """
    from drivers.id003_acceptor import Id003BillAcceptor

    events: list[Any] = []

    def sink(event: Any) -> None:
        if isinstance(event, BillFoundInStacker | BillPossiblyInPath):
            events.append(event)
            raise RuntimeError("left for the engine to journal")
        events.append(event)

    what = f"{label} bill acceptor {url}"
    kw: dict[str, Any] = {} if opener is None else {"opener": opener}
    acc = Id003BillAcceptor(
        url, decide=_return_every_note, credit=_no_credit, sink=sink, offline_after_failures=2, **kw
    )
    try:
        acc.connect()  # reads the firmware version too
        version = acc.firmware
        acc.poll_once()
        fault = acc.fault
    except DeviceBusyError as e:
        return [Finding("FAIL", what, f"port busy ({e})", STOP_ENGINE)]
    except (DriverError, OSError) as e:
        return [
            Finding(
                "FAIL",
                what,
                f"no answer: {e}",
                "check the acceptor's power and USB-serial cable, the port in "
                f"cabinet.toml (bill_acceptor_url) and {ACCEPTOR_SERIAL}",
            )
        ]
    finally:
        acc.close()
    found = [e for e in events if isinstance(e, BillFoundInStacker | BillPossiblyInPath)]
    detail = (
        f"firmware {version or 'not reported'}; {ACCEPTOR_SERIAL}; escrow table {len(acc.escrow_table_minor)} notes"
    )
    if found:
        return [
            Finding(
                "FAIL",
                what,
                detail + "; a note was found in the stacker or path at power-up",
                "start the engine: it journals the note for the attendant's review (Faults page)",
            )
        ]
    if fault is not None:
        return [
            Finding(
                "FAIL",
                what,
                f"{detail}; fault {fault}",
                "clear the fault at the acceptor (jam, full or open cash box), then run cabinet doctor again",
            )
        ]
    return [Finding("PASS", what, detail + "; status OK")]


def printer_findings(url: str, label: str, opener: Callable[[str], Any] | None = None) -> list[Finding]:
    """Open the ESC/POS printer at ``url``, read its real-time status, close it.

    ESC/POS has no firmware query common to TITO printers: the version is
    reported as not read.
    """
    from drivers.interfaces import PrinterState
    from drivers.ticket_printer import EscPosTicketPrinter

    what = f"{label} printer {url}"
    kw: dict[str, Any] = {} if opener is None else {"opener": opener}
    printer = EscPosTicketPrinter(url, **kw)
    try:
        printer.open()
        status = printer.status()
    except DeviceBusyError as e:
        return [Finding("FAIL", what, f"port busy ({e})", STOP_ENGINE)]
    except (DriverError, OSError) as e:
        return [
            Finding(
                "FAIL", what, f"cannot open: {e}", "check the printer's power and cable and printer_url in cabinet.toml"
            )
        ]
    finally:
        printer.close()
    detail = f"{status.state.value} ({status.detail}); {PRINTER_SERIAL}; firmware not read (no common ESC/POS query)"
    if status.state is PrinterState.OFFLINE:
        return [
            Finding(
                "FAIL",
                what,
                detail,
                f"check the printer's power and cable, the port in cabinet.toml (printer_url) and {PRINTER_SERIAL}",
            )
        ]
    if not status.can_print:
        return [Finding("FAIL", what, detail, "load paper, shut the cover, clear the jam")]
    if status.paper_low:
        return [Finding("WARN", what, detail, "paper low: load a new roll soon")]
    return [Finding("PASS", what, detail)]


def station_wiring(path: str | None) -> Wiring:
    """The wiring file at ``path`` (``None``: ``drivers.pins``' defaults).

    Raises:
        ConfigError: missing, not TOML, or invalid (the message names the field).
    """
    from drivers.wiring import load_wiring

    return load_wiring(path) if path else Wiring()


def wired_pins(wiring_paths: dict[int, str | None]) -> dict[int, str]:
    """BCM pin -> ``"station N <section>.<name>"`` over the stations' wiring files
    (station -> its file, ``None`` for the default map); a pin two stations share is
    named by the later one.

    Raises:
        ConfigError: a wiring file missing or invalid (the message names the field).
    """
    from drivers.wiring import pins_in_use

    out: dict[int, str] = {}
    for n, path in wiring_paths.items():
        out.update({pin: f"station {n} {what}" for pin, what in pins_in_use(station_wiring(path)).items()})
    return out


def pin_factory(mode: str) -> Any:
    """The gpiozero pin factory of ``mode`` (``drivers.pin_probe.pin_factory``).

    Raises:
        ImportError: ``hardware`` without lgpio (off the Pi).
    """
    from drivers import pin_probe

    return pin_probe.pin_factory(mode)


__all__ = [
    "ACCEPTOR_SERIAL",
    "PRINTER_SERIAL",
    "Finding",
    "acceptor_findings",
    "input_findings",
    "pin_factory",
    "wired_pins",
    "printer_findings",
    "station_wiring",
    "wiring_findings",
]

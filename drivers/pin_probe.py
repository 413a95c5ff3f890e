"""Reading every input pin of a wiring once, and the pin factory of a mode
(``cabinet doctor``).

Owns: ``read_inputs`` (each button, door, key switch, door latch and pulse input
opened as the panel opens it, read, closed) and ``pin_factory``. Must not import:
cabinet.*, serial.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from gpiozero import DigitalInputDevice

from drivers.wiring import Wiring


def input_pins(w: Wiring) -> list[tuple[str, int, bool]]:
    """``[(name, BCM pin, pull_up)]`` of every input of ``w``: ``"button deal"``,
    ``"door main"``, ``"key switch"``, ``"door latch main"``, ``"pulse acceptor"``."""
    inputs = [(f"button {a.value}", p, True) for a, p in w.buttons.items()]
    inputs += [(f"door {d.value}", p, True) for d, p in w.doors.items()]
    if w.key_switch is not None:
        inputs.append(("key switch", w.key_switch, True))
    if w.door_latch is not None:
        inputs += [(f"door latch {d.value}", p, False) for d, p in w.door_latch.inputs.items()]
    if w.pulse is not None:
        inputs.append(("pulse acceptor", w.pulse.pin, True))
    return inputs


def read_inputs(w: Wiring, factory: Any) -> list[tuple[str, int, bool | str]]:
    """Open, read and close each input of ``w`` on the gpiozero pin ``factory``.

    Returns: ``[(name, pin, active)]``; ``active`` is True when the input reads
    active (a pull-up input pulled to ground, a pull-down input high), or the
    error text when the pin could not be opened. Never raises.
    """
    out: list[tuple[str, int, bool | str]] = []
    for name, pin, pull_up in input_pins(w):
        try:
            dev = DigitalInputDevice(pin, pull_up=pull_up, bounce_time=None, pin_factory=factory)
        except Exception as e:  # gpiozero raises its own kinds per pin factory
            out.append((name, pin, str(e) or type(e).__name__))
            continue
        try:
            out.append((name, pin, bool(dev.value)))
        finally:
            dev.close()
    return out


def pin_factory(mode: str) -> Any:
    """The gpiozero pin factory of ``mode``: ``hardware``, the Pi's lgpio; ``sim``,
    gpiozero's ``MockFactory`` (every input at rest, as ``cabinet run`` starts it).

    Raises:
        ImportError: ``hardware`` without lgpio (off the Pi).
    """
    if mode == "hardware":
        # lgpio makes its notify pipes in $LG_WD, else in the working directory (which
        # may not be writable for the user running the doctor)
        os.environ.setdefault("LG_WD", tempfile.gettempdir())
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    from gpiozero.pins.mock import MockFactory

    return MockFactory()

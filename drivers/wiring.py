"""Load the cabinet's TOML wiring file into a validated ``Wiring``.

Owns: the wiring-file schema (``WiringFile``, typed msgspec Structs with their
ranges, checked by ``confspec.convert``), defaults from ``drivers.pins``, and the
one check no annotation states (a pin used twice). Errors are ``ConfigError``
naming the file and the field (``wiring.toml: buttons.deal: expected a BCM pin
number 2..27, got 99``).
Must not import: gpiozero, serial, cabinet.*.

Example::

    [buttons]          # action = BCM pin (input, to ground, internal pull-up)
    deal = 5
    hit = 6
    [lamps]            # action = BCM pin (output, high = lit)
    deal = 17
    [doors]            # door = BCM pin; the switch closes (pin low) when the door is shut
    main = 2
    [key_switch]
    pin = 8
    [tower_light]      # segment name = BCM pin
    red = 14
    [door_latch]       # optional: latches holding a door opening while the Pi is off
    main = 9           # door = BCM input pin, high while its latch holds an opening
    reset_pin = 10     # BCM output, pulsed high to reset every latch (README)
    [pulse_acceptor]   # optional
    pin = 4
    inhibit_pin = 18
    value_per_pulse_minor = 100
    nominal_pulse_ms = 50
    gap_timeout_ms = 300
    accepted_counts = [1, 5, 10, 20]

A section that is present replaces that section's defaults entirely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from confspec import ConfigError, convert, load_toml
from drivers import pins
from drivers.events import Action, Door

assert pins.VALID_BCM == range(2, 28)
#: A GPIO pin, by its BCM number.
Pin = Annotated[int, Meta(ge=2, le=27, description="a BCM pin number")]
Positive = Annotated[int, Meta(ge=1)]


class PulseWiring(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Pulse-mode acceptor settings (protocols.md 3): the ``[pulse_acceptor]`` section."""

    pin: Pin
    inhibit_pin: Pin | None = None
    value_per_pulse_minor: Positive = 100
    nominal_pulse_ms: Positive = 50
    gap_timeout_ms: Positive = 300
    accepted_counts: frozenset[Positive] = frozenset()
    active_low: bool = True


class KeySwitchSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``[key_switch]``: ``pin``; an empty section means the cabinet has none."""

    pin: Pin | None = None


class DoorLatchSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[door_latch]``: door = latch input pin (one field per ``Door``), ``reset_pin``."""

    config_noun: ClassVar[str] = "name"  # confspec: "door_latch.roof: unknown name"
    main: Pin | None = None
    cash_box: Pin | None = None
    logic: Pin | None = None
    reset_pin: Pin


class WiringFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The wiring file as written (see the module docstring); a section left out
    keeps ``drivers.pins``' defaults."""

    buttons: dict[Action, Pin] | None = None
    lamps: dict[Action, Pin] | None = None
    doors: dict[Door, Pin] | None = None
    key_switch: KeySwitchSection | None = None
    tower_light: dict[str, Pin] | None = None
    pulse_acceptor: PulseWiring | None = None
    door_latch: DoorLatchSection | None = None


@dataclass(frozen=True, slots=True)
class DoorLatchWiring:
    """Door latches: a set-reset latch per door, powered while the Pi
    is off, set by the door switch opening; the Pi reads it at start and resets it.

    Attributes:
        inputs: door -> BCM input pin (internal pull-down), high = the latch holds
            an opening.
        reset_pin: BCM output pin, low at rest, pulsed high to reset every latch.
    """

    inputs: dict[Door, int]
    reset_pin: int


@dataclass(frozen=True, slots=True)
class Wiring:
    """Every GPIO assignment of the cabinet (BCM numbers)."""

    buttons: dict[Action, int] = field(default_factory=lambda: dict(pins.BUTTON_PINS))
    lamps: dict[Action, int] = field(default_factory=lambda: dict(pins.LAMP_PINS))
    doors: dict[Door, int] = field(default_factory=lambda: dict(pins.DOOR_PINS))
    key_switch: int | None = pins.KEY_SWITCH_PIN
    tower_light: dict[str, int] = field(default_factory=lambda: dict(pins.TOWER_LIGHT_PINS))
    pulse: PulseWiring | None = None
    door_latch: DoorLatchWiring | None = None


def parse_wiring(data: dict[str, Any], source: str = "wiring") -> Wiring:
    """Validate a parsed TOML document (``WiringFile``, then no pin used twice).

    Raises:
        ConfigError: unknown section, name or a bad/duplicate pin; the message names
            ``source`` and the field.
    """
    f = convert(data, WiringFile, source)
    w = Wiring()
    key_switch = w.key_switch if f.key_switch is None else f.key_switch.pin
    latch = None
    if f.door_latch is not None:
        inputs = {d: pin for d in Door if (pin := getattr(f.door_latch, d.value)) is not None}
        if not inputs:
            raise ConfigError("door_latch", "names no door (e.g. main = 4)", source)
        latch = DoorLatchWiring(inputs, f.door_latch.reset_pin)
    wiring = Wiring(
        w.buttons if f.buttons is None else f.buttons,
        w.lamps if f.lamps is None else f.lamps,
        w.doors if f.doors is None else f.doors,
        key_switch,
        w.tower_light if f.tower_light is None else f.tower_light,
        f.pulse_acceptor,
        latch,
    )
    pins_in_use(wiring, source)  # no pin used twice
    return wiring


def pins_in_use(w: Wiring, source: str = "wiring") -> dict[int, str]:
    """Every BCM pin ``w`` assigns -> what it is (``"buttons.deal"``, ``"tower_light.red"``).

    Raises:
        ConfigError: a pin assigned twice (the message names ``source`` and the field).
    """
    used: dict[int, str] = {}
    groups: list[tuple[str, dict[Any, int]]] = [
        ("buttons", w.buttons),
        ("lamps", w.lamps),
        ("doors", w.doors),
        ("tower_light", w.tower_light),
    ]
    if w.key_switch is not None:
        groups.append(("key_switch", {"pin": w.key_switch}))
    if w.pulse is not None:
        extra = {"pin": w.pulse.pin} | ({"inhibit_pin": w.pulse.inhibit_pin} if w.pulse.inhibit_pin else {})
        groups.append(("pulse_acceptor", extra))
    if w.door_latch is not None:
        groups.append(("door_latch", {**w.door_latch.inputs, "reset_pin": w.door_latch.reset_pin}))
    for group, mapping in groups:
        for name, pin in mapping.items():
            label = f"{group}.{getattr(name, 'value', name)}"
            if pin in used:
                raise ConfigError(label, f"pin {pin} is already used by {used[pin]}", source)
            used[pin] = label
    return used


def load_wiring(path: str | Path) -> Wiring:
    """Read and validate a TOML wiring file.

    Raises:
        ConfigError: file missing, not TOML, or invalid (message names the field).
    """
    return parse_wiring(load_toml(path), str(path))

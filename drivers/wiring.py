"""Load the cabinet's TOML wiring file into a validated ``Wiring``.

Owns: the wiring-file schema, defaults from ``drivers.pins``, and ``ConfigError``
messages that name the file and the field (``wiring.toml: buttons.deal: ...``).
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

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers import pins
from drivers.errors import ConfigError
from drivers.events import Action, Door


@dataclass(frozen=True, slots=True)
class PulseWiring:
    """Pulse-mode acceptor settings (protocols.md 3)."""

    pin: int
    inhibit_pin: int | None = None
    value_per_pulse_minor: int = 100
    nominal_pulse_ms: int = 50
    gap_timeout_ms: int = 300
    accepted_counts: frozenset[int] = frozenset()
    active_low: bool = True


@dataclass(frozen=True, slots=True)
class DoorLatchWiring:
    """Door latches (issue 11.19): a set-reset latch per door, powered while the Pi
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


def _pin(src: str, where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in pins.VALID_BCM:
        raise ConfigError(f"{src}: {where}: expected a BCM pin number 2..27, got {value!r}")
    return value


def _table(src: str, data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{src}: {name}: expected a table, got {type(value).__name__}")
    return value


def _named_pins(src: str, data: dict[str, Any], name: str, enum_type: Any) -> dict[Any, int]:
    out = {}
    for key, value in _table(src, data, name).items():
        try:
            member = enum_type(key)
        except ValueError:
            allowed = ", ".join(m.value for m in enum_type)
            raise ConfigError(f"{src}: {name}.{key}: unknown name (allowed: {allowed})") from None
        out[member] = _pin(src, f"{name}.{key}", value)
    return out


def _int(src: str, where: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{src}: {where}: expected an integer >= {minimum}, got {value!r}")
    return value


def parse_wiring(data: dict[str, Any], source: str = "wiring") -> Wiring:
    """Validate a parsed TOML document.

    Raises:
        ConfigError: unknown section, name or a bad/duplicate pin; the message names
            ``source`` and the field.
    """
    known = {"buttons", "lamps", "doors", "key_switch", "tower_light", "pulse_acceptor",
             "door_latch"}
    for key in data:
        if key not in known:
            raise ConfigError(
                f"{source}: {key}: unknown section (allowed: {', '.join(sorted(known))})"
            )
    w = Wiring()
    buttons = _named_pins(source, data, "buttons", Action) if "buttons" in data else w.buttons
    lamps = _named_pins(source, data, "lamps", Action) if "lamps" in data else w.lamps
    doors = _named_pins(source, data, "doors", Door) if "doors" in data else w.doors
    key_switch = w.key_switch
    if "key_switch" in data:
        table = _table(source, data, "key_switch")
        key_switch = _pin(source, "key_switch.pin", table.get("pin")) if table else None
    tower = w.tower_light
    if "tower_light" in data:
        tower = {
            k: _pin(source, f"tower_light.{k}", v)
            for k, v in _table(source, data, "tower_light").items()
        }
    pulse = None
    if "pulse_acceptor" in data:
        t = _table(source, data, "pulse_acceptor")
        p = "pulse_acceptor"
        counts = t.get("accepted_counts", [])
        if not isinstance(counts, list):
            raise ConfigError(f"{source}: {p}.accepted_counts: expected a list of integers")
        pulse = PulseWiring(
            pin=_pin(source, f"{p}.pin", t.get("pin")),
            inhibit_pin=_pin(source, f"{p}.inhibit_pin", t["inhibit_pin"])
            if "inhibit_pin" in t
            else None,
            value_per_pulse_minor=_int(
                source, f"{p}.value_per_pulse_minor", t.get("value_per_pulse_minor", 100), 1
            ),
            nominal_pulse_ms=_int(
                source, f"{p}.nominal_pulse_ms", t.get("nominal_pulse_ms", 50), 1
            ),
            gap_timeout_ms=_int(source, f"{p}.gap_timeout_ms", t.get("gap_timeout_ms", 300), 1),
            accepted_counts=frozenset(_int(source, f"{p}.accepted_counts", c, 1) for c in counts),
            active_low=bool(t.get("active_low", True)),
        )
    latch = None
    if "door_latch" in data:
        t = dict(_table(source, data, "door_latch"))
        reset = _pin(source, "door_latch.reset_pin", t.pop("reset_pin", None))
        inputs = _named_pins(source, {"door_latch": t}, "door_latch", Door)
        if not inputs:
            raise ConfigError(f"{source}: door_latch: names no door (e.g. main = 4)")
        latch = DoorLatchWiring(inputs, reset)
    used: dict[int, str] = {}
    groups: list[tuple[str, dict[Any, int]]] = [
        ("buttons", buttons),
        ("lamps", lamps),
        ("doors", doors),
        ("tower_light", tower),
    ]
    if key_switch is not None:
        groups.append(("key_switch", {"pin": key_switch}))
    if pulse is not None:
        extra = {"pin": pulse.pin} | (
            {"inhibit_pin": pulse.inhibit_pin} if pulse.inhibit_pin else {}
        )
        groups.append(("pulse_acceptor", extra))
    if latch is not None:
        groups.append(("door_latch", {**latch.inputs, "reset_pin": latch.reset_pin}))
    for group, mapping in groups:
        for name, pin in mapping.items():
            label = f"{group}.{getattr(name, 'value', name)}"
            if pin in used:
                raise ConfigError(f"{source}: {label}: pin {pin} is already used by {used[pin]}")
            used[pin] = label
    return Wiring(buttons, lamps, doors, key_switch, tower, pulse, latch)


def load_wiring(path: str | Path) -> Wiring:
    """Read and validate a TOML wiring file.

    Raises:
        ConfigError: file missing, not TOML, or invalid (message names the field).
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read wiring file: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_wiring(data, str(path))

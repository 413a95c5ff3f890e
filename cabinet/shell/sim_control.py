"""The simulation's control socket commands: press, door, key, note, voucher, bill,
printer, tickets.

Owns: parsing and checking one sim control line and carrying it out on the
simulated devices of a driver set, and the ``cabinet sim-device`` /
``cabinet sim-devices`` / ``cabinet sim-host`` entry points. The only engine module that imports
``drivers.sim`` (lazily: only when the simulation was chosen).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drivers.events import Action, Door
from drivers.factory import DriverSet

if TYPE_CHECKING:
    from drivers.sim.id003_device import SimId003Device
    from drivers.sim.printer_device import SimPrinterDevice

_SIM_COMMANDS = ("press", "door", "key", "note", "voucher", "bill", "printer", "tickets")
_SIM_DOORS = {"main": Door.MAIN, "cashbox": Door.CASH_BOX, "logic": Door.LOGIC}
_SIM_ACTIONS = {a.value: a for a in Action}


def sim_apply(d: DriverSet | None, msg: dict[str, Any]) -> dict[str, Any]:
    """Carry out one parsed sim control command (``parse_sim_command``) on the
    simulated devices of the driver set ``d``; the commands and answers are those of
    ``DriverDevices.sim_command``. Never raises for bad input."""
    if d is None or d.sim is None:
        return {"ok": False, "error": "no simulated devices"}
    sim = d.sim
    cmd = msg.get("cmd")
    bill, printer = sim.bill, sim.printer
    if (bill is None or printer is None) and cmd in ("note", "voucher", "bill", "printer", "tickets"):
        return {
            "ok": False,
            "error": f"{cmd}: the serial twins run in their own process (cabinet sim-devices): use its control socket",
        }
    try:
        if cmd == "press":
            action = _sim_choice(msg, "action", _SIM_ACTIONS)
            if action not in sim.wiring.buttons:
                raise ValueError(f"no {action.value} button is wired")
            sim.press(action)
        elif cmd == "door":
            door = _sim_choice(msg, "door", _SIM_DOORS)
            is_open = _sim_field(msg, "open", bool, "true or false")
            if door not in sim.wiring.doors:
                raise ValueError(f"no {msg['door']} door switch is wired")
            sim.set_door(door, is_open)
        elif cmd == "key":
            sim.set_key(_sim_field(msg, "on", bool, "true or false"))
        elif cmd in ("note", "voucher", "bill", "printer", "tickets"):
            assert bill is not None and printer is not None  # refused above otherwise
            return _twin_command(cmd, msg, bill, printer)
        else:
            return {"ok": False, "error": f"unknown command {_shown(cmd)} (known: {', '.join(_SIM_COMMANDS)})"}
    except ValueError as e:
        return {"ok": False, "error": f"{cmd}: {e}"}
    return {"ok": True}


def _twin_command(cmd: str, msg: dict[str, Any], bill: SimId003Device, printer: SimPrinterDevice) -> dict[str, Any]:
    """The commands for the serial twins of this process. Raises ValueError on a bad field."""
    from drivers.sim.cli import bill_command, printer_command

    if cmd == "note":
        bill.insert_bill_minor(_sim_field(msg, "amount_minor", int, "an integer"))
    elif cmd == "voucher":
        bill.insert_voucher(_sim_field(msg, "validation_number", str, "a string of 1-18 digits"))
    elif cmd == "bill":
        return {"ok": True, "reply": bill_command(bill, _sim_field(msg, "line", str, "a string"))}
    elif cmd == "printer":
        return {"ok": True, "reply": printer_command(printer, _sim_field(msg, "line", str, "a string"))}
    else:
        out = printer.out_dir
        tickets = [] if out is None else sorted(str(p) for p in Path(out).glob("*.png"))
        return {"ok": True, "tickets": tickets}
    return {"ok": True}


def _shown(value: Any, limit: int = 24) -> str:
    """A JSON value as it was sent, cut to ``limit`` characters, for one-line errors."""
    text = json.dumps(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def parse_sim_command(line: str | bytes) -> dict[str, Any]:
    """Parse one sim control line into its JSON object.

    Raises:
        ValueError: not JSON, not an object, or no string ``"cmd"``; the message is
            one line.
    """
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as e:  # RecursionError: absurdly deep nesting
        raise ValueError(f"not JSON: {' '.join(str(e).split())[:120]}") from None
    if not isinstance(msg, dict):
        raise ValueError(f"a sim command is a JSON object, not {_shown(msg)}")
    if not isinstance(msg.get("cmd"), str):
        raise ValueError(f'a sim command needs "cmd", a string (one of {", ".join(_SIM_COMMANDS)})')
    return msg


def _sim_field(msg: dict[str, Any], key: str, kind: type, what: str) -> Any:
    """``msg[key]`` if it is a JSON value of ``kind`` (``int`` excludes true/false).

    Raises:
        ValueError: missing or of another type; the message names the field.
    """
    if key not in msg:
        raise ValueError(f'needs "{key}" ({what})')
    value = msg[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f'"{key}" must be {what}, not {_shown(value)}')
    return value


def _sim_choice(msg: dict[str, Any], key: str, table: dict[str, Any]) -> Any:
    """``table[msg[key]]``; raises ValueError naming the known keys otherwise."""
    value = _sim_field(msg, key, str, f"one of {', '.join(table)}")
    if value not in table:
        raise ValueError(f"unknown {key} {_shown(value)} (known: {', '.join(table)})")
    return table[value]


def sim_device_main(argv: list[str]) -> int:
    """``cabinet sim-device``: one simulated device on a pty (``drivers.sim.cli``)."""
    from drivers.sim.cli import main

    return main(argv)


def sim_devices_main(argv: list[str]) -> int:
    """``cabinet sim-devices``: the serial twin set in its own process (``drivers.sim.twins``)."""
    from drivers.sim.twins import sim_devices_main as twins_main

    return twins_main(argv)


def sim_host_main(argv: list[str]) -> int:
    """``cabinet sim-host``: the SAS casino host twin in its own process (``drivers.sim.sas_host_cli``)."""
    from drivers.sim.sas_host_cli import main as host_main

    return host_main(argv)

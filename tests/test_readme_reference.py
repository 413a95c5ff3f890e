"""The operator and installer reference stays true to the code: every fault code of
``cabinet.core.errors.FAULTS`` is in the table of ``docs/reference/faults.md``, and the
wiring tables of ``docs/reference/wiring.md`` give ``drivers.pins``' default GPIO for
every button, lamp, door, the key switch and the tower light."""

from __future__ import annotations

import re
from pathlib import Path

from cabinet.core.errors import FAULTS
from drivers import pins

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference"


def _section(page: str, title: str) -> str:
    text = (REFERENCE / page).read_text(encoding="utf-8")
    return text.split(title, 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]


def test_every_fault_code_is_explained_in_the_reference() -> None:
    table = _section("faults.md", "# Fault codes")
    listed = {int(n) for row in re.findall(r"^\| ([\d, ]+) \|", table, re.M) for n in row.split(",")}
    assert sorted(num for num, _ in FAULTS.values()) == sorted(listed)


def _gpio(pin: int) -> str:
    """``"GPIO 5 (pin 29"``: the BCM number and its 40-pin header position (gpiozero's
    board table)."""
    from gpiozero.pins.mock import MockFactory

    return f"| GPIO {pin} (pin {MockFactory().pin(pin).info.number}"


def test_the_wiring_tables_give_the_default_pins() -> None:
    table = _section("wiring.md", "## Raspberry Pi GPIO")
    for action, pin in pins.BUTTON_PINS.items():
        row = next(r for r in table.splitlines() if f"(`{action.value}`)" in r)
        assert _gpio(pin) in row and _gpio(pins.LAMP_PINS[action]) in row, row
    doors = {"main": "main door", "cash_box": "cash box door", "logic": "logic door"}
    for door, pin in pins.DOOR_PINS.items():
        row = next(r for r in table.splitlines() if r.startswith(f"| {doors[door.value]}"))
        assert _gpio(pin) in row, row
    key = next(r for r in table.splitlines() if r.startswith("| operator key switch"))
    assert _gpio(pins.KEY_SWITCH_PIN) in key
    for colour, pin in pins.TOWER_LIGHT_PINS.items():
        row = next(r for r in table.splitlines() if r.startswith(f"| tower light {colour}"))
        assert _gpio(pin) in row, row

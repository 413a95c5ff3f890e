"""Fixture snapshots of the Diagnostics screens, made by the cabinet core
itself: a cabinet is driven through the menu to each test page and its snapshot
taken, so the goldens show what the engine really sends."""

from __future__ import annotations

import random

from cabinet.core.events import (
    DeviceCleared,
    DeviceFaulted,
    DoorChanged,
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    NoteStacked,
    PowerUp,
    Tick,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.maintenance.diagnostics import ITEMS
from cabinet.protocol.snapshot import Snapshot
from tests.engine.menu_helpers import set_pin, type_pin

WALL = 1_800_000_000.0


def _cabinet() -> Cabinet:
    cab = Cabinet(new_state(), rng=random.Random(1))
    cab.program_id = "blackjack-cabinet 0.1.0"
    cab.program_digest = "3f2a9c01" * 8
    cab.program_status = "verified"
    cab.handle(PowerUp(0, WALL))
    cab.s.round_id = 240
    cab.s.button_rounds = {a: 200 for a in ("deal", "hit", "stand", "double", "bet_up", "bet_down", "cash_out")}
    cab.handle(KeyChanged(True))
    return cab


def _press(cab: Cabinet, action: str, value: int | None = None, station: int = 1) -> None:
    cab.handle(IntentReceived(station, action, value))


def _open(cab: Cabinet, page: str | None) -> None:
    for _ in range([k for k, _ in MAIN_ITEMS].index("diagnostics")):
        _press(cab, "menu_down")
    _press(cab, "menu_select")
    if page is not None:
        for _ in range([k for k, _ in ITEMS].index(page)):
            _press(cab, "menu_down")
        _press(cab, "menu_select")


def _snap(cab: Cabinet, seq: int) -> Snapshot:
    snap = cab.snapshot(seq)
    assert isinstance(snap, Snapshot)
    return snap


def diagnostics_cases() -> list[tuple[str, Snapshot]]:
    """``[(case name, snapshot)]`` for every Diagnostics screen."""
    out = []
    cab = _cabinet()
    _open(cab, None)
    _press(cab, "menu_down")
    out.append(("diagnostics", _snap(cab, 200)))
    cab = _cabinet()
    _open(cab, "diag_buttons")
    t = 0
    for action, value in (("hit", None), ("stand", None), ("chip", 500), ("cash_out", None)):
        t += 2000
        cab.handle(Tick(t, WALL + t / 1000))
        _press(cab, action, value)
    out.append(("diagnostics_buttons", _snap(cab, 201)))
    cab = _cabinet()
    _open(cab, "diag_doors")
    cab.handle(DoorChanged("cashbox", True))
    out.append(("diagnostics_doors", _snap(cab, 202)))
    cab = _cabinet()
    _open(cab, "diag_tower")
    cab.handle(Tick(2500, WALL + 2.5))
    out.append(("diagnostics_tower", _snap(cab, 203)))
    cab = _cabinet()
    set_pin(cab.s)
    _open(cab, "diag_bills")  # the technician PIN first
    type_pin(lambda action, value=None: _press(cab, action, value))
    _press(cab, "menu_select")  # test on
    cab.handle(NoteEscrowed(1, 2000, "x1"))
    cab.handle(NoteStacked(1, 2000, "x1"))
    out.append(("diagnostics_bill_test", _snap(cab, 204)))
    cab = _cabinet()
    _open(cab, "diag_printer")
    _press(cab, "menu_select")  # one test ticket sent
    out.append(("diagnostics_printer", _snap(cab, 206)))
    cab = _cabinet()
    _open(cab, "diag_sound")
    _press(cab, "menu_select")  # played: card
    out.append(("diagnostics_sound", _snap(cab, 207)))
    cab = _cabinet()
    _open(cab, "diag_screen")
    out.append(("diagnostics_screen", _snap(cab, 208)))
    cab = _cabinet()
    cab.handle(DeviceCleared("bill", 1, "ID003-SIM 1.0"))  # its start-up's version
    cab.handle(DeviceFaulted("printer", "printer_paper_out"))
    _open(cab, "diag_devices")
    out.append(("diagnostics_devices", _snap(cab, 205)))
    return out

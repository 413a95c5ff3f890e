"""Access levels at the cabinet: who may do what in the maintenance menu.

Owns: the levels, how they are reached, and which menu pages and acts need
which level ("The operator menu"). Pure.

- ``ATTENDANT``: the operator key is on (meters, recall, event log, history,
  handpay reset, fault clear, device test, host page).
- ``TECHNICIAN``: the key is on *and* the technician PIN was typed on this
  visit of the menu (``cabinet.core.maintenance.pin``): settings, RAM clear,
  PIN change, export. Turning the key off ends the visit and the level.
- A RAM clear further needs the main or logic door open (``RAM_CLEAR_DOORS``),
  as on commercial cabinets where it needs logic-board access
  (research/cabinet-features.md "RAM clear": "a deliberate, authorized act
  (logic-area access or equivalent)"; "Access control": key switches or cards
  with levels). The stricter rule is kept: the PIN
  *and* the door.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum


class Level(IntEnum):
    """Access levels, ordered: a higher level may do all a lower one may."""

    NONE = 0
    ATTENDANT = 1
    TECHNICIAN = 2


#: Doors one of which must be open (besides the technician level) for a RAM clear.
RAM_CLEAR_DOORS = frozenset({"main", "logic"})

#: Menu pages (``MAIN_ITEMS`` keys) that need the technician level; every other
#: page is the attendant's and only reads (or clears a fault / resets a handpay).
#: ``diag_bills``: the Diagnostics page's bill acceptor test (it stacks notes into the
#: cash box; ``maintenance.diagnostics.TECHNICIAN_ITEMS``).
TECHNICIAN_PAGES = frozenset({"settings", "ram_clear", "pin_change", "export", "diag_bills"})

#: How each level is reached, for the pages and the README.
HOW = {
    Level.ATTENDANT: "operator key on",
    Level.TECHNICIAN: "operator key on and the technician PIN",
}
#: How a RAM clear is reached.
RAM_CLEAR_HOW = "technician PIN and the main or logic door open"


def level(key_on: bool, pin_ok: bool = False) -> Level:
    """The access level now.

    Args:
        key_on: the operator key switch.
        pin_ok: the technician PIN was accepted on this visit of the menu
            (``MaintState.level == "technician"``).

    Returns:
        ``Level.NONE`` without the key, ``Level.TECHNICIAN`` with the key and the
        PIN, else ``Level.ATTENDANT``.
    """
    if not key_on:
        return Level.NONE
    return Level.TECHNICIAN if pin_ok else Level.ATTENDANT


def ram_clear_door_open(doors_open: Iterable[str]) -> bool:
    """A door of ``RAM_CLEAR_DOORS`` is open (``doors_open``: names of the open doors)."""
    return bool(RAM_CLEAR_DOORS & set(doors_open))


def name(lv: Level) -> str:
    """``"attendant"``, ``"technician"`` or ``"none"`` (journal and screen text)."""
    return lv.name.lower()

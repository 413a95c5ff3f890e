"""Access levels at the cabinet: who may do what in the maintenance menu.

Owns: the levels and how the cabinet's switches grant them. Pure.

- ``ATTENDANT``: the operator key is on (the menu, handpay reset, settings).
- ``TECHNICIAN``: the key is on *and* the main or logic door is open, as on
  commercial cabinets where a RAM clear needs access to the logic board
  (research/cabinet-features.md "RAM clear": "a deliberate, authorized act
  (logic-area access or equivalent)"; "Access control": key switches or cards
  with levels). A RAM clear that would erase credits or a pending handpay, or
  with outstanding vouchers, needs this level.

No PIN exists yet: the later attendant/technician PIN work extends ``level``
(a PIN entered in the menu raises the level) and keeps these names.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum


class Level(IntEnum):
    """Access levels, ordered: a higher level may do all a lower one may."""

    NONE = 0
    ATTENDANT = 1
    TECHNICIAN = 2


#: Doors whose opening (with the key on) grants the technician level.
TECHNICIAN_DOORS = frozenset({"main", "logic"})

#: How each level is reached, for the confirm pages and the README.
HOW = {
    Level.ATTENDANT: "operator key on",
    Level.TECHNICIAN: "operator key on and the main or logic door open",
}


def level(key_on: bool, doors_open: Iterable[str]) -> Level:
    """The access level the switches grant now.

    Args:
        key_on: the operator key switch.
        doors_open: names of the open doors (``main``, ``cashbox``, ``logic``).

    Returns:
        ``Level.NONE`` without the key, ``Level.TECHNICIAN`` with the key and a
        door of ``TECHNICIAN_DOORS`` open, else ``Level.ATTENDANT``.
    """
    if not key_on:
        return Level.NONE
    if TECHNICIAN_DOORS & set(doors_open):
        return Level.TECHNICIAN
    return Level.ATTENDANT


def name(lv: Level) -> str:
    """``"attendant"``, ``"technician"`` or ``"none"`` (journal and screen text)."""
    return lv.name.lower()

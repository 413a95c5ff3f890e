"""Helpers for driving the operator menu's technician level in tests.

``set_pin`` puts a known PIN's salted scrypt hash in a state (as a PIN change in
the menu would); ``type_pin`` types digits and Enter on the PIN entry by touch
(``menu_pick`` of each digit's row), through any ``send(action, value)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from cabinet.core.maintenance.entry import DIGITS, ENTER, entry_items
from cabinet.core.maintenance.pin import hash_pin
from cabinet.core.state import CabinetState, EntryState

TEST_PIN = "2468"
ENTER_ROW = entry_items(EntryState(kind="pin")).index(ENTER)


def set_pin(state: CabinetState, pin: str = TEST_PIN) -> CabinetState:
    """``state`` with ``pin`` as its technician PIN (no default-PIN change asked)."""
    salt = bytes(range(16))
    state.operator.pin.salt_hex = salt.hex()
    state.operator.pin.hash_hex = _hash(pin, salt)
    return state


@functools.cache
def _hash(pin: str, salt: bytes) -> str:
    return hash_pin(pin, salt)


def type_pin(send: Callable[[str, int | None], object], pin: str = TEST_PIN) -> None:
    """Touch each digit of ``pin`` and Enter."""
    for d in pin:
        send("menu_pick", DIGITS.index(d))
    send("menu_pick", ENTER_ROW)


def rig_send(rig):
    """A ``send`` for a ``tests.engine.helpers.Rig``."""
    return lambda action, value=None: rig.press(action, value=value)


def eng_send(eng, station: int = 1):
    """A ``send`` for a ``cabinet.shell.engine.Engine``."""
    from cabinet.core.events import IntentReceived

    return lambda action, value=None: eng.step(IntentReceived(station, action, value))


def cab_send(cab, station: int = 1):
    """A ``send`` for a bare ``Cabinet``."""
    from cabinet.core.events import IntentReceived

    return lambda action, value=None: cab.handle(IntentReceived(station, action, value))


def change_default_pin(send: Callable[[str, int | None], object], new: str = TEST_PIN) -> None:
    """On a fresh PIN entry: the factory PIN, then ``new`` twice (the forced change)."""
    type_pin(send, "0000")
    type_pin(send, new)
    type_pin(send, new)


def type_text(cab, send: Callable[[str, int | None], object], text: str | None) -> None:
    """On an open setting entry of ``cab``: delete what is there, touch each
    character of ``text`` and Enter (``None``: the Default row)."""
    from cabinet.core.maintenance.entry import DEFAULT, DELETE, SPACE

    e = cab.s.maintenance.entry
    assert e is not None, "no entry open"
    items = entry_items(e)
    if text is None:
        send("menu_pick", items.index(DEFAULT))
        return
    for _ in range(len(e.text)):
        send("menu_pick", items.index(DELETE))
    for c in text:
        send("menu_pick", items.index(SPACE if c == " " else c))
    send("menu_pick", items.index(ENTER))

"""Default BCM pin map for the cabinet's panel (the wiring file overrides it).

Owns: the one table of default pins.  Assumes the Pi's UART and SPI are disabled
(the bill acceptor and printer are on USB-serial adapters), so BCM 7-11, 14 and 15 are
free; BCM 2/3 carry 1.8 kOhm pull-ups, which suits door switches.
Must not import: gpiozero, serial, cabinet.*.
"""

from __future__ import annotations

from drivers.events import Action, Door

BUTTON_PINS: dict[Action, int] = {
    Action.DEAL: 5,
    Action.HIT: 6,
    Action.STAND: 13,
    Action.SPLIT: 19,
    Action.DOUBLE: 26,
    Action.INSURE: 12,
    Action.BET_UP: 16,
    Action.BET_DOWN: 20,
    Action.CASH_OUT: 21,
}
LAMP_PINS: dict[Action, int] = {
    Action.DEAL: 17,
    Action.HIT: 27,
    Action.STAND: 22,
    Action.SPLIT: 23,
    Action.DOUBLE: 24,
    Action.INSURE: 25,
    Action.BET_UP: 18,
    Action.BET_DOWN: 10,
    Action.CASH_OUT: 11,
}
DOOR_PINS: dict[Door, int] = {Door.MAIN: 2, Door.CASH_BOX: 3, Door.LOGIC: 9}
KEY_SWITCH_PIN = 8
TOWER_LIGHT_PINS: dict[str, int] = {"red": 14, "amber": 15, "green": 7}
VALID_BCM = range(2, 28)

"""Input adapter: one pygame event in, intents (and local UI actions) out.

Owns: the keyboard map (on a typed entry's keypad the PC's keys type on it),
on-screen hit testing, and the rule that a touch
counts once (a ``FINGERDOWN`` is used and the mouse click SDL synthesises
from it is ignored). Pure: the event and an ``InputContext`` in, a list out;
no SDL event delivery needed, so tests build events by hand. The UI never
judges legality: a press on any visible button becomes an intent, and the
engine decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pygame

from cabinet.protocol.ipc import Intent
from ui.widgets import HitBox


@dataclass(frozen=True)
class LocalAction:
    """Something the UI does by itself: ``toggle_help`` or ``quit``."""

    name: str


Action = Intent | LocalAction


@dataclass(frozen=True)
class InputContext:
    """What the adapter needs besides the event.

    Attributes:
        station: this UI's own station (1-3), for keys and station-less targets.
        hits: the touch targets of the last frame, topmost last.
        size: window size in pixels (touch events come normalised 0-1).
        chip_values_minor: the table's chips, for keys 1-4.
        rotated: the portrait frame is shown rotated 90 degrees
            counter-clockwise on a landscape window (touch points are mapped back).
        keypad: the rows of the typed entry on screen (its characters, then
            Delete, Enter...), empty when no keypad is shown: the PC's keys type on it.
        history_open: this station's History panel is open (its key then closes it).
    """

    station: int = 1
    hits: Sequence[HitBox] = field(default_factory=tuple)
    size: tuple[int, int] = (1920, 1080)
    chip_values_minor: Sequence[int] = field(default_factory=tuple)
    rotated: bool = False
    keypad: Sequence[str] = field(default_factory=tuple)
    history_open: bool = False


#: plain keys -> intent actions.
KEY_ACTIONS: dict[int, str] = {
    pygame.K_d: "deal",
    pygame.K_h: "hit",
    pygame.K_s: "stand",
    pygame.K_p: "split",
    pygame.K_o: "double",
    pygame.K_i: "insure",
    pygame.K_n: "decline",
    pygame.K_PLUS: "bet_up",
    pygame.K_EQUALS: "bet_up",
    pygame.K_KP_PLUS: "bet_up",
    pygame.K_MINUS: "bet_down",
    pygame.K_KP_MINUS: "bet_down",
    pygame.K_u: "undo",
    pygame.K_c: "clear",
    pygame.K_r: "rebet",
    pygame.K_g: "new_game",
    pygame.K_x: "cash_out",
    pygame.K_a: "service",
    pygame.K_UP: "menu_up",
    pygame.K_DOWN: "menu_down",
    pygame.K_RETURN: "menu_select",
    pygame.K_KP_ENTER: "menu_select",
    pygame.K_BACKSPACE: "menu_back",
    pygame.K_ESCAPE: "menu_back",
}
CHIP_KEYS = {pygame.K_1: 0, pygame.K_2: 1, pygame.K_3: 2, pygame.K_4: 3}
PLACE_KEYS = {pygame.K_e: 1, pygame.K_w: 2, pygame.K_q: 3}  # spot 1 is on the right

#: the keypad rows the PC's keys type (``cabinet.core.maintenance.entry``'s names).
KEYPAD_KEYS = {
    pygame.K_BACKSPACE: "Delete",
    pygame.K_DELETE: "Delete",
    pygame.K_RETURN: "Enter",
    pygame.K_KP_ENTER: "Enter",
}

KEY_HELP_TEXT = """Keys: D deal, H hit, S stand, P split, O double, I insure, N no insurance,
      +/- bet up/down, 1-4 pick chip, E/W/Q place on spot 1-3 (right to left), U undo, C clear,
      R rebet, G new game, X cash out, L history (again: close it), A service (call an attendant),
      F1 help, F12 language (English/Spanish), arrows/Enter/Backspace (or Esc) maintenance menu;
      on its keypads digits and letters type, Backspace deletes, Enter enters, Esc cancels; F10 quit."""


def map_event(event: pygame.event.Event, ctx: InputContext) -> list[Action]:
    """Translate one event.

    Args:
        event: a pygame event (real or built by hand).
        ctx: the station, touch targets and window size of the moment.

    Returns:
        the intents and local actions it means, usually zero or one
        (the Help button gives both a local toggle and a ``help`` intent).
    """
    t = event.type
    if t == pygame.QUIT:
        return [LocalAction("quit")]
    if t == pygame.KEYDOWN:
        return _key(event, ctx)
    if t == pygame.FINGERDOWN:
        w, h = ctx.size
        return _press((event.x * w, event.y * h), ctx)
    if t == pygame.MOUSEBUTTONDOWN:
        if getattr(event, "touch", False) or getattr(event, "which", 0) == _TOUCH_MOUSE_ID:
            return []  # SDL's copy of a touch we already handled as FINGERDOWN
        if getattr(event, "button", 1) != 1:
            return []
        return _press(event.pos, ctx)
    return []


_TOUCH_MOUSE_ID = 0xFFFFFFFF  # SDL_TOUCH_MOUSEID


def _key(event: pygame.event.Event, ctx: InputContext) -> list[Action]:
    key = event.key
    if key == pygame.K_F1:
        return [LocalAction("toggle_help"), Intent(station=ctx.station, action="help")]
    if key == pygame.K_F10:
        return [LocalAction("quit")]
    if key == pygame.K_F12:  # this screen's language, as its EN/ES button
        return [LocalAction("toggle_language")]
    if ctx.keypad:  # a typed entry on screen: the keys type on its keypad
        uni = getattr(event, "unicode", "")
        row = KEYPAD_KEYS.get(key) or ("Space" if uni == " " else uni.upper() if uni.isprintable() else "")
        if row in ctx.keypad:
            return [Intent(station=ctx.station, action="menu_pick", value=list(ctx.keypad).index(row))]
        if row:
            return []  # a character this keypad has no key for
    if key == pygame.K_l:
        return [Intent(station=ctx.station, action="history_close" if ctx.history_open else "history")]
    if key in CHIP_KEYS:
        i = CHIP_KEYS[key]
        if i < len(ctx.chip_values_minor):
            return [Intent(station=ctx.station, action="chip", value=ctx.chip_values_minor[i])]
        return []
    if key in PLACE_KEYS:
        return [Intent(station=ctx.station, action="place", value=PLACE_KEYS[key])]
    action = KEY_ACTIONS.get(key)
    if action is None and getattr(event, "unicode", "") == "+":
        action = "bet_up"
    return [Intent(station=ctx.station, action=action)] if action else []


def hit_test(pos: tuple[float, float], hits: Sequence[HitBox]) -> HitBox | None:
    """The topmost target containing ``pos`` (pixels), or ``None``."""
    x, y = int(pos[0]), int(pos[1])
    for h in reversed(hits):
        if h.rect.collidepoint(x, y):
            return h
    return None


def _press(pos: tuple[float, float], ctx: InputContext) -> list[Action]:
    if ctx.rotated:  # frame drawn portrait, rotated 90 deg CCW onto a landscape window
        pw = ctx.size[1]
        pos = (pw - 1 - pos[1], pos[0])
    hit = hit_test(pos, ctx.hits)
    if hit is None:
        return []
    station = hit.station if hit.station is not None else ctx.station
    if hit.action == "ui:help":
        return [LocalAction("toggle_help"), Intent(station=station, action="help")]
    if hit.action.startswith("ui:"):
        return [LocalAction(hit.action[3:])]
    return [Intent(station=station, action=hit.action, value=hit.value)]

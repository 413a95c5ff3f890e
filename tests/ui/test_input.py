"""Input adapter: keys, clicks and touches become intents; a touch counts once."""

from __future__ import annotations

import pygame
import pytest

from cabinet.protocol.ipc import ACTIONS, Intent
from tests.ui.fixtures import CASES, MULTI_BETTING
from ui.input import InputContext, LocalAction, map_event
from ui.render import Renderer


def key(k: int, uni: str = "") -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode=uni)


@pytest.mark.parametrize(
    "k,action",
    [
        (pygame.K_d, "deal"),
        (pygame.K_h, "hit"),
        (pygame.K_s, "stand"),
        (pygame.K_p, "split"),
        (pygame.K_o, "double"),
        (pygame.K_i, "insure"),
        (pygame.K_n, "decline"),
        (pygame.K_EQUALS, "bet_up"),
        (pygame.K_KP_PLUS, "bet_up"),
        (pygame.K_MINUS, "bet_down"),
        (pygame.K_u, "undo"),
        (pygame.K_c, "clear"),
        (pygame.K_r, "rebet"),
        (pygame.K_g, "new_game"),
        (pygame.K_x, "cash_out"),
        (pygame.K_UP, "menu_up"),
        (pygame.K_DOWN, "menu_down"),
        (pygame.K_RETURN, "menu_select"),
        (pygame.K_BACKSPACE, "menu_back"),
    ],
)
def test_keys_map_to_intents(k: int, action: str) -> None:
    assert action in ACTIONS
    assert map_event(key(k), InputContext(station=2)) == [Intent(station=2, action=action)]


def test_chip_and_place_keys() -> None:
    ctx = InputContext(station=1, chip_values_minor=(100, 500, 2500, 10000))
    assert map_event(key(pygame.K_3), ctx) == [Intent(station=1, action="chip", value=2500)]
    assert map_event(key(pygame.K_w), ctx) == [Intent(station=1, action="place", value=2)]
    assert map_event(key(pygame.K_1), InputContext()) == []  # no chips at a Bet+/Bet- table


def test_help_key_toggles_locally_and_tells_the_engine() -> None:
    assert map_event(key(pygame.K_F1), InputContext(station=3)) == [
        LocalAction("toggle_help"),
        Intent(station=3, action="help"),
    ]
    assert map_event(key(pygame.K_F10), InputContext()) == [LocalAction("quit")]
    assert map_event(key(pygame.K_z), InputContext()) == []


def _hits(renderer: Renderer, snapshot, size=(1920, 1080)):  # type: ignore[no-untyped-def]
    return renderer.draw(pygame.Surface(size), snapshot, 0)


def test_click_on_grey_button_still_sends(renderer: Renderer) -> None:
    snap = next(c for c in CASES if c.name == "classic_insurance").snapshot
    hits = _hits(renderer, snap)
    ctx = InputContext(station=1, hits=hits)
    hit = next(h for h in hits if h.action == "hit")
    assert not hit.lit
    ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=hit.rect.center, button=1, touch=False)
    assert map_event(ev, ctx) == [Intent(station=1, action="hit")]


def test_touch_counts_once(renderer: Renderer) -> None:
    """A FINGERDOWN and the mouse click SDL synthesises from it give one intent."""
    hits = _hits(renderer, MULTI_BETTING, (800, 480))
    ctx = InputContext(station=1, hits=hits, size=(800, 480))
    target = next(h for h in hits if h.action == "chip" and h.station == 3 and h.value == 2500)
    cx, cy = target.rect.center
    finger = pygame.event.Event(pygame.FINGERDOWN, x=cx / 800, y=cy / 480, touch_id=1, finger_id=0)
    synth = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(cx, cy), button=1, touch=True)
    out = map_event(finger, ctx) + map_event(synth, ctx)
    assert out == [Intent(station=3, action="chip", value=2500)]  # the touched station's, not ours


def test_place_on_spot_and_help_button(renderer: Renderer) -> None:
    snap = next(c for c in CASES if c.name == "american_betting").snapshot
    hits = _hits(renderer, snap)
    ctx = InputContext(station=1, hits=hits)
    spot3 = next(h for h in hits if h.action == "place" and h.value == 3)
    ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot3.rect.center, button=1, touch=False)
    assert map_event(ev, ctx) == [Intent(station=1, action="place", value=3)]
    helpb = next(h for h in hits if h.action == "ui:help")
    ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=helpb.rect.center, button=1, touch=False)
    assert map_event(ev, ctx) == [LocalAction("toggle_help"), Intent(station=1, action="help")]
    # a right click and a click on bare felt do nothing
    assert map_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot3.rect.center, button=3), ctx) == []
    assert map_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(960, 400), button=1), ctx) == []


def test_help_close_and_maintenance_buttons(renderer: Renderer) -> None:
    snap = next(c for c in CASES if c.name == "maintenance").snapshot
    hits = _hits(renderer, snap)
    ctx = InputContext(station=2, hits=hits)
    down = next(h for h in hits if h.action == "menu_down")
    ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=down.rect.center, button=1)
    assert map_event(ev, ctx) == [Intent(station=2, action="menu_down")]
    help_case = next(c for c in CASES if c.name == "help")
    hits = Renderer().draw(pygame.Surface((800, 480)), help_case.snapshot, 0, show_help=True)
    close = hits[-1]
    ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=close.rect.center, button=1)
    assert map_event(ev, InputContext(hits=hits, size=(800, 480)))[0] == LocalAction("toggle_help")


def test_every_intent_decodes() -> None:
    """Whatever the adapter emits is a valid wire message."""
    from cabinet.protocol.ipc import decode, encode

    ctx = InputContext(station=1, chip_values_minor=(100, 500, 2500, 10000))
    for k in list(range(pygame.K_a, pygame.K_z + 1)) + [pygame.K_1, pygame.K_4, pygame.K_UP, pygame.K_F1]:
        for a in map_event(key(k), ctx):
            if isinstance(a, Intent):
                assert decode(encode(a)) == a


def test_quit_event() -> None:
    assert map_event(pygame.event.Event(pygame.QUIT), InputContext()) == [LocalAction("quit")]


#: A PIN keypad as the engine lists it (``cabinet.core.maintenance.entry.entry_items``).
PIN_PAD = [*"0123456789", "Delete", "Enter", "Cancel"]
TEXT_PAD = [
    *"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "Space",
    ".",
    ",",
    "-",
    "&",
    "'",
    "/",
    "#",
    "Delete",
    "Enter",
    "Default",
    "Cancel",
]


@pytest.mark.parametrize(
    ("k", "uni", "row"),
    [
        (pygame.K_7, "7", "7"),
        (pygame.K_KP3, "3", "3"),
        (pygame.K_0, "0", "0"),
        (pygame.K_BACKSPACE, "\b", "Delete"),
        (pygame.K_RETURN, "\r", "Enter"),
        (pygame.K_KP_ENTER, "\r", "Enter"),
    ],
)
def test_pc_keys_type_on_a_keypad_page(k: int, uni: str, row: str) -> None:
    """On a typed entry's keypad the PC's digits type (not pick chips), Backspace deletes
    and Enter enters: each the ``menu_pick`` of that key's row."""
    ctx = InputContext(station=1, chip_values_minor=(100, 500, 2500, 10000), keypad=PIN_PAD)
    assert map_event(key(k, uni), ctx) == [Intent(station=1, action="menu_pick", value=PIN_PAD.index(row))]


def test_letters_and_space_type_on_a_text_keypad_and_escape_cancels() -> None:
    ctx = InputContext(station=2, keypad=TEXT_PAD)
    assert map_event(key(pygame.K_d, "d"), ctx) == [Intent(station=2, action="menu_pick", value=3)]
    assert map_event(key(pygame.K_SPACE, " "), ctx) == [
        Intent(station=2, action="menu_pick", value=TEXT_PAD.index("Space"))
    ]
    assert map_event(key(pygame.K_ESCAPE, "\x1b"), ctx) == [Intent(station=2, action="menu_back")]
    assert map_event(key(pygame.K_DOWN), ctx) == [Intent(station=2, action="menu_down")]
    # a character the keypad has no key for does nothing (a letter on a PIN keypad)
    assert map_event(key(pygame.K_d, "d"), InputContext(keypad=PIN_PAD)) == []


def test_history_and_service_have_keys() -> None:
    """L opens the station's History (and closes it when open), A calls the attendant."""
    assert map_event(key(pygame.K_l, "l"), InputContext(station=2)) == [Intent(station=2, action="history")]
    assert map_event(key(pygame.K_l, "l"), InputContext(station=2, history_open=True)) == [
        Intent(station=2, action="history_close")
    ]
    assert map_event(key(pygame.K_a, "a"), InputContext(station=3)) == [Intent(station=3, action="service")]


def test_the_window_types_pc_digits_on_the_keypad_it_shows() -> None:
    """The table window: on the maintenance menu's PIN keypad the PC's 7 is the keypad's 7
    (a ``menu_pick`` of its row), not a chip; on the table 1 still picks the first chip."""
    from tests.ui.fixtures import CASES as ALL
    from ui.app import App

    pin_page = next(c.snapshot for c in ALL if c.name == "maintenance_pin")
    app = App(pygame.Surface((800, 480)), None)
    app.feed([pin_page], 0)
    items = pin_page.maintenance.items
    assert app.handle_input(key(pygame.K_7, "7")) == [Intent(station=1, action="menu_pick", value=items.index("7"))]
    table = next(c.snapshot for c in ALL if c.name == "multi_betting_3")
    app.feed([table], 1)
    chip = table.chip_values_minor[0]
    assert app.handle_input(key(pygame.K_1, "1")) == [Intent(station=1, action="chip", value=chip)]

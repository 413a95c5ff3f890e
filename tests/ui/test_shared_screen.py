"""One shared wide screen with a panel per station (``ui.shared_screen``).

Goldens ``shared_<case>_<W>x<H>.png`` at 3840x1080, 1920x1080, 1280x720 and 800x480
(and 5760x1080 once); ``UPDATE_GOLDENS=1`` rewrites them (look at every one).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import msgspec
import pygame
import pytest

from cabinet.protocol.ipc import Intent
from cabinet.protocol.snapshot import Snapshot
from tests.ui.fixtures import MULTI_BETTING, MULTI_DEALER_BJ, MULTI_PLAY, MULTI_SETTLED, MULTI_TOLD_WHY
from tests.ui.fixtures_player import history_rows, with_history, with_reminder
from tests.ui.test_screenshots import CHANNEL_TOL, MAX_DIFF_SHARE, diff_pixels
from ui import shared_screen
from ui.app import App
from ui.devkeys import DevKeys
from ui.render import Renderer

GOLDEN = Path(__file__).parent / "golden"
SIZES = [(3840, 1080), (1920, 1080), (1280, 720), (800, 480)]

#: name -> (snapshot, focused station, refusal notices)
CASES: dict[str, tuple[Snapshot, int, dict[int, str]]] = {
    "play_split": (MULTI_PLAY, 2, {}),
    "settled": (MULTI_SETTLED, 1, {}),
    "told_why": (MULTI_TOLD_WHY, 3, {3: "Bet refused: no credits"}),
    "betting": (MULTI_BETTING, 1, {}),
    "dealer_blackjack": (MULTI_DEALER_BJ, 1, {}),
    "history_and_reminder": (
        with_reminder(with_history(MULTI_PLAY, 2, history_rows(3, first=88)), 3, 65, 2_500),
        2,
        {},
    ),
}


def draw(
    snapshot: Snapshot,
    size: tuple[int, int],
    focus: int = 1,
    notices: dict[int, str] | None = None,
    renderer: Renderer | None = None,
    clock: str = "21:47",
) -> tuple[pygame.Surface, list]:
    surf = pygame.Surface(size)
    hits = (renderer or Renderer()).draw(
        surf, snapshot, 1_000, None, clock=clock, shared=True, focus=focus, notices=notices, languages=("en", "es")
    )
    return surf, hits


_PARAMS = [(name, size) for name in CASES for size in SIZES] + [("play_split", (5760, 1080))]


@pytest.mark.parametrize(("name", "size"), _PARAMS, ids=[f"{n}-{w}x{h}" for n, (w, h) in _PARAMS])
def test_shared_screen_golden(renderer: Renderer, name: str, size: tuple[int, int], tmp_path: Path) -> None:
    """The shared wide screen of every case at every size, as looked at."""
    snap, focus, notices = CASES[name]
    surf, _ = draw(snap, size, focus, notices, renderer)
    path = GOLDEN / f"shared_{name}_{size[0]}x{size[1]}.png"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        pygame.image.save(surf, str(path))
        return
    assert path.exists(), f"no golden {path.name}; run with UPDATE_GOLDENS=1 and look at it"
    golden = pygame.image.load(str(path))
    assert golden.get_size() == surf.get_size()
    bad = diff_pixels(surf, golden, CHANNEL_TOL)
    if bad > MAX_DIFF_SHARE * size[0] * size[1]:
        pygame.image.save(surf, str(tmp_path / path.name))
        pytest.fail(f"{path.name}: {bad} pixels differ (actual frame in {tmp_path})")


@pytest.mark.parametrize(
    ("size", "lw", "scale"),
    [
        ((3840, 1080), 3840, 1.0),
        ((5760, 1080), 5760, 1.0),
        ((1920, 1080), 1920, 1.0),
        ((1920, 540), 3840, 0.5),
        ((800, 480), 1920, 800 / 1920),
    ],
)
def test_layout_is_as_wide_as_the_display(size: tuple[int, int], lw: int, scale: float) -> None:
    """1080 logical units high and as wide as the display (at least 1920);
    the panels fill the width side by side, station 1 on the left, under the dealer."""
    L = shared_screen.layout_for(*size)
    assert (L.lw, L.lh) == (lw, 1080) and L.scale == pytest.approx(scale)
    boxes = shared_screen.panel_boxes(L, 3)
    assert [b.x for b in boxes] == sorted(b.x for b in boxes)
    assert boxes[0].x >= 0 and boxes[-1].right <= L.lw and all(b.bottom <= L.lh for b in boxes)
    assert boxes[0].w > (lw - 60) // 3 - 5
    assert not boxes[0].colliderect(boxes[1]) and not boxes[1].colliderect(boxes[2])


@pytest.mark.parametrize("size", [(3840, 1080), (5760, 1080), (1920, 1080)])
def test_chip_rack_shoe_and_tray_whole_and_clear_of_the_panels(size: tuple[int, int]) -> None:
    """Nothing clips the chip rack, the shoe or the discard tray: each lies
    whole on the screen, in the dealer's area (above every panel), clear of the placard,
    the timer and one another."""
    L = shared_screen.layout_for(*size)
    screen = pygame.Rect(0, 0, L.lw, L.lh)
    rack, shoe, tray, placard = L.chip_rack(), L.shoe_rect(), L.discard_tray(), L.limits_placard()
    assert rack is not None
    for r in (rack, shoe, tray):
        assert screen.contains(r), r
        assert r.bottom < shared_screen.PANELS_TOP
        assert not r.colliderect(placard)
    assert not rack.colliderect(shoe) and not shoe.colliderect(tray) and not rack.colliderect(tray)
    tx, ty = L.timer_center()
    timer = pygame.Rect(tx - 66, ty - 66, 132, 132)
    assert screen.contains(timer) and not timer.colliderect(shoe) and not timer.colliderect(tray)


def _changed_area(a: pygame.Surface, b: pygame.Surface) -> pygame.Rect:
    d = a.copy()
    d.blit(b, (0, 0), special_flags=pygame.BLEND_RGB_SUB)
    d2 = b.copy()
    d2.blit(a, (0, 0), special_flags=pygame.BLEND_RGB_SUB)
    d.blit(d2, (0, 0), special_flags=pygame.BLEND_RGB_ADD)
    mask = pygame.mask.from_threshold(d, (0, 0, 0), (9, 9, 9, 255))
    mask.invert()
    rects = mask.get_bounding_rects()
    assert rects, "nothing changed"
    return rects[0].unionall(rects[1:])


@pytest.mark.parametrize("size", [(3840, 1080), (1920, 1080)])
@pytest.mark.parametrize("station", [1, 2, 3])
def test_each_stations_message_is_drawn_in_its_own_panel(size: tuple[int, int], station: int) -> None:
    """The engine's per-station message, and a refusal notice of the UI's,
    appear in that station's own panel (every pixel that changes lies inside it)."""
    L = shared_screen.layout_for(*size)
    panel = L.rect(shared_screen.panel_boxes(L, 3)[station - 1])
    base, _ = draw(MULTI_SETTLED, size)
    told = msgspec.structs.replace(
        MULTI_SETTLED,
        stations=[
            msgspec.structs.replace(st, message="Your own words here") if st.station == station else st
            for st in MULTI_SETTLED.stations
        ],
    )
    changed, _ = draw(told, size)
    assert panel.contains(_changed_area(base, changed))
    refused, _ = draw(MULTI_SETTLED, size, notices={station: "Bet refused: no credits"})
    assert panel.contains(_changed_area(base, refused))


def test_touch_targets_act_for_their_panels_station() -> None:
    """Every button in a panel is its station's (the intent carries it), and
    each panel has its own HISTORY and SERVICE."""
    L = shared_screen.layout_for(3840, 1080)
    _, hits = draw(MULTI_SETTLED, (3840, 1080))
    for n, box in enumerate(shared_screen.panel_boxes(L, 3), start=1):
        inside = [h for h in hits if L.rect(box).contains(h.rect)]
        assert inside and {h.station for h in inside} == {n}
        assert {"history", "service", "cash_out", "chip"} <= {h.action for h in inside}


def test_history_and_reminder_stay_in_their_panels() -> None:
    """Station 2's history and station 3's reality check take only their own
    panel's touches; station 1 plays on (its buttons stay)."""
    snap, _, _ = CASES["history_and_reminder"]
    L = shared_screen.layout_for(1920, 1080)
    _, hits = draw(snap, (1920, 1080))
    boxes = [L.rect(b) for b in shared_screen.panel_boxes(L, 3)]
    in_panel = [[h for h in hits if boxes[i].contains(h.rect)] for i in range(3)]
    assert [(h.action, h.station) for h in in_panel[1]] == [("history_close", 2)]
    assert [(h.action, h.station) for h in in_panel[2]] == [("reminder_ok", 3)]
    assert {"history", "service", "hit"} <= {h.action for h in in_panel[0]}
    assert in_panel[1][0].rect == boxes[1] and in_panel[2][0].rect == boxes[2]


def test_history_on_a_small_screen_takes_the_whole_screen() -> None:
    """At 1280x720 a panel is too narrow for the history rows: station 2's
    history is drawn over the whole screen, as on the classic table, and a touch
    anywhere closes it (station 3's reminder, drawn last, is answered first)."""
    snap, _, _ = CASES["history_and_reminder"]
    _, hits = draw(snap, (1280, 720))
    assert [(h.action, h.station) for h in hits] == [("reminder_ok", 3)]
    assert hits[0].rect == pygame.Rect(0, 0, 1280, 720)
    only_history = with_history(MULTI_PLAY, 2, history_rows(3, first=88))
    _, hits = draw(only_history, (1280, 720))
    assert [(h.action, h.station) for h in hits] == [("history_close", 2)]


def _app(size: tuple[int, int], screens: str = "shared", snapshot: Snapshot = MULTI_PLAY) -> App:
    app = App(pygame.Surface(size), None, screens=screens)
    app.feed([snapshot], 0)
    app.draw(0)
    return app


def _click(pos: tuple[int, int]) -> pygame.event.Event:
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)


def test_a_touch_in_a_panel_focuses_its_station_for_keys_and_dev_keys() -> None:
    """Dev keys: a touch in station 3's panel makes the keys (D: deal) and the
    dev keys (F4: a $100 note) act for station 3; Tab moves on to station 1 (wrapping),
    Shift+Tab back to 3; the panel of the focused station is drawn ringed."""
    app = _app((1920, 1080))
    app.devkeys = DevKeys("/nonexistent.sock")
    L = shared_screen.layout_for(1920, 1080)
    box = L.rect(shared_screen.panel_boxes(L, 3)[2])
    assert app._focus_event(_click((box.centerx, box.y + 200))) is False  # and it presses on
    assert app.station == 3
    assert app.handle_input(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_d, mod=0, unicode="d")) == [
        Intent(station=3, action="deal")
    ]
    f4 = app.devkeys.commands_for(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F4, mod=0))
    assert f4 == [{"cmd": "note", "amount_minor": 10_000, "station": 3}]
    assert app._focus_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB, mod=0)) is True
    assert app.station == 1 and app.devkeys.station == 1
    app._focus_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB, mod=pygame.KMOD_SHIFT))
    assert app.station == 3
    app.draw(0)
    ringed, _ = draw(MULTI_PLAY, (1920, 1080), focus=3, clock="")
    assert diff_pixels(app.window, ringed, 0) == 0


def test_a_touch_on_a_panels_button_sends_for_that_station() -> None:
    """Touching station 2's HIT on the shared screen sends hit for station 2,
    whichever station the keys were on."""
    app = _app((3840, 1080))
    hit = next(h for h in app.hits if h.action == "hit" and h.station == 2)
    sent = app.handle_input(_click(hit.rect.center))
    assert sent == [Intent(station=2, action="hit", value=None)]


def test_the_engines_setting_picks_the_shared_screen() -> None:
    """A table UI left to the engine (``screens=""``) draws the shared screen
    when the snapshot says ``screens="shared"``, the classic table otherwise, and never
    on a station's own screen."""
    shared = msgspec.structs.replace(MULTI_PLAY, screens="shared")
    assert _app((1920, 1080), "", shared).shared() is True
    assert _app((1920, 1080), "", MULTI_PLAY).shared() is False
    assert _app((1920, 1080), "per-station", shared).shared() is False
    own = App(pygame.Surface((1920, 1080)), None, screens="shared", own_station=True, station=2)
    own.feed([shared], 0)
    assert own.shared() is False


def test_below_the_minimum_size_the_classic_table_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """Smaller than 800x480 (or portrait) the shared screen is not drawn: the
    classic shared table is, and the log says why, once."""
    assert shared_screen.supported(800, 480) and shared_screen.supported(1920, 540)
    assert not shared_screen.supported(640, 360) and not shared_screen.supported(1080, 1920)
    with caplog.at_level(logging.WARNING, logger="ui.app"):
        app = _app((640, 360))
        app.draw(0)
    assert app.shared() is False
    said = [r.getMessage() for r in caplog.records if "shared screen" in r.getMessage()]
    assert said == [
        "the shared screen needs at least 800x480 landscape, the window is 640x360: drawing the classic table"
    ]
    classic = pygame.Surface((640, 360))
    Renderer().draw(classic, MULTI_PLAY, 0, None, clock="", languages=("en", "es"))
    assert diff_pixels(app.window, classic, 0) == 0


def test_dev_key_toggles_are_each_stations_own() -> None:
    """Dev keys on the shared screen: F8 (printer paper out/in) on station 2 and
    then on station 3 takes the paper out of both printers (each station's toggles are
    its own), and F8 on station 2 again puts its paper back."""
    keys = DevKeys("/nonexistent.sock", station=2)
    f8 = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F8, mod=0)
    assert keys.commands_for(f8) == [{"cmd": "printer", "line": "out", "station": 2}]
    keys.station = 3
    assert keys.commands_for(f8) == [{"cmd": "printer", "line": "out", "station": 3}]
    keys.station = 2
    assert keys.commands_for(f8) == [{"cmd": "printer", "line": "paper", "station": 2}]

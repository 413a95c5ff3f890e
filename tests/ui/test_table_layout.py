"""The table's layout: the own hand's size in every
language, the other stations' panels in the third person, texts inside their boxes."""

from __future__ import annotations

import pygame
import pytest

from tests.ui import fixtures  # noqa: F401  (first: it imports the Spanish ones)
from tests.ui import fixtures_i18n as es
from ui import i18n
from ui.layout import Layout
from ui.own_station import own_boxes
from ui.render import station_geometry
from ui.widgets import Art, Painter

SIZES = [(1920, 1080), (1280, 720), (800, 480)]


def _own_geo(language: str, size: tuple[int, int], own: int = 1):  # type: ignore[no-untyped-def]
    s = es.AFTER_ROUND
    L = Layout.for_size(*size)
    p = Painter(pygame.Surface(size), L, Art())
    i18n.use(language)
    st = next(x for x in s.stations if x.station == own)
    box, _others = own_boxes(L, s, own)
    return station_geometry(L, p, s, 0, 1, st, box=box)


@pytest.mark.parametrize("size", SIZES, ids=lambda v: f"{v[0]}x{v[1]}")
def test_spanish_own_hand_keeps_its_size_after_a_round(size: tuple[int, int]) -> None:
    """In Spanish the own station's buttons after a round (chips, BORRAR,
    REPARTIR, COBRAR, APUESTA +, NUEVA PARTIDA, REPETIR) took two rows and the own hand
    shrank to tiny cards under its result badge; they fit one row as in English, and the
    own hand is as large as in English."""
    en = _own_geo("en", size)
    spanish = _own_geo("es", size)
    assert spanish.card_h == en.card_h
    assert spanish.card_h >= 150
    assert len({r.y for r in spanish.buttons if r.h}) <= 2  # chips and buttons centred on one row
    assert max(r.bottom for r in spanish.buttons) - min(r.y for r in spanish.buttons) <= 62
    assert spanish.console.y == en.console.y
    inner = spanish.console
    assert all(inner.contains(r) for r in spanish.buttons)


@pytest.mark.parametrize(
    ("language", "station", "told"),
    [
        ("en", 1, "Station 1 wins $5.00"),
        ("en", 2, "Station 2 wins $25.00"),
        ("en", 3, "Dealer wins"),
        ("es", 2, "Puesto 2 gana $25.00"),
    ],
)
def test_other_panels_say_a_settled_result_in_the_third_person(language: str, station: int, told: str) -> None:
    """Station 1's screen showed "You win $2.00" above station 2's hand;
    another station's panel says whose result it is."""
    from ui.own_station import about

    i18n.use(language)
    st = next(x for x in es.MULTI_SETTLED.stations if x.station == station)
    assert about(st, "$") == told


@pytest.mark.parametrize(("language", "told"), [("en", "Station 2's turn"), ("es", "Turno del puesto 2")])
def test_other_panels_say_whose_turn_it_is(language: str, told: str) -> None:
    """ "Your move" (Spanish "Su turno") stood above station 1's hand on
    station 3's screen; there it says whose turn it is, also from a plain message."""
    import msgspec

    from ui.own_station import about

    i18n.use(language)
    st = es.MULTI_PLAY.stations[1]
    assert st.message_said and st.message_said[0].text == "Your move"
    assert about(st, "$") == told
    assert about(msgspec.structs.replace(st, message_said=[]), "$") == told


def test_other_panels_turn_arrow_clears_the_message() -> None:
    """The active hand's arrow was drawn over the panel's message line."""
    from ui.own_station import OTHER_CARD_H, other_geometry

    box = pygame.Rect(12, 513, 366, 547)
    cards_bottom, card_h, _circle_y, _pill_y = other_geometry(box)
    arrow_top = cards_bottom - card_h - 3 - 7 - 26  # a card's rise, the glow, the arrow
    message_bottom = box.y + 56 + 17 * 0.7
    assert card_h == OTHER_CARD_H
    assert arrow_top >= message_bottom + 4


def test_other_panels_hide_a_plain_second_person_text() -> None:
    """A plain "You win $25.00" (no ``Said`` parts to say it otherwise)
    is not shown on another station's screen; its result badge says it."""
    from tests.ui.fixtures import MULTI_SETTLED
    from ui.own_station import about

    assert [about(st, "$") for st in MULTI_SETTLED.stations] == ["", "", "Dealer wins"]


def _drawn(
    monkeypatch: pytest.MonkeyPatch,
    method: str,
    snapshot,
    size,
    language="es",
    own=None,  # type: ignore[no-untyped-def]
    anim=None,
    now_ms=1_000,
):
    """Draw a frame, recording each ``Painter.<method>`` call: (args, result, painter)."""
    from ui.render import Renderer

    calls = []
    orig = getattr(Painter, method)

    def spy(self, *args, **kw):  # type: ignore[no-untyped-def]
        out = orig(self, *args, **kw)
        calls.append((args, kw, out, self))
        return out

    monkeypatch.setattr(Painter, method, spy)
    surf = pygame.Surface(size)
    Renderer().draw(surf, snapshot, now_ms, anim, own_station=own, language=language, languages=("en", "es"))
    return surf, calls


def _inside_circle(r: pygame.Rect, c: tuple[int, int], radius: float) -> bool:
    return all(
        (x - c[0]) ** 2 + (y - c[1]) ** 2 <= radius**2 for x, y in (r.topleft, r.topright, r.bottomleft, r.bottomright)
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda v: f"{v[0]}x{v[1]}")
def test_host_badge_is_whole_on_screen_in_spanish(monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """ "SISTEMA EN LÍNEA" was cut off at the screen's right edge (800x480);
    the badge is whole on screen and its words fit in it at a legible size."""
    from ui.widgets import MIN_TEXT_PX

    surf, calls = _drawn(monkeypatch, "pill", es.NEW_GAME_HOST, size)
    ((args, kw, r, p),) = [c for c in calls if c[0][0] == "SISTEMA EN LÍNEA"]
    px = args[2] if len(args) > 2 else kw.get("px", 24)
    pr = p.L.rect(r)
    assert surf.get_rect().contains(pr)
    assert p.fonts.font(max(p.L.px(px), MIN_TEXT_PX), True).size("SISTEMA EN LÍNEA")[0] <= pr.w


@pytest.mark.parametrize("size", SIZES, ids=lambda v: f"{v[0]}x{v[1]}")
def test_bets_close_label_does_not_cross_the_timer_ring(monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """ "FIN DE APUESTAS" ran over the bet timer's ring; it fits inside
    the ring or sits wholly under the circle, at a legible size."""
    from tests.ui.fixtures import MULTI_BETTING

    _surf, calls = _drawn(monkeypatch, "text", MULTI_BETTING, size, own=3)
    ((_a, _k, tr, p),) = [c for c in calls if c[0][0] == "FIN DE APUESTAS"]
    cx, cy = p.L.timer_center()
    c, ring_in = p.L.pt(cx, cy), p.L.px(66) - p.L.px(5)
    assert _inside_circle(tr, c, ring_in) or tr.top >= c[1] + p.L.px(66)
    assert tr.h >= 11


@pytest.mark.parametrize("size", SIZES, ids=lambda v: f"{v[0]}x{v[1]}")
def test_empty_bet_circle_label_fits_the_circle(monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """ "APUESTA" was wider than the empty bet circle."""
    _surf, calls = _drawn(monkeypatch, "text", es.NEW_GAME_HOST, size)
    ((args, _k, tr, p),) = [c for c in calls if c[0][0] == "APUESTA" and c[0][1] == 26]
    assert _inside_circle(tr, p.L.pt(*args[3]), p.L.px(50) - p.L.px(3))


@pytest.mark.parametrize("size", SIZES, ids=lambda v: f"{v[0]}x{v[1]}")
def test_a_swept_stack_never_stands_above_the_rack(size: tuple[int, int]) -> None:
    """After a round a lost stack sank into the chip rack standing out
    above its top edge (17-allin-result); nothing of it is drawn above the rack."""
    import msgspec

    from tests.ui import fixtures_motion as fm
    from ui import motion
    from ui.animation import Animator
    from ui.render import Renderer

    lost = fm._classic_one("lose", ["TH", "6C"], "16", 2_800, 0)  # all in: a tall stack
    lost = msgspec.structs.replace(
        lost,
        stations=[
            msgspec.structs.replace(
                lost.stations[0],
                spots=[msgspec.structs.replace(lost.stations[0].spots[0], chips_minor=[500] * 4 + [100] * 8)],
            )
        ],
    )
    a = Animator()
    a.on_snapshot(fm.unsettled(lost), lost, 0)
    L = Layout.for_size(*size)
    rack = L.rect(L.chip_rack())
    strip = pygame.Rect(0, 0, size[0], rack.y)
    r = Renderer()
    rest = pygame.Surface(size)
    r.draw(rest, lost, 60_000, a)
    start = motion.SETTLE_DELAY_MS
    for t in range(start, start + motion.SWEEP_MS, 25):
        surf = pygame.Surface(size)
        r.draw(surf, lost, t, a)
        assert pygame.image.tobytes(surf.subsurface(strip), "RGB") == pygame.image.tobytes(
            rest.subsurface(strip), "RGB"
        ), t


@pytest.mark.parametrize("d", [28, 41], ids=["800x480", "1280x720"])
def test_a_small_chips_value_keeps_clear_of_its_rim(d: int) -> None:
    """The "100" on the chip buttons touched the dark ring around it at
    800x480 (the inlay's dashes, a pixel from the value): around the value, out to the
    inlay's edge (0.68 of the body's radius), the inlay is clear."""
    import math

    from ui.assets import Fonts
    from ui.chips import _SS, ChipArt, chip_colors

    art = ChipArt(Fonts())
    D = d * _SS
    chip = art._top(10_000, D, False)
    inlay = chip_colors(10_000)[2]
    rb = D / 2 - max(1, D * 0.015)
    value = ring = 0
    for y in range(D):
        for x in range(D):
            dist = math.hypot(x + 0.5 - D / 2, y + 0.5 - D / 2) / rb
            dark = sum(chip.get_at((x, y))[:3]) < sum(inlay[:3]) - 120
            value += dark and dist < 0.5
            ring += dark and 0.58 <= dist <= 0.64
    assert value > 20
    assert ring == 0

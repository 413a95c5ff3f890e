"""The felt: the chip rack, shoe and discard tray whole; the table limits
placard from the snapshot; a doubled stake as two stacks; each split hand's own
stake; the door-open freeze without buttons; the time of day on every screen."""

from __future__ import annotations

import msgspec
import pygame
import pytest

from tests.ui.fixtures import AMERICAN_PLAY, ATTRACT, CASES, CLASSIC_BETTING, MULTI_PLAY
from ui.app import App
from ui.layout import Layout
from ui.render import BET_BUTTONS, PLAY_BUTTONS, Renderer
from ui.widgets import Painter


def _texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    real = Painter.text

    def text(self: Painter, s: str, *a: object, **k: object) -> pygame.Rect:
        said.append(s)
        return real(self, s, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Painter, "text", text)
    return said


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (800, 480)])
def test_rack_shoe_tray_and_placard_are_whole_and_apart(size: tuple[int, int]) -> None:
    """The chip rack was drawn half above the top edge; the rack, the shoe,
    the discard tray, the placard, the clock and HELP now lie whole on the screen,
    none over another, and none where the dealer's first five cards go."""
    L = Layout.for_size(*size)
    screen = pygame.Rect(0, 0, L.lw, L.lh)
    rack = L.chip_rack()
    assert rack is not None
    x, y = L.clock_pos()
    parts = [
        rack,
        L.shoe_rect(),
        L.discard_tray(),
        L.limits_placard(),
        L.help_button(),
        pygame.Rect(x, y - 18, 110, 36),
    ]
    for i, r in enumerate(parts):
        assert screen.contains(r), r
        assert r.collidelist(parts[i + 1 :]) == -1, (r, parts)
    dealer = pygame.Rect(L.cx - 116 // 2 - 4 * 72, L.dealer_cards_top(), 116 + 8 * 72, 162)
    assert dealer.collidelist(parts) == -1


def test_portrait_has_no_rack_and_a_whole_shoe() -> None:
    """ "the chip rack whole or gone": portrait has no room, so none."""
    L = Layout.for_size(1080, 1920)
    assert L.chip_rack() is None
    screen = pygame.Rect(0, 0, L.lw, L.lh)
    assert screen.contains(L.shoe_rect()) and screen.contains(L.discard_tray())
    assert not L.shoe_rect().colliderect(L.discard_tray())
    for layout in (L, Layout.for_size(1920, 1080)):  # the bet timer clears the tray
        tx, ty = layout.timer_center()
        timer = pygame.Rect(tx - 66, ty - 66, 132, 132)
        assert timer.collidelist([layout.shoe_rect(), layout.discard_tray(), layout.limits_placard()]) == -1


def test_limits_placard_comes_from_the_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The placard reads the minimum and maximum (per hand, or per spot on
    a table with several spots) and the pay lines the engine renders from the RuleSet."""
    said = _texts(monkeypatch)
    Renderer().draw(pygame.Surface((1280, 720)), CLASSIC_BETTING, 0)
    assert "TABLE LIMITS" in said and "$1 \u2013 $100" in said and "per hand" in said
    assert "Blackjack pays 3 to 2" in said and "Insurance costs \u00bd bet, pays 2 to 1" in said
    said.clear()
    Renderer().draw(pygame.Surface((1280, 720)), AMERICAN_PLAY, 0)
    assert "$1 \u2013 $500" in said and "per spot" in said


def test_doubled_stake_is_two_stacks_and_split_hands_have_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The doubled hand's $20 shows as two $10 stacks side by side; each
    split hand's $10 sits under its own hand (not one $20 stack on the circle)."""
    stacks: list[tuple[int, float]] = []
    real = Renderer._stack

    def stack(self: Renderer, p: Painter, chips: list[int], base: tuple[float, float], d: float) -> None:
        stacks.append((sum(chips), base[0]))
        real(self, p, chips, base, d)

    monkeypatch.setattr(Renderer, "_stack", stack)
    said = _texts(monkeypatch)
    Renderer().draw(pygame.Surface((1920, 1080)), AMERICAN_PLAY, 0)
    amounts = sorted(a for a, _ in stacks)
    assert amounts == [500, 1_000, 1_000, 1_000, 1_000], stacks  # $5; $10 + $10 doubled; two $10 splits
    doubled = [x for a, x in stacks if a == 1_000][:2]
    assert abs(doubled[0] - doubled[1]) > 20
    assert said.count("$20") == 1 and said.count("$10") == 2


def test_door_open_freeze_offers_no_buttons() -> None:
    """The door-open screen drew the betting buttons under its panel."""
    case = next(c for c in CASES if c.name == "overlay_door_open")
    hits = Renderer().draw(pygame.Surface((1280, 720)), case.snapshot, 0)
    actions = {a for lst in [*BET_BUTTONS.values(), PLAY_BUTTONS] for a, _ in lst}
    assert not [h for h in hits if h.action in actions or h.action == "chip"]


@pytest.mark.parametrize("snap", [CLASSIC_BETTING, MULTI_PLAY, ATTRACT], ids=["table", "multi", "attract"])
def test_time_of_day_is_on_screen(monkeypatch: pytest.MonkeyPatch, snap: object) -> None:
    """The time of day is always on screen, attract included."""
    said = _texts(monkeypatch)
    Renderer().draw(pygame.Surface((1280, 720)), snap, 0, clock="14:05")  # type: ignore[arg-type]
    assert "14:05" in said


def test_the_app_redraws_when_the_minute_turns() -> None:
    """An idle table redraws once when its clock's minute changes, not before."""
    now = ["14:05"]
    app = App(pygame.Surface((640, 360)), None, clock_ms=lambda: 0, wall_clock=lambda: now[0])
    app.feed([CLASSIC_BETTING], 0)
    app.step(0)
    frames = app.frames
    app.step(0)
    assert app.frames == frames
    now[0] = "14:06"
    app.step(0)
    assert app.frames == frames + 1


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if any(h.outcome for st in c.snapshot.stations for sp in st.spots for h in sp.hands)],
    ids=lambda c: c.name,
)
def test_result_badges_never_cover_a_card_index(monkeypatch: pytest.MonkeyPatch, case: object) -> None:
    """A result badge (WIN, BUST, BLACKJACK $7.50...) sits between a hand's
    corner indices: never over any card's top-left index nor the last card's
    bottom-right one, on the shared screen and on every station's own screen."""
    cards: dict[tuple[object, ...], list[tuple[int, pygame.Rect]]] = {}
    badges: list[pygame.Rect] = []
    in_badge = [False]
    real_blit, real_badge, real_pill = Renderer._blit_card, Renderer._outcome_badge, Painter.pill

    def blit(self: Renderer, p: Painter, code: str, r: pygame.Rect, key: tuple[object, ...], *a: object) -> bool:
        if key[0] == "p":
            cards.setdefault(key[:4], []).append((int(key[4]), r.copy()))  # type: ignore[call-overload]
        return real_blit(self, p, code, r, key, *a)  # type: ignore[arg-type]

    def badge(self: Renderer, *a: object) -> None:
        in_badge[0] = True
        real_badge(self, *a)  # type: ignore[arg-type]
        in_badge[0] = False

    def pill(self: Painter, *a: object, **k: object) -> pygame.Rect:
        r = real_pill(self, *a, **k)  # type: ignore[arg-type]
        if in_badge[0]:
            badges.append(r)
        return r

    monkeypatch.setattr(Renderer, "_blit_card", blit)
    monkeypatch.setattr(Renderer, "_outcome_badge", badge)
    monkeypatch.setattr(Painter, "pill", pill)
    snap = case.snapshot  # type: ignore[attr-defined]
    owns = [None] + ([st.station for st in snap.stations] if len(snap.stations) > 1 else [])
    for own in owns:
        for size in [(1920, 1080), (800, 480)]:
            cards.clear()
            badges.clear()
            Renderer().draw(pygame.Surface(size), snap, 0, own_station=own)
            assert badges
            zones = []
            for hand in cards.values():
                last = max(i for i, _ in hand)
                for i, r in hand:
                    zones.append(pygame.Rect(r.x, r.y + r.h * 0.02, r.w * 0.2, r.h * 0.27))
                    if i == last:
                        zones.append(pygame.Rect(r.right - r.w * 0.2, r.bottom - r.h * 0.29, r.w * 0.2, r.h * 0.27))
            for b in badges:
                assert b.collidelist(zones) == -1, (case.name, own, size, b)  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (800, 480), (1080, 1920)])
def test_attract_title_stays_clear_of_the_shoe_and_rack(size: tuple[int, int]) -> None:
    """ "CLASSIC BLACKJACK (MULTI-PLAYER TABLE)" ran over the discard tray and
    the shoe on the attract screen; the title now fits between them."""
    from ui.scenes import attract

    snap = msgspec.structs.replace(
        ATTRACT, variant="classic-multi", variant_name="Classic BlackJack (multi-player table)"
    )
    surf = pygame.Surface(size)
    L = Layout.for_size(*size)
    p = Painter(surf, L, Renderer().art)
    title = next(e for e in attract.elements(p, snap, 20_000, Renderer()) if e.key[0] == "title")
    rack = L.chip_rack()
    for part in [L.shoe_rect(), L.discard_tray(), L.help_button()] + ([rack] if rack else []):
        assert not title.rect.colliderect(L.rect(part)), (part, title.rect)

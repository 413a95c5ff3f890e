"""A station's own screen: its spots, meters, buttons and messages
large in the middle, the other players' hands small at the sides.

Owns: where the own station and the others sit on a per-station screen
(``own_boxes``) and drawing the others' compact panels (``draw_other``: name,
credits, bet, message, cards, totals and results, no buttons). The dealer's
hand, the felt and the table line are the renderer's as on the shared
screen. Pure drawing, UI thread only.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import pygame

from cabinet.protocol.money import chip_split
from cabinet.protocol.said import Said
from cabinet.protocol.snapshot import Snapshot, StationView
from ui import theme
from ui.i18n import N_, _
from ui.layout import Layout
from ui.money import fmt_money
from ui.said import say_all, told
from ui.widgets import Painter


class Renderer(Protocol):
    """What the others' panels need of ``ui.render.Renderer`` (a protocol: no import cycle)."""

    def _hand(self, *args: Any) -> None: ...
    def _stack(self, p: Painter, chips: list[int], base: tuple[float, float], d: float) -> None: ...


#: width of the side strips holding the other stations (landscape, logical units).
SIDE_W = 390
#: height of the strip holding the other stations (portrait, logical units).
TOP_STRIP_H = 420
#: card height in the others' panels (logical units).
OTHER_CARD_H = 120


#: the engine's texts to a station in the second person (``cabinet.core.view``) as said
#: about it on another station's screen (else "You win $2.00" would stand above
#: someone else's hand); ``{n}`` is that station's number, the other arguments are kept.
ABOUT: dict[str, str] = {
    "Your move": N_("Station {n}'s turn"),
    "Insurance? It costs {cost_minor}": N_("Station {n}: insurance?"),
    "You win {amount_minor}": N_("Station {n} wins {amount_minor}"),
    "Blackjack! You win {amount_minor}": N_("Station {n} Blackjack, wins {amount_minor}"),
    "Blackjack!": N_("Station {n} Blackjack"),
}

_TO_YOU = re.compile(r"\byou(r)?\b", re.IGNORECASE)


def about(st: StationView, symbol: str) -> str:
    """Station ``st``'s message as another station's screen says it: in the third person
    (``ABOUT``), in the active language; a plain message without ``Said`` parts is taken
    as a constant template, and one still said to "you" is not shown (the hand's result
    badge says it)."""
    parts = st.message_said or ([Said(st.message)] if st.message in ABOUT else [])
    if not parts:
        return "" if _TO_YOU.search(st.message) else told(st.message, [], symbol)
    return say_all([Said(ABOUT[x.text], {**x.args, "n": st.station}) if x.text in ABOUT else x for x in parts], symbol)


def own_boxes(L: Layout, s: Snapshot, own: int) -> tuple[pygame.Rect, list[tuple[StationView, pygame.Rect]]]:
    """The own station's box and each other station's panel.

    Landscape: the own station in the middle (the felt's centre, ``SIDE_W`` strips
    left and right), the others at the side of their seat (a lower station number
    to the left, as on the shared screen). Portrait: the others in a strip above.
    """
    top = L.stations_top()
    others = [st for st in s.stations if st.station != own]
    if L.portrait:
        box = pygame.Rect(0, top + TOP_STRIP_H, L.lw, L.lh - top - TOP_STRIP_H)
        w = L.lw // max(1, len(others))
        return box, [(st, pygame.Rect(i * w + 10, top, w - 20, TOP_STRIP_H - 10)) for i, st in enumerate(others)]
    box = pygame.Rect(SIDE_W, top, L.lw - 2 * SIDE_W, L.lh - top)
    left = [st for st in others if st.station < own]
    right = [st for st in others if st.station > own]
    if len(left) == 2:
        right = [left.pop()]
    elif len(right) == 2:
        left = [right.pop(0)]
    panels = [(st, pygame.Rect(12, top + 8, SIDE_W - 24, L.lh - top - 20)) for st in left] + [
        (st, pygame.Rect(L.lw - SIDE_W + 12, top + 8, SIDE_W - 24, L.lh - top - 20)) for st in right
    ]
    return box, panels


def other_geometry(box: pygame.Rect) -> tuple[int, int, int, int]:
    """Another station's panel layout: ``(cards_bottom, card_h, circle_y, pill_y)``,
    logical units (the renderer makes its ``StationGeo`` of them)."""
    cards_bottom = box.y + 116 + OTHER_CARD_H  # the turn arrow clear of the message line
    return cards_bottom, OTHER_CARD_H, cards_bottom + 120, cards_bottom + 22


def draw_other(
    r: Renderer, p: Painter, s: Snapshot, st: StationView, box: pygame.Rect, geo: Any, now_ms: int, anim: Any
) -> None:
    """Another player's panel: who, credits and bet, their message, their hands small
    (``geo``: the renderer's ``StationGeo`` of ``other_geometry(box)``)."""
    sym = s.currency_symbol
    p.fill_rect(box, (0, 0, 0, 110), radius=16)
    p.fill_rect(box, theme.PANEL_EDGE, radius=16, width=2)
    p.text(_("STATION {n}").format(n=st.station), 20, theme.GOLD, (box.x + 16, box.y + 24), anchor="midleft", bold=True)
    p.text(
        fmt_money(st.credits_minor, sym), 20, theme.CREAM, (box.right - 16, box.y + 24), anchor="midright", bold=True
    )
    if st.ready and not st.message:  # the message line says "Ready" when it has one
        p.pill(_("READY"), (box.centerx, box.y + 56), 14, fg=theme.INK, bg=theme.WIN)
    told_about = about(st, sym) if st.message else ""  # "" for a plain "You win..." (``about``)
    if told_about:
        p.text(told_about, 17, theme.GOLD, (box.centerx, box.y + 56), max_w=box.w - 20)
    if st.fault:
        p.text(_("OUT OF SERVICE"), 20, theme.DANGER, (box.centerx, box.y + 90), bold=True)
    spots = [sp for sp in sorted(st.spots, key=lambda sp: -sp.spot) if sp.bet_minor or sp.hands]
    if not spots:
        p.text(_("no bet"), 18, (214, 182, 96, 150), (box.centerx, box.y + 150))
        return
    spot_w = box.w / len(spots)
    for i, sp in enumerate(spots):
        cx = box.x + spot_w * (i + 0.5)
        k = len(sp.hands)
        for j, hand in enumerate(sp.hands):
            hcx = cx + (j - (k - 1) / 2) * (spot_w / k)
            r._hand(p, s, st, sp, j, hand, hcx, spot_w / k, geo, now_ms, anim, k)
        stake = sum(h.stake_minor for h in sp.hands) or sp.bet_minor
        chips = list(sp.chips_minor) or chip_split(stake)
        if chips:
            r._stack(p, chips, (cx, geo.circle_y), 40)
            p.pill(fmt_money(stake, sym, compact=True), (cx, geo.circle_y + 36), 15, fg=theme.WHITE, bg=(0, 0, 0, 190))

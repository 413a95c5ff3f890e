"""A win celebration scaled to the win ("The felt").

Owns: which tier a station's settled round earns (``tier``), when its celebration
starts and ends (``Celebration``), its sound, and drawing it. The tiers:

- none: a push, a loss, or a mixed round that did not come out ahead;
- ``small``: an even-money win: a gold ring pulses round the winning circles (the
  amount is under the payout, ``ui.settle_draw``);
- ``medium``: a blackjack paid, or a win of 1.5 to 3 times the bet: the rings, a
  burst of chips round the circles and a banner with the amount;
- ``big``: a win of ``BIG_RATIO`` times the bet or more (a split or a double won),
  or of at least the table's maximum bet: the rings, a shower of chips over the
  felt and a larger, longer banner.

"The bet" is what the station put down (its spots' bets and insurance, before any
double or split); the win is the round's net (paid back less everything staked).
What it never does: cover a card or a button (the chips are drawn on the felt,
*under* the cards and the console; the banner lies over the felt's printed lines,
above the table message, where no card nor button reaches), take input (it adds no touch target) or outlive
its round (``Animator`` drops it when the next round starts). Pure model, drawing
on a ``Painter``; UI thread only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pygame

from cabinet.protocol.snapshot import Snapshot, StationView
from ui import motion, theme
from ui.i18n import _
from ui.money import fmt_money
from ui.tween import Tween
from ui.widgets import Painter

SMALL, MEDIUM, BIG = "small", "medium", "big"
#: net win / bet from which a win is ``big`` (an even-money win is 1, a blackjack 1.5).
BIG_RATIO = 3.0
MEDIUM_RATIO = 1.5
DURATION_MS = {SMALL: 1_400, MEDIUM: 2_600, BIG: 4_200}
#: the sound each tier plays (``ui.sound``).
SOUND = {SMALL: "win", MEDIUM: "blackjack", BIG: "big_win"}
#: chips in the big win's shower, and how long one takes to fall across the felt.
SHOWER_CHIPS = 36
SHOWER_FALL_MS = 1_600
#: where the shower starts (logical y): below the dealer's cards, rack, shoe and tray.
SHOWER_TOP = 240


def tier(net_minor: int, bet_minor: int, blackjack: bool, big_minor: int = 0) -> str | None:
    """The celebration a round's result earns.

    Args:
        net_minor: what the round won net of every stake (<= 0: nothing to celebrate).
        bet_minor: what was bet (> 0; 0 is read as 1 minor unit).
        blackjack: a blackjack was paid in it.
        big_minor: a net win of at least this is ``big`` whatever the ratio (the
            table's maximum bet); 0 for none.

    Returns:
        ``SMALL``, ``MEDIUM``, ``BIG`` or ``None``.
    """
    if net_minor <= 0:
        return None
    ratio = net_minor / max(1, bet_minor)
    if ratio >= BIG_RATIO or (big_minor > 0 and net_minor >= big_minor):
        return BIG
    if blackjack or ratio >= MEDIUM_RATIO:
        return MEDIUM
    return SMALL


def station_result(st: StationView) -> tuple[int, int, bool, bool]:
    """``(net_minor, bet_minor, blackjack, settled)`` of a station's round: net paid back
    less staked (hands and insurance), the bets put down, a blackjack among its hands,
    and whether every hand of it has settled."""
    net = bet = 0
    bj = False
    hands = [h for sp in st.spots for h in sp.hands]
    for sp in st.spots:
        if not sp.hands:
            continue
        bet += sp.bet_minor + sp.insurance_minor
        net += (sp.insurance_returned_minor or 0) - sp.insurance_minor
        for h in sp.hands:
            net += (h.returned_minor or 0) - h.stake_minor
            bj = bj or (h.outcome == "blackjack" and (h.returned_minor or 0) > h.stake_minor)
    return net, bet, bj, bool(hands) and all(h.outcome is not None for h in hands)


@dataclass(frozen=True, slots=True)
class Celebration:
    """One station's celebration.

    Attributes:
        station: the station (1-based); tier: ``SMALL``/``MEDIUM``/``BIG``.
        net_minor: the amount won (shown); spots: the spots that won (their circles glow).
        tween: when it runs (it ends by itself).
        blackjack: a blackjack was paid (the banner says so).
        ident: which round it celebrates (``identity``).
    """

    station: int
    tier: str
    net_minor: int
    spots: tuple[int, ...]
    tween: Tween
    blackjack: bool = False
    ident: tuple[object, ...] = ()


def identity(s: Snapshot, station: int) -> tuple[object, ...]:
    """Which round station ``station``'s hands in ``s`` are (``ui.motion.bet_identity``)."""
    return tuple(v for k, v in sorted(motion.bet_identity(s).items()) if k[0] == station)


def plan(old: Snapshot, new: Snapshot, start_ms: Callable[[int], int]) -> list[Celebration]:
    """Celebrations for the stations whose round finished settling from ``old`` to
    ``new``; ``start_ms(station)`` says when each starts (when its payout lands)."""
    was = {st.station: station_result(st)[3] for st in old.stations}
    out: list[Celebration] = []
    for st in new.stations:
        net, bet, bj, settled = station_result(st)
        ident = identity(new, st.station)
        if not settled or (was.get(st.station, False) and identity(old, st.station) == ident):
            continue
        t = tier(net, bet, bj, new.max_bet_minor)
        if t is None:
            continue
        spots = tuple(
            sp.spot
            for sp in st.spots
            if any(h.outcome in ("win", "blackjack") and (h.returned_minor or 0) > h.stake_minor for h in sp.hands)
        )
        out.append(Celebration(st.station, t, net, spots, Tween(start_ms(st.station), DURATION_MS[t]), bj, ident))
    return out


# -- drawing ---------------------------------------------------------------------


def _fade(c: Celebration, now_ms: int) -> float:
    """0-1 strength: quick in, held, faded out over the last 30 %."""
    p = c.tween.progress(now_ms)
    if p < 0 or p >= 1:
        return 0.0
    return min(1.0, p / 0.08, (1 - p) / 0.3)


def draw_under(p: Painter, c: Celebration, now_ms: int, circles: list[tuple[float, float, float]]) -> None:
    """What lies on the felt, under the cards and the console: the rings round the
    winning ``circles`` (centre x, y, radius, logical units), the medium burst and
    the big shower."""
    a = _fade(c, now_ms)
    if a <= 0:
        return
    L = p.L
    t = now_ms - c.tween.start_ms
    for x, y, r in circles:
        wave = 0.5 + 0.5 * math.sin(t / 130)
        rr = r + 8 + 8 * wave
        pygame.draw.circle(p.surface, theme.ACTIVE_GLOW, L.pt(x, y), L.px(rr), max(1, L.px(3 + 3 * a)))
        if c.tier != SMALL and t < 900:  # chips thrown out of the circle
            k = t / 900
            for i in range(8):
                ang = i * math.pi / 4 + 0.3
                dist = r + 20 + 150 * (1 - (1 - k) ** 2)
                cx, cy = x + math.cos(ang) * dist, y + math.sin(ang) * dist * 0.6 - 60 * math.sin(k * math.pi)
                p.blit_center(p.art.chips.chip(_SHOWER_VALUES[i % 4], L.px(30)), (cx, cy))
    if c.tier == BIG:
        _shower(p, c, t)


_SHOWER_VALUES = (10_000, 2_500, 500, 100)


def _shower(p: Painter, c: Celebration, t: int) -> None:
    """Chips raining on the felt between the dealer's side (rack, shoe, tray, placard
    stay clear) and the consoles; deterministic: the same frame for the same time."""
    L = p.L
    top = SHOWER_TOP if not L.portrait else SHOWER_TOP + 120
    span = c.tween.duration_ms - SHOWER_FALL_MS
    placard = L.limits_placard().inflate(40, 40)
    for i in range(SHOWER_CHIPS):
        start = i * span // SHOWER_CHIPS + (i * 7919) % 90
        k = (t - start) / SHOWER_FALL_MS
        if not 0 <= k < 1:
            continue
        x = 60 + ((i * 2654435761) % 1000) / 1000 * (L.lw - 120) + 24 * math.sin(k * 6 + i)
        y = top + k * k * (L.lh - top)
        grow = 0.5 if k < 0.06 else 0.75 if k < 0.12 else 1.0  # it pops out of the felt
        d = (30 + (i % 3) * 8) * grow
        if placard.collidepoint(x, y):
            continue
        p.blit_center(p.art.chips.chip(_SHOWER_VALUES[i % 4], L.px(d)), (x, y))


def banner_text(c: Celebration, sym: str, stations: int) -> str:
    """The banner of a medium or big celebration (``""`` for a small one)."""
    if c.tier == SMALL:
        return ""
    amount = fmt_money(c.net_minor, sym)
    what = (
        _("BIG WIN {amount}") if c.tier == BIG else _("BLACKJACK! {amount}") if c.blackjack else _("WIN {amount}")
    ).format(amount=amount)
    return _("STATION {n}").format(n=c.station) + " \u00b7 " + what if stations > 1 else what


def draw_over(p: Painter, c: Celebration, now_ms: int, sym: str, stations: int) -> None:
    """The banner (medium and big), over the felt's printed lines above the table
    message: no card, button or message lies there."""
    a = round(_fade(c, now_ms) * 8) / 8  # a few alphas: the pill surfaces are cached
    text = banner_text(c, sym, stations)
    if a <= 0 or not text:
        return
    L = p.L
    cx, cy = L.message_center()
    cy -= 84  # on the felt's printing, above the table message; clear of the
    room = 2 * (cx - 390)  # HISTORY and SERVICE buttons and the limits placard at the left
    big = c.tier == BIG
    px = 44 if big else 36
    rise = 14 * (1 - min(1.0, (now_ms - c.tween.start_ms) / 220))
    bg = (*theme.BLACKJACK[:3], int(255 * a)) if big or c.blackjack else (*theme.WIN[:3], int(255 * a))
    edge = (*theme.WHITE[:3], int(220 * a))
    p.pill(
        text,
        (cx, cy + rise),
        px,
        fg=theme.INK if big or c.blackjack else theme.WHITE,
        bg=bg,
        edge=edge,
        max_w=min(L.lw * 0.6, room),
    )

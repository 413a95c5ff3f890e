"""Drawing the settlement motion of ``ui.motion``: stakes, payouts beside them, and
the stacks flying to the dealer's rack, from it, and into the credit meter.

Owns: where a settled bet's stacks sit on a spot (``spot_slots``: the same places
``ui.render`` draws an open bet's stake, so nothing jumps when it settles) and
drawing them at rest or in flight. The flights to and from the rack are drawn
under every card and the console (``Renderer`` calls ``draw_moving(layer="under")``
before the dealer's cards), so a flying stack never hides a card index; the
flights into the credit meter over the console (``layer="over"``), where they
cross only the message line and the meters, never a button. UI thread only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import pygame

from cabinet.protocol.money import chip_split
from cabinet.protocol.snapshot import SpotView, StationView
from ui import motion, theme
from ui.i18n import _
from ui.money import fmt_money
from ui.motion import AT_REST, FROM_RACK, INSURANCE, TO_METER, TO_RACK, HandKey, Settle
from ui.tween import ease_out
from ui.widgets import Painter

Point = tuple[float, float]


class Settles(Protocol):
    """What this module asks of the animator (``ui.animation.Animator``)."""

    def settle(self, key: HandKey) -> Settle | None: ...


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one bet's chips sit on its spot (logical units).

    Attributes:
        stacks: the stake as drawn: ``(chips, base, diameter)``, two for a doubled hand.
        pill: centre of the stake's amount label, or ``None`` (insurance: ``INS``).
        beside: base of the payout stack, beside the stake; beside_d: its diameter.
        amount_at: centre of the payout's amount label.
    """

    stacks: list[tuple[list[int], Point, float]]
    pill: Point | None
    beside: Point
    beside_d: float
    amount_at: Point


def spot_slots(sp: SpotView, cx: float, cy: float, r: float, spot_w: float) -> dict[int, Slot]:
    """Every bet's slot on spot ``sp`` (circle centre ``cx, cy``, radius ``r``, its
    share ``spot_w`` of the station's width): hand index -> ``Slot``, ``INSURANCE`` for
    its insurance. Mirrors ``Renderer._spot`` and ``Renderer._hand_stakes``."""
    out: dict[int, Slot] = {}
    k = len(sp.hands)
    if k == 1 and not sp.hands[0].doubled:
        chips = list(sp.chips_minor) or chip_split(sp.hands[0].stake_minor)
        out[0] = Slot(
            [(chips, (cx, cy + 14), 64)], (cx, cy + r + 16), (cx + r + 34, cy), 54, (cx + r + 34, cy + r + 16)
        )
    else:
        gap = spot_w / k if k > 1 else 0
        for j, h in enumerate(sp.hands):
            hx = cx + (j - (k - 1) / 2) * gap
            d = 50 if k > 1 else 60
            if h.doubled:
                half = h.stake_minor // 2
                stacks = [
                    (chip_split(half), (hx - d * 0.42, cy + 14), d * 0.8),
                    (chip_split(h.stake_minor - half), (hx + d * 0.42, cy + 14), d * 0.8),
                ]
                right = hx + d * 0.82
            else:
                stacks = [(chip_split(h.stake_minor), (hx, cy + 14), d)]
                right = hx + d * 0.5
            bx = right + (26 if k > 1 else 34)
            if k == 1:
                bx = max(bx, cx + r + 34)
            out[j] = Slot(stacks, (hx, cy + r + 16), (bx, cy), d * 0.9, (bx + (12 if k > 1 else 0), cy + r + 16))
    if sp.insurance_minor:
        ix = cx - r - 40
        out[INSURANCE] = Slot(
            [(chip_split(sp.insurance_minor), (ix, cy + 10), 44)], None, (ix - 44, cy + 10), 40, (ix - 44, cy + 38)
        )
    return out


def is_settled(sp: SpotView) -> bool:
    """Whether any bet of ``sp`` has settled (then this module draws its chips)."""
    return any(h.outcome is not None for h in sp.hands) or (
        sp.insurance_minor > 0 and sp.insurance_returned_minor is not None
    )


def _phases(s: Settle | None, result: str, now_ms: int) -> tuple[tuple[str, float], tuple[str, float]]:
    if s is None:
        return motion.rest_phase(result)
    return s.stake_phase(now_ms), s.payout_phase(now_ms)


def _bets(sp: SpotView) -> dict[int, tuple[str, int, int]]:
    """hand -> (result, stake, payout) of every bet of ``sp``; an unsettled one is
    ``("open", stake, 0)``."""
    out = motion.spot_bets(sp)
    for j, h in enumerate(sp.hands):
        out.setdefault(j, ("open", h.stake_minor, 0))
    if sp.insurance_minor and INSURANCE not in out:
        out[INSURANCE] = ("open", sp.insurance_minor, 0)
    return out


def draw_rest(
    p: Painter, sym: str, st: StationView, sp: SpotView, slots: dict[int, Slot], anim: Settles | None, now_ms: int
) -> None:
    """The chips of a settled spot that are in their place now: each stake still in
    the circle (with its amount), each payout lying beside its stake (with ``+amount``
    under it). Flying and gone stacks are not drawn here."""
    for h, (result, stake, payout) in sorted(_bets(sp).items()):
        slot = slots.get(h)
        if slot is None:
            continue
        settle = anim.settle((st.station, sp.spot, h)) if anim is not None else None
        (sph, _sp), (pph, _pp) = _phases(settle, result, now_ms) if result != "open" else ((AT_REST, 0.0), ("", 0.0))
        if sph == AT_REST:
            for chips, base, d in slot.stacks:
                stack(p, chips, base, d)
            if slot.pill is not None:
                p.pill(fmt_money(stake, sym, compact=True), slot.pill, 17, fg=theme.WHITE, bg=(0, 0, 0, 190))
            else:
                x, y = slot.stacks[0][1]
                p.text(_("INS"), 14, theme.CREAM, (x, y + 24), bold=True)
        if pph == AT_REST and payout > 0:
            stack(p, chip_split(payout), _on_screen(p, slot.beside, slot.beside_d), slot.beside_d)
            text, px = "+" + fmt_money(payout, sym, compact=True), 15 if h == INSURANCE else 17
            p.pill(
                text,
                _on_screen(p, slot.amount_at, p.text_width(text, px, True) + px * 1.2),
                px,
                fg=theme.INK,
                bg=theme.GOLD,
            )


def _on_screen(p: Painter, at: Point, w: float) -> Point:
    """``at`` moved in so that something ``w`` wide centred there stays on the screen
    (a payout beside the last hand of a split at the table's edge)."""
    return (max(w / 2 + 4, min(p.L.lw - w / 2 - 4, at[0])), at[1])


def on_felt_minor(st: StationView, anim: Settles | None, now_ms: int) -> int:
    """What of station ``st``'s credit meter still lies on the felt at ``now_ms``: the
    stakes and payouts of its won and pushed bets not yet collected into the meter (the
    engine credited them at the result). The meter shows ``credits_minor`` less this, so
    the money is on screen once, on the felt or in the meter, and the meter takes each
    stack as it arrives; 0 without motion."""
    if anim is None:
        return 0
    out = 0
    for sp in st.spots:
        for h in motion.spot_bets(sp):
            m = anim.settle((st.station, sp.spot, h))
            if m is not None and m.collect is not None and now_ms < m.collect.end_ms():
                out += m.stake_minor + m.payout_minor
    return out


def meter_counts(st: StationView, anim: Settles | None) -> bool:
    """Whether station ``st``'s credit meter counts up in some frame of ``anim`` (a won or
    pushed bet of it still to be collected into the meter, ``on_felt_minor``)."""
    if anim is None:
        return False
    for sp in st.spots:
        for h in motion.spot_bets(sp):
            m = anim.settle((st.station, sp.spot, h))
            if m is not None and m.collect is not None:
                return True
    return False


def flying_at(st: StationView, anim: Settles | None, now_ms: int, layer: str) -> bool:
    """Whether ``draw_moving`` draws a stack of station ``st`` in flight at ``now_ms`` on
    ``layer``: ``"over"`` into its credit meter (over the console), ``"under"`` to or
    from the rack."""
    if anim is None:
        return False
    phases = (TO_METER,) if layer == "over" else (TO_RACK, FROM_RACK)
    for sp in st.spots:
        for h in motion.spot_bets(sp):
            m = anim.settle((st.station, sp.spot, h))
            if m is not None and (m.stake_phase(now_ms)[0] in phases or m.payout_phase(now_ms)[0] in phases):
                return True
    return False


def draw_moving(
    p: Painter,
    st: StationView,
    spot_centre: dict[int, Point],
    r: float,
    spot_w: float,
    meter: pygame.Rect | None,
    anim: Settles,
    now_ms: int,
    layer: str,
) -> None:
    """The stacks of station ``st`` in flight at ``now_ms``.

    Args:
        spot_centre: spot number -> its circle's centre (logical units); ``r``, ``spot_w``
            as for ``spot_slots``.
        meter: the station's credit meter (where collected chips go), or ``None``.
        layer: ``"under"`` (to and from the rack, drawn before any card) or ``"over"``
            (into the credit meter, drawn after the console).
    """
    L = p.L
    rack = L.chip_rack()
    rack_at: Point = (float(rack.centerx), float(rack.centery)) if rack is not None else (L.cx, 20.0)
    #: flights to and from the rack swing out to the felt's middle, clear of the limits placard
    swing = float(rack.right + 300) if rack is not None else L.cx
    home: Point = (float(meter.centerx), float(meter.centery)) if meter is not None else (L.cx, float(L.lh))
    arriving = False
    for sp in st.spots:
        c = spot_centre.get(sp.spot)
        if c is None or not is_settled(sp):
            continue
        slots = spot_slots(sp, c[0], c[1], r, spot_w)
        for h, slot in slots.items():
            m = anim.settle((st.station, sp.spot, h))
            if m is None:
                continue
            (sph, sp_p), (pph, pp_p) = m.stake_phase(now_ms), m.payout_phase(now_ms)
            if layer == "under":
                clip = p.surface.get_clip()
                if rack is not None:  # sunk into the rack, never standing out above it
                    top = L.pt(0, rack.y)[1]
                    p.surface.set_clip(
                        clip.clip(pygame.Rect(0, top, p.surface.get_width(), p.surface.get_height() - top))
                    )
                if sph == TO_RACK:  # lifted, carried to the rack, sunk into it
                    e = ease_out(sp_p)
                    for chips, base, d in slot.stacks:
                        stack(
                            p,
                            chips,
                            _curve(base, rack_at, swing, e),
                            d * (1 - 0.45 * e),
                            keep=1 - max(0.0, (sp_p - 0.7) / 0.3),
                            flying=True,
                        )
                if pph == FROM_RACK:
                    e = ease_out(pp_p)
                    stack(
                        p,
                        chip_split(m.payout_minor),
                        _curve(rack_at, slot.beside, swing, e),
                        slot.beside_d * (0.55 + 0.45 * e),
                        flying=True,
                    )
                p.surface.set_clip(clip)
            else:
                if sph == TO_METER:
                    e = ease_out(sp_p)
                    for chips, base, d in slot.stacks:
                        stack(
                            p,
                            chips,
                            _arc(base, home, e, 40),
                            d * (1 - 0.35 * e),
                            keep=1 - max(0.0, (sp_p - 0.75) / 0.25),
                            flying=True,
                        )
                    arriving = arriving or sp_p > 0.6
                if pph == TO_METER:
                    e = ease_out(pp_p)
                    stack(
                        p,
                        chip_split(m.payout_minor),
                        _arc(slot.beside, home, e, 40),
                        slot.beside_d * (1 - 0.35 * e),
                        keep=1 - max(0.0, (pp_p - 0.75) / 0.25),
                        flying=True,
                    )
                    arriving = arriving or pp_p > 0.6
    if arriving and meter is not None:  # the meter lights as the chips go in
        p.fill_rect(meter.inflate(8, 8), theme.GOLD, radius=13, width=3)


def _curve(a: Point, b: Point, swing: float, e: float) -> Point:
    """A point ``e`` (0-1) along a curve from ``a`` to ``b`` (one of them the rack) that
    bows out to ``x >= swing`` at mid-height (a quadratic Bezier), so a stack from a
    station on the left does not slide over the limits placard under the rack."""
    c = (max(a[0], b[0], swing), min(a[1], b[1]) + 0.55 * abs(b[1] - a[1]))
    u = 1 - e
    return (u * u * a[0] + 2 * u * e * c[0] + e * e * b[0], u * u * a[1] + 2 * u * e * c[1] + e * e * b[1])


def _arc(a: Point, b: Point, e: float, lift: float) -> Point:
    """A point ``e`` (0-1) of the way from ``a`` to ``b``, lifted ``lift`` units mid-way."""
    return (a[0] + (b[0] - a[0]) * e, a[1] + (b[1] - a[1]) * e - lift * math.sin(math.pi * e))


def stack(p: Painter, chips: list[int], base: Point, d: float, keep: float = 1.0, flying: bool = False) -> None:
    """A stack of chips at an angle, bottom chip centred at ``base``, largest at the
    bottom (as ``Renderer._stack``); ``keep`` < 1 shows only that share of it, from the
    bottom (the rest has gone into the rack or the meter). A ``flying`` stack's size
    is rounded to 4 pixels so its sprites come from the cache."""
    dpx = p.L.px(d)
    if flying:
        dpx = max(4, dpx // 4 * 4)
    shown = sorted(chips, reverse=True)[:12]
    n = math.ceil(len(shown) * max(0.0, min(1.0, keep)))
    for i, v in enumerate(shown[:n]):
        p.blit_center(p.art.chips.side(v, dpx), (base[0], base[1] - i * d * 0.13))

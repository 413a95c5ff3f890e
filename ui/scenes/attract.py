"""The attract scene: the table idles with moving cards and a pulsing invitation.

Owns: what the cabinet shows in ``attract`` mode. Motion is a pure function
of ``now_ms`` (a 12 s loop: five cards are dealt into a fan, a blackjack is
revealed, then swept away), so the screen is never static and a golden test
can pin any instant. Pure drawing.

Idle under 2 % of a core in every scene: the scene is a list of
``Element`` s (the glowing title, each card, the BLACKJACK pill, the invitation),
each with a key that changes only when its picture does and the pixels it
covers. ``draw_partial`` repaints only the elements whose key changed (the
static felt and texts restored under them from a cached background, every
element overlapping a repainted area redrawn clipped to it) and returns those
areas for ``pygame.display.update``; ``next_change_ms`` says when the picture
changes next, so the loop sleeps between changes instead of drawing 30 frames
a second. The title glows in ``GLOW_STEPS`` steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import pygame

from cabinet.protocol.snapshot import Snapshot
from ui import theme
from ui.animation import ease_out
from ui.i18n import _
from ui.layout import Layout
from ui.money import fmt_money
from ui.said import told
from ui.widgets import MIN_TEXT_PX, Art, Painter


class Renderer(Protocol):
    """What the attract scene needs of ``ui.render.Renderer``: its card art (a
    protocol, so this scene does not import the renderer that imports it)."""

    art: Art

    def _clock(self, p: Painter, text: str) -> None: ...


CYCLE_MS = 12000  # a longer rest between deals (was 8 s): a third less motion
_CARDS = ["AS", "KH", "QD", "JC", "TS"]
#: the cards' flight: card i leaves the shoe at ``DEAL_START_MS + i * DEAL_GAP_MS``.
DEAL_START_MS, DEAL_GAP_MS, FLIGHT_MS = 300, 380, 450
#: the first card turns over this long after it lands.
FLIP_DELAY_MS = 2400
PILL_IN_MS, PILL_OUT_MS, PILL_GROW_MS = 2800, 10500, 400
SWEEP_MS, SWEEP_LEN_MS = 10500, 600
BLINK_MS = 700
#: the title's glow: one step every ``GLOW_STEP_MS`` (a sine of period 2*pi*500 ms).
GLOW_STEP_MS = 500
MOTION_FRAME_MS = 45


@dataclass
class Element:
    """One moving part: ``key`` changes exactly when its picture does; ``rect`` the
    screen pixels it may touch; ``draw`` paints it (what it returns is not used)."""

    key: object
    rect: pygame.Rect
    draw: Callable[[], object]


def _moving(t: int) -> bool:
    """Something slides or grows at loop time ``t`` (ms)."""
    last_landing = DEAL_START_MS + (len(_CARDS) - 1) * DEAL_GAP_MS + FLIGHT_MS
    return (
        DEAL_START_MS <= t < last_landing
        or PILL_IN_MS <= t < PILL_IN_MS + PILL_GROW_MS
        or SWEEP_MS <= t < SWEEP_MS + SWEEP_LEN_MS
    )


def next_change_ms(now_ms: int) -> int:
    """The first time after ``now_ms`` (ms) at which the attract picture may change."""
    t = now_ms % CYCLE_MS
    if _moving(t):
        return now_ms + MOTION_FRAME_MS
    base = now_ms - t
    events = [DEAL_START_MS, PILL_IN_MS, SWEEP_MS, CYCLE_MS + DEAL_START_MS, DEAL_START_MS + FLIGHT_MS + FLIP_DELAY_MS]
    nxt = min(base + e for e in events if base + e > now_ms)
    nxt = min(nxt, (now_ms // BLINK_MS + 1) * BLINK_MS, (now_ms // GLOW_STEP_MS + 1) * GLOW_STEP_MS)
    return nxt


_MEASURED: dict[tuple[object, ...], pygame.Rect] = {}


def _measured(key: tuple[object, ...], measure: Callable[[], pygame.Rect]) -> pygame.Rect:
    """``measure()`` once per key (text sizes cost more than the frame they are in)."""
    r = _MEASURED.get(key)
    if r is None:
        if len(_MEASURED) > 200:
            _MEASURED.clear()
        r = _MEASURED[key] = measure()
    return r.copy()


def _text_rect(p: Painter, s: str, px: float, pos: tuple[float, float], bold: bool, max_w: float | None) -> pygame.Rect:
    return _measured(("text", p.L, s, px, pos, bold, max_w), lambda: _measure_text(p, s, px, pos, bold, max_w))


def _measure_text(
    p: Painter, s: str, px: float, pos: tuple[float, float], bold: bool, max_w: float | None
) -> pygame.Rect:
    size = max(p.L.px(px), MIN_TEXT_PX)
    if max_w is not None:
        size = p.fonts.fit(s, size, p.L.px(max_w), bold=bold, min_px=6)
    w, h = p.fonts.font(size, bold).size(s)
    return pygame.Rect(0, 0, w, h).move(p.L.pt(*pos)[0] - w // 2, p.L.pt(*pos)[1] - h // 2)


def _pill_rect(p: Painter, text: str, center: tuple[float, float], px: float, max_w: float | None) -> pygame.Rect:
    return _measured(("pill", p.L, text, center, px, max_w), lambda: _measure_pill(p, text, center, px, max_w))


def _measure_pill(p: Painter, text: str, center: tuple[float, float], px: float, max_w: float | None) -> pygame.Rect:
    w = p.text_width(text, px, True) + px * 1.2
    if max_w is not None:
        w = min(w, max_w)
    r = pygame.Rect(0, 0, int(w), int(px * 1.5))
    r.center = (int(center[0]), int(center[1]))
    return p.L.rect(r).inflate(4, 4)


def title_width(L: Layout) -> float:
    """The widest the title may be (logical units): between HELP and the chip rack on
    the left and the discard tray and shoe on the right (the multi-player
    table's long name ran over the shoe)."""
    rack = L.chip_rack()
    left = max(L.help_button().right, rack.right if rack is not None else 0)
    right = min(L.shoe_rect().x, L.discard_tray().x)
    return 2 * min(L.cx - left, right - L.cx) - 30


def elements(p: Painter, s: Snapshot, now_ms: int, renderer: Renderer, clock: str = "") -> list[Element]:
    """The moving parts at ``now_ms``, in drawing order (``clock``: the time of day shown)."""
    L = p.L
    t = now_ms % CYCLE_MS
    cx = L.cx
    out: list[Element] = []
    # title, glowing in steps
    step_ms = (now_ms // GLOW_STEP_MS) * GLOW_STEP_MS
    glow = 0.5 + 0.5 * math.sin(step_ms / 500)
    title_c = tuple(int(a + (b - a) * glow) for a, b in zip(theme.GOLD_DARK, (255, 236, 150), strict=False))
    title = _title(s)[0]
    tw = title_width(L)
    tr = _text_rect(p, title, 92, (cx, 150), True, tw).inflate(12, 12)
    out.append(
        Element(("title", title, title_c, tr.size), tr, lambda: p.shadow_text(title, 92, title_c, (cx, 150), max_w=tw))
    )
    # dealt fan
    cw, ch = 150, 210
    fan_y = L.lh * 0.62
    sweep = max(0.0, (t - SWEEP_MS) / SWEEP_LEN_MS)
    for i, code in enumerate(_CARDS):
        start = DEAL_START_MS + i * DEAL_GAP_MS
        if t < start:
            continue
        prog = ease_out((t - start) / FLIGHT_MS)
        ang = (i - 2) * 11
        tx = cx + (i - 2) * 120
        ty = fan_y + abs(i - 2) * 16
        sx, sy = L.lw - 160, 60
        x = sx + (tx - sx) * prog
        y = sy + (ty - sy) * prog
        if sweep > 0:
            x += ease_out(sweep) * (L.lw * 0.7)
            y -= ease_out(sweep) * 300
        face = t >= start + FLIGHT_MS + (FLIP_DELAY_MS if i == 0 else 0) or i > 0
        angle = round(-ang * prog)
        sprite = _card_sprite(renderer, code if face else "back", L.px(cw), L.px(ch), angle)
        rect = sprite.get_rect(center=L.pt(x, y))
        if not rect.colliderect(p.surface.get_rect()):
            continue

        def blit(sprite: pygame.Surface = sprite, rect: pygame.Rect = rect) -> None:
            p.surface.blit(sprite, rect)

        out.append(Element(("card", i, rect.topleft, face, angle), rect, blit))
    if PILL_IN_MS < t < PILL_OUT_MS:
        k = round(min(1.0, (t - PILL_IN_MS) / PILL_GROW_MS), 2)
        px = 44 * (0.6 + 0.4 * k)
        bj = _("BLACKJACK!")
        pr = _pill_rect(p, bj, (cx, fan_y - 200), px, None)
        out.append(
            Element(("bj", k, bj), pr, lambda: p.pill(bj, (cx, fan_y - 200), px, fg=theme.INK, bg=theme.BLACKJACK))
        )
    # invitation
    blink = (now_ms // BLINK_MS) % 2 == 0
    credits = sum(st.credits_minor for st in s.stations)
    if credits > 0:
        invite = _("CREDITS {amount} \u2014 PLACE YOUR BET TO PLAY").format(
            amount=fmt_money(credits, s.currency_symbol)
        )
    else:
        invite = told(s.message, s.message_said, s.currency_symbol) or _("INSERT CASH OR TICKET TO PLAY")
    ir = _pill_rect(p, invite, (cx, L.lh - 110), 40, L.lw - 160)
    out.append(
        Element(
            ("invite", invite, blink),
            ir,
            lambda: p.pill(
                invite,
                (cx, L.lh - 110),
                40,
                fg=theme.GOLD if blink else theme.WHITE,
                bg=(0, 0, 0, 190),
                edge=theme.GOLD_DARK,
                max_w=L.lw - 160,
            ),
        )
    )
    if clock:
        x, y = L.clock_pos()
        cr = L.rect((x, y - 18, p.text_width(clock, 24, True) + 26, 36)).inflate(4, 4)
        out.append(Element(("clock", clock, cr.size), cr, lambda: renderer._clock(p, clock)))
    return out


_ROTATED: dict[tuple[str, int, int, int], pygame.Surface] = {}


def _card_sprite(renderer: Renderer, code: str, w: int, h: int, angle: int) -> pygame.Surface:
    """A card sprite turned ``angle`` whole degrees (cached: the loop reuses a few dozen)."""
    key = (code, w, h, angle)
    sprite = _ROTATED.get(key)
    if sprite is None:
        base = renderer.art.cards.back(w, h) if code == "back" else renderer.art.cards.face(code, w, h)
        sprite = pygame.transform.rotozoom(base, angle, 1.0) if angle else base
        if pygame.display.get_surface() is not None:
            sprite = sprite.convert_alpha()  # the display's format blits fastest
        if len(_ROTATED) > 300:
            _ROTATED.clear()
        _ROTATED[key] = sprite
    return sprite


def draw(p: Painter, s: Snapshot, now_ms: int, renderer: Renderer, clock: str = "") -> None:
    """Draw the attract loop's moving parts at ``now_ms`` (over the felt and ``draw_static``)."""
    for el in elements(p, s, now_ms, renderer, clock):
        el.draw()


def _title(s: Snapshot) -> tuple[str, str]:
    """The glowing title and the line under it: ``"Classic BlackJack (multi-player
    table)"`` -> ``("CLASSIC BLACKJACK", "MULTI-PLAYER TABLE")`` (RULES.md's names)."""
    name = _(s.variant_name).upper() or "BLACKJACK"  # in the screen's language
    head, sep, rest = name.partition(" (")
    return (head, rest.rstrip(")")) if sep else (name, "")


def draw_static(p: Painter, s: Snapshot) -> None:
    """The parts that never move: the title's second line and the table texts."""
    sub = _title(s)[1]
    if sub:
        p.shadow_text(sub, 30, theme.CREAM, (p.L.cx, 214), bold=True, max_w=title_width(p.L))
    for i, txt in enumerate(s.table_texts[:3]):
        p.shadow_text(
            _(txt), 34 if i == 0 else 26, theme.GOLD if i == 0 else theme.CREAM, (p.L.cx, 250 + i * 44), bold=i == 0
        )


def draw_partial(
    p: Painter,
    background: pygame.Surface,
    previous: dict[object, pygame.Rect] | None,
    s: Snapshot,
    now_ms: int,
    renderer: Renderer,
    clock: str = "",
) -> tuple[dict[object, pygame.Rect], list[pygame.Rect]]:
    """Repaint only what changed since the frame whose elements were ``previous``
    (``{key: rect}``; ``None``: paint everything over ``background``).

    Returns:
        this frame's ``{key: rect}`` and the screen areas repainted (all of it
        when ``previous`` is ``None``).
    """
    els = elements(p, s, now_ms, renderer, clock)
    now = {el.key: el.rect for el in els}
    if previous is None:
        p.surface.blit(background, (0, 0))
        for el in els:
            el.draw()
        return now, [p.surface.get_rect()]
    dirty = [r for k, r in previous.items() if k not in now] + [r for k, r in now.items() if k not in previous]
    dirty = _merge([d.clip(p.surface.get_rect()) for d in dirty if d.w > 0 and d.h > 0])
    for d in dirty:
        p.surface.set_clip(d)
        p.surface.blit(background, d, d)
        for el in els:
            if el.rect.colliderect(d):
                el.draw()
    p.surface.set_clip(None)
    return now, dirty


def _merge(rects: list[pygame.Rect]) -> list[pygame.Rect]:
    """Overlapping rectangles joined (so no area is repainted twice)."""
    out: list[pygame.Rect] = []
    for r in rects:
        if r.w <= 0 or r.h <= 0:
            continue
        while True:
            i = r.collidelist(out)
            if i < 0:
                break
            r = r.union(out.pop(i))
        out.append(r)
    return out

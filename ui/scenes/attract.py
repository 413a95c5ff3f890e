"""The attract scene: the table idles with moving cards and a pulsing invitation.

Owns: what the cabinet shows in ``attract`` mode. Motion is a pure function
of ``now_ms`` (an 8 s loop: five cards are dealt into a fan, a blackjack is
revealed, then swept away), so the screen is never static and a golden test
can pin any instant. Pure drawing.
"""

from __future__ import annotations

import math
from typing import Protocol

import pygame

from cabinet.protocol.money import fmt_money
from cabinet.protocol.snapshot import Snapshot
from ui import theme
from ui.animation import ease_out
from ui.widgets import Art, Painter


class Renderer(Protocol):
    """What the attract scene needs of ``ui.render.Renderer``: its card art (a
    protocol, so this scene does not import the renderer that imports it)."""

    art: Art


CYCLE_MS = 8000
_CARDS = ["AS", "KH", "QD", "JC", "TS"]


def draw(p: Painter, s: Snapshot, now_ms: int, renderer: Renderer) -> None:
    """Draw the attract loop at ``now_ms``."""
    L = p.L
    t = now_ms % CYCLE_MS
    cx = L.cx
    # title
    glow = 0.5 + 0.5 * math.sin(now_ms / 500)
    title_c = tuple(int(a + (b - a) * glow) for a, b in zip(theme.GOLD_DARK, (255, 236, 150), strict=False))
    p.shadow_text(s.variant_name.upper() or "BLACKJACK", 92, title_c, (cx, 150), max_w=L.lw - 160)
    for i, txt in enumerate(s.table_texts[:3]):
        p.shadow_text(txt, 34 if i == 0 else 26, theme.GOLD if i == 0 else theme.CREAM, (cx, 250 + i * 44),
                      bold=i == 0)
    # dealt fan
    cw, ch = 150, 210
    fan_y = L.lh * 0.62
    sweep = max(0.0, (t - 6500) / 900)
    for i, code in enumerate(_CARDS):
        start = 300 + i * 380
        if t < start:
            continue
        prog = ease_out((t - start) / 450)
        ang = (i - 2) * 11
        tx = cx + (i - 2) * 120
        ty = fan_y + abs(i - 2) * 16
        sx, sy = L.lw - 160, 60
        x = sx + (tx - sx) * prog
        y = sy + (ty - sy) * prog
        if sweep > 0:
            x += ease_out(sweep) * (L.lw * 0.7)
            y -= ease_out(sweep) * 300
        face = t >= start + 450 + (2400 if i == 0 else 0) or i > 0
        sprite = renderer.art.cards.face(code, L.px(cw), L.px(ch)) if face else \
            renderer.art.cards.back(L.px(cw), L.px(ch))
        rot = pygame.transform.rotozoom(sprite, -ang * prog, 1.0)
        p.surface.blit(rot, rot.get_rect(center=L.pt(x, y)))
    if 2800 < t < 6500:
        k = min(1.0, (t - 2800) / 400)
        p.pill("BLACKJACK!", (cx, fan_y - 200), 44 * (0.6 + 0.4 * k), fg=theme.INK, bg=theme.BLACKJACK)
    # invitation
    blink = (now_ms // 700) % 2 == 0
    credits = sum(st.credits_minor for st in s.stations)
    if credits > 0:
        invite = f"CREDITS {fmt_money(credits, s.currency_symbol)} \u2014 PLACE YOUR BET TO PLAY"
    else:
        invite = s.message or "INSERT CASH OR TICKET TO PLAY"
    p.pill(invite, (cx, L.lh - 110), 40, fg=theme.GOLD if blink else theme.WHITE, bg=(0, 0, 0, 190),
           edge=theme.GOLD_DARK, max_w=L.lw - 160)
    p.text("Touch HELP for the rules", 24, theme.CREAM, (cx, L.lh - 40))

"""Game recall drawn as the table looked, from ``snapshot.maintenance.recall``.

Owns: the recalled round on the felt (the dealer's cards, the station's spots,
hands, chips, totals, outcomes and returns and its credit meter after the round,
drawn by the table's own renderer), the RECALL marking, the round's money and
every card and decision in order, and the buttons to step through the kept rounds
(``menu_up``: newer, ``menu_down``: older, ``menu_back``). Pure drawing; the
table's own buttons are not touch targets here.
"""

from __future__ import annotations

from typing import Protocol

import msgspec
import pygame

from cabinet.protocol.money import fmt_money
from cabinet.protocol.snapshot import RecallView, Snapshot
from ui import theme
from ui.layout import Layout
from ui.widgets import Painter


class TableDrawer(Protocol):
    """What the recall scene needs of ``ui.render.Renderer``: the felt and the table."""

    def felt_for(self, L: Layout, s: Snapshot) -> pygame.Surface: ...

    def table(self, p: Painter, s: Snapshot, now_ms: int) -> None: ...


def table_snapshot(s: Snapshot, r: RecallView) -> Snapshot:
    """The snapshot the table renderer draws for recalled round ``r``."""
    return msgspec.structs.replace(
        s,
        mode="in_round",
        message="",
        timer=None,
        overlay=None,
        handpay=None,
        maintenance=None,
        dealer=r.dealer,
        stations=[r.table],
        spots_per_station=max(1, len(r.table.spots)),
    )


def draw(p: Painter, s: Snapshot, r: RecallView, renderer: TableDrawer, now_ms: int) -> None:
    """Draw recalled round ``r`` full screen."""
    L = p.L
    table = table_snapshot(s, r)
    p.surface.blit(renderer.felt_for(L, table), (0, 0))
    renderer.table(p, table, now_ms)
    p.hits.clear()  # the table's own buttons play nothing here
    sym = s.currency_symbol
    # the RECALL marking and which round this is
    head = pygame.Rect(30, 24, 560, 236)
    p.fill_rect(head, (10, 14, 22, 215), radius=14)
    p.fill_rect(head, theme.WARNING, radius=14, width=3)
    p.text("RECALL", 46, theme.WARNING, (head.x + 24, head.y + 38), anchor="midleft", bold=True)
    p.text(f"{r.index} of {r.count}", 26, theme.WHITE, (head.right - 24, head.y + 38), anchor="midright", bold=True)
    p.text(
        f"Round {r.round_id} · station {r.station} · {r.when}" + (" · VOIDED" if r.voided else ""),
        22,
        theme.CREAM,
        (head.x + 24, head.y + 84),
        anchor="midleft",
        max_w=head.w - 48,
    )
    p.text(
        f"Credits {fmt_money(r.credits_before_minor, sym)} \u2192 "
        f"{fmt_money(r.credits_after_minor, sym)} · wagered {fmt_money(r.wagered_minor, sym)}"
        f" · returned {fmt_money(r.returned_minor, sym)}",
        20,
        theme.CREAM,
        (head.x + 24, head.y + 120),
        anchor="midleft",
        max_w=head.w - 48,
    )
    # every card and decision, in order
    steps = pygame.Rect(L.lw - 470, 24, 440, min(L.lh // 2 - 40, 60 + 30 * max(1, len(r.steps))))
    p.fill_rect(steps, (10, 14, 22, 215), radius=14)
    p.text("Cards and decisions", 22, theme.GOLD, (steps.x + 20, steps.y + 26), anchor="midleft", bold=True)
    shown = max(1, (steps.h - 60) // 30)
    lines = r.steps if len(r.steps) <= shown else r.steps[: shown - 1] + ["\u2026"]
    for i, step in enumerate(lines):
        p.text(
            f"{i + 1}. {step}" if step != "\u2026" else step,
            18,
            theme.CREAM,
            (steps.x + 20, steps.y + 62 + i * 30),
            anchor="midleft",
            max_w=steps.w - 40,
        )
    if r.jackpot_handpay_minor:
        p.pill(
            f"JACKPOT HANDPAY {fmt_money(r.jackpot_handpay_minor, sym)}",
            (L.cx, head.bottom + 30),
            px=24,
            fg=theme.INK,
            bg=theme.GOLD,
        )
    # stepping through the rounds kept
    labels = [
        ("menu_up", "\u25c0 NEWER", r.index > 1),
        ("menu_down", "OLDER \u25b6", r.index < r.count),
        ("menu_back", "BACK", True),
    ]
    gap = 14
    bw = (head.w - 48 - gap * (len(labels) - 1)) // len(labels)
    x, y = head.x + 24, head.y + 150
    for action, label, lit in labels:
        p.button(pygame.Rect(x, y, bw, 64), label, lit, action, px=22)
        x += bw + gap

"""The maintenance scene, drawn from ``snapshot.maintenance`` (the operator menu).

Owns: title, body lines, the item list with the selected item highlighted,
the hint, and on-screen up/down/select/back buttons (``menu_*`` intents).
The engine owns the menu itself. Pure drawing.
"""

from __future__ import annotations

import pygame

from cabinet.protocol.snapshot import MaintenanceView
from ui import theme
from ui.widgets import Painter

#: Item rows: at most this tall, and never shorter (a longer list scrolls).
ROW_MAX, ROW_MIN = 64.0, 44.0


def visible_rows(count: int, selected: int, avail: float) -> tuple[int, int, float]:
    """Which items fit in ``avail`` logical units: ``(first, visible, row_h)``.

    Rows shrink from ``ROW_MAX`` to fit every item, down to ``ROW_MIN``; a list
    still longer scrolls so that ``selected`` is shown. Issue 10.9: the count is
    rounded, not floored, so a list that exactly fits shows its last item.
    """
    row_h = max(ROW_MIN, min(ROW_MAX, avail / max(1, count)))
    visible = max(1, min(count, int(avail / row_h + 1e-6))) if count else 1
    first = selected - visible + 1 if selected >= visible else 0
    return first, visible, row_h


def draw(p: Painter, m: MaintenanceView) -> None:
    """Draw the operator page ``m`` full screen."""
    L = p.L
    head = pygame.Rect(0, 0, L.lw, 110)
    p.fill_rect(head, (30, 40, 60))
    p.fill_rect(pygame.Rect(0, 106, L.lw, 4), theme.WARNING)
    p.text("MAINTENANCE", 22, theme.WARNING, (40, 30), anchor="midleft", bold=True)
    p.text(m.title, 44, theme.WHITE, (40, 72), anchor="midleft", bold=True, max_w=L.lw - 80)
    portrait = L.portrait
    # body lines: the left half beside a list, the full width without one
    left = pygame.Rect(40, 140, (L.lw - 120) // 2 if m.items and not portrait else L.lw - 80, 0)
    y = left.y
    bottom = L.lh - 200 if not (portrait and m.items) else L.lh
    rows = [seg for ln in m.lines for seg in p.wrap(ln, 28, left.w)]
    for i, seg in enumerate(rows):
        if y + 40 > bottom and i < len(rows) - 1:   # never under the hint and buttons
            p.text("\u2026", 28, theme.CREAM, (left.x, y + 18), anchor="midleft")
            y += 40
            break
        p.text(seg, 28, theme.CREAM, (left.x, y + 18), anchor="midleft")
        y += 40
    ix = left.right + 40 if not portrait else 40
    iy = 140 if not portrait else y + 30
    iw = L.lw - ix - 40
    btn_top = L.lh - 190
    avail = btn_top - iy - 20
    first, visible, row_h = visible_rows(len(m.items), m.selected, avail)
    for i, item in enumerate(m.items[first:first + visible], start=first):
        r = pygame.Rect(ix, int(iy + (i - first) * row_h), iw, int(row_h) - 8)
        sel = i == m.selected
        p.fill_rect(r, theme.GOLD if sel else (40, 48, 64), radius=10)
        p.text(("\u25b6 " if sel else "   ") + item, min(30, row_h * 0.5), theme.INK if sel else theme.WHITE,
               (r.x + 18, r.centery), anchor="midleft", bold=sel, max_w=r.w - 30)
    if m.hint:
        p.text(m.hint, 24, (170, 180, 200), (L.lw // 2, L.lh - 160), max_w=L.lw - 80)
    labels = [("menu_up", "\u25b2 UP"), ("menu_down", "\u25bc DOWN"), ("menu_select", "SELECT"), ("menu_back", "BACK")]
    bw = 220
    total = len(labels) * bw + (len(labels) - 1) * 20
    x = L.lw // 2 - total // 2
    for action, label in labels:
        p.button(pygame.Rect(x, L.lh - 110, bw, 76), label, True, action, px=26)
        x += bw + 20

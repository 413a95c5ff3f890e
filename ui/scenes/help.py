"""The help scene: the variant's rules (``snapshot.help_lines``) laid out in columns.

Owns: layout of the help text and its Close button (a local UI action,
``ui:help``). The words come from the engine's ``RuleSet``; nothing here
knows the rules. Pure drawing.
"""

from __future__ import annotations

import pygame

from cabinet.protocol.snapshot import Snapshot
from ui import theme
from ui.i18n import _
from ui.said import say
from ui.widgets import Painter


def bullets(lines: list[str]) -> list[str]:
    """One string per bullet: a line that starts with a space continues the
    bullet above it (``rules_text`` breaks long rules that way), so it is
    joined to it and wrapped with it, not given a bullet of its own."""
    out: list[str] = []
    for ln in lines:
        if ln[:1].isspace() and out:
            out[-1] = f"{out[-1]} {ln.strip()}"
        else:
            out.append(ln.strip())
    return out


def draw(p: Painter, s: Snapshot) -> None:
    """Draw the help panel over whatever is on screen."""
    L = p.L
    p.fill_rect((0, 0, L.lw, L.lh), (0, 0, 0, 170))
    r = pygame.Rect(60, 50, L.lw - 120, L.lh - 100)
    p.fill_rect(r, (10, 40, 24, 245), radius=24)
    p.fill_rect(r, theme.GOLD, radius=24, width=4)
    p.shadow_text(
        _("HOW TO PLAY \u2014 {name}").format(name=_(s.variant_name).upper()),
        44,
        theme.GOLD,
        (r.centerx, r.y + 56),
        max_w=r.w - 80,
    )
    # The rules said in the screen's language (the engine's Said lines)
    said = [say(x, s.currency_symbol) for x in s.help_said] if s.help_said else [_(x) for x in s.help_lines]
    lines = bullets(said) or [_("No rules were sent by the game.")]
    cols = 2 if not L.portrait else 1
    col_w = (r.w - 80 - 40 * (cols - 1)) / cols
    top = r.y + 110
    bottom = r.bottom - 110
    px = 32.0
    # shrink until everything fits
    while True:
        wrapped = [p.wrap(ln, px, col_w - 30) for ln in lines]
        line_h = px * 1.4
        heights = [len(w) * line_h + px * 0.5 for w in wrapped]
        per_col = bottom - top
        # greedy column fill
        colsets: list[list[int]] = [[]]
        used = 0.0
        for i, h in enumerate(heights):
            if used + h > per_col and colsets[-1]:
                colsets.append([])
                used = 0.0
            colsets[-1].append(i)
            used += h
        if len(colsets) <= cols or px <= 12:
            break
        px -= 1.5
    for c, idxs in enumerate(colsets[:cols]):
        x = r.x + 40 + c * (col_w + 40)
        y: float = top
        for i in idxs:
            for k, seg in enumerate(wrapped[i]):
                if k == 0:
                    pygame.draw.circle(p.surface, theme.GOLD, p.L.pt(x + 8, y + line_h / 2), max(1, p.L.px(5)))
                p.text(seg, px, theme.CREAM, (x + 30, y + line_h / 2), anchor="midleft")
                y += line_h
            y += px * 0.5
    p.button(pygame.Rect(r.centerx - 110, r.bottom - 90, 220, 64), _("CLOSE"), True, "ui:help", px=26)

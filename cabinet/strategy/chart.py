"""The basic strategy chart as a colour PNG, drawn with pygame off screen.

Owns: ``render_chart`` (a ``pygame.Surface``) and ``save_chart`` (PNG). Draws
on a plain Surface, so no display is opened; ``SDL_VIDEODRIVER`` defaults to
``dummy`` before pygame is imported. Uses pygame's bundled default font, so
the output is deterministic. Imports pygame (lazily in the functions).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .strategy import UP_VALUES, Strategy

COLOURS: dict[str, tuple[int, int, int]] = {
    "H": (231, 76, 60),  # hit: red
    "S": (241, 196, 15),  # stand: yellow
    "Dh": (46, 160, 67),  # double, else hit: green
    "Ds": (130, 200, 90),  # double, else stand: light green
    "P": (52, 120, 220),  # split: blue
}
_CELL_W, _CELL_H, _LABEL_W, _PAD = 46, 26, 70, 16
_BG, _INK, _GRID = (250, 250, 247), (25, 25, 25), (255, 255, 255)


def render_chart(strategy: Strategy, title: str) -> Any:
    """Draw the chart: hard totals, soft totals and pairs against the up card.

    Args:
        strategy: the table to draw (``Strategy.cell`` per cell).
        title: the heading line, e.g. ``"Classic Blackjack (classic)"``.

    Returns:
        A ``pygame.Surface`` (RGB), about 560 x 1200 pixels.
    """
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.font.init()
    font = pygame.font.Font(None, 24)
    small = pygame.font.Font(None, 20)
    big = pygame.font.Font(None, 30)
    rows = strategy.rows()
    sections = ["hard", "soft", "pair"]
    width = _PAD * 2 + _LABEL_W + _CELL_W * len(UP_VALUES)
    height = _PAD * 2 + 40 + len(rows) * _CELL_H + len(sections) * (_CELL_H * 2 + 8) + 70
    surf = pygame.Surface((width, height))
    surf.fill(_BG)

    def text(s: str, f: Any, centre: tuple[int, int], colour: tuple[int, int, int] = _INK) -> None:
        img = f.render(s, True, colour)
        surf.blit(img, img.get_rect(center=centre))

    text(title, big, (width // 2, _PAD + 10))
    y = _PAD + 40
    names = {"hard": "Hard totals", "soft": "Soft totals", "pair": "Pairs"}
    for section in sections:
        text(names[section], font, (_PAD + _LABEL_W // 2 + 10, y + _CELL_H // 2))
        y += _CELL_H
        text("dealer", small, (_PAD + _LABEL_W // 2, y + _CELL_H // 2))
        for i, up in enumerate(UP_VALUES):
            x = _PAD + _LABEL_W + i * _CELL_W
            text("A" if up == 1 else str(up), font, (x + _CELL_W // 2, y + _CELL_H // 2))
        y += _CELL_H
        for kind, label, row in rows:
            if kind != section:
                continue
            text(label, font, (_PAD + _LABEL_W // 2, y + _CELL_H // 2))
            for i, up in enumerate(UP_VALUES):
                x = _PAD + _LABEL_W + i * _CELL_W
                cell = strategy.cell(kind, row, up)
                rect = pygame.Rect(x, y, _CELL_W, _CELL_H)
                surf.fill(COLOURS[cell], rect)
                pygame.draw.rect(surf, _GRID, rect, 1)
                text(cell, font, rect.center)
            y += _CELL_H
        y += 8
    # legend
    y += 6
    x = _PAD
    for code, meaning in (("H", "hit"), ("S", "stand"), ("Dh", "double/hit"), ("Ds", "double/stand"), ("P", "split")):
        rect = pygame.Rect(x, y, 30, 20)
        surf.fill(COLOURS[code], rect)
        text(code, small, rect.center)
        img = small.render(meaning, True, _INK)
        surf.blit(img, (x + 34, y + 3))
        x += 36 + img.get_width() + 10
    ins = "Insurance: take" if strategy.insurance else "Insurance: never"
    text(ins, small, (width // 2, y + 40))
    return surf


def save_chart(strategy: Strategy, title: str, path: Path) -> Path:
    """Render the chart and write it as PNG to ``path`` (parents created).

    Returns:
        ``path``.

    Raises:
        OSError: the file cannot be written.
    """
    import pygame

    surf = render_chart(strategy, title)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        pygame.image.save(surf, str(path))
    except pygame.error as e:  # pygame reports a failed write as its own error
        raise OSError(f"cannot write {path}: {e}") from None
    return path

"""Casino chips drawn by code: body, edge inserts, inlay ring and value.

Owns: the look of a chip of any value at any pixel diameter; sprites are
drawn at twice the size, smooth-scaled and cached. UI thread only.
"""

from __future__ import annotations

import math

import pygame

from ui import theme
from ui.assets import Fonts
from ui.money import chip_label

_SS = 2


class ChipArt:
    """Chip sprites by (value, diameter), cached.

    Args:
        fonts: the bundled fonts.
    """

    def __init__(self, fonts: Fonts) -> None:
        self.fonts = fonts
        self._cache: dict[tuple[int, int, bool], pygame.Surface] = {}

    def chip(self, value_minor: int, d: int, *, edge_only: bool = False) -> pygame.Surface:
        """Top view of a chip ``d`` pixels across (``edge_only``: no value text, for stacks)."""
        key = (value_minor, d, edge_only)
        s = self._cache.get(key)
        if s is None:
            if len(self._cache) > 300:
                self._cache.clear()
            s = self._draw(value_minor, d, edge_only)
            self._cache[key] = s
        return s

    def _draw(self, value: int, d: int, edge_only: bool) -> pygame.Surface:
        D = max(4, d * _SS)
        body, stripe, ink = theme.CHIP_COLORS.get(value, theme.CHIP_OTHER)
        s = pygame.Surface((D, D), pygame.SRCALPHA)
        c = (D / 2, D / 2)
        r = D / 2
        pygame.draw.circle(s, (0, 0, 0, 110), c, r)
        pygame.draw.circle(s, body, c, r - D * 0.02)
        # six edge inserts
        for i in range(6):
            a0 = i * math.pi / 3
            pts = []
            for a in (a0 - 0.17, a0 + 0.17):
                pts.append((c[0] + math.cos(a) * (r - D * 0.02), c[1] + math.sin(a) * (r - D * 0.02)))
            for a in (a0 + 0.2, a0 - 0.2):
                pts.append((c[0] + math.cos(a) * r * 0.74, c[1] + math.sin(a) * r * 0.74))
            pygame.draw.polygon(s, stripe, pts)
        pygame.draw.circle(s, stripe, c, r * 0.66, max(1, int(D * 0.025)))
        inner = tuple(min(255, int(v * 0.9 + 25)) for v in body)
        pygame.draw.circle(s, inner, c, r * 0.6)
        pygame.draw.circle(s, (0, 0, 0, 80), c, r - D * 0.02, max(1, int(D * 0.02)))
        if not edge_only:
            label = chip_label(value)
            px = self.fonts.fit(label, int(D * 0.36), int(D * 0.62), bold=True)
            t = self.fonts.font(px, True).render(label, True, ink)
            s.blit(t, t.get_rect(center=(int(c[0]), int(c[1]))))
        return pygame.transform.smoothscale(s, (d, d))

    def side(self, value_minor: int, d: int) -> pygame.Surface:
        """A chip seen at an angle (an ellipse with an edge), for stacks; ``d`` wide."""
        key = (value_minor, d, True)
        k2 = (-value_minor - 1, d, True)
        s = self._cache.get(k2)
        if s is None:
            body, stripe, _ = theme.CHIP_COLORS.get(value_minor, theme.CHIP_OTHER)
            D = d * _SS
            h = int(D * 0.5)
            t = int(D * 0.1)
            big = pygame.Surface((D, h + t), pygame.SRCALPHA)
            dark = tuple(int(v * 0.6) for v in body)
            pygame.draw.ellipse(big, dark, (0, t, D, h))
            pygame.draw.rect(big, dark, (0, h // 2, D, t))
            for i in range(6):
                x = int(D * (0.08 + i * 0.17))
                pygame.draw.rect(big, stripe, (x, h // 2 + 1, int(D * 0.07), t))
            top = pygame.transform.smoothscale(self.chip(value_minor, d, edge_only=True), (D, h))
            big.blit(top, (0, 0))
            s = pygame.transform.smoothscale(big, (d, max(2, (h + t) // _SS)))
            self._cache[k2] = s
        del key
        return s

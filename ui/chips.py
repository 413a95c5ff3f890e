"""Casino chips drawn by code: body, edge spots, denomination inlay and value; top and side views.

Owns: the look of a chip of any value at any pixel diameter. A chip follows
the casino pattern: a body in the denomination's colour (theme.CHIP_COLORS:
white $1, red $5, green $25, black $100, purple $500, yellow $1000), six
rectangular edge spots (inserts) around the rim, a light inlay disc ringed by
printed dashes, and the face value (``ui.money.chip_label``) in the chip's ink.
The side view (for stacks) shows the rim's edge stripes where the inserts
cross it. Sprites are drawn at twice the size, smooth-scaled and cached by
(value, diameter), so a frame only blits. UI thread only.
"""

from __future__ import annotations

import math

import pygame

from ui import theme
from ui.assets import Fonts
from ui.money import chip_label

_SS = 2
_SPOTS = 6
_SPOT_HALF = 0.2  # half the angular width of an edge spot, radians
_SIDE_SQUASH = 0.5  # a stacked chip's top is an ellipse this many times as tall as wide
_SIDE_EDGE = 0.1  # its rim's thickness, a share of the diameter


def chip_colors(value_minor: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(body, spots, inlay, ink)`` colours of a chip of ``value_minor`` (unknown values: grey)."""
    body, stripe, ink = theme.CHIP_COLORS.get(value_minor, theme.CHIP_OTHER)
    if sum(body[:3]) > 600:  # a white chip: its inlay takes a tint of its spots
        inlay = tuple(int(255 * 0.82 + v * 0.18) for v in stripe[:3])
    else:
        inlay = tuple(theme.CHIP_INLAY[:3])
    return body[:3], stripe[:3], inlay, ink[:3]


def _shade(c: tuple[int, ...], k: float) -> tuple[int, int, int]:
    return (min(255, int(c[0] * k)), min(255, int(c[1] * k)), min(255, int(c[2] * k)))


class ChipArt:
    """Chip sprites by (value, diameter), cached.

    Args:
        fonts: the bundled fonts.
    """

    def __init__(self, fonts: Fonts) -> None:
        self.fonts = fonts
        self._cache: dict[tuple[int, int, bool], pygame.Surface] = {}
        self._sides: dict[tuple[int, int], pygame.Surface] = {}

    def chip(self, value_minor: int, d: int, *, edge_only: bool = False) -> pygame.Surface:
        """Top view of a chip ``d`` pixels across (``edge_only``: no value text, for stacks)."""
        key = (value_minor, d, edge_only)
        s = self._cache.get(key)
        if s is None:
            if len(self._cache) > 300:
                self._cache.clear()
            s = pygame.transform.smoothscale(self._top(value_minor, max(4, d * _SS), edge_only), (d, d))
            self._cache[key] = s
        return s

    def side(self, value_minor: int, d: int) -> pygame.Surface:
        """A chip seen at an angle, for stacks: its top as an ellipse over its striped rim.

        ``d`` pixels wide, ``round(d * 0.6)`` tall (the top is ``d * 0.5``, the rim
        below it ``d * 0.1``); cached."""
        key = (value_minor, d)
        s = self._sides.get(key)
        if s is None:
            if len(self._sides) > 300:
                self._sides.clear()
            s = self._side(value_minor, d)
            self._sides[key] = s
        return s

    def _top(self, value: int, D: int, edge_only: bool) -> pygame.Surface:
        body, spots, inlay, ink = chip_colors(value)
        s = pygame.Surface((D, D), pygame.SRCALPHA)
        c = (D / 2, D / 2)
        r = D / 2
        rb = r - max(1, D * 0.015)
        pygame.draw.circle(s, (0, 0, 0, 120), c, r)
        pygame.draw.circle(s, body, c, rb)
        # six rectangular edge spots (inserts), clipped by the rim
        spots_s = pygame.Surface((D, D), pygame.SRCALPHA)
        half_w = rb * math.sin(_SPOT_HALF)
        for i in range(_SPOTS):
            a = i * 2 * math.pi / _SPOTS + math.pi / _SPOTS
            ux, uy = math.cos(a), math.sin(a)
            vx, vy = -uy, ux
            pts = [
                (c[0] + ux * rr + vx * t * half_w, c[1] + uy * rr + vy * t * half_w)
                for rr, t in ((rb * 1.1, -1), (rb * 1.1, 1), (rb * 0.74, 1), (rb * 0.74, -1))
            ]
            pygame.draw.polygon(spots_s, spots, pts)
            if D < 80:  # too small to show the split
                continue
            # a thin band of the body colour splits each spot in two, as on inlaid chips
            mid = [
                (c[0] + ux * rr + vx * t * half_w * 0.18, c[1] + uy * rr + vy * t * half_w * 0.18)
                for rr, t in ((rb * 1.1, -1), (rb * 1.1, 1), (rb * 0.74, 1), (rb * 0.74, -1))
            ]
            pygame.draw.polygon(spots_s, body, mid)
        rim = pygame.Surface((D, D), pygame.SRCALPHA)
        pygame.draw.circle(rim, (255, 255, 255, 255), c, rb)
        spots_s.blit(rim, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
        s.blit(spots_s, (0, 0))
        # the raised rim's inner edge, then the inlay: light disc, ring of dashes, fine line
        pygame.draw.circle(s, _shade(body, 0.72), c, rb * 0.72, max(1, int(D * 0.018)))
        pygame.draw.circle(s, inlay, c, rb * 0.68)
        dash_r = rb * 0.62
        n = 24 if D >= 96 else 12
        # a small chip's value fills its inlay, so no dashes there to touch it
        for i in range(n if D >= 40 and (edge_only or D >= 96) else 0):
            a = i * 2 * math.pi / n
            ux, uy = math.cos(a), math.sin(a)
            ln = rb * 0.045
            pygame.draw.line(
                s,
                spots if sum(body) > 600 else body,
                (c[0] + ux * (dash_r - ln), c[1] + uy * (dash_r - ln)),
                (c[0] + ux * (dash_r + ln), c[1] + uy * (dash_r + ln)),
                max(1, int(D * 0.022)),
            )
        if D >= 96:
            pygame.draw.circle(s, ink, c, rb * 0.54, max(1, int(D * 0.01)))
        # light from the top left
        glow = pygame.Surface((D, D), pygame.SRCALPHA)
        pygame.draw.circle(glow, (255, 255, 255, 34), (c[0] - r * 0.18, c[1] - r * 0.22), r * 0.8)
        glow.blit(rim, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
        s.blit(glow, (0, 0))
        pygame.draw.circle(s, (0, 0, 0, 90), c, rb, max(1, int(D * 0.02)))
        if not edge_only:
            label = chip_label(value)
            small = D < 96
            wide = rb * ((1.1 if len(label) >= 3 else 1.3) if small else 0.98)  # small chips: the value fills the inlay
            squeeze = 0.78 if small and len(label) >= 3 else 1.0  # and long values run condensed
            px = self.fonts.fit(label, int(D * (0.42 if len(label) <= 2 else 0.38)), int(wide / squeeze), bold=True)
            t = self.fonts.font(px, True).render(label, True, ink)
            box = t.get_bounding_rect()
            t = t.subsurface(box) if box.w and box.h else t
            if squeeze < 1:
                t = pygame.transform.smoothscale(t, (max(1, int(t.get_width() * squeeze)), t.get_height()))
            s.blit(t, t.get_rect(center=(int(c[0]), int(c[1]))))
        return s

    def _side(self, value: int, d: int) -> pygame.Surface:
        body, spots, _, _ = chip_colors(value)
        D = max(4, d * _SS)
        h = max(2, int(D * _SIDE_SQUASH))
        t = max(1, int(D * _SIDE_EDGE))
        big = pygame.Surface((D, h + t), pygame.SRCALPHA)
        # the rim: the lower half of the top ellipse swept down by t
        edge = pygame.Surface((D, h + t), pygame.SRCALPHA)
        pygame.draw.ellipse(edge, (255, 255, 255, 255), (0, t, D, h))
        pygame.draw.rect(edge, (255, 255, 255, 255), (0, h // 2, D, t))
        band = pygame.Surface((D, h + t), pygame.SRCALPHA)
        band.fill((*_shade(body, 0.78), 255))
        cx, R, cy = D / 2, D / 2, h / 2

        def y_front(x: float) -> float:
            u = max(-1.0, min(1.0, (x - cx) / R))
            return cy + cy * math.sqrt(1 - u * u)

        for i in range(_SPOTS):
            a = i * 2 * math.pi / _SPOTS + math.pi / _SPOTS  # the same spots as the top view
            if math.sin(a) <= 0.05:  # behind: not seen
                continue
            xs = [cx + R * math.cos(a + k * _SPOT_HALF / 2) for k in (-2, -1, 0, 1, 2)]
            top = [(x, y_front(x) - 1) for x in xs]
            bottom = [(x, y + t + 1) for x, y in reversed(top)]
            pygame.draw.polygon(band, _shade(spots, 0.92), top + bottom)
        band.blit(edge, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
        big.blit(band, (0, 0))
        # a fine dark line under the rim, so stacked chips read one by one
        pygame.draw.arc(big, (0, 0, 0, 110), (0, t, D, h), math.pi, 2 * math.pi, max(1, D // 60))
        top_face = pygame.transform.smoothscale(self._top(value, D, True), (D, h))
        big.blit(top_face, (0, 0))
        return pygame.transform.smoothscale(big, (d, max(2, (h + t) // _SS)))

"""Playing cards drawn by code: faces (index, suit pips, court panels) and backs.

Owns: the look of a card at any pixel size. Cards are drawn at twice the
size and smooth-scaled down (anti-aliasing without gfxdraw), then cached by
(code, size), so a frame only blits. Card codes are ``rank + suit`` as in the
snapshot: rank ``A 2-9 T J Q K``, suit ``S H D C``. UI thread only.
"""

from __future__ import annotations

import math

import pygame

from ui import theme
from ui.assets import Fonts

SUIT_GLYPH = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANK_TEXT = {"T": "10"}
_SS = 2  # supersampling factor

_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0), (0.5, 1)],
    3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)],
}
_RANK_VALUE = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}


def card_color(code: str) -> tuple[int, int, int]:
    """Ink colour of a card: red for hearts and diamonds, else black."""
    return theme.CARD_RED if code[-1] in "HD" else theme.CARD_BLACK  # type: ignore[return-value]


def _glyph(fonts: Fonts, ch: str, px: int, color: tuple[int, ...], bold: bool = False) -> pygame.Surface:
    """A glyph cropped to its ink, so it centres exactly."""
    s = fonts.font(px, bold).render(ch, True, color[:3])
    box = s.get_bounding_rect()
    return s.subsurface(box).copy() if box.w and box.h else s


def _blit_center(dst: pygame.Surface, src: pygame.Surface, c: tuple[float, float]) -> None:
    dst.blit(src, src.get_rect(center=(int(c[0]), int(c[1]))))


class CardArt:
    """Card sprites by size, cached.

    Args:
        fonts: the bundled fonts.
    """

    def __init__(self, fonts: Fonts) -> None:
        self.fonts = fonts
        self._cache: dict[tuple[str, int, int], pygame.Surface] = {}

    def face(self, code: str, w: int, h: int) -> pygame.Surface:
        """Sprite of a face-up card ``w`` x ``h`` pixels (shadow outside the box: ``shadow_pad(w)``)."""
        return self._get(code, w, h)

    def back(self, w: int, h: int) -> pygame.Surface:
        """Sprite of a face-down card (same geometry as ``face``)."""
        return self._get("back", w, h)

    def _get(self, code: str, w: int, h: int) -> pygame.Surface:
        key = (code, w, h)
        s = self._cache.get(key)
        if s is None:
            if len(self._cache) > 400:
                self._cache.clear()
            s = self._draw(code, w, h)
            self._cache[key] = s
        return s

    def _draw(self, code: str, w: int, h: int) -> pygame.Surface:
        W, H = w * _SS, h * _SS
        pad = shadow_pad(w) * _SS
        big = pygame.Surface((W + pad, H + pad), pygame.SRCALPHA)
        radius = max(2, int(W * 0.08))
        shadow = pygame.Rect(pad, pad, W, H)
        pygame.draw.rect(big, (0, 0, 0, 70), shadow, border_radius=radius)
        pygame.draw.rect(big, (0, 0, 0, 50), shadow.inflate(-pad // 2, -pad // 2).move(-pad // 4, -pad // 4),
                         border_radius=radius)
        card = pygame.Rect(0, 0, W, H)
        if code == "back":
            self._draw_back(big, card, radius)
        else:
            pygame.draw.rect(big, theme.CARD_FACE, card, border_radius=radius)
            pygame.draw.rect(big, theme.CARD_EDGE, card, width=max(1, W // 90), border_radius=radius)
            self._draw_face(big, card, code)
        return pygame.transform.smoothscale(big, (w + shadow_pad(w), h + shadow_pad(w)))

    def _draw_back(self, s: pygame.Surface, card: pygame.Rect, radius: int) -> None:
        W, H = card.size
        pygame.draw.rect(s, theme.CARD_FACE, card, border_radius=radius)
        inner = card.inflate(-int(W * 0.14), -int(W * 0.14))
        pygame.draw.rect(s, theme.BACK_RED, inner, border_radius=max(2, radius // 2))
        clip = s.get_clip()
        s.set_clip(inner)
        step = max(6, W // 9)
        lw = max(1, W // 70)
        for k in range(-H, W + H, step):
            pygame.draw.line(s, theme.BACK_RED_LIGHT, (inner.x + k, inner.y), (inner.x + k + H, inner.y + H), lw)
            pygame.draw.line(s, theme.BACK_RED_LIGHT, (inner.x + k, inner.y), (inner.x + k - H, inner.y + H), lw)
        s.set_clip(clip)
        pygame.draw.rect(s, theme.GOLD, inner, width=max(2, W // 45), border_radius=max(2, radius // 2))
        oval = pygame.Rect(0, 0, int(W * 0.46), int(H * 0.3))
        oval.center = card.center
        pygame.draw.ellipse(s, theme.BACK_RED, oval)
        pygame.draw.ellipse(s, theme.GOLD, oval, width=max(2, W // 50))
        g = _glyph(self.fonts, SUIT_GLYPH["S"], int(H * 0.16), theme.GOLD)
        _blit_center(s, g, card.center)

    def _draw_face(self, s: pygame.Surface, card: pygame.Rect, code: str) -> None:
        W, H = card.size
        rank, suit = code[:-1], code[-1]
        color = card_color(code)
        glyph = SUIT_GLYPH.get(suit, "?")
        rtext = RANK_TEXT.get(rank, rank)
        # corner indices, top-left and rotated bottom-right
        idx = pygame.Surface((int(W * 0.19), int(H * 0.3)), pygame.SRCALPHA)
        rpx = int(H * 0.15) if len(rtext) == 1 else int(H * 0.13)
        r = _glyph(self.fonts, rtext, rpx, color, bold=True)
        if r.get_width() > idx.get_width():
            r = pygame.transform.smoothscale(r, (idx.get_width(), r.get_height()))
        _blit_center(idx, r, (idx.get_width() / 2, H * 0.075))
        sg = _glyph(self.fonts, glyph, int(H * 0.12), color)
        _blit_center(idx, sg, (idx.get_width() / 2, H * 0.2))
        s.blit(idx, (int(W * 0.01), int(H * 0.02)))
        rot = pygame.transform.rotate(idx, 180)
        s.blit(rot, (W - rot.get_width() - int(W * 0.01), H - rot.get_height() - int(H * 0.02)))

        value = _RANK_VALUE.get(rank) or int(rank)
        if value <= 10:
            area = pygame.Rect(int(W * 0.31), int(H * 0.17), int(W * 0.38), int(H * 0.66))
            if value == 1:
                pip = _glyph(self.fonts, glyph, int(H * 0.42), color)
                _blit_center(s, pip, card.center)
                return
            pip = _glyph(self.fonts, glyph, int(H * (0.2 if value <= 3 else 0.155)), color)
            pip_rot = pygame.transform.rotate(pip, 180)
            for fx, fy in _PIPS[value]:
                c = (area.x + fx * area.w, area.y + fy * area.h)
                _blit_center(s, pip_rot if fy > 0.5 else pip, c)
        else:
            self._draw_court(s, card, rank, glyph, color)

    def _draw_court(self, s: pygame.Surface, card: pygame.Rect, rank: str, glyph: str,
                    color: tuple[int, int, int]) -> None:
        W, H = card.size
        frame = pygame.Rect(int(W * 0.2), int(H * 0.12), int(W * 0.6), int(H * 0.76))
        pygame.draw.rect(s, theme.COURT_FILL, frame)
        half = pygame.Surface((frame.w, frame.h // 2), pygame.SRCALPHA)
        hw, hh = half.get_size()
        accent = theme.COURT_BLUE if color == theme.CARD_RED else theme.CARD_RED
        # robe: a coloured band with the suit's colour
        pygame.draw.polygon(half, color, [(0, hh), (hw * 0.22, hh * 0.62), (hw * 0.78, hh * 0.62), (hw, hh)])
        pygame.draw.polygon(half, accent, [(hw * 0.3, hh), (hw * 0.5, hh * 0.66), (hw * 0.7, hh)])
        # head
        pygame.draw.circle(half, (246, 210, 170), (hw * 0.5, hh * 0.5), hw * 0.15)
        pygame.draw.circle(half, theme.CARD_BLACK, (hw * 0.5, hh * 0.5), hw * 0.15, max(1, W // 120))
        top = hh * 0.36
        if rank == "K":  # crown with three points and jewels
            pts = [(hw * 0.3, top), (hw * 0.3, top - hh * 0.2), (hw * 0.38, top - hh * 0.1),
                   (hw * 0.5, top - hh * 0.26), (hw * 0.62, top - hh * 0.1), (hw * 0.7, top - hh * 0.2),
                   (hw * 0.7, top)]
            pygame.draw.polygon(half, theme.GOLD, pts)
            pygame.draw.polygon(half, theme.GOLD_DARK, pts, max(1, W // 150))
            for jx in (0.4, 0.5, 0.6):
                pygame.draw.circle(half, accent, (hw * jx, top - hh * 0.04), hw * 0.025)
        elif rank == "Q":  # tiara of pearls
            pygame.draw.ellipse(half, theme.GOLD, (hw * 0.32, top - hh * 0.1, hw * 0.36, hh * 0.12))
            for i in range(5):
                a = math.pi * (0.15 + 0.7 * i / 4)
                pygame.draw.circle(half, theme.WHITE, (hw * 0.5 - math.cos(a) * hw * 0.16,
                                                       top - hh * 0.06 - math.sin(a) * hh * 0.12), hw * 0.035)
                pygame.draw.circle(half, theme.GOLD_DARK, (hw * 0.5 - math.cos(a) * hw * 0.16,
                                                           top - hh * 0.06 - math.sin(a) * hh * 0.12),
                                   hw * 0.035, max(1, W // 200))
        else:  # J: cap with a feather
            pygame.draw.ellipse(half, accent, (hw * 0.3, top - hh * 0.14, hw * 0.4, hh * 0.17))
            pygame.draw.line(half, theme.GOLD, (hw * 0.62, top - hh * 0.08), (hw * 0.86, top - hh * 0.3),
                             max(2, W // 45))
        letter = _glyph(self.fonts, rank, int(hh * 0.4), color, bold=True)
        half.blit(letter, (int(hw * 0.06), int(hh * 0.06)))
        sg = _glyph(self.fonts, glyph, int(hh * 0.3), color)
        half.blit(sg, (int(hw * 0.94) - sg.get_width(), int(hh * 0.08)))
        s.blit(half, frame.topleft)
        s.blit(pygame.transform.rotate(half, 180), (frame.x, frame.y + frame.h - hh))
        pygame.draw.line(s, theme.GOLD_DARK, (frame.x, frame.centery), (frame.right - 1, frame.centery),
                         max(1, W // 120))
        pygame.draw.rect(s, color, frame, width=max(2, W // 70))


def shadow_pad(w: int) -> int:
    """Extra pixels right and below a ``w``-wide card sprite for its shadow."""
    return max(2, w // 22)

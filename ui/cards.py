"""Playing cards: faces (our index corners, the deck's pips and court figures) and backs.

Owns: the look of a card at any pixel size. The court figures (J, Q, K), the
ornamental Ace of spades and the suit pips are Byron Knoll's public-domain
"Vector Playing Cards" (``ui/assets/cards/``, see its LICENSE), pre-rendered
to PNG; the index corners (DejaVu Sans Bold), the layout and the back are
drawn by code. Cards are drawn at twice the size and smooth-scaled down, then
cached by (code, size), so a frame only blits. Card codes are ``rank + suit``
as in the snapshot: rank ``A 2-9 T J Q K``, suit ``S H D C``. UI thread only.

Geometry (fractions of the card's width ``W`` and height ``H``): the indices
fill ``[0.01W, 0.20W] x [0.02H, 0.32H]`` and its 180-degree mirror; pips,
aces and court frames stay inside ``[0.20W, 0.80W]`` so nothing covers an index.
"""

from __future__ import annotations

import math

import pygame

from ui import theme
from ui.assets import Fonts, asset_path

SUIT_GLYPH = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANK_TEXT = {"T": "10"}
RANKS = "A23456789TJQK"
SUITS = "SHDC"
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
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}
_RANK_VALUE = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}
#: files under ui/assets/ of the card art (Byron Knoll, public domain)
ART_FILES: dict[str, str] = {
    **{f"court_{r}{s}": f"cards/court_{r}{s}.png" for r in "JQK" for s in SUITS},
    **{f"pip_{s}": f"cards/pip_{s}.png" for s in SUITS},
    "ace_spades": "cards/ace_spades.png",
}
#: cards shorter than this (pixels) get the one large index of ``_draw_mini``, no pips
MINI_H = 44
#: ... and shorter than this, the history rows' side-by-side cards, a wider rank
MINI_WIDE_H = 30
#: the court frame's right edge as a share of the card width (left edge: 1 - this)
_COURT_X = 0.8


def all_codes() -> list[str]:
    """Every card code of a 52-card deck, suit by suit (``"AS" .. "KC"``)."""
    return [r + s for s in SUITS for r in RANKS]


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


def _to32(img: pygame.Surface) -> pygame.Surface:
    """A 32-bit copy (palette PNGs cannot be smooth-scaled); keeps per-pixel alpha."""
    out = pygame.Surface(img.get_size(), pygame.SRCALPHA, 32)
    out.blit(img, (0, 0))
    return out


def load_art() -> dict[str, pygame.Surface]:
    """Every card art image by name (see ``ART_FILES``), as 32-bit surfaces.

    Raises:
        AssetError: a file is missing.
        pygame.error: a file is not a readable PNG.
    """
    return {name: _to32(pygame.image.load(str(asset_path(rel)))) for name, rel in ART_FILES.items()}


def _tinted(mask: pygame.Surface, height: int, color: tuple[int, ...]) -> pygame.Surface:
    """A white alpha mask scaled to ``height`` pixels tall, inked in ``color``."""
    w = max(1, round(mask.get_width() * height / mask.get_height()))
    s = pygame.transform.smoothscale(mask, (w, max(1, height)))
    s.fill((*color[:3], 255), special_flags=pygame.BLEND_RGBA_MULT)
    return s


class CardArt:
    """Card sprites by size, cached.

    Args:
        fonts: the bundled fonts.

    The art PNGs load on the first face drawn (``AssetError`` if one is missing).
    """

    def __init__(self, fonts: Fonts) -> None:
        self.fonts = fonts
        self._cache: dict[tuple[str, int, int], pygame.Surface] = {}
        self._parts: dict[tuple[str, int, int], list[tuple[pygame.Surface, pygame.Rect]]] = {}
        self._art: dict[str, pygame.Surface] | None = None

    @property
    def art(self) -> dict[str, pygame.Surface]:
        """The loaded art images (loaded once)."""
        if self._art is None:
            self._art = load_art()
        return self._art

    def face(self, code: str, w: int, h: int) -> pygame.Surface:
        """Sprite of a face-up card ``w`` x ``h`` pixels (shadow outside the box: ``shadow_pad(w)``)."""
        return self._get(code, w, h)

    def back(self, w: int, h: int) -> pygame.Surface:
        """Sprite of a face-down card (same geometry as ``face``)."""
        return self._get("back", w, h)

    def blit(self, dest: pygame.Surface, code: str, w: int, h: int, at: tuple[int, int]) -> None:
        """Draw card ``code`` (``"back"``: face down) ``w`` x ``h`` with its top-left at
        ``at``: the very pixels of blitting its sprite, with the opaque middle copied
        without blending (``opaque_parts``): a third of the cost."""
        key = (code, w, h)
        parts = self._parts.get(key)
        if parts is None:
            if len(self._parts) > 400:
                self._parts.clear()
            parts = self._parts[key] = opaque_parts(self._get(code, w, h))
        x, y = at
        for src, area in parts:
            dest.blit(src, (x + area.x, y + area.y), area)

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
        pygame.draw.rect(
            big, (0, 0, 0, 50), shadow.inflate(-pad // 2, -pad // 2).move(-pad // 4, -pad // 4), border_radius=radius
        )
        card = pygame.Rect(0, 0, W, H)
        if code == "back":
            self._draw_back(big, card, radius)
        else:
            pygame.draw.rect(big, theme.CARD_FACE, card, border_radius=radius)
            pygame.draw.rect(big, theme.CARD_EDGE, card, width=max(1, W // 90), border_radius=radius)
            self._draw_face(big, card, code)
        return pygame.transform.smoothscale(big, (w + shadow_pad(w), h + shadow_pad(w)))

    def _draw_back(self, s: pygame.Surface, card: pygame.Rect, radius: int) -> None:
        """The cabinet's back: white margin, a red field under a double diamond lattice
        with gold studs, a double gold frame and a medallion with the spade."""
        W, H = card.size
        pygame.draw.rect(s, theme.CARD_FACE, card, border_radius=radius)
        pygame.draw.rect(s, theme.CARD_EDGE, card, width=max(1, W // 90), border_radius=radius)
        m = max(2, int(W * 0.075))
        inner = card.inflate(-2 * m, -2 * m)
        r_in = max(2, radius // 2)
        pygame.draw.rect(s, theme.BACK_RED, inner, border_radius=r_in)
        field = pygame.Surface(inner.size, pygame.SRCALPHA)
        fw, fh = field.get_size()
        step = max(8, W // 7)
        lw = max(1, W // 110)
        gap = max(2, W // 70)
        # lines x - y = k1 and x + y = k2 through the field's centre, a stud at each crossing
        c1, c2 = (fw - fh) / 2, (fw + fh) / 2
        n = (fw + fh) // step + 2
        for i in range(-n, n + 1):
            for off in (-gap, gap):
                k1, k2 = c1 + i * step + off, c2 + i * step + off
                pygame.draw.line(field, theme.BACK_RED_LIGHT, (k1, 0), (k1 + fh, fh), lw)
                pygame.draw.line(field, theme.BACK_RED_LIGHT, (k2, 0), (k2 - fh, fh), lw)
        dot = max(1, W // 80)
        half = step / 2
        for j in range(-(fh // step) - 1, fh // step + 2):
            for i in range(-(fw // step) - 1, fw // step + 2):
                pygame.draw.circle(field, theme.BACK_STUD, (fw / 2 + i * step + (j % 2) * half, fh / 2 + j * half), dot)
        mask = pygame.Surface(inner.size, pygame.SRCALPHA)
        pygame.draw.rect(mask, (255, 255, 255, 255), mask.get_rect(), border_radius=r_in)
        field.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
        s.blit(field, inner.topleft)
        gw = max(1, W // 60)
        pygame.draw.rect(s, theme.GOLD, inner, width=gw, border_radius=r_in)
        pygame.draw.rect(s, theme.GOLD_DARK, inner.inflate(-4 * gw, -4 * gw), width=max(1, gw // 2), border_radius=r_in)
        oval = pygame.Rect(0, 0, int(W * 0.5), int(min(H * 0.34, W * 0.62)))
        oval.center = card.center
        pygame.draw.ellipse(s, theme.BACK_RED_DARK, oval)
        pygame.draw.ellipse(s, theme.GOLD, oval, width=max(2, W // 45))
        pygame.draw.ellipse(s, theme.GOLD_DARK, oval.inflate(-W // 14, -W // 14), width=max(1, W // 110))
        n = 16
        for i in range(n):
            a = 2 * math.pi * i / n
            pygame.draw.circle(
                s,
                theme.GOLD,
                (oval.centerx + math.cos(a) * oval.w * 0.39, oval.centery + math.sin(a) * oval.h * 0.39),
                max(1, W // 110),
            )
        _blit_center(s, _tinted(self.art["pip_S"], int(oval.h * 0.42), theme.GOLD), oval.center)

    def _draw_face(self, s: pygame.Surface, card: pygame.Rect, code: str) -> None:
        W, H = card.size
        rank, suit = code[:-1], code[-1]
        color = card_color(code)
        glyph = SUIT_GLYPH.get(suit, "?")
        rtext = RANK_TEXT.get(rank, rank)
        if H < MINI_H * _SS:
            self._draw_mini(s, card, rtext, suit, glyph, color)
            return
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
        mask = self.art.get(f"pip_{suit}")
        if mask is None:  # not a suit we know: the index alone
            return
        if value == 1:
            if suit == "S":
                ace = _tinted(self.art["ace_spades"], int(H * 0.5), color)
            else:
                ace = _tinted(mask, int(H * 0.26), color)
            _blit_center(s, ace, card.center)
        elif value <= 10:
            area = pygame.Rect(int(W * 0.31), int(H * 0.17), int(W * 0.38), int(H * 0.66))
            pip = _tinted(mask, int(H * (0.15 if value <= 3 else 0.125)), color)
            pip_rot = pygame.transform.rotate(pip, 180)
            for fx, fy in _PIPS[value]:
                c = (area.x + fx * area.w, area.y + fy * area.h)
                _blit_center(s, pip_rot if fy > 0.5 else pip, c)
        else:
            self._draw_court(s, card, code)

    def _draw_mini(
        self, s: pygame.Surface, card: pygame.Rect, rtext: str, suit: str, glyph: str, color: tuple[int, int, int]
    ) -> None:
        """A card under ``MINI_H`` pixels tall (history rows, other stations' panels): one
        large index, rank over suit, in the left ``0.36 W`` that a fanned hand (cards
        stepped ``0.3-0.36 W``) leaves in view, above the middle where badges sit; under
        ``MINI_WIDE_H`` (cards laid side by side, the history rows) the rank may take 0.62 W."""
        W, H = card.size
        r = _glyph(self.fonts, rtext, int(H * 0.56), color, bold=True)
        cap = W * (0.62 if H < MINI_WIDE_H * _SS else 0.32)
        aspect = r.get_width() / max(1, r.get_height())
        # as tall as 0.4 H fits, narrowed to at most 85 % of its width ("10": 65 %), never under 0.3 H
        squeeze = 0.85 if len(rtext) == 1 else 0.65
        rh = int(max(H * 0.3, min(H * 0.4, cap / (aspect * squeeze))))
        rw = max(1, int(min(cap, aspect * rh)))
        r = pygame.transform.smoothscale(r, (rw, rh))
        col = W * 0.04 + cap / 2
        s.blit(r, r.get_rect(midtop=(int(col), int(H * 0.05))))
        mask = self.art.get(f"pip_{suit}")
        ph = int(H * 0.16)
        pip = _tinted(mask, ph, color) if mask is not None else _glyph(self.fonts, glyph, ph, color)
        s.blit(pip, pip.get_rect(midtop=(int(col), int(H * 0.05) + rh + int(H * 0.04))))

    def _draw_court(self, s: pygame.Surface, card: pygame.Rect, code: str) -> None:
        """The deck's court figure in its frame, between the two indices."""
        W, H = card.size
        art = self.art.get(f"court_{code}")
        if art is None:
            return
        fw = int(W * (2 * _COURT_X - 1))
        fh = min(int(H * 0.76), round(fw * art.get_height() / art.get_width()))
        frame = pygame.Rect(0, 0, fw, fh)
        frame.center = card.center
        s.blit(pygame.transform.smoothscale(art, frame.size), frame.topleft)


def shadow_pad(w: int) -> int:
    """Extra pixels right and below a ``w``-wide card sprite for its shadow."""
    return max(2, w // 22)


def opaque_parts(sprite: pygame.Surface) -> list[tuple[pygame.Surface, pygame.Rect]]:
    """``sprite`` (per-pixel alpha) as (source, area) parts to blit at the area's place:
    the largest fully opaque band around its centre from a copy without alpha (a plain
    copy, where blending an opaque pixel gives that pixel exactly), the rim around it
    from ``sprite`` itself (blended). A sprite with no opaque centre is one part."""
    w, h = sprite.get_size()
    alpha = pygame.image.tobytes(sprite, "RGBA")[3::4]
    whole = [(sprite, pygame.Rect(0, 0, w, h))]
    if not w or not h:
        return whole
    mid = alpha[(h // 2) * w : (h // 2 + 1) * w]
    x0 = x1 = w // 2
    if mid[x0] != 255:
        return whole
    while x0 > 0 and mid[x0 - 1] == 255:
        x0 -= 1
    while x1 < w and mid[x1] == 255:
        x1 += 1
    run = b"\xff" * (x1 - x0)
    y0 = y1 = h // 2
    while y0 > 0 and alpha[(y0 - 1) * w + x0 : (y0 - 1) * w + x1] == run:
        y0 -= 1
    while y1 < h and alpha[y1 * w + x0 : y1 * w + x1] == run:
        y1 += 1
    opaque = pygame.Surface((w, h))
    opaque.blit(sprite, (0, 0))
    rims = [
        pygame.Rect(0, 0, w, y0),
        pygame.Rect(0, y1, w, h - y1),
        pygame.Rect(0, y0, x0, y1 - y0),
        pygame.Rect(x1, y0, w - x1, y1 - y0),
    ]
    return [(opaque, pygame.Rect(x0, y0, x1 - x0, y1 - y0))] + [(sprite, r) for r in rims if r.w and r.h]

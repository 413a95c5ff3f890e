"""Drawing primitives in logical units: text, panels, pills, buttons, meters.

Owns: the ``Painter`` (a display surface + its ``Layout`` + fonts + sprite
caches) and the small widgets every scene reuses. Everything takes logical
coordinates (see ``ui.layout``) and converts once here. Pure drawing: no
clock, no I/O; UI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pygame

from ui import theme
from ui.assets import Fonts
from ui.cards import CardArt
from ui.chips import ChipArt
from ui.layout import Layout

#: smallest text size drawn, in pixels, however small the display (legibility).
MIN_TEXT_PX = 10

Anchor = str  # "center", "midleft", "midright", "topleft", "midtop", "midbottom", "topright"


@dataclass(frozen=True)
class HitBox:
    """An on-screen touch target.

    Attributes:
        rect: the target in screen pixels.
        action: an intent action (``ipc.ACTIONS``) or a local UI action
            prefixed ``ui:`` (``ui:help_close``).
        station: the station the intent is for; ``None`` means the UI's own.
        value: intent value (chip minor units, spot number) or ``None``.
        lit: drawn lit (informational; the engine judges legality).
    """

    rect: pygame.Rect
    action: str
    station: int | None = None
    value: int | None = None
    lit: bool = True


@dataclass
class Art:
    """Fonts and sprite caches shared by every frame."""

    fonts: Fonts = field(default_factory=Fonts)
    cards: CardArt = field(init=False)
    chips: ChipArt = field(init=False)
    _alpha: dict[tuple[int, int, tuple[int, ...], int], pygame.Surface] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cards = CardArt(self.fonts)
        self.chips = ChipArt(self.fonts)


class Painter:
    """A surface to draw one frame on, in logical units.

    Args:
        surface: the target surface (display or off-screen), any size.
        layout: logical-to-pixel mapping for that surface.
        art: shared fonts and sprite caches.
    """

    def __init__(self, surface: pygame.Surface, layout: Layout, art: Art) -> None:
        self.surface = surface
        self.L = layout
        self.art = art
        self.fonts = art.fonts
        self.hits: list[HitBox] = []
        #: the frame is already dimmed for an overlay (``overlays.draw_panel`` skips its dim).
        self.dimmed = False
        #: the screen pixels of the last modal panel drawn (``overlays.draw_panel``), if any.
        self.drawn_panel: pygame.Rect | None = None
        #: what lies under the table's widgets this frame (the felt's key), set by the
        #: renderer when the same key means the same pixels there; ``None``: no caching.
        self.background: tuple[object, ...] | None = None
        #: drawn widgets' pixels, kept by the renderer from frame to frame (``cached``).
        self.widget_cache: dict[tuple[object, ...], tuple[pygame.Surface, list[HitBox]]] | None = None

    def cached(self, key: tuple[object, ...], area: pygame.Rect, draw: Callable[[], None]) -> None:
        """Draw a widget through a pixel cache: ``draw()`` once, its pixels in ``area``
        (logical units; everything it draws lies inside) and the hit boxes it adds kept
        under ``key`` plus the background; the same again is one blit. Drawn directly
        when the renderer set no background."""
        cache = self.widget_cache
        if cache is None or self.background is None:
            draw()
            return
        pr = self.L.rect(area).clip(self.surface.get_rect())
        full = (key, self.background, tuple(pr), self.surface.get_size())
        hit = cache.get(full)
        if hit is not None:
            self.surface.blit(hit[0], pr)
            self.hits += hit[1]
            return
        n = len(self.hits)
        draw()
        if len(cache) > 400:
            cache.clear()
        cache[full] = (self.surface.subsurface(pr).copy(), self.hits[n:])

    def button_area(self, r: pygame.Rect, lit: bool) -> pygame.Rect:
        """Where ``button`` draws (its shadow 4 units under it when lit)."""
        return r.union(r.move(0, 4)) if lit else pygame.Rect(r)

    # -- primitives ----------------------------------------------------------

    def fill_rect(
        self,
        r: pygame.Rect | tuple[float, float, float, float],
        color: tuple[int, ...],
        radius: float = 0,
        width: float = 0,
    ) -> pygame.Rect:
        """Fill (or outline, ``width`` > 0) a logical rect; alpha colours blend."""
        pr = self.L.rect(r)
        rad = self.L.px(radius) if radius else 0
        wpx = self.L.px(width) if width else 0
        if len(color) == 4 and color[3] < 255:
            key = (pr.w, pr.h, tuple(color), rad * 1000 + wpx)
            s = self.art._alpha.get(key)
            if s is None:
                if len(self.art._alpha) > 200:
                    self.art._alpha.clear()
                s = pygame.Surface(pr.size, pygame.SRCALPHA)
                pygame.draw.rect(s, color, s.get_rect(), wpx, border_radius=rad)
                self.art._alpha[key] = s
            self.surface.blit(s, pr.topleft)
        else:
            pygame.draw.rect(self.surface, color[:3], pr, wpx, border_radius=rad)
        return pr

    def text(
        self,
        s: str,
        px: float,
        color: tuple[int, ...],
        pos: tuple[float, float],
        anchor: Anchor = "center",
        bold: bool = False,
        max_w: float | None = None,
    ) -> pygame.Rect:
        """Draw text at a logical point; shrinks to ``max_w`` logical units if given.

        Returns:
            the drawn area in screen pixels.
        """
        size = max(self.L.px(px), MIN_TEXT_PX)
        if max_w is not None:
            size = self.fonts.fit(s, size, self.L.px(max_w), bold=bold, min_px=6)
        surf = self.fonts.text(s, size, color, bold)
        r = surf.get_rect(**{anchor: self.L.pt(*pos)})
        self.surface.blit(surf, r)
        return r

    def text_width(self, s: str, px: float, bold: bool = False) -> float:
        """Width of ``s`` in logical units at ``px`` logical size."""
        return self.fonts.width(s, max(6, min(400, self.L.px(px))), bold) / self.L.scale

    def shadow_text(
        self,
        s: str,
        px: float,
        color: tuple[int, ...],
        pos: tuple[float, float],
        anchor: Anchor = "center",
        bold: bool = True,
        max_w: float | None = None,
    ) -> None:
        """Text with a dark drop shadow, for titles on the felt."""
        off = max(1.5, px / 18)
        self.text(s, px, (0, 0, 0, 150), (pos[0] + off, pos[1] + off), anchor, bold, max_w)
        self.text(s, px, color, pos, anchor, bold, max_w)

    def blit_center(self, surf: pygame.Surface, pos: tuple[float, float]) -> None:
        self.surface.blit(surf, surf.get_rect(center=self.L.pt(*pos)))

    # -- widgets --------------------------------------------------------------

    def pill(
        self,
        text: str,
        center: tuple[float, float],
        px: float = 24,
        fg: tuple[int, ...] = theme.WHITE,
        bg: tuple[int, ...] = (0, 0, 0, 170),
        edge: tuple[int, ...] | None = None,
        max_w: float | None = None,
    ) -> pygame.Rect:
        """A rounded label (hand totals, badges)."""
        w = self.text_width(text, px, True) + px * 1.2
        if max_w is not None:
            w = min(w, max_w)
        h = px * 1.5
        r = pygame.Rect(0, 0, int(w), int(h))
        r.center = (int(center[0]), int(center[1]))
        self.fill_rect(r, bg, radius=h / 2)
        if edge is not None:
            self.fill_rect(r, edge, radius=h / 2, width=2)
        self.text(text, px, fg, r.center, bold=True, max_w=w - px * 0.6)
        return r

    def button(
        self,
        r: pygame.Rect,
        label: str,
        lit: bool,
        action: str,
        *,
        station: int | None = None,
        value: int | None = None,
        px: float = 22,
        danger: bool = False,
    ) -> None:
        """An on-screen button, lit or grey, registered as a hit box."""
        if lit:
            fill = theme.BUTTON_RED if danger else theme.BUTTON_LIT
            self.fill_rect(r.move(0, 4), (0, 0, 0, 120), radius=12)
            self.fill_rect(r, fill, radius=12)
            self.fill_rect(pygame.Rect(r.x + 4, r.y + 3, r.w - 8, r.h // 2 - 2), (255, 255, 255, 60), radius=9)
            self.fill_rect(r, theme.BUTTON_LIT_EDGE, radius=12, width=2)
            fg = theme.WHITE if danger else theme.BUTTON_LIT_TEXT
        else:
            self.fill_rect(r, theme.BUTTON_GREY, radius=12)
            self.fill_rect(r, theme.BUTTON_GREY_EDGE, radius=12, width=2)
            fg = theme.BUTTON_GREY_TEXT
        self.text(label, px, fg, r.center, bold=True, max_w=r.w - 12)
        self.hits.append(HitBox(self.L.rect(r), action, station, value, lit))

    def chip_button(self, r: pygame.Rect, value_minor: int, lit: bool, selected: bool, station: int | None) -> None:
        """A chip to pick (``chip`` intent); the selected one is ringed in gold."""
        d = self.L.px(min(r.w, r.h))
        c = (r.centerx, r.centery)
        if selected:
            pygame.draw.circle(self.surface, theme.ACTIVE_GLOW, self.L.pt(*c), d // 2 + self.L.px(5))
        sprite = self.art.chips.chip(value_minor, d)
        if not lit:
            sprite = sprite.copy()
            sprite.fill((110, 110, 110, 255), special_flags=pygame.BLEND_RGBA_MULT)
        self.blit_center(sprite, c)
        self.hits.append(HitBox(self.L.rect(r), "chip", station, value_minor, lit))

    def meter(self, r: pygame.Rect, label: str, value: str, sub: str | None = None) -> None:
        """A meter box: small label on top, amount below (and a second line)."""
        self.fill_rect(r, theme.METER_BG, radius=10)
        self.fill_rect(r, theme.PANEL_EDGE, radius=10, width=2)
        self.text(label, 15, theme.METER_LABEL, (r.centerx, r.y + 14), bold=True, max_w=r.w - 10)
        if sub is None:
            self.text(value, 28, theme.METER_VALUE, (r.centerx, r.y + 48), bold=True, max_w=r.w - 14)
        else:
            self.text(value, 24, theme.METER_VALUE, (r.centerx, r.y + 38), bold=True, max_w=r.w - 14)
            self.text(sub, 17, theme.CREAM, (r.centerx, r.y + 62), bold=False, max_w=r.w - 14)

    def wrap(self, text: str, px: float, max_w: float, bold: bool = False) -> list[str]:
        """Split ``text`` into lines no wider than ``max_w`` logical units."""
        words = text.split()
        lines: list[str] = []
        cur = ""
        for w in words:
            t = f"{cur} {w}" if cur else w
            if cur and self.text_width(t, px, bold) > max_w:
                lines.append(cur)
                cur = w
            else:
                cur = t
        if cur or not lines:
            lines.append(cur)
        return lines

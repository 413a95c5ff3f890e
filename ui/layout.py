"""Logical geometry of the table and its mapping to the real screen.

Owns: where everything sits, in one logical space (1920x1080 landscape or
1080x1920 portrait), and the uniform scale + letterbox offset that maps it to
any display (1920x1080, 1280x800, 800x480...). Pure: rectangles in, rectangles
out (``pygame.Rect`` is used only as a value type).
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

LANDSCAPE = (1920, 1080)
PORTRAIT = (1080, 1920)

#: logical card sizes (width, height), 5:7.
DEALER_CARD = (116, 162)
PLAYER_CARD_MAX_H = 168
BUTTON_H = 60
METER_H = 78
MESSAGE_LINE_H = 34
CHIP_BUTTON = 62


@dataclass(frozen=True)
class Layout:
    """Screen size plus the mapping from logical units to pixels.

    Attributes:
        width, height: the display surface, in pixels.
        lw, lh: logical size (1920x1080 or 1080x1920).
        scale: pixels per logical unit (uniform).
        ox, oy: pixel offset of logical (0, 0) (letterbox, centred).
    """

    width: int
    height: int
    lw: int
    lh: int
    scale: float
    ox: int
    oy: int

    @classmethod
    def for_size(cls, width: int, height: int, portrait: bool | None = None) -> Layout:
        """Layout for a ``width`` x ``height`` pixel display.

        Args:
            width, height: display size in pixels, > 0.
            portrait: use the portrait logical space; ``None`` picks it when
                ``height > width``.
        """
        if portrait is None:
            portrait = height > width
        lw, lh = PORTRAIT if portrait else LANDSCAPE
        scale = min(width / lw, height / lh)
        ox = int(round((width - lw * scale) / 2))
        oy = int(round((height - lh * scale) / 2))
        return cls(width, height, lw, lh, scale, ox, oy)

    @property
    def portrait(self) -> bool:
        return self.lh > self.lw

    def px(self, v: float) -> int:
        """A logical length in pixels (at least 1 for positive lengths)."""
        p = round(v * self.scale)
        return max(1, p) if v > 0 else p

    def pt(self, x: float, y: float) -> tuple[int, int]:
        """A logical point in pixels."""
        s = self.scale
        return (self.ox + round(x * s), self.oy + round(y * s))

    def rect(self, r: pygame.Rect | tuple[float, float, float, float]) -> pygame.Rect:
        """A logical rectangle in pixels (edges rounded, so neighbours tile)."""
        x, y, w, h = r
        s, ox, oy = self.scale, self.ox, self.oy
        x0, y0 = ox + round(x * s), oy + round(y * s)
        x1, y1 = ox + round((x + w) * s), oy + round((y + h) * s)
        return pygame.Rect(x0, y0, max(1, x1 - x0), max(1, y1 - y0))

    # -- the table ---------------------------------------------------------

    @property
    def cx(self) -> int:
        return self.lw // 2

    def dealer_cards_top(self) -> int:
        return 38

    def shoe_rect(self) -> pygame.Rect:
        w, h = (200, 150) if not self.portrait else (170, 130)
        return pygame.Rect(self.lw - w - 40, 24, w, h)

    def chip_rack(self) -> pygame.Rect | None:
        """The dealer's chip rack, whole on screen beside the dealer's cards;
        ``None`` in portrait, where there is no room for it."""
        return None if self.portrait else pygame.Rect(206, 18, 262, 50)

    def discard_tray(self) -> pygame.Rect:
        """The discard tray, whole, on the dealer's right of the shoe."""
        return (
            pygame.Rect(self.lw - 440, 30, 170, 112) if not self.portrait else pygame.Rect(self.lw - 220, 180, 170, 96)
        )

    def limits_placard(self) -> pygame.Rect:
        """The table limits placard on the felt, under the HELP button and the clock."""
        return pygame.Rect(30, 142, 340, 190) if not self.portrait else pygame.Rect(30, 142, 250, 190)

    def clock_pos(self) -> tuple[int, int]:
        """Where the time of day sits (its left middle), under the HELP button."""
        return (34, 112)

    def help_button(self) -> pygame.Rect:
        return pygame.Rect(30, 24, 150, 58)

    def felt_text_top(self) -> int:
        return 256

    def message_center(self) -> tuple[int, int]:
        return (self.cx, 462 if not self.portrait else 520)

    def timer_center(self) -> tuple[int, int]:
        return (self.lw - 140, 282) if not self.portrait else (self.lw - 110, 410)  # below the tray

    def stations_top(self) -> int:
        return 505 if not self.portrait else 570

    def station_box(self, index: int, count: int) -> pygame.Rect:
        """The area of station ``index`` (0-based) among ``count`` (1-3)."""
        count = max(1, count)
        top = self.stations_top()
        x0 = index * self.lw // count
        x1 = (index + 1) * self.lw // count
        return pygame.Rect(x0, top, x1 - x0, self.lh - top)


def flow_rows(widths: list[int], max_width: int, gap: int) -> list[list[int]]:
    """Split item widths into rows no wider than ``max_width``.

    Returns:
        rows of item indices, in order; every row has at least one item.
    """
    rows: list[list[int]] = []
    cur: list[int] = []
    used = 0
    for i, w in enumerate(widths):
        need = w if not cur else used + gap + w
        if cur and need > max_width:
            rows.append(cur)
            cur, used = [i], w
        else:
            cur.append(i)
            used = need
    if cur:
        rows.append(cur)
    return rows


def balanced_rows(widths: list[int], max_width: int, gap: int) -> list[list[int]]:
    """Like ``flow_rows`` but with the items spread evenly over the rows needed."""
    rows = flow_rows(widths, max_width, gap)
    n = len(rows)
    if n <= 1:
        return rows
    per = -(-len(widths) // n)
    out = [list(range(i, min(i + per, len(widths)))) for i in range(0, len(widths), per)]
    if all(sum(widths[j] for j in r) + gap * (len(r) - 1) <= max_width for r in out):
        return out
    return rows

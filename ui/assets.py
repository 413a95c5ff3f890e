"""Bundled assets: fonts loaded by file path, and a cache of rendered text.

Owns: finding files under ``ui/assets/`` and failing loudly when one is
missing (no fallback to system fonts, so goldens stay deterministic).
Needs ``pygame.font`` initialised; called from the UI thread only.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import pygame

ASSET_DIR = Path(__file__).resolve().parent / "assets"


class AssetError(FileNotFoundError):
    """A bundled asset file is missing or unreadable."""


def asset_path(rel: str) -> Path:
    """Absolute path of a bundled asset.

    Raises:
        AssetError: the file does not exist.
    """
    p = ASSET_DIR / rel
    if not p.is_file():
        raise AssetError(f"missing UI asset: {p}")
    return p


class Fonts:
    """Fonts by pixel size and weight, plus an LRU cache of rendered text.

    Args:
        text_cache_size: how many rendered strings to keep.

    Raises:
        AssetError: a bundled font file is missing (checked at construction).
    """

    def __init__(self, text_cache_size: int = 1024) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._paths = {False: asset_path("fonts/DejaVuSans.ttf"), True: asset_path("fonts/DejaVuSans-Bold.ttf")}
        self._fonts: dict[tuple[int, bool], pygame.font.Font] = {}
        self._text: OrderedDict[tuple[str, int, bool, tuple[int, ...]], pygame.Surface] = OrderedDict()
        self._max = text_cache_size
        self._widths: dict[tuple[str, int, bool], int] = {}

    def font(self, px: int, bold: bool = False) -> pygame.font.Font:
        """The font at ``px`` pixels (clamped to 6-400), regular or bold."""
        px = max(6, min(400, int(px)))
        key = (px, bold)
        f = self._fonts.get(key)
        if f is None:
            f = pygame.font.Font(str(self._paths[bold]), px)
            self._fonts[key] = f
        return f

    def text(self, s: str, px: int, color: tuple[int, ...], bold: bool = False) -> pygame.Surface:
        """Rendered, anti-aliased text with alpha (cached; do not modify the result)."""
        key = (s, max(6, int(px)), bold, tuple(color))
        surf = self._text.get(key)
        if surf is not None:
            self._text.move_to_end(key)
            return surf
        surf = self.font(px, bold).render(s, True, color[:3])
        if len(color) == 4 and color[3] < 255:
            surf.set_alpha(color[3])
        self._text[key] = surf
        if len(self._text) > self._max:
            self._text.popitem(last=False)
        return surf

    def width(self, s: str, px: int, bold: bool = False) -> int:
        """Pixel width of ``s`` at ``px`` pixels (cached: a frame measures the same texts
        again)."""
        key = (s, px, bold)
        w = self._widths.get(key)
        if w is None:
            if len(self._widths) > 4 * self._max:
                self._widths.clear()
            w = self._widths[key] = self.font(px, bold).size(s)[0]
        return w

    def fit(self, s: str, px: int, max_width: int, bold: bool = False, min_px: int = 8) -> int:
        """Largest size <= ``px`` at which ``s`` is at most ``max_width`` pixels wide."""
        size = max(min_px, int(px))
        while size > min_px and self.width(s, max(6, min(400, size)), bold) > max_width:
            size = max(min_px, int(size * 0.92))
        return size

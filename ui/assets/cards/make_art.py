"""Rebuild the card art PNGs in this folder from Byron Knoll's public-domain SVG deck.

Not imported by the UI: a developer tool, run once when the art changes.
Needs ``rsvg-convert`` (Debian ``librsvg2-bin``) and ImageMagick ``convert``
(palette quantising) on the PATH, and pygame.

Usage::

    python ui/assets/cards/make_art.py SVG_DIR

``SVG_DIR`` holds the deck's ``cards-svg/*.svg`` (e.g. a checkout of
github.com/notpeter/Vector-Playing-Cards, a mirror of Byron Knoll's
code.google.com/p/vector-playing-cards). Writes:

- ``court_<rank><suit>.png`` (J, Q, K x S H D C): the framed court figure,
  cropped at its frame line, ``COURT_W`` pixels wide, 256-colour palette.
- ``ace_spades.png``: the ornamental Ace of spades, as an alpha mask (ink
  colour is applied by ``ui/cards.py``).
- ``pip_<suit>.png``: one suit pip per suit (the top pip of the 2), alpha masks.

Raises ``subprocess.CalledProcessError`` when a tool fails, ``FileNotFoundError``
when an SVG is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
import pygame  # noqa: E402

OUT = Path(__file__).resolve().parent
RENDER_W = 1000  # the deck's cards are 167 x 242.7 pt; rendered 1000 x 1453 px
FRAME = pygame.Rect(131, 132, 738, 1190)  # the court frame line at RENDER_W (same on all 12)
COURT_W = 384
PIP_H = 256
ACE_H = 512
#: where the top pip of a 2 lies on a card at RENDER_W (plain, flat-coloured pips)
PIP_AREA = pygame.Rect(300, 150, 400, 400)
ACE_AREA = pygame.Rect(178, 270, 646, 840)  # the ornamental spade, clear of the indices


def render(svg: Path, tmp: Path) -> pygame.Surface:
    """The SVG rendered ``RENDER_W`` wide by rsvg-convert."""
    png = tmp / (svg.stem + ".png")
    subprocess.run(["rsvg-convert", "-w", str(RENDER_W), str(svg), "-o", str(png)], check=True)
    return pygame.image.load(str(png))


def ink_mask(src: pygame.Surface, area: pygame.Rect, height: int) -> pygame.Surface:
    """White alpha mask of the ink (non-white pixels) inside ``area``, cropped to it, ``height`` tall.

    Alpha is the pixel's darkness relative to the darkest ink in the area, so
    anti-aliased edges stay smooth and white filigree becomes transparent.
    """
    sub = src.subsurface(area)
    w, h = sub.get_size()
    lum = [[0] * h for _ in range(w)]
    darkest = 255
    for x in range(w):
        for y in range(h):
            r, g, b, *_ = sub.get_at((x, y))
            v = min(r, g, b) if (r, g, b) != (255, 255, 255) else 255
            # red ink: its darkness is in green/blue; black ink: in all channels
            lum[x][y] = v
            darkest = min(darkest, v)
    out = pygame.Surface((w, h), pygame.SRCALPHA)
    span = max(1, 255 - darkest)
    for x in range(w):
        for y in range(h):
            a = max(0, min(255, (255 - lum[x][y]) * 255 // span))
            out.set_at((x, y), (255, 255, 255, a))
    box = out.get_bounding_rect(min_alpha=8)
    out = out.subsurface(box).copy()
    scale = height / out.get_height()
    return pygame.transform.smoothscale(out, (max(1, round(out.get_width() * scale)), height))


def quantise(png: Path) -> None:
    """Rewrite ``png`` as a 256-colour palette PNG (about a third the bytes)."""
    subprocess.run(
        ["convert", str(png), "-dither", "FloydSteinberg", "-colors", "256", "-strip", "PNG8:" + str(png)], check=True
    )


def main(svg_dir: str) -> int:
    src = Path(svg_dir)
    if (src / "cards-svg").is_dir():
        src = src / "cards-svg"
    pygame.display.init()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for rank in "JQK":
            for suit in "SHDC":
                card = render(src / f"{rank}{suit}.svg", tmp)
                frame = card.subsurface(FRAME).copy()
                h = round(FRAME.h * COURT_W / FRAME.w)
                out = OUT / f"court_{rank}{suit}.png"
                pygame.image.save(pygame.transform.smoothscale(frame, (COURT_W, h)), str(out))
                quantise(out)
        for suit in "SHDC":
            pygame.image.save(
                ink_mask(render(src / f"2{suit}.svg", tmp), PIP_AREA, PIP_H), str(OUT / f"pip_{suit}.png")
            )
        pygame.image.save(ink_mask(render(src / "AS.svg", tmp), ACE_AREA, ACE_H), str(OUT / "ace_spades.png"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))

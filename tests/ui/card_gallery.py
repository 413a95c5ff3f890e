"""A fixture screen for signing off the card and chip art: not a player screen.

``draw_gallery`` lays out all 52 faces suit by suit, the back, every chip
denomination (top view, and a stack of side views), and a hand at the two
card sizes the table draws, on the felt colour.
"""

from __future__ import annotations

import pygame

from cabinet.protocol.money import fmt_money
from ui import theme
from ui.assets import Fonts
from ui.cards import RANKS, SUITS, CardArt
from ui.chips import ChipArt

#: chip values drawn (minor units): the table's chips, the casino set and a 50c
GALLERY_CHIPS = (50, 100, 500, 2_500, 10_000, 50_000, 100_000)
#: cards drawn again at table sizes, to check the indices where they are smallest
SIZE_ROW = ("AS", "KH", "QC", "JD", "TS", "7H", "back")


def draw_gallery(surf: pygame.Surface, fonts: Fonts, cards: CardArt, chips: ChipArt) -> None:
    """Draw the gallery filling ``surf`` (any size; card aspect 5:7 as on the table)."""
    W, H = surf.get_size()
    surf.fill(theme.FELT_CENTER[:3])
    margin = max(4, W // 80)
    cols = len(RANKS) + 1
    cw = min((W - 2 * margin) // cols - max(2, W // 320), int(H * 0.68 / 4 / 1.4))
    ch = int(cw * 1.4)
    gap_x = ((W - 2 * margin) - cols * cw) // (cols - 1)
    gap_y = max(2, H // 100)
    for row, suit in enumerate(SUITS):
        y = margin + row * (ch + gap_y)
        for col, rank in enumerate(RANKS):
            surf.blit(cards.face(rank + suit, cw, ch), (margin + col * (cw + gap_x), y))
    bx = margin + len(RANKS) * (cw + gap_x)
    surf.blit(cards.back(cw, ch), (bx, margin))
    surf.blit(cards.face("AS", cw * 2 // 3 + 1, ch * 2 // 3 + 1), (bx, margin + 2 * (ch + gap_y)))
    top = margin + 4 * (ch + gap_y) + gap_y
    slot = (W - 2 * margin) // len(GALLERY_CHIPS)
    lh = max(9, H // 60)
    d = min(int((H - top - margin - lh) * 0.75), int(slot * 0.44))
    for i, v in enumerate(GALLERY_CHIPS):
        cx = margin + i * slot + slot // 2
        chip = chips.chip(v, d)
        surf.blit(chip, chip.get_rect(midtop=(cx - d // 2 - 3, top)))
        side = chips.side(v, d)
        base = top + d
        for k in range(5):
            surf.blit(side, side.get_rect(midbottom=(cx + d // 2 + 3, base - k * max(2, int(d * 0.13)))))
        label = fonts.text(fmt_money(v), lh, theme.CREAM)
        surf.blit(label, label.get_rect(midtop=(cx, top + d + 2)))
    # a hand at the sizes the table draws (main spots, then other stations' panels)
    y = top + d + lh + 2 * gap_y
    x = margin
    for bh in (min(H - y - margin, int(H * 0.14)), max(24, int(H * 0.05))):
        bw = int(bh / 1.4)
        for code in SIZE_ROW:
            sprite = cards.back(bw, bh) if code == "back" else cards.face(code, bw, bh)
            surf.blit(sprite, (x, y))
            x += bw + max(2, bw // 8)
        x += bw

"""Colours of the table UI, as RGB(A) tuples; one place so the look stays coherent.

Owns: every colour the renderer uses. Imports nothing.
"""

from __future__ import annotations

Color = tuple[int, int, int] | tuple[int, int, int, int]

FELT_CENTER: Color = (22, 112, 64)
FELT_EDGE: Color = (8, 58, 32)
FELT_LINE: Color = (214, 182, 96)
GOLD: Color = (236, 200, 96)
GOLD_DARK: Color = (150, 112, 36)
CREAM: Color = (246, 238, 214)
WHITE: Color = (255, 255, 255)
INK: Color = (20, 20, 24)

CARD_FACE: Color = (252, 250, 244)
CARD_EDGE: Color = (150, 150, 150)
CARD_RED: Color = (200, 18, 42)
CARD_BLACK: Color = (22, 22, 28)
BACK_RED: Color = (150, 22, 34)
BACK_RED_LIGHT: Color = (196, 58, 66)
BACK_RED_DARK: Color = (112, 12, 24)
BACK_STUD: Color = (226, 186, 104)

PANEL: Color = (6, 30, 18, 200)
PANEL_EDGE: Color = (120, 96, 40)
METER_BG: Color = (8, 16, 12)
METER_LABEL: Color = (190, 170, 110)
METER_VALUE: Color = (255, 226, 120)

BUTTON_LIT: Color = (240, 190, 40)
BUTTON_LIT_TEXT: Color = (30, 20, 0)
BUTTON_LIT_EDGE: Color = (255, 240, 170)
BUTTON_GREY: Color = (70, 78, 74)
BUTTON_GREY_TEXT: Color = (140, 148, 144)
BUTTON_GREY_EDGE: Color = (96, 104, 100)
BUTTON_RED: Color = (190, 40, 40)

ACTIVE_GLOW: Color = (255, 214, 64)
WIN: Color = (60, 200, 90)
LOSE: Color = (210, 50, 50)
PUSH: Color = (90, 140, 210)
BLACKJACK: Color = (255, 200, 40)

OVERLAY_DIM: Color = (0, 0, 0, 150)
OVERLAY_PANEL: Color = (20, 20, 26)
WARNING: Color = (255, 170, 0)
DANGER: Color = (220, 40, 40)

#: chip value (minor units) -> (body, edge spots, value ink) colours: the casino
#: pattern (white $1, red $5, green $25, black $100, purple $500, yellow $1000).
CHIP_COLORS: dict[int, tuple[Color, Color, Color]] = {
    100: ((236, 236, 232), (36, 84, 184), (28, 58, 140)),
    500: ((192, 26, 36), (250, 250, 246), (170, 18, 30)),
    2_500: ((26, 132, 58), (250, 250, 246), (18, 100, 42)),
    10_000: ((28, 28, 32), (246, 246, 240), (24, 24, 28)),
    50_000: ((104, 38, 146), (250, 222, 100), (92, 30, 130)),
    100_000: ((238, 176, 36), (124, 58, 12), (110, 50, 8)),
}
CHIP_OTHER: tuple[Color, Color, Color] = ((120, 124, 134), (240, 240, 240), (70, 74, 84))
#: the light inlay disc at a chip's centre, under its value
CHIP_INLAY: Color = (246, 240, 224)

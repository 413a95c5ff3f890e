"""The felt: card and chip art to a commercial standard, cached, credited.

The card_gallery goldens are written here, not by test_screenshots.py:
``UPDATE_GOLDENS=1 pytest tests/ui/test_screenshots.py tests/ui/test_card_art.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from tests.ui.card_gallery import GALLERY_CHIPS, draw_gallery
from tests.ui.test_screenshots import GOLDEN, MAX_DIFF_SHARE, SIZES, diff_pixels
from ui import theme
from ui.assets import ASSET_DIR, AssetError, Fonts
from ui.cards import ART_FILES, CardArt, all_codes, load_art, shadow_pad
from ui.chips import ChipArt, chip_colors

#: card sizes (w, h) the layouts ask for at 1920x1080, 1280x720 and 800x480
TABLE_CARD_SIZES = [
    (150, 210),
    (113, 159),
    (85, 120),
    (59, 84),
    (42, 59),
    (100, 140),
    (56, 80),
    (28, 39),
    (62, 88),
    (47, 66),
    (35, 50),
    (17, 24),
]
TABLE_CHIP_SIZES = [64, 62, 50, 41, 27, 18, 11]


@pytest.fixture(scope="module")
def fonts() -> Fonts:
    return Fonts()


def test_every_card_draws_at_every_table_size(fonts: Fonts) -> None:
    """Every code 2-9,T,J,Q,K,A x SHDC (and the back) draws at the layouts' sizes,
    each sprite the card plus its shadow pad."""
    art = CardArt(fonts)
    codes = all_codes()
    assert len(codes) == 52 and len(set(codes)) == 52
    for w, h in TABLE_CARD_SIZES:
        for code in [*codes, "back"]:
            s = art.back(w, h) if code == "back" else art.face(code, w, h)
            assert s.get_size() == (w + shadow_pad(w), h + shadow_pad(w)), (code, w, h)


def test_card_sprites_are_cached(fonts: Fonts) -> None:
    """The second draw of a card is the same Surface object (no per-frame cost)."""
    art = CardArt(fonts)
    assert art.face("KS", 113, 159) is art.face("KS", 113, 159)
    assert art.back(113, 159) is art.back(113, 159)
    assert art.face("KS", 113, 159) is not art.face("KS", 112, 159)


def test_chip_sprites_are_cached_and_sized(fonts: Fonts) -> None:
    """Chip top and side views are cached and keep their geometry."""
    chips = ChipArt(fonts)
    for v in GALLERY_CHIPS:
        for d in TABLE_CHIP_SIZES:
            top = chips.chip(v, d)
            assert top.get_size() == (d, d)
            assert chips.chip(v, d) is top
            side = chips.side(v, d)
            assert side.get_size() == (d, max(2, (int(d * 2 * 0.5) + int(d * 2 * 0.1)) // 2))
            assert chips.side(v, d) is side
            assert chips.chip(v, d, edge_only=True) is not top


def test_chip_colours_are_the_casino_pattern() -> None:
    """White $1, red $5, green $25, black $100, purple $500, yellow $1000."""

    def hue(c: tuple[int, ...]) -> str:
        r, g, b = c[:3]
        if min(r, g, b) > 200:
            return "white"
        if max(r, g, b) < 50:
            return "black"
        if r > 200 and g > 150 and b < 80:
            return "yellow"
        if r > 150 and g < 60 and b < 60:
            return "red"
        if g > r and g > b:
            return "green"
        if b > g and r > g:
            return "purple"
        return "?"

    got = {v: hue(chip_colors(v)[0]) for v in (100, 500, 2_500, 10_000, 50_000, 100_000)}
    assert got == {100: "white", 500: "red", 2_500: "green", 10_000: "black", 50_000: "purple", 100_000: "yellow"}


def test_chip_shows_its_value_on_a_light_inlay(fonts: Fonts) -> None:
    """The centre of a red $5 chip is its light inlay with red ink, the rim red."""
    chip = ChipArt(fonts).chip(500, 80)
    ring = [chip.get_at((int(40 + 35 * c), int(40 + 35 * s))) for c, s in ((1, 0), (0, 1), (-1, 0), (0, -1))]
    assert any(p.r > 150 and p.g < 80 for p in ring), ring  # red body shows on the rim
    inlay = chip.get_at((40, 40 - 18))  # inside the inlay's fine line, above the value
    assert min(inlay.r, inlay.g, inlay.b) > 200, inlay
    value = [chip.get_at((x, 40)) for x in range(30, 50)]
    assert any(p.r > 120 and p.g < 60 for p in value), value  # the "5" in red ink


def test_art_files_exist_load_and_are_licensed() -> None:
    """The court, ace and pip PNGs exist and load; the licence names the source."""
    for rel in ART_FILES.values():
        assert (ASSET_DIR / rel).is_file(), rel
    art = load_art()
    assert set(art) == set(ART_FILES)
    for name, surf in art.items():
        assert surf.get_bitsize() == 32, name
        assert min(surf.get_size()) >= 128, name
    lic = (ASSET_DIR / "cards" / "LICENSE").read_text()
    assert "Byron Knoll" in lic and "public domain" in lic
    total = sum(p.stat().st_size for p in (ASSET_DIR / "cards").glob("*.png"))
    assert total < 3_000_000, total


def test_missing_art_fails_loudly(fonts: Fonts, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing art file is an AssetError naming it, not a silent blank card."""
    import ui.cards as cards_mod

    monkeypatch.setitem(cards_mod.ART_FILES, "court_KS", "cards/nope.png")
    with pytest.raises(AssetError, match="nope.png"):
        CardArt(fonts).face("KS", 113, 159)


def test_court_art_never_covers_the_index(fonts: Fonts) -> None:
    """On every court card the index corners show only card face and index ink:
    no court-art colour (gold, blue) lands in the index boxes."""
    art = CardArt(fonts)
    for w, h in [(150, 210), (47, 66)]:
        for code in [r + s for r in "JQK" for s in "SHDC"]:
            s = art.face(code, w, h)
            ink = pygame.Color(*theme.CARD_RED) if code[1] in "HD" else pygame.Color(*theme.CARD_BLACK)
            for x0, y0 in ((1, 1), (w - int(w * 0.2), h - int(h * 0.32))):
                for x in range(max(3, x0 + 1), min(w - 3, x0 + int(w * 0.19) - 1)):
                    for y in range(max(3, y0 + 2), min(h - 3, y0 + int(h * 0.3) - 2)):
                        p = s.get_at((x, y))
                        r = w * 0.08  # the rounded corners and their edge line
                        cx, cy = min(max(x, r), w - r), min(max(y, r), h - r)
                        if p.a < 255 or (x - cx) ** 2 + (y - cy) ** 2 > (r - 3) ** 2:
                            continue
                        face = pygame.Color(*theme.CARD_FACE)
                        # every pixel is a blend of face and ink: its channels stay between them
                        for ch in range(3):
                            lo, hi = sorted((face[ch], ink[ch]))
                            assert lo - 40 <= p[ch] <= hi + 40, (code, w, (x, y), p)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_card_gallery_golden(fonts: Fonts, size: tuple[int, int], tmp_path: Path) -> None:
    """The card gallery (52 faces, back, each chip, a hand at table sizes) for sign-off."""
    surf = pygame.Surface(size)
    draw_gallery(surf, fonts, CardArt(fonts), ChipArt(fonts))
    path = GOLDEN / f"card_gallery_{size[0]}x{size[1]}.png"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        pygame.image.save(surf, str(path))
        return
    assert path.exists(), f"no golden {path.name}; run with UPDATE_GOLDENS=1 and look at it"
    bad = diff_pixels(surf, pygame.image.load(str(path)))
    if bad > MAX_DIFF_SHARE * size[0] * size[1]:
        out = tmp_path / path.name
        pygame.image.save(surf, str(out))
        pytest.fail(f"{path.name}: {bad} pixels differ (actual frame saved to {out})")


def _first_ink_run(s: pygame.Surface, w: int, h: int) -> int:
    """Rows in the first unbroken run, from the top, that hold index ink left of 0.62 w."""
    rows = [
        any(s.get_at((x, y)).a == 255 and min(s.get_at((x, y))[:3]) < 140 for x in range(1, int(w * 0.62)))
        for y in range(1, h - 1)
    ]
    start = rows.index(True)
    run = 0
    while start + run < len(rows) and rows[start + run]:
        run += 1
    return run


@pytest.mark.parametrize(("size", "share"), [((17, 24), 0.38), ((28, 39), 0.29)])
def test_tiny_cards_get_one_large_index(fonts: Fonts, size: tuple[int, int], share: float) -> None:
    """Cards under MINI_H pixels (history rows, other stations' panels at 800x480)
    draw one index large enough to read: the rank alone is 0.38 (side by side) or 0.29
    (fanned) of the card tall, where the two-corner index was 0.15."""
    w, h = size
    art = CardArt(fonts)
    for code in ["AS", "TS", "7H", "KH", "QC", "JD"]:
        assert _first_ink_run(art.face(code, w, h), w, h) >= int(h * share), code


def test_tiny_fanned_rank_stays_in_view(fonts: Fonts) -> None:
    """On a 28x39 card (fanned hands step 0.36 w) the rank's ink ends left of 0.36 w."""
    art = CardArt(fonts)
    for code in ["TS", "KH", "QC"]:
        s = art.face(code, 28, 39)
        ink_x = [
            x for x in range(28) for y in range(2, 16) if s.get_at((x, y)).a == 255 and min(s.get_at((x, y))[:3]) < 140
        ]
        assert max(ink_x) < int(28 * 0.36) + 1, code


def test_a_card_drawn_in_parts_is_its_sprite_blitted(fonts: Fonts) -> None:
    """``CardArt.blit`` (the opaque middle copied, the rim blended) leaves the very pixels
    a blit of the sprite leaves, over a busy background and clipped at the screen's edge."""
    import random

    art, rnd = CardArt(fonts), random.Random(7)
    bg = pygame.Surface((300, 300))
    for _ in range(2000):
        bg.fill(
            (rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)), (rnd.randrange(300), rnd.randrange(300), 7, 5)
        )
    for code in ("back", "AS", "TH", "KD"):
        for w, h in TABLE_CARD_SIZES[:6]:
            sprite = art.back(w, h) if code == "back" else art.face(code, w, h)
            for at in ((31, 17), (-40, 250), (260, -30)):
                want, got = bg.copy(), bg.copy()
                want.blit(sprite, at)
                art.blit(got, code, w, h, at)
                assert pygame.image.tobytes(got, "RGB") == pygame.image.tobytes(want, "RGB"), (code, w, h, at)
    assert len(art._parts[("AS", 150, 210)]) > 1  # drawn in parts, not as one blend

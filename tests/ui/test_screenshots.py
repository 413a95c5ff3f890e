"""Golden screenshots: every fixture snapshot at 1920x1080, 1280x720 and 800x480.

``UPDATE_GOLDENS=1`` rewrites ``tests/ui/golden/*.png`` instead of comparing.
A frame matches when at most ``MAX_DIFF_SHARE`` of its pixels differ by more
than ``CHANNEL_TOL`` in any channel (smooth-scaling may differ by a unit or
two between CPUs).
"""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from tests.ui.fixtures import CASES, Case
from ui.render import Renderer

GOLDEN = Path(__file__).parent / "golden"
SIZES = [(1920, 1080), (1280, 720), (800, 480)]
CHANNEL_TOL = 24
MAX_DIFF_SHARE = 0.002


def diff_pixels(a: pygame.Surface, b: pygame.Surface, tol: int = CHANNEL_TOL) -> int:
    """Pixels of ``a`` and ``b`` (same size) differing by more than ``tol`` in a channel."""
    a = a.convert(24) if a.get_bitsize() != 24 else a
    b = b.convert(24) if b.get_bitsize() != 24 else b
    if pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB"):
        return 0
    return a.get_width() * a.get_height() - same_mask(a, b, tol).count()


def same_mask(a: pygame.Surface, b: pygame.Surface, tol: int = CHANNEL_TOL) -> pygame.mask.Mask:
    """The pixels of ``a`` and ``b`` (same size) within ``tol`` in every channel."""
    d1 = a.copy()
    d1.blit(b, (0, 0), special_flags=pygame.BLEND_RGB_SUB)
    d2 = b.copy()
    d2.blit(a, (0, 0), special_flags=pygame.BLEND_RGB_SUB)
    d1.blit(d2, (0, 0), special_flags=pygame.BLEND_RGB_ADD)
    return pygame.mask.from_threshold(d1, (0, 0, 0), (tol + 1, tol + 1, tol + 1, 255))


def render(renderer: Renderer, case: Case, size: tuple[int, int]) -> pygame.Surface:
    surf = pygame.Surface(size)
    renderer.draw(
        surf,
        case.snapshot,
        case.now_ms,
        None,
        case.connected,
        case.show_help,
        own_station=case.own_station,
        clock=case.clock,
        language=case.language,
        languages=case.languages,
        notices=case.notices,
    )
    return surf


def _golden_params() -> list[tuple[Case, tuple[int, int]]]:
    """Every case at every size; the operator menu (not a table screen, left
    alone by the table work) at 1920x1080 and 800x480 only."""
    return [(c, s) for c in CASES for s in SIZES if s != (1280, 720) or c.snapshot.mode != "maintenance"]


@pytest.mark.parametrize(
    ("case", "size"), _golden_params(), ids=lambda v: v.name if isinstance(v, Case) else f"{v[0]}x{v[1]}"
)
def test_golden(renderer: Renderer, case: Case, size: tuple[int, int], tmp_path: Path) -> None:
    surf = render(renderer, case, size)
    path = GOLDEN / f"{case.name}_{size[0]}x{size[1]}.png"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        GOLDEN.mkdir(exist_ok=True)
        pygame.image.save(surf, str(path))
        return
    assert path.exists(), f"no golden {path.name}; run with UPDATE_GOLDENS=1 and look at it"
    golden = pygame.image.load(str(path))
    assert golden.get_size() == surf.get_size()
    bad = diff_pixels(surf, golden)
    if bad > MAX_DIFF_SHARE * size[0] * size[1]:
        out = tmp_path / path.name
        pygame.image.save(surf, str(out))
        pytest.fail(f"{path.name}: {bad} pixels differ (actual frame saved to {out})")


def test_render_is_deterministic(renderer: Renderer) -> None:
    case = next(c for c in CASES if c.name == "multi_play_split")
    a = render(renderer, case, (800, 480))
    b = render(Renderer(), case, (800, 480))
    assert diff_pixels(a, b, 0) == 0


def test_other_resolutions_and_portrait(renderer: Renderer) -> None:
    """1280x800 letterboxes the landscape layout; 1080x1920 uses the portrait one; nothing raises."""
    for size in [(1280, 800), (1080, 1920), (480, 800)]:
        for case in CASES:
            surf = pygame.Surface(size)
            hits = renderer.draw(
                surf,
                case.snapshot,
                case.now_ms,
                None,
                case.connected,
                case.show_help,
                language=case.language,
                languages=case.languages,
                own_station=case.own_station,
            )
            for h in hits:
                assert surf.get_rect().contains(h.rect), (case.name, size, h)


def test_hitboxes_follow_lamps(renderer: Renderer) -> None:
    case = next(c for c in CASES if c.name == "classic_insurance")
    hits = renderer.draw(pygame.Surface((1920, 1080)), case.snapshot, 0)
    by_action = {h.action: h for h in hits}
    assert by_action["insure"].lit and by_action["decline"].lit
    assert not by_action["hit"].lit
    assert by_action["ui:help"].lit
    # the table is 1:1 at 1920x1080, so hit boxes sit where they are drawn
    assert all(h.rect.w > 20 and h.rect.h > 20 for h in hits)

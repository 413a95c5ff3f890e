"""The attract loop repaints only what changes (idle under 2 % of a core)."""

from __future__ import annotations

import pygame

from tests.ui.fixtures import ATTRACT
from tests.ui.test_screenshots import diff_pixels
from ui.render import Renderer
from ui.scenes import attract


def test_attract_repainted_piecewise_equals_a_full_repaint_through_the_loop() -> None:
    """Every frame of a whole attract loop drawn piecewise on one surface
    matches the same instant drawn whole on a fresh one, while the piecewise frames
    repaint on average under a tenth of the screen."""
    size = (800, 480)
    live = pygame.Surface(size)
    r = Renderer()
    full = Renderer()
    areas = []
    t = 20_000
    end = t + attract.CYCLE_MS
    while t < end:
        r.draw(live, ATTRACT, t)
        if r.last_dirty is not None:
            areas.append(sum(d.w * d.h for d in r.last_dirty))
        whole = pygame.Surface(size)
        full.draw(whole, ATTRACT, t)
        assert full.last_dirty is None
        assert diff_pixels(live, whole) <= 0.001 * size[0] * size[1], t
        t = attract.next_change_ms(t)
    assert len(areas) > 50
    assert sum(areas) / len(areas) < 0.1 * size[0] * size[1]


def test_attract_sleeps_between_changes() -> None:
    """With the cards at rest the next attract frame is due at the next
    blink or glow step (not 33 ms later); while cards fly it is 33 ms."""
    rest = 2 * attract.CYCLE_MS + 5_000  # the fan lies still, the BLACKJACK pill shown
    assert attract.next_change_ms(rest) - rest >= 200
    flying = 2 * attract.CYCLE_MS + attract.DEAL_START_MS + 100
    assert attract.next_change_ms(flying) - flying == attract.MOTION_FRAME_MS
    changes, t = 0, 0
    while t < attract.CYCLE_MS:
        t = attract.next_change_ms(t)
        changes += 1
    assert changes < 0.65 * attract.CYCLE_MS / attract.MOTION_FRAME_MS  # was 242 frames a loop


def test_an_exposed_window_is_repainted_whole() -> None:
    """After ``invalidate`` (a window exposed) the next attract frame is whole."""
    live = pygame.Surface((640, 360))
    r = Renderer()
    r.draw(live, ATTRACT, 25_000)
    r.draw(live, ATTRACT, 25_010)
    assert r.last_dirty is not None
    r.invalidate()
    r.draw(live, ATTRACT, 25_020)
    assert r.last_dirty is None


def test_a_pulsing_overlay_repaints_only_its_panel() -> None:
    """Idle under 2 % of a core (printing was 3.3 % at 1080p): over a table at rest, the
    printing panel's pulse repaints only the panel, and each frame still equals the
    same instant drawn whole."""
    from tests.ui.fixtures import CASES

    snap = next(c.snapshot for c in CASES if c.name == "overlay_printing")
    size = (800, 480)
    live = pygame.Surface(size)
    r = Renderer()
    areas = []
    for t in range(0, 4000, 400):
        r.draw(live, snap, t)
        if r.last_dirty is not None:
            areas.append(sum(d.w * d.h for d in r.last_dirty))
        whole = pygame.Surface(size)
        Renderer().draw(whole, snap, t)
        assert diff_pixels(live, whole) <= 0.001 * size[0] * size[1], t
    assert len(areas) == 9 and max(areas) < 0.5 * size[0] * size[1]

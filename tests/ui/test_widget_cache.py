"""The consoles' meters and buttons drawn from the renderer's pixel cache are the very
pixels drawn afresh: every table fixture and the frames of two settlements."""

from __future__ import annotations

import pygame

from tests.ui import fixtures_motion as fm
from tests.ui.fixtures import CASES, MULTI_PLAY
from tests.ui.test_screenshots import render
from ui.animation import Animator
from ui.render import Renderer


def _pixels(s: pygame.Surface) -> bytes:
    return pygame.image.tobytes(s, "RGB")


def test_every_table_fixture_from_the_cache_equals_a_fresh_drawing() -> None:
    kept, size = Renderer(), (1280, 720)
    cases = [c for c in CASES if c.snapshot.mode not in ("maintenance", "attract")]
    fresh = [_pixels(render(Renderer(), c, size)) for c in cases]
    for _ in range(2):  # the second pass draws from the cache
        for case, want in zip(cases, fresh, strict=True):
            assert _pixels(render(kept, case, size)) == want, case.name
    assert kept._widgets  # the cache was used


def test_settlement_frames_from_the_cache_equal_fresh_drawings() -> None:
    for settled in (fm.MULTI_DOUBLED, fm.AMERICAN_BIG):
        before = fm.unsettled(settled)
        kept, anim, fresh_anim = Renderer(), Animator(), Animator()
        kept.draw(pygame.Surface((1920, 1080)), before, 0, anim)
        anim.on_snapshot(before, settled, 0)
        fresh_anim.on_snapshot(before, settled, 0)
        t = 0
        while anim.busy(t):
            a, b = pygame.Surface((1920, 1080)), pygame.Surface((1920, 1080))
            ha = kept.draw(a, settled, t, anim)
            hb = Renderer().draw(b, settled, t, fresh_anim)
            assert _pixels(a) == _pixels(b), t
            assert ha == hb
            t += 200


def test_a_lamp_lit_again_is_drawn_lit() -> None:
    """A button's cached pixels follow its lamp: the same table with Deal lit and not."""
    st = MULTI_PLAY.stations[0]
    dark = MULTI_PLAY.__class__(
        **{
            **{f: getattr(MULTI_PLAY, f) for f in MULTI_PLAY.__struct_fields__},
            "stations": [
                st.__class__(**{**{f: getattr(st, f) for f in st.__struct_fields__}, "lamps": []}),
                *MULTI_PLAY.stations[1:],
            ],
        }
    )
    kept = Renderer()
    for snap in (MULTI_PLAY, dark, MULTI_PLAY, dark):
        a, b = pygame.Surface((1280, 720)), pygame.Surface((1280, 720))
        kept.draw(a, snap, 0)
        Renderer().draw(b, snap, 0)
        assert _pixels(a) == _pixels(b)


def _unlayered() -> Renderer:
    r = Renderer()
    r.layered = False
    return r


def test_every_table_fixture_over_the_table_layer_equals_a_drawing_without_it() -> None:
    size = (1920, 1080)
    cases = [c for c in CASES if c.snapshot.mode not in ("maintenance", "attract")]
    kept, layered = Renderer(), 0
    for case in cases:
        want = _pixels(render(_unlayered(), case, size))
        assert _pixels(render(kept, case, size)) == want, case.name  # a snapshot's first frame: whole
        assert _pixels(render(kept, case, size)) == want, case.name  # its next: over its layer
        layered += kept._layer is not None and kept._layer[0][2] == id(case.snapshot)
    assert layered > len(cases) // 2  # the layer was used


def test_animated_frames_over_the_table_layer_equal_drawings_without_it() -> None:
    """Cards dealt and settlements with chips flying and meters counting: every frame the
    same over the layer (consoles drawn once) as drawn whole."""
    from bench.deadlines import _busiest

    pairs = [(fm.unsettled(s), s) for s in (fm.MULTI_DOUBLED, fm.AMERICAN_BIG)] + [_busiest()]
    for before, after in pairs:
        kept, plain = Renderer(), _unlayered()
        anim, plain_anim = Animator(), Animator()
        a, b = pygame.Surface((1920, 1080)), pygame.Surface((1920, 1080))
        kept.draw(a, before, 0, anim)
        plain.draw(b, before, 0, plain_anim)
        anim.on_snapshot(before, after, 0)
        plain_anim.on_snapshot(before, after, 0)
        t = 0
        while anim.busy(t) or t <= 200:
            ha = kept.draw(a, after, t, anim)
            hb = plain.draw(b, after, t, plain_anim)
            assert _pixels(a) == _pixels(b), t
            assert ha == hb
            t += 50

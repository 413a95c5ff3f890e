"""The UI's part of the Diagnostics pages: the screen colour and touch test
(colour bars, a touch grid, touched squares shown) and the sound test (played on its
cue; "no audio device" said when the display has none)."""

from __future__ import annotations

import pygame

from cabinet.protocol.ipc import Cue
from cabinet.protocol.snapshot import MaintenanceView, Snapshot
from ui.app import App
from ui.scenes.maintenance import GRID_COLS, GRID_ROWS, TOUCHED


def _snap(page: str, title: str, seq: int = 1) -> Snapshot:
    return Snapshot(
        seq=seq,
        mode="maintenance",
        variant="classic",
        variant_name="Classic Blackjack",
        maintenance=MaintenanceView(
            page=page, title=title, lines=["x"], items=["Play: win"] if page == "diag_sound" else []
        ),
    )


def test_screen_test_touch_marks_the_square_touched_and_back_leaves() -> None:
    """Every square of the grid is a touch target; a touch turns it green
    (drawn by the UI, nothing sent to the engine); BACK sends ``menu_back``."""
    app = App(pygame.Surface((800, 480)), None)
    app.feed([_snap("diag_screen", "Screen colour and touch test")], 0)
    app.draw(0)
    squares = [h for h in app.hits if h.action.startswith("ui:touch:")]
    assert len(squares) == GRID_COLS * GRID_ROWS
    target = squares[9]
    sent = app.handle_input(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=target.rect.center))
    assert sent == [] and app.renderer.diag.touched == {9}
    app.draw(1)
    assert app._canvas.get_at(target.rect.center)[:3] == TOUCHED
    back = next(h for h in app.hits if h.action == "menu_back")
    sent = app.handle_input(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=back.rect.center))
    assert [i.action for i in sent] == ["menu_back"]
    app.feed([_snap("diagnostics", "Diagnostics", 2)], 2)
    app.draw(2)
    assert app.renderer.diag.touched == set()  # forgotten on another page


def test_sound_test_cue_plays_and_says_no_audio_device_without_one(monkeypatch) -> None:
    """The ``sound_test`` cue plays its sound; with no audio device the page
    says "Audio: no audio device"."""
    from ui.widgets import Painter

    played: list[str] = []
    app = App(pygame.Surface((800, 480)), None)
    monkeypatch.setattr(app.sounds, "play", played.append)
    app.feed([_snap("diag_sound", "Sound test"), Cue(name="sound_test", data={"sound": "win"})], 0)
    assert played == ["win"]
    seen: list[str] = []
    real = Painter.text
    monkeypatch.setattr(Painter, "text", lambda self, s, *a, **kw: (seen.append(s), real(self, s, *a, **kw))[1])
    app.draw(0)
    assert "Audio: no audio device" in seen
    app.renderer.diag.audio = True
    seen.clear()
    app.draw(1)
    assert "Audio: ready" in seen and "Audio: no audio device" not in seen

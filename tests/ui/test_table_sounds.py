"""Sound: deal, chip, win and button sounds at the operator's volume; with
no audio device the table stays silent and says so once in the log."""

from __future__ import annotations

import logging
import subprocess
import sys
from types import SimpleNamespace

import msgspec
import pygame
import pytest

from tests.ui.fixtures import CLASSIC_BETTING, CLASSIC_INSURANCE, CLASSIC_PUSH, hand
from ui import sound
from ui.app import App
from ui.sound import Sounds, synth


def _app(monkeypatch: pytest.MonkeyPatch) -> tuple[App, list[tuple[str, float]]]:
    app = App(pygame.Surface((1280, 720)), None)
    played: list[tuple[str, float]] = []
    monkeypatch.setattr(app.sounds, "play", lambda name: played.append((name, app.sounds.volume)))
    return app, played


def test_each_table_event_plays_its_sound_at_the_volume(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bet placed plays the chip, a card dealt the deal sound, a win the win
    sound, each at the operator's volume (``volume_percent``)."""
    app, played = _app(monkeypatch)
    quiet = msgspec.structs.replace(
        CLASSIC_BETTING,
        seq=1,
        volume_percent=40,
        stations=[msgspec.structs.replace(CLASSIC_BETTING.stations[0], bet_minor=0, spots=[])],
    )
    app.feed([quiet], 0)
    app.feed([msgspec.structs.replace(CLASSIC_BETTING, seq=2, volume_percent=40)], 10)
    assert played == [("chip", 0.4)]
    app.feed([msgspec.structs.replace(CLASSIC_INSURANCE, seq=3, volume_percent=40)], 20)
    assert played[-1] == ("card", 0.4)
    won = msgspec.structs.replace(
        CLASSIC_PUSH,
        seq=4,
        volume_percent=40,
        stations=[
            msgspec.structs.replace(
                CLASSIC_PUSH.stations[0],
                spots=[
                    msgspec.structs.replace(
                        CLASSIC_PUSH.stations[0].spots[0],
                        hands=[hand(["TH", "9C"], 500, "19", outcome="win", returned_minor=1_000)],
                    )
                ],
            )
        ],
    )
    app.feed([won], 30)
    assert ("win", 0.4) in played


def test_a_button_touch_clicks_at_the_volume(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every button touched plays the button sound once (a touch on the bare
    felt, nothing); none at volume 0."""
    app, played = _app(monkeypatch)
    app.feed([msgspec.structs.replace(CLASSIC_BETTING, volume_percent=55)], 0)
    app.draw(0)
    deal = next(h for h in app.hits if h.action == "deal")
    app.handle_input(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=deal.rect.center, button=1))
    assert played == [("button", 0.55)]
    app.handle_input(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(640, 420), button=1))
    assert played == [("button", 0.55)]
    assert "button" in Sounds.NAMES
    samples = synth("button")
    assert 200 < len(samples) < 2_000 and max(samples) > 1000


def test_no_audio_device_is_silent_and_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """ "silent and quiet in the log where the machine has no audio device":
    one line, however many players and plays."""
    monkeypatch.setattr(sound, "_told", False)
    monkeypatch.setattr(sound, "_sound_card_missing", lambda *a: "no sound card found")
    # a stand-in mixer: the test holds where pygame's own cannot be imported (no libglib)
    monkeypatch.setattr(pygame, "mixer", SimpleNamespace(get_init=lambda: None))
    with caplog.at_level(logging.DEBUG, logger="ui.sound"):
        for _ in range(3):
            s = Sounds(enabled=True)
            assert not s.available
            for name in Sounds.NAMES:
                s.play(name)
    lines = [r.getMessage() for r in caplog.records if r.name == "ui.sound"]
    assert lines == ["no sound: no sound card found"]


class _MissingMixer:
    """What pygame puts in place of ``pygame.mixer`` when the mixer's import fails (its
    ``MissingModule``): falsy, and every attribute raises ``NotImplementedError``."""

    def __bool__(self) -> bool:
        return False

    def __getattr__(self, name: str) -> object:
        raise NotImplementedError(
            "mixer module not available (ImportError: libglib-2.0.so.0: "
            "cannot open shared object file: No such file or directory)"
        )


def test_a_mixer_that_cannot_import_is_silence_not_a_dead_table(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An image without the mixer's libraries (libglib on Debian minbase): pygame's
    stand-in for the mixer raises ``NotImplementedError`` on use. The table starts
    silent and says why once."""
    monkeypatch.setattr(pygame, "mixer", _MissingMixer())
    monkeypatch.setattr(sound, "_told", False)
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")  # the mixer is tried, not skipped
    with caplog.at_level(logging.DEBUG, logger="ui.sound"):
        for _ in range(2):
            s = Sounds(enabled=True)
            assert not s.available
            for name in Sounds.NAMES:
                s.play(name)
    lines = [r.getMessage() for r in caplog.records if r.name == "ui.sound"]
    assert lines == [
        "no sound: mixer module not available (ImportError: libglib-2.0.so.0: "
        "cannot open shared object file: No such file or directory)"
    ]


@pytest.mark.timeout(60)
def test_the_ui_starts_silent_where_pygame_cannot_import_its_mixer():
    """The same with pygame's own stand-in: a process where ``import pygame.mixer``
    fails (as without libglib) builds its sounds and plays them, silently."""
    code = (
        "import sys; sys.modules['pygame.mixer'] = None\n"
        "import logging; logging.basicConfig(level=logging.INFO, format='%(message)s')\n"
        "from ui.sound import Sounds\n"
        "s = Sounds(enabled=True); s.play('win')\n"
        "print('available', s.available)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1", "PATH": "/usr/bin:/bin"},
    )
    assert (r.returncode, r.stdout) == (0, "available False\n"), r.stderr
    assert (
        "no sound: mixer module not available (ModuleNotFoundError: import of pygame.mixer "
        "halted; None in sys.modules)" in r.stderr
    )


def test_no_sound_card_is_one_quiet_log_line(monkeypatch, caplog):
    """No sound card: silence, one log line, the mixer is never tried."""
    tried = []
    # a stand-in mixer: the test holds where pygame's own cannot be imported (no libglib)
    monkeypatch.setattr(pygame, "mixer", SimpleNamespace(get_init=lambda: None, init=lambda *a, **k: tried.append(1)))
    monkeypatch.setattr(sound, "_sound_card_missing", lambda: "no sound card found")
    monkeypatch.setattr(sound, "_told", False)
    with caplog.at_level(logging.INFO, logger="ui.sound"):
        a = sound.Sounds()
        b = sound.Sounds()
    assert not a.available and not b.available and not tried
    assert [r.getMessage() for r in caplog.records] == ["no sound: no sound card found"]
    a.play("card")  # silent no-op


def test_sound_card_check_reads_proc_asound(tmp_path, monkeypatch):
    """ "--- no soundcards ---" in /proc/asound/cards means no card."""
    monkeypatch.delenv("SDL_AUDIODRIVER", raising=False)
    f = tmp_path / "cards"
    f.write_text("--- no soundcards ---\n")
    assert sound._sound_card_missing(f) == "no sound card found"
    f.write_text(" 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n")
    assert sound._sound_card_missing(f) is None
    assert sound._sound_card_missing(tmp_path / "absent") == "no sound card found"
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    assert sound._sound_card_missing(tmp_path / "absent") is None

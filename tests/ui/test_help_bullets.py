"""Help bullets and sound without a sound card, the UI side."""

from __future__ import annotations

import logging


def test_help_continuation_lines_join_their_bullet():
    """An indented help line continues the bullet above, no new bullet."""
    from ui.scenes.help import bullets

    assert bullets(["Blackjack pays 3 to 2,", "  beats every other 21.", "No surrender."]) == [
        "Blackjack pays 3 to 2, beats every other 21.",
        "No surrender.",
    ]


def test_no_sound_card_is_one_quiet_log_line(monkeypatch, caplog):
    """No sound card: silence, one log line, the mixer is never tried."""
    from types import SimpleNamespace

    import pygame

    from ui import sound

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
    from ui import sound

    monkeypatch.delenv("SDL_AUDIODRIVER", raising=False)
    f = tmp_path / "cards"
    f.write_text("--- no soundcards ---\n")
    assert sound._sound_card_missing(f) == "no sound card found"
    f.write_text(" 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n")
    assert sound._sound_card_missing(f) is None
    assert sound._sound_card_missing(tmp_path / "absent") == "no sound card found"
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    assert sound._sound_card_missing(tmp_path / "absent") is None

"""Tweens from snapshot diffs, sounds, frame pacing: time is always passed in."""

from __future__ import annotations

import msgspec
import pygame

from cabinet.protocol.ipc import Cue
from cabinet.protocol.snapshot import DealerView
from tests.ui.fixtures import AMERICAN_PLAY, AMERICAN_SETTLED, CLASSIC_BETTING, CLASSIC_INSURANCE, hand
from ui.animation import FLIP_MS, SLIDE_MS, Animator
from ui.app import App
from ui.render import Renderer
from ui.sound import Sounds, synth


def test_new_cards_slide_in_deal_order_then_rest() -> None:
    a = Animator()
    sounds = a.on_snapshot(CLASSIC_BETTING, CLASSIC_INSURANCE, 1000)
    assert "card" in sounds
    player0 = ("p", 1, 1, 0, 0)
    dealer0 = ("d", 0)
    assert a.card(player0, 1000) == 0.0
    assert a.card(dealer0, 1000) is not None and a.card(dealer0, 1000) < 0  # still in the shoe
    assert a.busy(1000)
    end = max(t.end_ms() for t in a.cards.values())
    assert a.card(player0, end) is None and not a.busy(end)


def test_hole_card_flips_and_chips_fly_on_settlement() -> None:
    a = Animator()
    revealed = msgspec.structs.replace(AMERICAN_PLAY, seq=40, dealer=DealerView(cards=["TD", "QC"], total_text="20"))
    a.on_snapshot(AMERICAN_PLAY, revealed, 0)
    assert a.flip(("d", 1), FLIP_MS // 2) is not None
    assert a.flip(("d", 1), FLIP_MS) is None
    settled = msgspec.structs.replace(AMERICAN_SETTLED, seq=41)
    before = msgspec.structs.replace(
        settled,
        seq=40,
        stations=[
            msgspec.structs.replace(
                settled.stations[0],
                spots=[
                    msgspec.structs.replace(
                        sp, hands=[msgspec.structs.replace(h, outcome=None, returned_minor=None) for h in sp.hands]
                    )
                    for sp in settled.stations[0].spots
                ],
            )
        ],
    )
    sounds = a.on_snapshot(before, settled, 100)
    assert "blackjack" in sounds
    # The bust swept to the rack, the blackjack paid beside, the push kept
    assert {k[1]: (m.result, m.sweep is not None, m.pay is not None) for k, m in a.settles.items()} == {
        1: ("win", False, True),
        2: ("push", False, False),
        3: ("lose", True, False),
    }


def test_a_new_snapshot_always_wins() -> None:
    """Tweens never hold state back: the latest snapshot is what is drawn, mid-animation too."""
    app = App(pygame.Surface((800, 480)), None)
    app.feed([CLASSIC_BETTING], 0)
    app.feed([CLASSIC_INSURANCE], 10)
    later = msgspec.structs.replace(CLASSIC_INSURANCE, seq=12, message="Dealer checks for Blackjack")
    app.feed([later], 20)
    assert app.snapshot == later
    app.draw(25)  # mid-slide
    assert app.frame_interval_ms(25) == 16
    assert app.frame_interval_ms(10_000) is None  # idle: no frames at all


def test_reconnect_or_resume_does_not_animate_everything() -> None:
    a = Animator()
    assert a.on_snapshot(None, AMERICAN_PLAY, 0) == []
    assert not a.busy(0)
    big = msgspec.structs.replace(
        CLASSIC_INSURANCE,
        seq=99,
        stations=[
            msgspec.structs.replace(
                CLASSIC_INSURANCE.stations[0],
                spots=[
                    msgspec.structs.replace(
                        CLASSIC_INSURANCE.stations[0].spots[0], hands=[hand(["2S"] * 11, 500, "21")]
                    )
                ],
            )
        ],
    )
    a.on_snapshot(CLASSIC_BETTING, big, 0)
    assert not a.cards  # too many at once: drawn at rest


def test_cues_make_sounds_and_unknown_cues_are_ignored() -> None:
    a = Animator()
    assert a.on_cue(Cue(name="bill_stacked", data={"amount_minor": 2000}), 0) == ["chip"]
    assert a.on_cue(Cue(name="sound", data={"name": "win"}), 0) == ["win"]
    assert a.on_cue(Cue(name="something_new"), 0) == []


def test_drawing_mid_animation(renderer: Renderer) -> None:
    a = Animator()
    a.on_snapshot(CLASSIC_BETTING, CLASSIC_INSURANCE, 0)
    surf = pygame.Surface((1920, 1080))
    for t in (0, SLIDE_MS // 2, 2000):
        renderer.draw(surf, CLASSIC_INSURANCE, t, a)


def test_sounds_synthesise_and_stay_silent_without_a_device() -> None:
    for name in Sounds.NAMES:
        samples = synth(name)
        assert 500 < len(samples) < 30_000 and max(samples) > 1000
    s = Sounds(enabled=True)  # dummy audio driver: works or stays silent, never raises
    s.play("card")
    s.play("nonexistent")
    Sounds(enabled=False).play("win")

"""The felt: the snapshot says what a spot's insurance paid back once it
settled at the dealer's peek, so the table can sweep it or pay it at its line."""

from __future__ import annotations

from cabinet.core.settings import GameSettings

from .helpers import Rig


def _insured(stacked: list[list[str]], hole: str) -> tuple[Rig, object]:
    rig = Rig(GameSettings(variant="american"))
    rig.note(10_000)
    stacked.append(["TS", "AC", "7S", hole, "2C", "3C", "4C", "5C"])
    rig.press("chip", 1, 500)
    rig.press("place", 1, 1)
    rig.press("deal")
    before = rig.cab.snapshot(1).stations[0].spots[0]
    assert before.insurance_returned_minor is None and before.insurance_minor == 0
    rig.press("insure")
    return rig, rig.cab.snapshot(1).stations[0].spots[0]


def test_insurance_lost_at_the_peek_shows_nothing_returned(stacked):
    """No dealer Blackjack: the insurance is lost at the peek (0 back) while the
    hand plays on."""
    rig, spot = _insured(stacked, "5D")
    assert rig.cab.snapshot(1).mode == "in_round"
    assert (spot.insurance_minor, spot.insurance_returned_minor) == (250, 0)
    assert spot.hands[0].outcome is None


def test_insurance_won_shows_its_2_to_1_return(stacked):
    """The dealer's Blackjack: the insurance pays 2 to 1 (its stake and twice
    it back: 3x), the hand lost."""
    _, spot = _insured(stacked, "KD")
    assert (spot.insurance_minor, spot.insurance_returned_minor) == (250, 750)
    assert spot.hands[0].outcome == "lose"

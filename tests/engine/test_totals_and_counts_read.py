"""How totals and counts read: the dealer's lone Ace is "1 or 11", and a count of one
is said in the singular."""

from __future__ import annotations

import pytest

from cabinet.core.settings import GameSettings
from cabinet.game import Shoe, ShoeExhausted

from .helpers import Rig


def test_dealer_lone_ace_reads_1_or_11(monkeypatch):
    """The dealer's lone Ace reads "1 or 11", not "11"."""
    monkeypatch.setattr(
        "cabinet.core.play.Shoe.shuffled",
        staticmethod(
            lambda decks, rng=None, penetration_percent=None: Shoe.from_codes(["10S", "AC", "9H", "7S", "2C"], decks)
        ),
    )
    rig = Rig(GameSettings(variant="classic-multi"))
    rig.note(10_000)
    rig.press("chip", 1, 500)
    rig.press("place", 1, 1)
    rig.press("deal")
    assert rig.cab.snapshot(1).dealer.total_text == "1 or 11"


def test_shoe_ran_out_after_one_card_is_singular():
    """ "ran out after 1 card", not "1 cards"."""
    shoe = Shoe.from_codes(["AS"], 1)
    shoe.draw()
    with pytest.raises(ShoeExhausted, match=r"ran out after 1 card$"):
        shoe.draw()

"""The autoplayer: plays a real ``cabinet.game.Round`` with a ``Strategy``.

Owns: ``play_round``, the one loop the simulator and the exhaustive tests
share. Pure apart from the shoe it is handed; imports ``cabinet.game`` only.
Each decision is a couple of dictionary/set look-ups keyed by
``(total, soft, pair value, up value)`` (``Strategy.choose``).
"""

from __future__ import annotations

from cabinet.game import Round, RuleSet, SeatBets, Shoe
from cabinet.game.events import Decision
from cabinet.game.hand import hand_total

from .strategy import Strategy

_SPLIT = Decision.SPLIT


def play_round(rules: RuleSet, shoe: Shoe, strategy: Strategy, bet_minor: int) -> Round:
    """Deal and play one round for one seat with one spot, to the end.

    Args:
        rules: the variant.
        shoe: the cards to deal from (advanced by the round).
        strategy: the basic strategy to follow, insurance included.
        bet_minor: the initial bet in minor units; within the table limits and
            on the bet step (a multiple of 2, so 3:2 is exact).

    Returns:
        The finished ``Round`` (``result()``, ``wagered_minor()``,
        ``returned_minor()`` read the outcome).

    Raises:
        BetError: the bet breaks the table limits.
        ShoeExhausted: the shoe ran out (only with short test shoes).
    """
    rnd = Round(rules, (SeatBets(1, (bet_minor,)),), shoe)
    rnd.start()
    up = rnd.dealer_cards[0].value
    choose = strategy.choose
    while True:
        prompt = rnd.prompt
        if prompt is None:
            return rnd
        if prompt.kind == "insurance":
            rnd.decide(strategy.choose_insurance())
            continue
        cards = rnd.spots[prompt.spot - 1].hands[prompt.hand - 1].cards
        total, soft = hand_total(cards)
        legal = prompt.legal
        pair = cards[0].value if _SPLIT in legal else 0
        rnd.decide(choose(total, soft, pair, up, legal))

"""The autoplayer: plays a real ``cabinet.game.Round`` with a ``Strategy``.

Owns: ``play_round``, the one loop the simulator and the exhaustive tests
share. Pure apart from the shoe it is handed; imports ``cabinet.game`` only.
Each decision is a couple of dictionary/set look-ups keyed by
``(total, soft, pair value, up value)`` (``Strategy.choose``). The round is
made with ``record=False``: the same rules, cards and decisions, without the
events and the history that only the cabinet's journal and recall read.
"""

from __future__ import annotations

from cabinet.game import Round, RuleSet, SeatBets, Shoe
from cabinet.game.events import Decision
from cabinet.game.hand import hand_total

from .strategy import Strategy

_SPLIT = Decision.SPLIT

#: ``(SeatBets(1, (bet,)),)`` per bet: a frozen value, built once per bet size
#: instead of once per round (about a microsecond each).
_SEATS: dict[int, tuple[SeatBets]] = {}


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
        ``returned_minor()`` read the outcome; ``history`` is empty).

    Raises:
        BetError: the bet breaks the table limits.
        ShoeExhausted: the shoe ran out (only with short test shoes).
    """
    seats = _SEATS.get(bet_minor)
    if seats is None:
        seats = _SEATS[bet_minor] = (SeatBets(1, (bet_minor,)),)
    rnd = Round(rules, seats, shoe, record=False)  # no events, no history: nobody reads them
    rnd.start()
    prompt = rnd.prompt
    if prompt is None:
        return rnd
    up = rnd.dealer_cards[0].value
    choose = strategy.choose
    decide = rnd.decide
    hands = rnd.spots[0].hands  # one spot: every prompt is about this spot
    while prompt is not None:
        if prompt.kind == "insurance":
            decide(strategy.choose_insurance())
        else:
            cards = hands[prompt.hand - 1].cards
            total, soft = hand_total(cards)
            legal = prompt.legal
            decide(choose(total, soft, cards[0].value if _SPLIT in legal else 0, up, legal))
        prompt = rnd.prompt
    return rnd

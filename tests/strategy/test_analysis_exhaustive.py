"""The analysis against exhaustive play of the real ``Round`` on tiny shoes.

For a fixed deal (player's two cards and the up card) and a handful of cards
left, every ordering of those cards is played through ``cabinet.game.Round``
with the same strategy; the average net result must equal ``deal_ev`` to
float precision. This checks the check/no-check handling, the late dealer
blackjack taking the whole stake in ``classic``, doubles, splits (including
the claim that two split hands are valued exactly), insurance, and the
hole card of ``american``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from cabinet.game import Shoe, parse_cards, preset
from cabinet.strategy import Strategy, deal_ev
from cabinet.strategy.autoplay import play_round

from .conftest import simple_strategy

BET = 200


def exhaustive(variant: str, deal: str, rest: str, strategy: Strategy) -> Fraction:
    """Average net per unit bet over every order of ``rest`` after ``deal``."""
    rules = preset(variant)
    fixed = parse_cards(deal.split())
    cards = parse_cards(rest.split())
    net = 0
    n = 0
    for order in itertools.permutations(cards):
        rnd = play_round(rules, Shoe(fixed + list(order)), strategy, BET)
        net += rnd.returned_minor() - rnd.wagered_minor()
        n += 1
    return Fraction(net, n * BET)


def analysed(variant: str, deal: str, rest: str, strategy: Strategy) -> float:
    all_cards = parse_cards(deal.split() + rest.split())
    counts = tuple(sum(1 for c in all_cards if c.value == v) for v in range(1, 11))
    p1, up, p2 = (c.value for c in parse_cards(deal.split()))
    return deal_ev(preset(variant), counts, (p1, p2), up, strategy)


CASES = [
    # variant, deal (p1 up p2), rest of the shoe, why
    ("classic", "TS TH 6D", "AS 2S 3S 4S 5S 9S KS", "hit 16 v T, no check: late BJ"),
    ("classic", "5S TH 6D", "AS 2S 3S 4S 9S KS 7S", "double 11 v T loses 2 to late BJ"),
    ("classic", "8S 6H 8D", "TS 9S KS 7S AS 2S QS", "split 8s, no DAS, played on"),
    ("classic", "AS 7H AD", "TS 9S KS 5S 8S QS JS", "split Aces played on (not BJ)"),
    ("classic", "7S AH 5D", "TS KS 2S 3S 9S 4S 6S", "Ace up: checked, insurance declined"),
    ("classic", "AS TH KD", "AH 2S 3S 9S 4S 6S 7S", "player BJ waits on a ten up"),
    ("classic-multi", "9S TH 7D", "AS TS 2S 3S 4S 5S 8S", "check on ten"),
    ("classic-multi", "AS 7H AD", "TS 9S 2S 3S KS 5S 6S", "split Aces one card"),
    ("classic-multi", "8S 6H 8D", "3S 2S TS KS 9S 4S QS", "double after split"),
    ("american", "TS AH 5D", "TS 5S 6S 2S 3S 4S 9S", "hole card, Ace up"),
    ("american", "9S TH 2D", "AS TS 5S 3S 4S 8S 7S", "hole card, ten up, double 11"),
]


@pytest.mark.parametrize("variant,deal,rest,why", CASES, ids=[c[3] for c in CASES])
def test_deal_ev_equals_exhaustive_play(variant: str, deal: str, rest: str, why: str) -> None:
    strategy = simple_strategy()
    assert analysed(variant, deal, rest, strategy) == pytest.approx(
        float(exhaustive(variant, deal, rest, strategy)), abs=1e-12
    )


def test_insurance_taken_is_priced_exactly() -> None:
    strategy = simple_strategy(insurance=True)
    deal, rest = "TS AH 5D", "TS KS 6S 2S 3S 4S 9S"
    assert analysed("american", deal, rest, strategy) == pytest.approx(
        float(exhaustive("american", deal, rest, strategy)), abs=1e-12
    )


def test_split_tens_by_value_in_american() -> None:
    base = simple_strategy()
    strategy = Strategy("t", base.hit, base.double, base.split | {(10, u) for u in range(1, 11)})
    deal, rest = "KS 6H QD", "TS 9S 8S 5S 7S JS AS"
    assert analysed("american", deal, rest, strategy) == pytest.approx(
        float(exhaustive("american", deal, rest, strategy)), abs=1e-12
    )

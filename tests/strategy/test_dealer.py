"""Dealer final-total probabilities against hand calculation and brute force."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from cabinet.strategy.dealer import (
    BLACKJACK,
    BUST,
    DealerModel,
    dealer_table,
    remove,
    shoe_counts,
)


def _brute_force(up: int, values: list[int]) -> list[Fraction]:
    """Every ordering of the remaining cards; the dealer draws from the front."""
    tally: Counter[int] = Counter()
    perms = 0
    for order in itertools.permutations(values):
        perms += 1
        hard, ace, n = up, up == 1, 1
        for v in order:
            hard += v
            ace = ace or v == 1
            n += 1
            total = hard + 10 if ace and hard <= 11 else hard
            if n == 2 and total == 21:
                tally[BLACKJACK] += 1
                break
            if total > 21:
                tally[BUST] += 1
                break
            if total >= 17:
                tally[total - 17] += 1
                break
        else:  # pragma: no cover - compositions below never run out
            raise AssertionError("ran out of cards")
    return [Fraction(tally[o], perms) for o in range(7)]


def _counts(values: list[int]) -> tuple[int, ...]:
    return tuple(values.count(v) for v in range(1, 11))


def test_hand_worked_example() -> None:
    # Up 7, shoe {T, A, 5}: T -> 17; A -> soft 18; 5 -> 12, then T or A+T bust.
    model = DealerModel(7, (1, 0, 0, 0, 1, 0, 0, 0, 0, 1))
    p = model.distribution((1, 0, 0, 0, 1, 0, 0, 0, 0, 1))
    assert p == pytest.approx([1 / 3, 1 / 3, 0, 0, 0, 1 / 3, 0], abs=1e-15)


def test_blackjack_is_the_second_card_only() -> None:
    # Up A with {T, T, 5}: BJ 2/3; 5 -> soft 16 -> T -> hard 16 -> T -> bust.
    p = DealerModel(1, (0, 0, 0, 0, 1, 0, 0, 0, 0, 2)).distribution((0, 0, 0, 0, 1, 0, 0, 0, 0, 2))
    assert p[BLACKJACK] == pytest.approx(2 / 3)
    assert p[BUST] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "up,values",
    [
        (6, [10, 10, 1, 2, 3, 5, 9, 4]),
        (2, [2, 2, 3, 4, 5, 6, 1, 1]),
        (1, [10, 6, 5, 1, 2, 3, 10, 9]),
        (10, [1, 6, 2, 3, 4, 10, 7, 1]),
        (5, [1, 1, 1, 2, 2, 3, 4, 10]),
    ],
)
def test_small_shoe_matches_full_enumeration(up: int, values: list[int]) -> None:
    counts = _counts(values)
    model = DealerModel(up, counts)
    expected = [float(x) for x in _brute_force(up, values)]
    assert model.distribution(counts) == pytest.approx(expected, abs=1e-13)
    assert model.distribution_reference(counts) == pytest.approx(expected, abs=1e-13)


def _recursive(up: int, counts: list[int]) -> list[float]:
    """Independent check: the textbook recursion over ordered draws."""
    out = [0.0] * 7

    def rec(hard: int, ace: bool, n: int, p: float) -> None:
        total = hard + 10 if ace and hard <= 11 else hard
        if n == 2 and total == 21:
            out[BLACKJACK] += p
        elif total > 21:
            out[BUST] += p
        elif total >= 17:
            out[total - 17] += p
        else:
            left = sum(counts)
            for i, c in enumerate(counts):
                if c:
                    counts[i] -= 1
                    rec(hard + i + 1, ace or i == 0, n + 1, p * c / left)
                    counts[i] += 1

    rec(up, up == 1, 1, 1.0)
    return out


@pytest.mark.parametrize("up", [1, 6, 10])
def test_one_deck_matches_textbook_recursion(up: int) -> None:
    rest = remove(shoe_counts(1), up)
    assert DealerModel(up, rest).distribution(rest) == pytest.approx(_recursive(up, list(rest)), abs=1e-13)


def test_table_sums_to_one_and_known_shape() -> None:
    table = dealer_table(shoe_counts(4))
    for up, p in table.items():
        assert sum(p) == pytest.approx(1.0, abs=1e-12)
        assert (p[BLACKJACK] > 0) == (up in (1, 10))
    # 4 decks: P(dealer blackjack | Ace up) = 64 tens / 207 cards.
    assert table[1][BLACKJACK] == pytest.approx(64 / 207)
    # Bust is likeliest under a 5 or 6, rarest under an Ace.
    assert max(table, key=lambda u: table[u][BUST]) in (5, 6)
    assert min(table, key=lambda u: table[u][BUST]) == 1


def test_remove_refuses_missing_card() -> None:
    with pytest.raises(ValueError):
        remove((0,) * 10, 5)

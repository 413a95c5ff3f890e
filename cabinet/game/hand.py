"""Hand arithmetic: totals, soft hands, naturals, pairs.

Owns: pure functions over a sequence of ``Card``. No state, no I/O.
Rules from RULES.md "Common to all three".
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card


def hand_total(cards: Sequence[Card]) -> tuple[int, bool]:
    """Best total of a hand and whether it is soft.

    Args:
        cards: the hand's cards, any number.

    Returns:
        ``(total, soft)``: the best total not above 21 when one exists
        (otherwise the hard total, which is then above 21), and ``soft`` true
        when an Ace counts 11 in that total (RULES.md "Card values").
    """
    hard = 0
    has_ace = False
    for c in cards:
        v = c.value
        hard += v
        if v == 1:
            has_ace = True
    if has_ace and hard <= 11:
        return hard + 10, True
    return hard, False


def best_total(cards: Sequence[Card]) -> int:
    """The total shown for a hand: best total not above 21, else the hard total."""
    return hand_total(cards)[0]


def is_natural(cards: Sequence[Card]) -> bool:
    """True for two cards that are an Ace and a ten-value card.

    Whether such a hand *is a blackjack* also depends on it not coming from
    a split (RULES.md: "After a split, Ace + ten-value is 21, not blackjack");
    callers check that.
    """
    return len(cards) == 2 and (
        (cards[0].value == 1 and cards[1].value == 10) or (cards[0].value == 10 and cards[1].value == 1)
    )


def is_pair(cards: Sequence[Card], by: str) -> bool:
    """True when the hand is two cards that may be split.

    Args:
        cards: the hand.
        by: ``"rank"`` (two Queens yes, King + Ten no: ``classic``,
            ``classic-multi``) or ``"value"`` (any two ten-value cards:
            ``american``).
    """
    if len(cards) != 2:
        return False
    if by == "rank":
        return cards[0].rank == cards[1].rank
    return cards[0].value == cards[1].value


def describe_total(cards: Sequence[Card]) -> str:
    """Total in words for screens and messages: ``"soft 17"``, ``"20"``, ``"bust 23"``."""
    total, soft = hand_total(cards)
    if total > 21:
        return f"bust {total}"
    return f"soft {total}" if soft else str(total)

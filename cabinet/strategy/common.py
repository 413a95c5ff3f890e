"""The common printed basic strategy chart, as a ``Strategy``.

Owns: ``common_strategy``, the textbook total-dependent chart for a multi-deck
game where the dealer stands on soft 17 (no insurance). It needs no analysis,
so a player can follow it at once: the demo player uses it until the exact
strategy of its variant (``analysis.analyse``, about 10 s of one core) is
derived. Pure; imports only ``strategy``.
"""

from __future__ import annotations

from .strategy import PairKey, StateKey, Strategy

_UPS = range(1, 11)  # up card values, Ace = 1
_LOW = range(2, 7)  # the dealer's bust cards, 2-6


def _hits(total: int, soft: bool, up: int) -> bool:
    if soft:
        return total <= 17 or (total == 18 and up in (9, 10, 1))
    return total <= 11 or (total == 12 and up not in (4, 5, 6)) or (13 <= total <= 16 and up not in _LOW)


def _doubles(total: int, soft: bool, up: int) -> bool:
    if soft:
        return 13 <= total <= 18 and up in (5, 6)
    return total == 11 and up != 1 or total == 10 and 2 <= up <= 9 or total == 9 and 3 <= up <= 6


def _splits(pair: int, up: int) -> bool:
    return (
        pair in (1, 8)
        or (pair == 9 and up not in (7, 10, 1))
        or (pair in (2, 3, 7) and 2 <= up <= 7)
        or (pair == 6 and up in _LOW)
        or (pair == 4 and up in (5, 6))
    )


def common_strategy(variant: str = "common") -> Strategy:
    """The printed multi-deck, stand-on-soft-17 chart.

    Hard: hit 11 or less, 12 against 2, 3 or 7-A, 13-16 against 7-A; double 11
    against 2-10, 10 against 2-9, 9 against 3-6. Soft: hit 17 or less and 18
    against 9, 10 or A; double soft 13-18 against 5-6. Split A,A and 8,8; 9,9 but
    against 7, 10, A; 2,2, 3,3 and 7,7 against 2-7; 6,6 against 2-6; 4,4 against
    5-6. Never insure.

    Args:
        variant: the name it carries (``Strategy.variant``).

    Returns:
        a ``Strategy`` over totals 4-21 (hard) and 12-21 (soft), pairs 1-10.
    """
    states: list[StateKey] = [
        (t, s, u) for s in (False, True) for t in (range(12, 22) if s else range(4, 22)) for u in _UPS
    ]
    pairs: list[PairKey] = [(p, u) for p in range(1, 11) for u in _UPS]
    return Strategy(
        variant=variant,
        hit=frozenset(k for k in states if _hits(*k)),
        double=frozenset(k for k in states if _doubles(*k)),
        split=frozenset(k for k in pairs if _splits(*k)),
        insurance=False,
    )

"""Money as text and as a pile of chips: the one formatter and the one chip split
that the engine (snapshot texts, help, tools) and the UI (meters, chip stacks) share.

Owns: turning integer minor units into currency text, and the greedy split of an
amount into chip denominations for drawing (one of each). Pure; money is
never computed here, only shown (STYLE.md: money is int minor units, formatted at
the edge, never floats).
"""

from __future__ import annotations

#: The denominations (minor units) a pile is drawn from when the game names none:
#: $1, $5, $25, $100.
DEFAULT_CHIPS_MINOR = (100, 500, 2_500, 10_000)


def fmt_money(minor: int, symbol: str = "$", *, compact: bool = False) -> str:
    """An amount as currency text, two minor digits, thousands separated.

    Args:
        minor: amount in minor units (1/100 of ``symbol``), may be negative or zero.
        symbol: currency symbol put before the amount (after the sign).
        compact: drop ``.00`` on whole amounts (chips, bet labels).

    Returns:
        e.g. ``123456 -> "$1,234.56"``, ``-500 -> "-$5.00"``, ``0 -> "$0.00"``,
        compact ``2500 -> "$25"`` (but ``250 -> "$2.50"``).
    """
    sign = "-" if minor < 0 else ""
    major, cents = divmod(abs(minor), 100)
    if compact and cents == 0:
        return f"{sign}{symbol}{major:,}"
    return f"{sign}{symbol}{major:,}.{cents:02d}"


def chip_split(amount_minor: int, chips_minor: tuple[int, ...] = DEFAULT_CHIPS_MINOR, *, most: int = 40) -> list[int]:
    """Split an amount into chips, largest first (greedy), for drawing a stack.

    Args:
        amount_minor: amount to show; ``<= 0`` gives an empty pile.
        chips_minor: denominations available, any order; empty means
            ``DEFAULT_CHIPS_MINOR``.
        most: at most this many whole chips are taken (a tall stack is drawn
            no taller); whatever is left then rides on one last chip.

    Returns:
        chip values, largest first; a remainder (below the smallest chip, or
        left over past ``most``) becomes one extra chip of that remainder's
        value, so the pile always sums to ``amount_minor``.
    """
    pile: list[int] = []
    rest = amount_minor
    for c in sorted(chips_minor or DEFAULT_CHIPS_MINOR, reverse=True):
        while rest >= c and len(pile) < most:
            pile.append(c)
            rest -= c
    if rest > 0:
        pile.append(rest)
    return pile

"""Money formatting for the screen: integer minor units in, text out.

Owns: the only place the UI turns minor units into currency or credit text
(money is formatted at the edge, never computed with floats). Pure.
"""

from __future__ import annotations


def fmt_money(minor: int, symbol: str = "$", *, compact: bool = False) -> str:
    """Format an amount for display.

    Args:
        minor: amount in minor units (1/100 of ``symbol``), may be negative.
        symbol: currency symbol put before the amount.
        compact: drop ``.00`` on whole amounts (chips, bet labels).

    Returns:
        e.g. ``12345 -> "$123.45"``, ``-500 -> "-$5.00"``, compact ``2500 -> "$25"``.
    """
    sign = "-" if minor < 0 else ""
    major, cents = divmod(abs(minor), 100)
    if compact and cents == 0:
        return f"{sign}{symbol}{major:,}"
    return f"{sign}{symbol}{major:,}.{cents:02d}"


def fmt_credits(minor: int, credit_minor: int) -> str:
    """Whole credits of an amount (``minor // credit_minor``), e.g. ``"1,234"``."""
    return f"{minor // credit_minor:,}"


def chip_label(minor: int) -> str:
    """The value printed on a chip: ``100 -> "1"``, ``2500 -> "25"``, ``100000 -> "1K"``, ``50 -> ".50"``."""
    major, cents = divmod(minor, 100)
    if cents:
        return f"{major}.{cents:02d}" if major else f".{cents:02d}"
    if major >= 1000 and major % 1000 == 0:
        return f"{major // 1000}K"
    return str(major)


def decompose(amount_minor: int, chips_minor: tuple[int, ...] = (100, 500, 2_500, 10_000)) -> list[int]:
    """Split an amount into chips, largest first (greedy), for drawing a stack.

    Args:
        amount_minor: amount to show, >= 0.
        chips_minor: denominations available, any order.

    Returns:
        chip values, largest first; a remainder below the smallest chip becomes
        one extra chip of that remainder's value.
    """
    out: list[int] = []
    rest = amount_minor
    for c in sorted(chips_minor, reverse=True):
        while rest >= c and len(out) < 40:
            out.append(c)
            rest -= c
    if rest > 0:
        out.append(rest)
    return out

"""Money text only the screen needs: whole credits and the value printed on a chip.

Owns: ``fmt_credits`` and ``chip_label``. Currency text and the chip split are
``cabinet.protocol.money`` (``fmt_money``, ``chip_split``), shared with the
engine (issue 12). Integer minor units in, text out; pure.
"""

from __future__ import annotations


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

"""Money and numbers as the screen writes them, in the active language's locale.

Owns: ``fmt_money`` (currency text), ``fmt_number``, ``fmt_credits``, ``meter_text`` and
``chip_label``.
The currency is the cabinet's (its configured symbol, two minor digits); where the
symbol goes, the sign and the separators come from the locale's CLDR currency pattern
through Babel (``ui.i18n.current().locale``): ``en_US`` and ``es_US`` ``"$1,234.50"``,
``es_ES`` ``"1.234,50 $"``. Formatting runs every frame, so every result is cached per
(amount, symbol, locale). Integer minor units in, text out; pure.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import format_decimal

from cabinet.protocol.money import fmt_money as _fmt_money_en
from ui import i18n


@lru_cache(maxsize=16)
def _patterns(locale: str, symbol: str) -> tuple[str, str]:
    """The locale's currency pattern with ``symbol`` as a literal: (with cents, whole)."""
    pat = Locale.parse(locale).currency_formats["standard"].pattern.split(";")[0]
    sym = "'" + symbol.replace("'", "''") + "'"
    full = pat.replace("\u00a4", sym)
    return full, full.replace("0.00", "0")


@lru_cache(maxsize=4096)
def _money(minor: int, symbol: str, compact: bool, locale: str) -> str:
    if locale == "en_US":  # the engine's own formatter: English stays byte-identical
        return _fmt_money_en(minor, symbol, compact=compact)
    full, whole = _patterns(locale, symbol)
    major, cents = divmod(abs(minor), 100)
    if compact and cents == 0:
        text = format_decimal(major, format=whole, locale=locale)
    else:
        from decimal import Decimal

        text = format_decimal(Decimal(abs(minor)) / 100, format=full, locale=locale)
    return ("-" + text) if minor < 0 else text


def fmt_money(minor: int, symbol: str = "$", *, compact: bool = False) -> str:
    """An amount in the active locale: ``123456 -> "$1,234.56"`` (``en_US``, ``es_US``),
    ``"1.234,56 $"`` (``es_ES``); ``-500 -> "-$5.00"``; ``compact`` drops ``.00`` on whole
    amounts (``2500 -> "$25"``)."""
    return _money(minor, symbol, compact, i18n.current().locale)


@lru_cache(maxsize=2048)
def _number(n: int, locale: str) -> str:
    return f"{n:,}" if locale == "en_US" else format_decimal(n, locale=locale)


def fmt_number(n: int) -> str:
    """A whole number with the locale's grouping: ``1234 -> "1,234"`` (``es_ES``: ``"1.234"``)."""
    return _number(n, i18n.current().locale)


@lru_cache(maxsize=2048)
def _part_credits(minor: int, credit_minor: int, locale: str) -> str:
    d = Decimal(minor) / Decimal(credit_minor)
    return f"{d:,}" if locale == "en_US" else format_decimal(d, format="#,##0.##########", locale=locale)


def fmt_credits(minor: int, credit_minor: int) -> str:
    """An amount in credits of ``credit_minor``: ``"1,234"``, and a part credit kept
    (``250, 100 -> "2.5"``: a 3:2 win or an insurance of half a credit)."""
    if minor % credit_minor == 0:
        return fmt_number(minor // credit_minor)
    return _part_credits(minor, credit_minor, i18n.current().locale)


def meter_text(minor: int, credit_minor: int | None, symbol: str = "$") -> tuple[str, str | None]:
    """A meter's figure and its second line: in credits over money (``11000, 100 ->
    ("110", "$110.00")``) on a table that counts credits, money alone where the amount is
    not a whole number of credits (``11050, 100 -> ("$110.50", None)``: research I "Meters
    on screen", the credit meter in currency; no "110.5" credits) or the table counts none."""
    if credit_minor and minor % credit_minor == 0:
        return fmt_credits(minor, credit_minor), fmt_money(minor, symbol)
    return fmt_money(minor, symbol), None


def chip_label(minor: int) -> str:
    """The value printed on a chip: ``100 -> "1"``, ``2500 -> "25"``, ``100000 -> "1K"``, ``50 -> ".50"``."""
    major, cents = divmod(minor, 100)
    if cents:
        return f"{major}.{cents:02d}" if major else f".{cents:02d}"
    if major >= 1000 and major % 1000 == 0:
        return f"{major // 1000}K"
    return str(major)

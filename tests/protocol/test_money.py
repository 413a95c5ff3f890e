"""The one money formatter and the one chip split that the engine and the UI share
(``cabinet.protocol.money`` replaces three formatters and two splits)."""

from __future__ import annotations

import pytest

from cabinet.protocol.money import DEFAULT_CHIPS_MINOR, chip_split, fmt_money


@pytest.mark.parametrize(
    ("minor", "text"),
    [
        (0, "$0.00"),
        (5, "$0.05"),
        (50, "$0.50"),
        (12345, "$123.45"),
        (100_000, "$1,000.00"),
        (123_456_789, "$1,234,567.89"),
        (-250, "-$2.50"),
        (-123_456, "-$1,234.56"),
        (-5, "-$0.05"),
    ],
)
def test_fmt_money_cents_thousands_and_sign(minor, text):
    """Two minor digits, thousands separated, the sign before the symbol."""
    assert fmt_money(minor) == text


def test_fmt_money_symbol_and_compact():
    """The symbol is the settings' one; compact drops only ``.00``."""
    assert fmt_money(2500, "\u20ac") == "\u20ac25.00"
    assert fmt_money(2500, compact=True) == "$25"
    assert fmt_money(250_000, "\u00a3", compact=True) == "\u00a32,500"
    assert fmt_money(250, compact=True) == "$2.50"
    assert fmt_money(-500, compact=True) == "-$5"
    assert fmt_money(0, compact=True) == "$0"


def test_the_help_text_formats_money_with_the_shared_formatter():
    """The help text's limits come from the shared formatter (thousands
    separated, as on the meters)."""
    from cabinet.core import rules_text
    from cabinet.game.rules import CLASSIC

    rules = CLASSIC.replace(min_bet_minor=500, max_bet_minor=250_000)
    lines = rules_text.rules_text(rules)
    assert any("$5.00 to $2,500.00 per spot" in line for line in lines), lines


@pytest.mark.parametrize(
    ("amount", "chips", "pile"),
    [
        (12_600, DEFAULT_CHIPS_MINOR, [10_000, 2_500, 100]),
        (500, (100, 500), [500]),
        (1_500, (500, 100), [500, 500, 500]),  # any order of denominations
        (30_000, (10_000,), [10_000, 10_000, 10_000]),
    ],
)
def test_chip_split_exact(amount, chips, pile):
    """An amount the chips make exactly is drawn largest first."""
    assert chip_split(amount, chips) == pile
    assert sum(pile) == amount


@pytest.mark.parametrize(
    ("amount", "chips", "most", "pile"),
    [
        (650, (100, 500), 40, [500, 100, 50]),  # below the smallest chip: one odd chip
        (75, (100, 500), 40, [75]),
        (1_000, (100,), 3, [100, 100, 100, 700]),  # past ``most``: the rest rides on one chip
        (250_000, DEFAULT_CHIPS_MINOR, 12, [10_000] * 12 + [130_000]),
    ],
)
def test_chip_split_remainders(amount, chips, most, pile):
    """What the chips cannot make (or past ``most`` chips) becomes one last
    chip of the remainder, so the pile always sums to the amount."""
    assert chip_split(amount, chips, most=most) == pile
    assert sum(pile) == amount


def test_chip_split_empty():
    """Nothing to draw is an empty pile; no denominations means the defaults."""
    assert chip_split(0) == []
    assert chip_split(0, (100,)) == []
    assert chip_split(-100) == []
    assert chip_split(600, ()) == [500, 100]

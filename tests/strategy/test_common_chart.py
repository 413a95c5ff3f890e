"""The common printed chart as a ``Strategy`` (``cabinet.strategy.common``), and the
demo player's decision through it (the demo's own chart and hand totals
are gone; it looks up a ``cabinet.strategy.Strategy`` on the core's totals)."""

from __future__ import annotations

import dataclasses

import pytest

from cabinet.strategy.common import common_strategy
from cabinet.tools.demo_strategy import choose

CHART = common_strategy()


@pytest.mark.parametrize(
    ("kind", "row", "up", "cell"),
    [
        ("hard", 16, 10, "H"),
        ("hard", 16, 6, "S"),
        ("hard", 12, 2, "H"),
        ("hard", 12, 4, "S"),
        ("hard", 11, 10, "Dh"),
        ("hard", 11, 1, "H"),
        ("hard", 10, 9, "Dh"),
        ("hard", 10, 10, "H"),
        ("hard", 9, 3, "Dh"),
        ("hard", 9, 2, "H"),
        ("hard", 17, 1, "S"),
        ("soft", 18, 9, "H"),
        ("soft", 18, 6, "Ds"),
        ("soft", 18, 7, "S"),
        ("soft", 17, 5, "Dh"),
        ("soft", 19, 6, "S"),
        ("soft", 13, 4, "H"),
        ("pair", 1, 1, "P"),
        ("pair", 8, 10, "P"),
        ("pair", 9, 7, "S"),
        ("pair", 9, 8, "P"),
        ("pair", 10, 6, "S"),
        ("pair", 5, 9, "Dh"),
        ("pair", 4, 5, "P"),
        ("pair", 4, 4, "H"),
        ("pair", 7, 7, "P"),
        ("pair", 7, 8, "H"),
        ("pair", 6, 7, "H"),
    ],
)
def test_common_chart_cells(kind, row, up, cell):
    """The textbook multi-deck S17 chart, cell by cell."""
    assert CHART.cell(kind, row, up) == cell


def test_common_chart_never_insures():
    """The printed chart never takes insurance (the demo's old rule)."""
    assert not CHART.insurance


@pytest.mark.parametrize(
    ("hand", "up", "legal", "want"),
    [
        (["AS", "7D"], "6H", {"hit", "stand", "double"}, "double"),  # soft 18 v 6
        (["AS", "7D"], "6H", {"hit", "stand"}, "stand"),  # no double: the hit table
        (["AS", "7D"], "9H", {"hit", "stand"}, "hit"),
        (["8S", "8D"], "TH", {"hit", "stand", "double", "split"}, "split"),
        (["8S", "8D"], "TH", {"hit", "stand", "double"}, "hit"),  # no split: hard 16 v 10
        (["5S", "4D", "2C"], "AH", {"hit", "stand"}, "hit"),  # three cards: 11, no double
        (["TS", "6D"], "TH", {"stand"}, "stand"),  # the chart's hit is dark
        (["TS", "2D"], "3H", {"hit", "stand"}, "hit"),
    ],
)
def test_the_demo_decides_by_the_chart_on_the_cores_totals(hand, up, legal, want):
    """``demo_strategy.choose`` reads the hand with the rules core's totals
    (an Ace counts 11 while it can) and answers from the chart, only with a lit button."""
    assert choose(hand, [up], frozenset(legal), None) == want


def test_the_demo_declines_insurance_unless_its_strategy_insures():
    """At an insurance prompt the strategy's ``insurance`` decides."""
    assert choose([], ["AH"], frozenset({"insure", "decline"}), None) == "decline"
    insurer = dataclasses.replace(CHART, insurance=True)
    assert choose([], ["AH"], frozenset({"insure", "decline"}), insurer) == "insure"

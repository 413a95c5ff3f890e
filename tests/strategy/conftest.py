"""Fixtures for the strategy tests: a simple hand-written strategy."""

from __future__ import annotations

import pytest

from cabinet.strategy import Strategy


def simple_strategy(variant: str = "test", insurance: bool = False) -> Strategy:
    """Hit hard < 17 and soft < 18, double 10 and 11, split Aces and 8s."""
    hit = {(t, False, u) for t in range(4, 17) for u in range(1, 11)}
    hit |= {(t, True, u) for t in range(12, 18) for u in range(1, 11)}
    dbl = {(t, False, u) for t in (10, 11) for u in range(1, 11)}
    split = {(v, u) for v in (1, 8) for u in range(1, 11)}
    return Strategy(variant, frozenset(hit), frozenset(dbl), frozenset(split), insurance)


@pytest.fixture
def simple() -> Strategy:
    return simple_strategy()

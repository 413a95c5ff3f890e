"""Fixtures for the strategy tests: a simple hand-written strategy."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cabinet.game import preset
from cabinet.strategy import Analysis, Strategy, analyse


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


_ANALYSES: dict[str, Analysis] = {}


@pytest.fixture(scope="session")
def analysis_of() -> Callable[[str], Analysis]:
    """The exact analysis of a preset, computed once per session (4-8 s each)."""

    def get(variant: str) -> Analysis:
        if variant not in _ANALYSES:
            _ANALYSES[variant] = analyse(preset(variant))
        return _ANALYSES[variant]

    return get

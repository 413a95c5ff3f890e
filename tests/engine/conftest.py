"""Shared fixtures of the engine tests."""

from __future__ import annotations

import pytest

from cabinet.game import Shoe


@pytest.fixture
def stacked(monkeypatch):
    """Make the next shuffles deal ``codes`` in order (one list per round; a real shuffle
    once the lists run out)."""
    rounds: list[list[str]] = []
    real = Shoe.shuffled

    def shuffled(decks, rng=None, penetration_percent=None):
        return Shoe.from_codes(rounds.pop(0), decks) if rounds else real(decks, rng, penetration_percent)

    monkeypatch.setattr("cabinet.core.play.Shoe.shuffled", staticmethod(shuffled))
    return rounds

"""Shared helpers for the rules-core tests: play a round from a fixed shoe."""

from __future__ import annotations

from typing import Any

from cabinet.game import Round, RuleSet, SeatBets, Shoe, preset
from cabinet.game.events import Event
from cabinet.tools.replay import run_scenario


def play(
    variant: str,
    shoe: list[str],
    decisions: list[str] | None = None,
    bets: list[list[int]] | None = None,
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Replay one round and return the SCENARIOS.md output dict."""
    data: dict[str, Any] = {
        "variant": variant,
        "seats": [{"bets": b} for b in (bets or [[1000]])],
        "shoe": shoe,
        "decisions": decisions or [],
    }
    if rules:
        data["rules"] = rules
    return run_scenario(data)


def start(
    variant: str | RuleSet,
    shoe: list[str],
    bets: list[list[int]] | None = None,
    available: list[int | None] | None = None,
) -> tuple[Round, list[Event]]:
    """A dealt round and the events of the deal."""
    rules = preset(variant) if isinstance(variant, str) else variant
    seats = [
        SeatBets(i, tuple(b), None if available is None else available[i - 1])
        for i, b in enumerate(bets or [[1000]], 1)
    ]
    rnd = Round(rules, seats, Shoe.from_codes(shoe, rules.decks))
    return rnd, rnd.start()


def hand(out: dict[str, Any], spot: int = 0, h: int = 0) -> dict[str, Any]:
    return out["spots"][spot]["hands"][h]


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]

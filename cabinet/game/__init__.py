"""The pure rules core: cards, hands, rule sets, the shoe and the round.

No I/O, no clock, no randomness of its own, no imports from ``drivers`` or
``ui`` (DESIGN.md "Layers inside the engine"). Everything else stands on it.
"""

from .cards import ALL_CARDS, Card, format_cards, parse_card, parse_cards
from .errors import (
    BetError,
    CardError,
    GameError,
    IllegalDecision,
    RuleSetError,
    ShoeExhausted,
    StateError,
)
from .events import Decision, Event, Outcome
from .hand import best_total, describe_total, hand_total, is_natural, is_pair
from .round import Phase, Prompt, Round, SeatBets
from .rules import AMERICAN, CLASSIC, CLASSIC_MULTI, PRESETS, RuleSet, preset
from .shoe import Shoe, fisher_yates

__all__ = [
    "ALL_CARDS",
    "AMERICAN",
    "BetError",
    "CLASSIC",
    "CLASSIC_MULTI",
    "Card",
    "CardError",
    "Decision",
    "Event",
    "GameError",
    "IllegalDecision",
    "Outcome",
    "PRESETS",
    "Phase",
    "Prompt",
    "Round",
    "RuleSet",
    "RuleSetError",
    "SeatBets",
    "Shoe",
    "ShoeExhausted",
    "StateError",
    "best_total",
    "describe_total",
    "fisher_yates",
    "format_cards",
    "hand_total",
    "is_natural",
    "is_pair",
    "parse_card",
    "parse_cards",
    "preset",
]

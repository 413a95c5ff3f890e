"""Errors raised by the pure rules core.

Owns: the exception tree of ``cabinet.game``. Imports nothing.

Every error also inherits the builtin that fits (``ValueError`` for bad
input), so callers may catch either (house style, STYLE.md section 5.26).
"""

from __future__ import annotations


class GameError(Exception):
    """Root of every error raised by ``cabinet.game``."""


class RuleSetError(GameError, ValueError):
    """A ``RuleSet`` field holds a value the rules do not allow.

    Attributes:
        field: the name of the offending ``RuleSet`` field.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class CardError(GameError, ValueError):
    """A card written in the scenario notation could not be read."""


class BetError(GameError, ValueError):
    """A bet breaks the table limits or the bet step (RULES.md "Money")."""


class IllegalDecision(GameError, ValueError):
    """A decision that is not legal at this point of the round.

    The message starts with the decision's name ("split: ..."). The round is
    left exactly as it was.
    """


class ShoeExhausted(GameError, RuntimeError):
    """The shoe ran out of cards in the middle of a round.

    The round that raised it is in its ``ERROR`` phase and refuses further
    use; the cabinet voids it (RULES.md "Malfunctions void all plays").
    """


class StateError(GameError, ValueError):
    """A saved round could not be restored: the dict is malformed."""

"""Events the round hands out, and the decisions it takes in.

Owns: ``Decision`` and the event values of one round. Events are
past-tense facts; tests compare lists of them with ``==`` (STYLE.md 5.24).
They are slotted dataclasses that nothing mutates, but not ``frozen``: a
frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``
and costs about 0.7 microseconds more per event, some 15 % of a whole round,
which the simulator's 10-million-round runs feel (bench/engine_rounds.py).
Seats, spots and hands are numbered from 1, as on screen. Money is integer
minor units.

Events may name face-down cards (the cabinet journals them); what a player
may see is ``Round.player_view()``, never the raw events.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .cards import Card


class Decision(enum.Enum):
    """A player's answer to the round's question (SCENARIOS.md "decisions")."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    INSURE = "insure"
    DECLINE = "decline"

    # Members are singletons compared by identity, so the identity hash is exact;
    # ``Enum.__hash__`` hashes the name in Python on every set/dict look-up (the
    # legality check and the handler table run it on every decision).
    __hash__ = object.__hash__


class Outcome(enum.Enum):
    """How a hand ended (SCENARIOS.md "outcome")."""

    BLACKJACK = "blackjack"
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"
    BUST = "bust"


@dataclass(slots=True)
class Event:
    """Base of every round event."""


@dataclass(slots=True)
class PlayerCardDealt(Event):
    """A card went face up to a player hand."""

    seat: int
    spot: int
    hand: int
    card: Card


@dataclass(slots=True)
class DealerCardDealt(Event):
    """A card went to the dealer; ``face_up`` false for a hole / checked card."""

    card: Card
    face_up: bool


@dataclass(slots=True)
class DealerCardRevealed(Event):
    """The dealer's face-down card was turned over."""

    card: Card


@dataclass(slots=True)
class InsuranceOffered(Event):
    """Insurance is offered to a spot's initial hand, at ``stake_minor``."""

    seat: int
    spot: int
    stake_minor: int


@dataclass(slots=True)
class InsuranceTaken(Event):
    """The spot insured for ``stake_minor`` (half the initial bet)."""

    seat: int
    spot: int
    stake_minor: int


@dataclass(slots=True)
class InsuranceDeclined(Event):
    """The spot declined insurance."""

    seat: int
    spot: int


@dataclass(slots=True)
class DealerChecked(Event):
    """The dealer checked (peeked) for blackjack; ``blackjack`` is the result."""

    blackjack: bool


@dataclass(slots=True)
class InsuranceSettled(Event):
    """An insurance bet was settled: 3 × stake back on a dealer blackjack, else 0."""

    seat: int
    spot: int
    stake_minor: int
    returned_minor: int


@dataclass(slots=True)
class HandDoubled(Event):
    """A hand doubled: ``extra_stake_minor`` was added to its stake."""

    seat: int
    spot: int
    hand: int
    extra_stake_minor: int


@dataclass(slots=True)
class HandSplit(Event):
    """A spot's hand split in two; the second hand stakes ``extra_stake_minor``."""

    seat: int
    spot: int
    extra_stake_minor: int


@dataclass(slots=True)
class HandStood(Event):
    """A hand stands. ``reason``: ``player``, ``blackjack``, ``21``, ``double``,
    ``split-aces`` or ``max-cards``."""

    seat: int
    spot: int
    hand: int
    total: int
    reason: str


@dataclass(slots=True)
class HandBusted(Event):
    """A hand went over 21 and is lost at once."""

    seat: int
    spot: int
    hand: int
    total: int


@dataclass(slots=True)
class DealerStood(Event):
    """The dealer finished drawing at ``total`` (above 21 when busted)."""

    total: int
    busted: bool


@dataclass(slots=True)
class HandSettled(Event):
    """A hand was settled: ``returned_minor`` goes back, stake included."""

    seat: int
    spot: int
    hand: int
    outcome: Outcome
    stake_minor: int
    returned_minor: int


@dataclass(slots=True)
class RoundEnded(Event):
    """Every bet of the round is settled."""

    wagered_minor: int
    returned_minor: int

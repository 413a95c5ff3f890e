"""Playing cards and their notation.

Owns: ``Card``, the 52 card faces, parsing and formatting in the scenario
notation of SCENARIOS.md (rank ``A 2-9 T J Q K``, ``10`` accepted for ``T``;
suit ``S H D C``). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import CardError

RANKS = "A23456789TJQK"
SUITS = "SHDC"
TEN_RANKS = frozenset("TJQK")

_RANK_NAMES = {
    "A": "Ace",
    "2": "Two",
    "3": "Three",
    "4": "Four",
    "5": "Five",
    "6": "Six",
    "7": "Seven",
    "8": "Eight",
    "9": "Nine",
    "T": "Ten",
    "J": "Jack",
    "Q": "Queen",
    "K": "King",
}
_SUIT_NAMES = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card.

    Attributes:
        rank: one of ``RANKS`` (``"T"`` for ten).
        suit: one of ``SUITS``.
        value: blackjack value, 2-10, with the Ace counted as 1 (RULES.md
            "Card values"); whether an Ace counts 11 is a property of a hand.
    """

    rank: str
    suit: str
    value: int

    @property
    def is_ace(self) -> bool:
        """True for an Ace."""
        return self.rank == "A"

    @property
    def name(self) -> str:
        """Long name, e.g. ``"Queen of Hearts"``."""
        return f"{_RANK_NAMES[self.rank]} of {_SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self.rank}{self.suit})"


def _value(rank: str) -> int:
    if rank == "A":
        return 1
    if rank in TEN_RANKS:
        return 10
    return int(rank)


#: The 52 distinct cards, in rank-major order; every ``Card`` in play is one of these.
ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s, _value(r)) for s in SUITS for r in RANKS)
_BY_CODE: dict[str, Card] = {str(c): c for c in ALL_CARDS}


def parse_card(text: str) -> Card:
    """Read one card in scenario notation.

    Args:
        text: rank then suit, e.g. ``"AS"``, ``"TD"``, ``"10H"``; case-insensitive.

    Returns:
        The shared ``Card`` instance.

    Raises:
        CardError: the text is not a card.
    """
    if not isinstance(text, str):
        raise CardError(f"unknown card {text!r}: expected a string like 'AS' or '10H'")
    code = text.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    card = _BY_CODE.get(code)
    if card is None:
        raise CardError(f"unknown card {text!r}: rank is one of A 2-9 T J Q K (or 10), suit one of S H D C")
    return card


def parse_cards(texts: list[str] | tuple[str, ...]) -> list[Card]:
    """Read a list of cards; see ``parse_card``.

    Raises:
        CardError: naming the position (1-based) of the first bad card.
    """
    out: list[Card] = []
    for i, t in enumerate(texts, 1):
        try:
            out.append(parse_card(t))
        except CardError as e:
            raise CardError(f"card {i}: {e}") from None
    return out


def format_cards(cards: list[Card] | tuple[Card, ...]) -> str:
    """``"AS KD"``: cards joined by spaces, for messages."""
    return " ".join(str(c) for c in cards)

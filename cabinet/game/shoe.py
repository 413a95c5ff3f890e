"""The shoe: building, shuffling, dealing, the cut card.

Owns: ``Shoe`` and ``shuffled_shoe``. The random source is injected
(``secrets.SystemRandom()`` by default); the shuffle is an unbiased
Fisher-Yates (RULES.md "Shuffling and randomness"). Pure apart from the
random source it is handed.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from .cards import ALL_CARDS, Card, parse_cards
from .errors import CardError, ShoeExhausted, StateError

#: Any element type: the shoe shuffles cards, the RNG lab kit card indices.
T = TypeVar("T")


class RandomSource(Protocol):
    """What a shuffle needs: ``randbelow``-style uniform integers.

    ``random.Random`` and ``secrets.SystemRandom`` both provide ``randrange``.
    """

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


_CHUNK_LIMIT = 1 << 62


def fisher_yates(cards: list[T], rng: RandomSource) -> None:
    """Shuffle ``cards`` in place: an unbiased Fisher-Yates (Durstenfeld) shuffle.

    Step ``i`` (from the last position down) swaps position ``i`` with a
    uniform ``j`` in ``0..i``. To save calls into the random source, the
    choices of several consecutive steps are drawn as one uniform integer
    ``r`` below the product of their ranges ``(i+1)·i·…`` (kept under 2**62)
    and read off as mixed-radix digits. A uniform ``r`` has uniform,
    independent digits, so every permutation stays exactly equally likely.
    ``randrange`` rejection-samples, so there is no modulo bias (RULES.md
    "Shuffling and randomness"; research/cabinet-features.md G).

    Args:
        cards: shuffled in place.
        rng: ``secrets.SystemRandom()`` in production; a seeded
            ``random.Random`` in tests and the simulator.
    """
    randrange = rng.randrange
    i = len(cards) - 1
    while i > 0:
        prod = 1
        k = i
        while k > 0 and prod * (k + 1) < _CHUNK_LIMIT:
            prod *= k + 1
            k -= 1
        r = randrange(prod)
        while i > k:
            r, j = divmod(r, i + 1)
            cards[i], cards[j] = cards[j], cards[i]
            i -= 1


def fresh_cards(decks: int) -> list[Card]:
    """``decks`` × 52 cards in a fixed, unshuffled order."""
    return list(ALL_CARDS) * decks


def check_composition(cards: Sequence[Card], decks: int) -> None:
    """Refuse more copies of any card than ``decks`` decks hold.

    Raises:
        CardError: naming the card and its count.
    """
    counts = Counter(cards)
    for card, n in counts.items():
        if n > decks:
            raise CardError(f"the shoe holds {n} copies of {card}, but {decks} deck(s) hold only {decks}")


class Shoe:
    """Cards in the order they will leave the shoe, and where dealing stands.

    Args:
        cards: the order, first card dealt first. Need not be a whole shoe
            (replay scenarios give only the cards they use).
        position: index of the next card to deal.
        cut_index: index of the cut card; reaching it asks for a reshuffle
            between rounds. ``None`` when there is no cut card.

    A shoe is mutable (dealing advances ``position``); it saves to and restores
    from a plain dict so a journaled round deals the same cards after a restart.
    """

    __slots__ = ("cards", "position", "cut_index")

    def __init__(self, cards: Sequence[Card], position: int = 0, cut_index: int | None = None) -> None:
        self.cards = list(cards)
        self.position = position
        self.cut_index = cut_index

    @classmethod
    def shuffled(cls, decks: int, rng: RandomSource | None = None, penetration_percent: int | None = None) -> Shoe:
        """A freshly shuffled shoe of ``decks`` decks.

        Args:
            decks: number of 52-card decks.
            rng: random source; ``secrets.SystemRandom()`` when ``None``.
            penetration_percent: where the cut card goes, as a share of the
                shoe (50-85); ``None`` for no cut card.
        """
        cards = fresh_cards(decks)
        fisher_yates(cards, rng if rng is not None else secrets.SystemRandom())
        cut = None if penetration_percent is None else len(cards) * penetration_percent // 100
        return cls(cards, 0, cut)

    @classmethod
    def from_codes(cls, codes: Sequence[str], decks: int) -> Shoe:
        """A shoe in a given order, from scenario notation (``["AS", "10H"]``).

        Raises:
            CardError: an unknown card, or more copies than ``decks`` hold.
        """
        cards = parse_cards(list(codes))
        check_composition(cards, decks)
        return cls(cards)

    def draw(self) -> Card:
        """Deal the next card.

        Raises:
            ShoeExhausted: no card is left.
        """
        try:
            card = self.cards[self.position]
        except IndexError:
            raise ShoeExhausted(
                f"the shoe ran out after {len(self.cards)} card{'' if len(self.cards) == 1 else 's'}"
            ) from None
        self.position += 1
        return card

    @property
    def remaining(self) -> int:
        """Cards not yet dealt."""
        return len(self.cards) - self.position

    @property
    def cut_card_reached(self) -> bool:
        """True once dealing has reached the cut card (reshuffle before the next round)."""
        return self.cut_index is not None and self.position >= self.cut_index

    def to_dict(self) -> dict[str, Any]:
        """``{"cards": ["AS", ...], "position": int, "cut_index": int | None}``."""
        return {"cards": [str(c) for c in self.cards], "position": self.position, "cut_index": self.cut_index}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Shoe:
        """Inverse of ``to_dict``.

        Raises:
            StateError: the dict is malformed.
        """
        try:
            cards = parse_cards(list(data["cards"]))
            position = int(data["position"])
            cut = data.get("cut_index")
        except (KeyError, TypeError, ValueError, CardError) as e:
            raise StateError(f"shoe: {e}") from None
        if not 0 <= position <= len(cards):
            raise StateError(f"shoe: position {position} outside 0-{len(cards)}")
        return cls(cards, position, None if cut is None else int(cut))

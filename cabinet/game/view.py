"""What a player may see of a round: the typed value ``Round.player_view()`` returns.

Owns: ``PlayerView`` and its parts (``VisibleDealer``, ``VisibleSpot``,
``VisibleHand``, ``VisiblePrompt``). Values, built fresh on each call (nothing
mutates them; not ``frozen`` for the same speed reason as ``Prompt``);
they hold no undealt card and no face-down card (a hidden dealer card is only a
count in ``VisibleDealer.face_down``; STYLE.md 5.20). Cards are their two-letter
text (``"AH"``, ``"TS"``); money is integer minor units. Pure stdlib (the rules
core imports nothing else, tests/test_layers.py); the cabinet's ``view.py`` turns
it into the snapshot the UI gets.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class VisibleHand:
    """One player hand as shown.

    Attributes:
        cards: its cards, in the order dealt.
        stake_minor: what rides on it (doubled included).
        total: best total of its cards.
        total_text: the total as shown (``"7 or 17"``, ``"21"``).
        blackjack: a natural (two cards, not from a split).
        doubled, from_split, done: as in ``Hand``.
        outcome: ``Outcome`` value (``"win"``, ``"blackjack"``...) once settled, else ``None``.
        returned_minor: what settlement paid back (stake included), ``None`` before.
    """

    cards: list[str]
    stake_minor: int
    total: int
    total_text: str
    blackjack: bool
    doubled: bool
    from_split: bool
    done: bool
    outcome: str | None
    returned_minor: int | None


@dataclass(slots=True)
class VisibleSpot:
    """One betting spot as shown.

    Attributes:
        seat: the seat (station) 1-3; spot: the spot 1-3 of that seat.
        bet_minor: the bet placed on it before the deal.
        insurance: ``"none"``, ``"offered"``, ``"taken"`` or ``"declined"`` (as in ``Spot``).
        insurance_stake_minor: insurance taken (half the bet), 0 if none.
        insurance_returned_minor: what the insurance paid back, ``None`` before it settled.
        hands: its hands (more than one after a split).
    """

    seat: int
    spot: int
    bet_minor: int
    insurance: str
    insurance_stake_minor: int
    insurance_returned_minor: int | None
    hands: list[VisibleHand]


@dataclass(slots=True)
class VisibleDealer:
    """The dealer's hand as shown: face-up cards only.

    Attributes:
        cards: the face-up cards.
        face_down: how many cards lie face down (0 or 1).
        total: best total of the face-up cards, 0 with none.
        total_text: that total as shown, ``""`` with none.
        blackjack: the dealer's hand is face up and a natural.
    """

    cards: list[str]
    face_down: int
    total: int
    total_text: str
    blackjack: bool


@dataclass(slots=True)
class VisiblePrompt:
    """The decision the round waits for.

    Attributes:
        kind: ``"insurance"`` or ``"play"``.
        seat, spot: whose; hand: which hand of the spot, 1-based.
        text: the prompt in words.
        legal: the legal ``Decision`` values, sorted.
    """

    kind: str
    seat: int
    spot: int
    hand: int
    text: str
    legal: list[str]


@dataclass(slots=True)
class PlayerView:
    """A round as a player may see it now (``Round.player_view()``).

    Attributes:
        variant: the ``RuleSet.variant`` played.
        phase: the ``Phase`` value (``"new"``, ``"insurance"``, ``"player"``, ``"done"``, ``"error"``).
        dealer: the dealer's face-up hand.
        spots: every spot in play, in play order.
        prompt: the decision waited for, ``None`` when none is.
    """

    variant: str
    phase: str
    dealer: VisibleDealer
    spots: list[VisibleSpot]
    prompt: VisiblePrompt | None

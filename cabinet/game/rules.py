"""``RuleSet``: every rule of a blackjack variant as one frozen value.

Owns: the ``RuleSet`` fields, their validation, and the three presets of
RULES.md (``classic``, ``classic-multi``, ``american``). A rule is a field,
never an ``if variant == ...`` (RULES.md, introduction). Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import RuleSetError

SPLIT_BY = ("rank", "value")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one variant, as played by the round.

    All money is in integer minor units (cents). Construct with keyword
    arguments; ``validate()`` runs in ``__post_init__``.

    Attributes:
        variant: variant id (``classic``, ``classic-multi``, ``american``).
        name: name shown on screen.
        decks: 52-card decks in the shoe, 1-8.
        shuffle_every_round: a fresh shuffle before every round (RULES.md
            `classic`; default of the 4-deck games).
        penetration_percent: with ``shuffle_every_round`` false, the cut card
            sits at this share of the shoe, 50-85; reshuffle between rounds
            once it is reached, never mid-round. ``None`` with per-round shuffle.
        dealer_hole_card: the dealer takes a face-down second card at the deal
            (``american``); otherwise the second card is drawn only when
            needed (RULES.md "Dealing order and the dealer's second card").
        peek_on_ace: the dealer checks for blackjack when the up card is an Ace.
        peek_on_ten: the dealer checks when the up card is ten-valued.
        dealer_hits_soft_17: always false in the three games ("stands on every 17").
        insurance: insurance is offered on an Ace up card, at half the bet, 2:1.
        double_totals: the two-card totals a hand may double on; empty means any
            total (``classic``: 9, 10, 11).
        double_after_split: split hands may double.
        split_by: ``"rank"`` or ``"value"`` (RULES.md: King + Ten split only by value).
        max_splits_per_spot: how many splits one spot may make (1: no re-split).
        split_aces_one_card: split Aces get exactly one card each and stand.
        max_hand_cards: a hand of this many cards stands; ``None`` for no limit.
        max_seats: player seats at the table, 1-3.
        max_spots_per_seat: betting spots per seat, 1-3.
        min_bet_minor: table minimum for one spot's initial bet.
        max_bet_minor: table maximum for one spot's initial bet (doubles,
            splits and insurance may exceed it).
        bet_step_minor: every initial bet is a multiple of this; even.
        chip_values_minor: chip denominations, ascending, each even; empty for
            Bet+/Bet- tables.
        credit_minor: value of one credit when money is shown in credits;
            ``None`` shows currency only.
        bet_timer_s: multi-seat tables: seconds from the first bet to the deal.
        decision_timer_s: multi-seat tables: seconds a seat has per decision.

    Raises:
        RuleSetError: on construction, naming the field that is out of range.
    """

    variant: str
    name: str
    decks: int = 1
    shuffle_every_round: bool = True
    penetration_percent: int | None = None
    dealer_hole_card: bool = False
    peek_on_ace: bool = True
    peek_on_ten: bool = False
    dealer_hits_soft_17: bool = False
    insurance: bool = True
    double_totals: frozenset[int] = field(default_factory=frozenset)
    double_after_split: bool = True
    split_by: str = "rank"
    max_splits_per_spot: int = 1
    split_aces_one_card: bool = True
    max_hand_cards: int | None = None
    max_seats: int = 1
    max_spots_per_seat: int = 1
    min_bet_minor: int = 100
    max_bet_minor: int = 10_000
    bet_step_minor: int = 100
    chip_values_minor: tuple[int, ...] = ()
    credit_minor: int | None = None
    bet_timer_s: int = 30
    decision_timer_s: int = 30

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field; see the class docstring for the ranges.

        Raises:
            RuleSetError: naming the first field found out of range.
        """

        def need(ok: bool, name: str, msg: str) -> None:
            if not ok:
                raise RuleSetError(name, msg)

        for name in (
            "decks",
            "max_splits_per_spot",
            "max_seats",
            "max_spots_per_seat",
            "min_bet_minor",
            "max_bet_minor",
            "bet_step_minor",
            "bet_timer_s",
            "decision_timer_s",
        ):
            v = getattr(self, name)
            need(isinstance(v, int) and not isinstance(v, bool), name, f"must be a whole number, got {v!r}")
        for name in (
            "shuffle_every_round",
            "dealer_hole_card",
            "peek_on_ace",
            "peek_on_ten",
            "dealer_hits_soft_17",
            "insurance",
            "double_after_split",
            "split_aces_one_card",
        ):
            need(isinstance(getattr(self, name), bool), name, "must be true or false")
        need(bool(self.variant), "variant", "must not be empty")
        need(1 <= self.decks <= 8, "decks", f"must be 1-8, got {self.decks}")
        if self.shuffle_every_round:
            need(
                self.penetration_percent is None,
                "penetration_percent",
                "must be unset when shuffle_every_round is true",
            )
        else:
            p = self.penetration_percent
            need(
                isinstance(p, int) and not isinstance(p, bool) and 50 <= p <= 85,
                "penetration_percent",
                f"must be 50-85 with a cut card, got {p!r}",
            )
        need(
            not self.dealer_hits_soft_17,
            "dealer_hits_soft_17",
            "the dealer stands on every 17 in all three games (RULES.md)",
        )
        need(
            isinstance(self.double_totals, frozenset),
            "double_totals",
            f"must be a frozenset of totals, got {self.double_totals!r}",
        )
        need(
            isinstance(self.chip_values_minor, tuple),
            "chip_values_minor",
            f"must be a tuple of amounts, got {self.chip_values_minor!r}",
        )
        if not all(isinstance(t, int) and not isinstance(t, bool) and 4 <= t <= 21 for t in self.double_totals):
            shown = sorted(
                self.double_totals, key=lambda t: (not isinstance(t, int), t if isinstance(t, int) else 0, repr(t))
            )
            need(False, "double_totals", f"totals must be 4-21, got {shown}")
        need(self.split_by in SPLIT_BY, "split_by", f"must be 'rank' or 'value', got {self.split_by!r}")
        need(0 <= self.max_splits_per_spot <= 1, "max_splits_per_spot", "must be 0 or 1 (no re-split in any variant)")
        if self.max_hand_cards is not None:
            need(
                isinstance(self.max_hand_cards, int) and 3 <= self.max_hand_cards <= 21,
                "max_hand_cards",
                f"must be 3-21 or unset, got {self.max_hand_cards!r}",
            )
        need(1 <= self.max_seats <= 3, "max_seats", f"must be 1-3, got {self.max_seats}")
        need(1 <= self.max_spots_per_seat <= 3, "max_spots_per_seat", f"must be 1-3, got {self.max_spots_per_seat}")
        need(
            self.bet_step_minor > 0 and self.bet_step_minor % 2 == 0,
            "bet_step_minor",
            f"must be a positive even number of minor units, got {self.bet_step_minor}",
        )
        need(self.min_bet_minor > 0, "min_bet_minor", "must be positive")
        need(
            self.min_bet_minor % self.bet_step_minor == 0,
            "min_bet_minor",
            f"must be a multiple of bet_step_minor ({self.bet_step_minor})",
        )
        need(
            self.max_bet_minor % self.bet_step_minor == 0,
            "max_bet_minor",
            f"must be a multiple of bet_step_minor ({self.bet_step_minor})",
        )
        need(
            self.min_bet_minor <= self.max_bet_minor,
            "min_bet_minor",
            f"{self.min_bet_minor} is above max_bet_minor {self.max_bet_minor}",
        )
        chips = self.chip_values_minor
        need(
            all(isinstance(c, int) and c > 0 and c % 2 == 0 for c in chips),
            "chip_values_minor",
            f"every chip must be a positive even amount, got {list(chips)}",
        )
        need(list(chips) == sorted(set(chips)), "chip_values_minor", "chips must be distinct and ascending")
        need(
            all(c % self.bet_step_minor == 0 for c in chips),
            "chip_values_minor",
            f"every chip must be a multiple of bet_step_minor ({self.bet_step_minor})",
        )
        if self.credit_minor is not None:
            need(
                isinstance(self.credit_minor, int)
                and not isinstance(self.credit_minor, bool)
                and self.credit_minor > 0,
                "credit_minor",
                "must be a positive whole number of minor units or unset",
            )
        need(1 <= self.bet_timer_s <= 600, "bet_timer_s", "must be 1-600 seconds")
        need(1 <= self.decision_timer_s <= 600, "decision_timer_s", "must be 1-600 seconds")

    # -- derived rules ------------------------------------------------------

    def peeks_on(self, up_card_value: int) -> bool:
        """Whether the dealer checks for blackjack with this up card value (Ace = 1)."""
        if up_card_value == 1:
            return self.peek_on_ace
        if up_card_value == 10:
            return self.peek_on_ten
        return False

    # -- persistence --------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict of every field (sets and tuples as sorted lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, frozenset):
                v = sorted(v)
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Inverse of ``to_dict``.

        Args:
            data: field name -> value; ``double_totals`` and
                ``chip_values_minor`` as lists (a string is refused, not
                split into characters).

        Raises:
            RuleSetError: an unknown field, a collection field that is not a
                list, or a value out of range.
        """
        return cls(**_coerce(data))

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some fields changed (by the names above), validated.

        Values take the ``from_dict`` forms (lists for the collection fields).

        Raises:
            RuleSetError: an unknown field, a collection field that is not a
                list, or a value out of range.
        """
        merged = self.to_dict()
        merged.update(changes)
        return RuleSet.from_dict(merged)


_FIELDS = {f.name for f in dataclasses.fields(RuleSet)}


#: Collections ``_coerce`` accepts for the set and tuple fields. Strings are
#: iterable too, but ``"all"`` is not the totals ``{"a", "l"}``: refused.
_SEQUENCES = (list, tuple, set, frozenset)


def _coerce(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the JSON lists of the collection fields made a frozenset / tuple.

    Raises:
        RuleSetError: an unknown field, or a collection field given as
            anything but a list (a string, a number, an object, null).
    """
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise RuleSetError(unknown[0], f"no such rule field (known: {', '.join(sorted(_FIELDS))})")
    out = dict(data)
    for name, what in (
        ("double_totals", "totals (4-21; empty for any total)"),
        ("chip_values_minor", "amounts in minor units"),
    ):
        if name not in out:
            continue
        v = out[name]
        if not isinstance(v, _SEQUENCES):
            raise RuleSetError(name, f"must be a list of {what}, got {v!r}")
        try:
            out[name] = frozenset(v) if name == "double_totals" else tuple(v)
        except TypeError:  # an unhashable element (a list in the list)
            raise RuleSetError(name, f"must be a list of {what}, got {list(v)!r}") from None
    return out


CLASSIC = RuleSet(
    variant="classic",
    name="Classic Blackjack",
    decks=1,
    shuffle_every_round=True,
    dealer_hole_card=False,
    peek_on_ace=True,
    peek_on_ten=False,
    double_totals=frozenset({9, 10, 11}),
    double_after_split=False,
    split_by="rank",
    split_aces_one_card=False,
    max_hand_cards=11,
    max_seats=1,
    max_spots_per_seat=1,
    min_bet_minor=100,
    max_bet_minor=10_000,
    bet_step_minor=100,
    chip_values_minor=(),
    credit_minor=100,
)
"""RULES.md `classic`: one deck shuffled every round, no hole card, check on Ace
only, double on 9-11 only and never after a split, split by rank once, split
Aces played on, 11-card hands stand, one spot, 1-100 credits of $1."""

CLASSIC_MULTI = RuleSet(
    variant="classic-multi",
    name="Classic BlackJack (multi-player table)",
    decks=4,
    shuffle_every_round=True,
    dealer_hole_card=False,
    peek_on_ace=True,
    peek_on_ten=True,
    double_totals=frozenset(),
    double_after_split=True,
    split_by="rank",
    split_aces_one_card=True,
    max_hand_cards=None,
    max_seats=3,
    max_spots_per_seat=1,
    min_bet_minor=100,
    max_bet_minor=50_000,
    bet_step_minor=100,
    chip_values_minor=(100, 500, 2_500, 10_000),
    credit_minor=None,
    bet_timer_s=30,
    decision_timer_s=30,
)
"""RULES.md `classic-multi`: four decks, 1-3 seats of one spot, check on Ace or
ten without a hole card, double any two cards incl. after a split, split by
rank once, split Aces one card, chips $1/$5/$25/$100, $1-$500, 30 s timers."""

AMERICAN = RuleSet(
    variant="american",
    name="American Blackjack",
    decks=4,
    shuffle_every_round=True,
    dealer_hole_card=True,
    peek_on_ace=True,
    peek_on_ten=True,
    double_totals=frozenset(),
    double_after_split=True,
    split_by="value",
    split_aces_one_card=True,
    max_hand_cards=None,
    max_seats=1,
    max_spots_per_seat=3,
    min_bet_minor=100,
    max_bet_minor=50_000,
    bet_step_minor=100,
    chip_values_minor=(100, 500, 2_500, 10_000),
    credit_minor=None,
)
"""RULES.md `american`: four decks, hole card, check on Ace or ten, double any
two cards incl. after a split (not split Aces), split any two ten-values once,
split Aces one card, one seat with up to three spots, $1-$500 per spot."""

PRESETS: dict[str, RuleSet] = {r.variant: r for r in (CLASSIC, CLASSIC_MULTI, AMERICAN)}


def preset(variant: str) -> RuleSet:
    """The preset ``RuleSet`` of a variant id.

    Raises:
        RuleSetError: the id is not one of ``classic``, ``classic-multi``, ``american``.
    """
    try:
        return PRESETS[variant]
    except KeyError:
        raise RuleSetError("variant", f"unknown variant {variant!r}; one of {', '.join(PRESETS)}") from None

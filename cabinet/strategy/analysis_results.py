"""What the total-dependent analysis (``analysis.analyse``) finds.

Owns: ``ActionEVs`` (the EVs of each first action on one chart row against one
up card), ``UpCardResult`` (one up card) and ``Analysis`` (the variant: strategy,
EV, RTP, house edge), and ``RoundEV`` (RTP and house edge from an EV, shared
with ``cd.CDAnalysis``). Plain frozen values; EVs are per unit of initial bet.
"""

from __future__ import annotations

from dataclasses import dataclass

from cabinet.game.rules import RuleSet

from .strategy import StateKey, Strategy


class RoundEV:
    """What an analysis of a whole game says per round: its ``ev`` (expected net
    result per unit of initial bet), as RTP and house edge."""

    ev: float

    @property
    def rtp(self) -> float:
        """Return to player: 1 + EV, a fraction of the initial bet."""
        return 1.0 + self.ev

    @property
    def house_edge(self) -> float:
        """House edge: -EV, a fraction of the initial bet."""
        return -self.ev


@dataclass(frozen=True)
class ActionEVs:
    """EVs of the actions on initial two-card hands of one chart row, against
    one up card, per unit of initial bet, conditioned on no dealer blackjack
    when the dealer checks on that up card. ``None``: not allowed.

    Attributes:
        stand, hit, double, split: EV of each first action (after it, the
            derived strategy is followed).
        weight: probability of the row's hands being dealt with this up card.
    """

    stand: float
    hit: float
    double: float | None
    split: float | None
    weight: float


@dataclass(frozen=True)
class UpCardResult:
    """Everything the analysis found for one up card.

    Attributes:
        up: up card value, 1 (Ace) to 10.
        probability: probability of this up card off a fresh shoe.
        ev: EV per unit initial bet of a round with this up card (the check
            and every dealer blackjack included, insurance per strategy).
        dealer_blackjack: P(dealer blackjack | up card).
        insurance_ev: EV of insurance per unit of *initial bet* (the
            half-bet wager), averaged over the deals it is offered to;
            ``None`` unless the up card is an Ace and insurance is offered.
        rows: ``{(kind, row): ActionEVs}`` for initial hands, ``kind`` being
            ``"hard"``, ``"soft"`` or ``"pair"`` as in ``Strategy.rows``.
        sweeps: coordinate-ascent sweeps until the tables stopped changing.
    """

    up: int
    probability: float
    ev: float
    dealer_blackjack: float
    insurance_ev: float | None
    rows: dict[tuple[str, int], ActionEVs]
    sweeps: int


@dataclass(frozen=True)
class Analysis(RoundEV):
    """The exact analysis of one variant.

    Attributes:
        rules: the ``RuleSet`` analysed.
        counts: the fresh shoe's composition (10 counts, Ace first).
        strategy: the derived (or the given) basic strategy.
        ups: ``{up value: UpCardResult}``.
        ev: expected net result of a round per unit of initial bet.
        seconds: wall time of the analysis.
        hit_two_card: with ``analyse(..., two_tables=True)``, the hit states
            of the separate two-card table (``strategy.hit`` is then the table
            of hands of three or more cards); ``None`` otherwise.
    """

    rules: RuleSet
    counts: tuple[int, ...]
    strategy: Strategy
    ups: dict[int, UpCardResult]
    ev: float
    seconds: float
    hit_two_card: frozenset[StateKey] | None = None

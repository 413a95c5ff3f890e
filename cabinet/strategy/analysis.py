"""Exact combinatorial analysis of one variant: EVs, basic strategy, RTP.

Owns: the expected value of stand / hit / double / split / insurance for
every player hand against every up card, computed from the actual shoe
composition with every seen card removed; the derivation of the
total-dependent basic strategy that maximises the game's EV; and the game's
return to player (RTP) and house edge under that strategy, off a freshly
shuffled shoe, for one betting spot playing alone. Pure: no I/O; imports
``cabinet.game`` (rules only) and the dealer model.

Method (every rule is a ``RuleSet`` field, RULES.md):

* For each up card and each initial two-card hand the shoe is the full shoe
  less those three cards. Every hand the player can reach by hitting is a
  node; the probability of each next card is its count in the shoe less the
  node's cards. The dealer's outcome distribution is recomputed for every
  node's exact composition (``dealer.DealerModel``), with the dealer's second
  card drawn last. That is exact for a no-hole-card game and, by
  exchangeability of unseen cards, also for a checked or hole card.
* The check (RULES.md "Blackjack check"): when the dealer checks on this up
  card, values are expectations of ``payoff x [no dealer blackjack]``; the
  blackjack mass is dropped and the initial bet's loss to it is added once per
  deal. A bust then costs ``P(no blackjack | cards seen)``. Without a check
  (``classic`` with a ten up) a dealer blackjack made at the end is a loss of
  the *whole* stake of the hand, doubles and split hands included.
* A split (by value, or by rank: for a pair of ten-valued cards only the
  same-rank share of deals may split) is valued as twice one split hand that
  starts from the pair card with the other pair card removed from the shoe.
  Because the strategy is total-dependent (a hand's play never looks at the
  other split hand's cards) and the shoe is exchangeable, each split hand's
  marginal EV is exactly that value: the cards the other hand takes are
  removed at a stopping time, which leaves the law of the cards that follow
  unchanged (optional stopping). So split EVs are exact, not approximated;
  ``tests/strategy`` confirms it against exhaustive play of the real round on
  tiny shoes. Split Aces take one card where ``split_aces_one_card``; hands
  after a split double only with ``double_after_split``; no re-split.
* Basic strategy is found by coordinate ascent over the total-dependent
  tables: states are swept from high totals to low (a hit only ever leads to
  a state already decided), each state choosing the action whose EV,
  weighted by the probability of reaching each of its hands under the current
  strategy, is largest; doubles and splits are then chosen; the sweep repeats
  until nothing changes. The result is a best response in every state, i.e.
  the optimum of the total-dependent strategies up to the (rare) possibility
  of several local optima; the RTP printed is the *exact* RTP of the strategy
  found.

What is approximated: nothing in the RTP of the stated strategy beyond
float rounding (relative error below 1e-12). The model is one spot playing
alone (other spots' cards are unseen and, by the same exchangeability, do not
change this spot's EV off a fresh shuffle); insurance is priced per deal
(EV of the half-bet side wager) and the strategy takes it only if its average
EV over the offered deals is positive. Cards are tracked by value; rank only
matters for splitting tens by rank, handled by the same-rank share.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from cabinet.game.rules import RuleSet

from .dealer import BLACKJACK, BUST, DealerModel, remove, shoe_counts
from .strategy import PairKey, StateKey, Strategy

_SHIFT = 5
_MASK = 31
_MAX_SWEEPS = 12


def _enc(v: int) -> int:
    return 1 << (_SHIFT * (v - 1))


class _Node:
    """A player hand: cards held (``key`` encodes every card removed from the
    shoe beyond the up card, including the other card of a split pair)."""

    __slots__ = ("key", "hard", "ace", "n", "split_card", "total", "soft", "terminal",
                 "kids", "bust", "reach", "stand", "hit", "value", "dbl", "v2")

    def __init__(self, key: int, hard: int, ace: bool, n: int, split_card: int) -> None:
        self.key = key
        self.hard = hard
        self.ace = ace
        self.n = n
        self.split_card = split_card
        self.soft = ace and hard <= 11
        self.total = hard + 10 if self.soft else hard
        self.terminal = False
        self.kids: list[tuple[float, _Node]] = []
        self.bust = 0.0
        self.reach = 0.0
        self.stand = 0.0
        self.hit = 0.0
        self.value = 0.0   # under the hit/stand table (or stand when terminal)
        self.dbl = 0.0
        self.v2 = 0.0      # two-card value incl. a double when the table says so


@dataclass(frozen=True, slots=True)
class _Deal:
    prob: float             # P(these two player cards | up card)
    cards: tuple[int, int]  # values, low first
    node: _Node | None      # None for a player blackjack
    split_node: _Node | None
    split_share: float      # share of these deals that may split (ten pairs by rank)
    key: int


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
class Analysis:
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

    @property
    def rtp(self) -> float:
        """Return to player: 1 + EV, a fraction of the initial bet."""
        return 1.0 + self.ev

    @property
    def house_edge(self) -> float:
        """House edge: -EV, a fraction of the initial bet."""
        return -self.ev


class _UpEngine:
    """The analysis for one up card."""

    def __init__(self, rules: RuleSet, counts: Sequence[int], up: int,
                 two_tables: bool = False) -> None:
        self.rules = rules
        self.up = up
        # With two_tables, two-card hands have their own hit/stand table, keyed
        # by -up in the hit set (the multi-card table keeps +up).
        self.two = two_tables
        self.base = remove(counts, up)
        self.dealer = DealerModel(up, self.base)
        self.peek = rules.peeks_on(up)
        self.bj_card = 10 if up == 1 else (1 if up == 10 else 0)
        self.include_bj = self.bj_card != 0 and not self.peek
        self.limit = rules.max_hand_cards
        self.nodes: dict[tuple[int, int, int], _Node] = {}
        self._dist: dict[int, list[float]] = {}
        self.deals = self._deals()
        self.by_state: dict[tuple[int, bool, bool], list[_Node]] = {}
        self.two_card: list[_Node] = []
        self.split_nodes: list[_Node] = []
        for nd in sorted(self.nodes.values(), key=lambda x: x.n):
            if nd.n == 1:
                self.split_nodes.append(nd)
            elif not nd.terminal:
                tag = two_tables and nd.n == 2
                self.by_state.setdefault((nd.total, nd.soft, tag), []).append(nd)
                if nd.n == 2:
                    self.two_card.append(nd)
        self.order = sorted(self.nodes.values(), key=lambda x: x.n)
        states = self.by_state
        order = ([(t, False) for t in range(21, 11, -1)] + [(t, True) for t in range(21, 11, -1)]
                 + [(t, False) for t in range(11, 1, -1)])
        self.sweep_order = [(t, soft, tag) for t, soft in order for tag in (False, True)
                            if (t, soft, tag) in states]

    # -- composition -------------------------------------------------------------

    def comp(self, key: int) -> list[int]:
        return [c - ((key >> (_SHIFT * i)) & _MASK) for i, c in enumerate(self.base)]

    def p_blackjack(self, key: int) -> float:
        """P(the dealer's second card makes blackjack | cards in ``key`` seen)."""
        if not self.bj_card:
            return 0.0
        comp = self.comp(key)
        n = sum(comp)
        return comp[self.bj_card - 1] / n if n else 0.0

    def dist(self, key: int) -> list[float]:
        d = self._dist.get(key)
        if d is None:
            d = self.dealer.distribution(self.comp(key))
            self._dist[key] = d
        return d

    def stand_ev(self, key: int, total: int) -> float:
        d = self.dist(key)
        if total < 17:
            ev = d[BUST] - (d[0] + d[1] + d[2] + d[3] + d[4])
        else:
            i = total - 17
            ev = d[BUST] + sum(d[:i]) - sum(d[i + 1:5])
        if self.include_bj:
            ev -= d[BLACKJACK]
        return ev

    def bust_value(self, key: int) -> float:
        return -(1.0 - self.p_blackjack(key)) if self.peek else -1.0

    # -- the tree ------------------------------------------------------------------

    def node(self, key: int, hard: int, ace: bool, n: int, split_card: int) -> _Node:
        ident = (key, n, split_card)
        nd = self.nodes.get(ident)
        if nd is not None:
            return nd
        nd = _Node(key, hard, ace, n, split_card)
        self.nodes[ident] = nd
        r = self.rules
        if n >= 2:
            nd.terminal = (nd.total == 21
                           or (self.limit is not None and n >= self.limit)
                           or (split_card == 1 and r.split_aces_one_card))
            nd.stand = self.stand_ev(key, nd.total)
        if nd.terminal:
            nd.value = nd.v2 = nd.stand
            return nd
        comp = self.comp(key)
        total_cards = sum(comp)
        for i, c in enumerate(comp):
            if not c:
                continue
            v = i + 1
            p = c / total_cards
            k2 = key + _enc(v)
            if hard + v > 21:
                nd.bust += p * self.bust_value(k2)
            else:
                nd.kids.append((p, self.node(k2, hard + v, ace or v == 1, n + 1, split_card)))
        return nd

    def _deals(self) -> list[_Deal]:
        base = self.base
        total = sum(base)
        r = self.rules
        deals = []
        for a in range(1, 11):
            for b in range(a, 11):
                ca, cb = base[a - 1], base[b - 1]
                if a == b:
                    prob = ca * (ca - 1) / (total * (total - 1))
                else:
                    prob = 2 * ca * cb / (total * (total - 1))
                if prob <= 0:
                    continue
                key = _enc(a) + _enc(b)
                if a == 1 and b == 10:
                    deals.append(_Deal(prob, (a, b), None, None, 0.0, key))
                    continue
                nd = self.node(key, a + b, a == 1, 2, 0)
                split_node = None
                share = 0.0
                if a == b and r.max_splits_per_spot >= 1:
                    share = self._same_rank_share(a)
                    split_node = self.node(key, a, a == 1, 1, a)
                deals.append(_Deal(prob, (a, b), nd, split_node, share, key))
        return deals

    def _same_rank_share(self, v: int) -> float:
        """Share of two-card pairs of value ``v`` that are splittable."""
        if v != 10 or self.rules.split_by == "value":
            return 1.0
        per_rank = [self.base[9] // 4] * 4  # T, J, Q, K equally represented
        extra = self.base[9] - sum(per_rank)
        for i in range(extra):
            per_rank[i] += 1
        t = sum(per_rank)
        if t < 2:
            return 0.0
        return sum(c * (c - 1) for c in per_rank) / (t * (t - 1))

    # -- evaluation under tables ---------------------------------------------------

    def can_double(self, nd: _Node) -> bool:
        r = self.rules
        if nd.n != 2 or nd.terminal:
            return False
        if nd.split_card and not r.double_after_split:
            return False
        return not r.double_totals or nd.total in r.double_totals

    def _reach(self, hit: set[StateKey], dbl: set[StateKey], split: set[PairKey]) -> None:
        up = self.up
        for nd in self.order:
            nd.reach = 0.0
        for d in self.deals:
            if d.node is None:
                continue
            share = d.split_share if (d.cards[0], up) in split else 0.0
            d.node.reach += d.prob * (1.0 - share)
            if d.split_node is not None and share:
                d.split_node.reach += 2.0 * d.prob * share
        for nd in self.order:
            if nd.terminal or not nd.reach:
                continue
            state = (nd.total, nd.soft, up)
            if nd.n >= 2:
                if nd.n == 2 and state in dbl and self.can_double(nd):
                    continue
                if (nd.total, nd.soft, -up if self.two and nd.n == 2 else up) not in hit:
                    continue
            for p, kid in nd.kids:
                kid.reach += nd.reach * p

    def _sweep(self, hit: set[StateKey], dbl: set[StateKey], split: set[PairKey],
               decide: bool) -> None:
        """Values under the tables; with ``decide``, first re-choose each state."""
        up = self.up
        for state in self.sweep_order:
            nodes = self.by_state[state]
            w_sum = s_sum = h_sum = 0.0
            for nd in nodes:
                h = nd.bust
                for p, kid in nd.kids:
                    h += p * kid.value
                nd.hit = h
                w_sum += nd.reach
                s_sum += nd.reach * nd.stand
                h_sum += nd.reach * h
            key = (state[0], state[1], -up if state[2] else up)
            if decide:
                if w_sum <= 0.0:  # unreachable under this strategy: unweighted
                    s_sum = sum(nd.stand for nd in nodes)
                    h_sum = sum(nd.hit for nd in nodes)
                if h_sum > s_sum:
                    hit.add(key)
                else:
                    hit.discard(key)
            hits = key in hit
            for nd in nodes:
                nd.value = nd.hit if hits else nd.stand
        # doubles: every two-card node that may double
        candidates: dict[tuple[int, bool], list[_Node]] = {}
        for nd in self.two_card:
            if self.can_double(nd):
                d = nd.bust
                for p, kid in nd.kids:
                    d += p * kid.stand
                nd.dbl = 2.0 * d
                candidates.setdefault((nd.total, nd.soft), []).append(nd)
        if decide:
            for total_soft, nodes in candidates.items():
                key = (total_soft[0], total_soft[1], up)
                w = sum(nd.reach for nd in nodes)
                if w > 0.0:
                    gain = sum(nd.reach * (nd.dbl - nd.value) for nd in nodes)
                else:
                    gain = sum(nd.dbl - nd.value for nd in nodes)
                if gain > 0.0:
                    dbl.add(key)
                else:
                    dbl.discard(key)
        for nd in self.two_card:
            key = (nd.total, nd.soft, up)
            nd.v2 = nd.dbl if key in dbl and self.can_double(nd) else nd.value
        for nd in self.split_nodes:
            v = nd.bust
            for p, kid in nd.kids:
                v += p * kid.v2
            nd.value = nd.v2 = v
        if decide:
            for deal in self.deals:
                if deal.split_node is None or deal.node is None or deal.split_share <= 0.0:
                    continue
                key2 = (deal.cards[0], up)
                if 2.0 * deal.split_node.value > deal.node.v2:
                    split.add(key2)
                else:
                    split.discard(key2)

    def solve(self, hit: set[StateKey], dbl: set[StateKey], split: set[PairKey],
              decide: bool) -> int:
        """Fill values (and, with ``decide``, the tables in place); returns sweeps."""
        if not decide:
            self._sweep(hit, dbl, split, False)
            return 0
        for sweep in range(1, _MAX_SWEEPS + 1):
            before = (frozenset(hit), frozenset(dbl), frozenset(split))
            self._reach(hit, dbl, split)
            self._sweep(hit, dbl, split, True)
            if (frozenset(hit), frozenset(dbl), frozenset(split)) == before:
                return sweep
        return _MAX_SWEEPS

    # -- results -------------------------------------------------------------------

    def result(self, probability: float, split: set[PairKey], insurance: bool | None,
               sweeps: int) -> tuple[UpCardResult, bool]:
        """EV of a round with this up card; also the insurance preference."""
        up = self.up
        r = self.rules
        offered = r.insurance and up == 1
        ev = 0.0
        ins_sum = ins_w = 0.0
        rows: dict[tuple[str, int], list[float]] = {}
        bj_total = 0.0
        for d in self.deals:
            pbj = self.p_blackjack(d.key)
            bj_total += d.prob * pbj
            if d.node is None:
                ev += d.prob * 1.5 * (1.0 - pbj)
                continue
            nd = d.node
            share = d.split_share if (d.cards[0], up) in split else 0.0
            value = (1.0 - share) * nd.v2
            if d.split_node is not None:
                value += share * 2.0 * d.split_node.value
            if self.peek:
                value -= pbj
            ev += d.prob * value
            if offered:
                ins_sum += d.prob * 0.5 * (3.0 * pbj - 1.0)
                ins_w += d.prob
            # report rows (two-card, conditioned on no dealer blackjack after a check)
            a, b = d.cards
            if a == b:
                row = ("pair", a)
            else:
                row = ("soft" if nd.soft else "hard", nd.total)
            cond = 1.0 - pbj if self.peek else 1.0
            acc = rows.setdefault(row, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
            can_d = self.can_double(nd)
            can_s = d.split_node is not None and d.split_share > 0.0
            acc[0] += d.prob * nd.stand
            acc[1] += d.prob * nd.hit
            acc[2] += d.prob * (nd.dbl if can_d else 0.0)
            acc[3] += d.prob * (2.0 * d.split_node.value if can_s and d.split_node else 0.0)
            acc[4] += d.prob * cond
            acc[5] += d.prob
            acc[6] = acc[6] or float(can_d) + 2.0 * float(can_s)
        ins_ev = ins_sum / ins_w if offered and ins_w else None
        take = ins_ev is not None and ins_ev > 0.0 if insurance is None else insurance
        if take and offered:
            ev += ins_sum
        out_rows = {}
        for row, acc in rows.items():
            den = acc[4]
            flags = int(acc[6])
            out_rows[row] = ActionEVs(
                stand=acc[0] / den, hit=acc[1] / den,
                double=acc[2] / den if flags & 1 else None,
                split=acc[3] / den if flags & 2 else None,
                weight=acc[5])
        res = UpCardResult(up, probability, ev, bj_total, ins_ev, out_rows, sweeps)
        return res, bool(take)


def _initial_tables() -> tuple[set[StateKey], set[StateKey], set[PairKey]]:
    hit: set[StateKey] = set()
    for up in range(1, 11):
        for t in range(4, 17):
            hit.add((t, False, up))
        for t in range(12, 18):
            hit.add((t, True, up))
    return hit, set(), set()


def analyse(rules: RuleSet, counts: Sequence[int] | None = None,
            strategy: Strategy | None = None, two_tables: bool = False) -> Analysis:
    """Exact analysis of a variant off a freshly shuffled shoe.

    Args:
        rules: the variant's ``RuleSet``.
        counts: the shoe's composition (10 counts, Ace first, tens together);
            ``None`` for ``rules.decks`` full decks. Small shoes are allowed
            as long as no round can run out of cards.
        strategy: evaluate this strategy instead of deriving one.
        two_tables: derive a total-dependent strategy with separate hit/stand
            tables for two-card hands (split hands included) and for hands of
            three or more cards, the definition most published basic
            strategies use (doubles and splits as before); ignored with
            ``strategy``. Its two-card table is ``Analysis.hit_two_card``.
            The cabinet's simulator plays the one-table strategy.

    Returns:
        The ``Analysis``: strategy, EV per up card, RTP and house edge.

    Raises:
        ValueError: a composition that is not 10 non-negative counts.
    """
    t0 = time.perf_counter()
    full = tuple(shoe_counts(rules.decks) if counts is None else counts)
    if len(full) != 10 or any(c < 0 for c in full):
        raise ValueError(f"a composition is 10 non-negative counts, got {full}")
    n = sum(full)
    two = two_tables and strategy is None
    if strategy is None:
        hit, dbl, split = _initial_tables()
        if two:
            hit |= {(t, s, -u) for t, s, u in hit}
        insurance: bool | None = None
    else:
        hit, dbl, split = set(strategy.hit), set(strategy.double), set(strategy.split)
        insurance = strategy.insurance
    ups: dict[int, UpCardResult] = {}
    take_any = False
    for up in range(1, 11):
        if not full[up - 1]:
            continue
        eng = _UpEngine(rules, full, up, two)
        sweeps = eng.solve(hit, dbl, split, strategy is None)
        res, take = eng.result(full[up - 1] / n, split, insurance, sweeps)
        ups[up] = res
        take_any = take_any or (take and up == 1)
    ev = sum(r.probability * r.ev for r in ups.values())
    two_card = frozenset((t, s, -u) for t, s, u in hit if u < 0) if two else None
    strat = strategy or Strategy(rules.variant, frozenset(k for k in hit if k[2] > 0),
                                 frozenset(dbl), frozenset(split), take_any)
    return Analysis(rules, full, strat, ups, ev, time.perf_counter() - t0, two_card)


def deal_ev(rules: RuleSet, counts: Sequence[int], cards: tuple[int, int], up: int,
            strategy: Strategy) -> float:
    """EV of one initial deal played with ``strategy``, per unit of initial bet.

    Args:
        rules: the variant.
        counts: the shoe *before* the deal (10 counts, Ace first).
        cards: the player's two card values (1-10), any order.
        up: the dealer's up card value, 1-10.
        strategy: the strategy to follow.

    Returns:
        The expected net result of the round, the check and insurance
        (per ``strategy``) included; conditioned on nothing else.

    Raises:
        ValueError: the cards are not in ``counts``.
    """
    remove(counts, up, *cards)
    eng = _UpEngine(rules, counts, up)
    hit, dbl, split = set(strategy.hit), set(strategy.double), set(strategy.split)
    eng.solve(hit, dbl, split, False)
    a, b = sorted(cards)
    for d in eng.deals:
        if d.cards != (a, b):
            continue
        pbj = eng.p_blackjack(d.key)
        if d.node is None:
            return 1.5 * (1.0 - pbj)
        share = d.split_share if (a, up) in split else 0.0
        value = (1.0 - share) * d.node.v2
        if d.split_node is not None:
            value += share * 2.0 * d.split_node.value
        if eng.peek:
            value -= pbj
        if strategy.insurance and rules.insurance and up == 1:
            value += 0.5 * (3.0 * pbj - 1.0)
        return value
    raise ValueError(f"deal {cards} against {up} is not possible")  # pragma: no cover

"""The total-dependent analysis of one up card: the tree of player hands, their
values under a strategy's tables, and the coordinate ascent that derives them.

Owns: ``_UpEngine`` (used by ``analysis.analyse`` and ``analysis.deal_ev``), its
hand nodes ``_Node`` and initial deals ``_Deal``. The method is the module
docstring of ``analysis``; the shoe, the check and the stand and bust EVs are
``upcard.UpCardShoe``'s. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cabinet.game.rules import RuleSet

from .analysis_results import ActionEVs, UpCardResult
from .strategy import PairKey, StateKey
from .upcard import UpCardShoe, _enc

_MAX_SWEEPS = 12


class _Node:
    """A player hand: cards held (``key`` encodes every card removed from the
    shoe beyond the up card, including the other card of a split pair)."""

    __slots__ = (
        "key",
        "hard",
        "ace",
        "n",
        "split_card",
        "total",
        "soft",
        "terminal",
        "kids",
        "bust",
        "reach",
        "stand",
        "hit",
        "value",
        "dbl",
        "v2",
    )

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
        self.value = 0.0  # under the hit/stand table (or stand when terminal)
        self.dbl = 0.0
        self.v2 = 0.0  # two-card value incl. a double when the table says so


@dataclass(frozen=True, slots=True)
class _Deal:
    prob: float  # P(these two player cards | up card)
    cards: tuple[int, int]  # values, low first
    node: _Node | None  # None for a player blackjack
    split_node: _Node | None
    split_share: float  # share of these deals that may split (ten pairs by rank)
    key: int


class _UpEngine(UpCardShoe):
    """The analysis for one up card."""

    def __init__(self, rules: RuleSet, counts: Sequence[int], up: int, two_tables: bool = False) -> None:
        super().__init__(rules, counts, up)
        # With two_tables, two-card hands have their own hit/stand table, keyed
        # by -up in the hit set (the multi-card table keeps +up).
        self.two = two_tables
        self.limit = rules.max_hand_cards
        self.nodes: dict[tuple[int, int, int], _Node] = {}
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
        order = (
            [(t, False) for t in range(21, 11, -1)]
            + [(t, True) for t in range(21, 11, -1)]
            + [(t, False) for t in range(11, 1, -1)]
        )
        self.sweep_order = [(t, soft, tag) for t, soft in order for tag in (False, True) if (t, soft, tag) in states]

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
            nd.terminal = (
                nd.total == 21
                or (self.limit is not None and n >= self.limit)
                or (split_card == 1 and r.split_aces_one_card)
            )
            nd.stand = self.stand(key, nd.total)
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
                nd.bust += p * self.bust(k2)
            else:
                nd.kids.append((p, self.node(k2, hard + v, ace or v == 1, n + 1, split_card)))
        return nd

    def _deals(self) -> list[_Deal]:
        r = self.rules
        deals = []
        for a, b, prob, key in self.two_card_deals():
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

    def _sweep(self, hit: set[StateKey], dbl: set[StateKey], split: set[PairKey], decide: bool) -> None:
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

    def solve(self, hit: set[StateKey], dbl: set[StateKey], split: set[PairKey], decide: bool) -> int:
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

    def result(
        self, probability: float, split: set[PairKey], insurance: bool | None, sweeps: int
    ) -> tuple[UpCardResult, bool]:
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
                stand=acc[0] / den,
                hit=acc[1] / den,
                double=acc[2] / den if flags & 1 else None,
                split=acc[3] / den if flags & 2 else None,
                weight=acc[5],
            )
        res = UpCardResult(up, probability, ev, bj_total, ins_ev, out_rows, sweeps)
        return res, bool(take)

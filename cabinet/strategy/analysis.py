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

from cabinet.game.rules import RuleSet

from .analysis_results import ActionEVs, Analysis, UpCardResult
from .dealer import remove
from .strategy import PairKey, StateKey, Strategy
from .td_engine import _UpEngine
from .upcard import fresh_counts

__all__ = ["ActionEVs", "Analysis", "UpCardResult", "analyse", "deal_ev"]


def _initial_tables() -> tuple[set[StateKey], set[StateKey], set[PairKey]]:
    hit: set[StateKey] = set()
    for up in range(1, 11):
        for t in range(4, 17):
            hit.add((t, False, up))
        for t in range(12, 18):
            hit.add((t, True, up))
    return hit, set(), set()


def analyse(
    rules: RuleSet, counts: Sequence[int] | None = None, strategy: Strategy | None = None, two_tables: bool = False
) -> Analysis:
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
    full = fresh_counts(rules, counts)
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
    strat = strategy or Strategy(
        rules.variant, frozenset(k for k in hit if k[2] > 0), frozenset(dbl), frozenset(split), take_any
    )
    return Analysis(rules, full, strat, ups, ev, time.perf_counter() - t0, two_card)


def deal_ev(rules: RuleSet, counts: Sequence[int], cards: tuple[int, int], up: int, strategy: Strategy) -> float:
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

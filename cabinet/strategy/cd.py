"""Exact composition-dependent (CD) analysis of one variant.

Owns: the return to player of a player who, against every up card, plays
every hand by its exact *composition* (the multiset of its cards, not only
its total), taking the action with the largest expected value given every
card it has seen, off a freshly shuffled shoe, under the cabinet's own
``RuleSet`` (RULES.md). Pure: no I/O; imports ``cabinet.game`` (rules only)
and the dealer model.

Method (the same shoe, check and late-blackjack model as ``analysis``):

* Per up card, the shoe is the full shoe less the up card. A hand is the
  count vector of its cards; every composition reachable by hitting is
  valued once (memoised on the vector of every card removed from the shoe),
  with the dealer's final-total distribution recomputed for that exact
  remaining composition (``dealer.DealerModel``). Hands of two cards choose
  among stand, hit, double (where the rules allow) and split; hands of more
  cards among stand and hit; each takes the best.
* The check: with a check on this up card, values are expectations of
  ``payoff x [no dealer blackjack]`` and the initial bet's loss to a dealer
  blackjack is charged once per deal, so comparing two actions of one hand
  compares their EVs conditioned on no blackjack. Without a check
  (``classic``, ten up) a dealer blackjack made at the end takes the whole
  stake (doubles included).
* Post-split play is **CDZ-** (Eric Farmer's term; the method of his
  analyzer, github possibly-wrong/blackjack): each split hand plays as the
  same composition would unsplit (the action maximising the *unsplit* EV of
  those cards, among the actions allowed after a split: no re-split, double
  only with ``double_after_split``, split Aces one card where
  ``split_aces_one_card``), while the EV of that play is computed exactly,
  with the other pair card removed. Because such a strategy never looks at
  the other hand's cards, each split hand's marginal EV is the EV of one hand
  started from the pair card with the other removed (exchangeability and
  optional stopping, as in ``analysis``); a split is worth twice that.
  ``tests/strategy/test_cd.py`` checks all of it against a brute force that
  plays the real dealing order (hole card drawn at the check, both split
  hands and the dealer from one shoe) on small shoes.
* Insurance is taken on a deal exactly when its own EV there is positive
  (never, off a full shoe, in the three games).

``post_split="CDP"`` instead lets each split hand take the best action for
its own cards *and* the other pair card (Farmer's CDP); it still never looks
at the other hand's cards, so the same argument makes it exact.

What is left out: a post-split hand never uses the other split hand's cards
(and, under CDZ-, not even the other pair card) for its decisions; one spot
playing alone (other spots' unseen cards do
not change its EV off a fresh shuffle). Cards are tracked by value; ten-valued
pairs split by rank use the same-rank share of the deals, as in
``analysis``. Nothing else is approximated beyond float rounding.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from cabinet.game.rules import RuleSet

from .analysis_results import RoundEV
from .upcard import UpCardShoe, _enc, fresh_counts

POST_SPLIT = "CDZ-"
"""Default post-split strategy of this analysis (see the module docstring)."""
POST_SPLITS = ("CDZ-", "CDP")
"""``CDZ-``: a split hand plays as its cards would unsplit. ``CDP``: a split
hand takes the best action for its own cards *and* the other pair card
(Farmer's CDP for no re-split; it still ignores the other hand's cards)."""


@dataclass(frozen=True)
class CDUpCard:
    """The CD analysis of one up card.

    Attributes:
        up: up card value, 1 (Ace) to 10.
        probability: probability of this up card off a fresh shoe.
        ev: EV per unit of initial bet of a round with this up card (the
            check, every dealer blackjack and insurance where it pays included).
        dealer_blackjack: P(dealer blackjack | up card).
        insurance_ev: EV of insurance per unit of initial bet averaged over
            the deals it is offered to (taken or not); ``None`` if not offered.
        compositions: distinct shoe compositions whose dealer distribution
            was computed.
    """

    up: int
    probability: float
    ev: float
    dealer_blackjack: float
    insurance_ev: float | None
    compositions: int


@dataclass(frozen=True)
class CDAnalysis(RoundEV):
    """The composition-dependent analysis of one variant.

    Attributes:
        rules: the ``RuleSet`` analysed.
        counts: the fresh shoe (10 counts, Ace first).
        ups: ``{up value: CDUpCard}``.
        ev: expected net result of a round per unit of initial bet.
        seconds: wall time.
        post_split: ``"CDZ-"`` or ``"CDP"`` (``POST_SPLITS``).
    """

    rules: RuleSet
    counts: tuple[int, ...]
    ups: dict[int, CDUpCard]
    ev: float
    seconds: float
    post_split: str = POST_SPLIT


class _CDEngine(UpCardShoe):
    """The CD analysis for one up card (memoised on removed-card vectors; the shoe,
    stand and bust EVs are ``upcard.UpCardShoe``'s)."""

    def __init__(self, rules: RuleSet, counts: Sequence[int], up: int, post_split: str = POST_SPLIT) -> None:
        super().__init__(rules, counts, up)
        self.cdp = post_split == "CDP"
        self.limit = rules.max_hand_cards or 0
        self._un: dict[int, tuple[float, float]] = {}
        self._sp: dict[tuple[int, int], float] = {}

    # -- shoe ------------------------------------------------------------------------

    def kids(self, key: int, hard: int) -> list[tuple[float, int, int, int]]:
        """``(probability, value, key after, hard after)`` of the next card."""
        comp = self.comp(key)
        n = sum(comp)
        return [(c / n, i + 1, key + _enc(i + 1), hard + i + 1) for i, c in enumerate(comp) if c]

    def can_double(self, n: int, total: int, split: bool) -> bool:
        r = self.rules
        if n != 2 or (split and not r.double_after_split):
            return False
        return not r.double_totals or total in r.double_totals

    def double(self, key: int, hard: int, ace: bool) -> float:
        """2 x (one card, then stand), the hand's cards being in ``key``."""
        v = 0.0
        for p, c, k2, h2 in self.kids(key, hard):
            if h2 > 21:
                v += p * self.bust(k2)
            else:
                a2 = ace or c == 1
                v += p * self.stand(k2, h2 + 10 if a2 and h2 <= 11 else h2)
        return 2.0 * v

    # -- an unsplit hand (its cards are exactly ``key``) ----------------------------

    def unsplit(self, key: int, hard: int, ace: bool, n: int) -> tuple[float, float]:
        """``(stand EV, hit EV)`` of an unsplit hand of n >= 2 cards; the hit
        EV is the stand EV where the hand must stand."""
        got = self._un.get(key)
        if got is not None:
            return got
        total = hard + 10 if ace and hard <= 11 else hard
        st = self.stand(key, total)
        if total == 21 or (self.limit and n >= self.limit):
            got = (st, st)
        else:
            hit = 0.0
            for p, c, k2, h2 in self.kids(key, hard):
                if h2 > 21:
                    hit += p * self.bust(k2)
                else:
                    s2, h2v = self.unsplit(k2, h2, ace or c == 1, n + 1)
                    hit += p * (h2v if h2v > s2 else s2)
            got = (st, hit)
        self._un[key] = got
        return got

    # -- a split hand (``key`` holds its cards and the other pair card) -------------

    def split_hand(self, key: int, pair: int, hard: int, ace: bool, n: int) -> float:
        """EV of one split hand played CDZ- (or CDP) from here."""
        memo = (key, pair)
        got = self._sp.get(memo)
        if got is not None:
            return got
        total = hard + 10 if ace and hard <= 11 else hard
        r = self.rules
        if n >= 2 and (total == 21 or (self.limit and n >= self.limit) or (pair == 1 and r.split_aces_one_card)):
            got = self.stand(key, total)
        elif self.cdp and n >= 2:  # the best action for these cards, split
            got = self.stand(key, total)
            hit = 0.0
            for p, c, k2, h2 in self.kids(key, hard):
                hit += p * (self.bust(k2) if h2 > 21 else self.split_hand(k2, pair, h2, ace or c == 1, n + 1))
            got = hit if hit > got else got
            if self.can_double(n, total, True):
                got = max(got, self.double(key, hard, ace))
        else:
            action = "hit"
            if n >= 2:
                own = key - _enc(pair)  # the same cards, unsplit
                st_u, hit_u = self.unsplit(own, hard, ace, n)
                best_u, action = (hit_u, "hit") if hit_u > st_u else (st_u, "stand")
                if self.can_double(n, total, True) and self.double(own, hard, ace) > best_u:
                    action = "double"
            if action == "stand":
                got = self.stand(key, total)
            elif action == "double":
                got = self.double(key, hard, ace)
            else:
                got = 0.0
                for p, c, k2, h2 in self.kids(key, hard):
                    if h2 > 21:
                        got += p * self.bust(k2)
                    else:
                        got += p * self.split_hand(k2, pair, h2, ace or c == 1, n + 1)
        self._sp[memo] = got
        return got

    # -- the round ------------------------------------------------------------------

    def result(self, probability: float) -> CDUpCard:
        r = self.rules
        offered = r.insurance and self.up == 1
        ev = bj_total = ins_sum = ins_w = 0.0
        for a, b, prob, key in self.two_card_deals():
            pbj = self.p_blackjack(key)
            bj_total += prob * pbj
            if a == 1 and b == 10:
                ev += prob * 1.5 * (1.0 - pbj)
                continue
            hard, ace = a + b, a == 1
            st, hit = self.unsplit(key, hard, ace, 2)
            best = hit if hit > st else st
            t2 = hard + 10 if ace and hard <= 11 else hard
            if self.can_double(2, t2, False):
                best = max(best, self.double(key, hard, ace))
            value = best
            if a == b and r.max_splits_per_spot >= 1:
                share = self._same_rank_share(a)
                sp = 2.0 * self.split_hand(key, a, a, ace, 1)
                value = (1.0 - share) * best + share * max(best, sp)
            if self.peek:
                value -= pbj
            if offered:
                ins = 0.5 * (3.0 * pbj - 1.0)
                ins_sum += prob * ins
                ins_w += prob
                value += max(ins, 0.0)
            ev += prob * value
        return CDUpCard(
            self.up, probability, ev, bj_total, ins_sum / ins_w if offered and ins_w else None, len(self._dist)
        )


def analyse_cd(rules: RuleSet, counts: Sequence[int] | None = None, post_split: str = POST_SPLIT) -> CDAnalysis:
    """Exact composition-dependent analysis off a freshly shuffled shoe.

    Args:
        rules: the variant's ``RuleSet``.
        counts: the shoe (10 counts, Ace first, tens together); ``None`` for
            ``rules.decks`` full decks. Small shoes are allowed as long as no
            round can run out of cards.
        post_split: ``"CDZ-"`` (default) or ``"CDP"``, see ``POST_SPLITS``.

    Returns:
        The ``CDAnalysis``: EV per up card, RTP and house edge.

    Raises:
        ValueError: a composition that is not 10 non-negative counts, or an
            unknown ``post_split``.
    """
    if post_split not in POST_SPLITS:
        raise ValueError(f"post_split must be one of {POST_SPLITS}, got {post_split!r}")
    t0 = time.perf_counter()
    full = fresh_counts(rules, counts)
    n = sum(full)
    ups = {}
    for up in range(1, 11):
        if full[up - 1]:
            ups[up] = _CDEngine(rules, full, up, post_split).result(full[up - 1] / n)
    ev = sum(u.probability * u.ev for u in ups.values())
    return CDAnalysis(rules, full, ups, ev, time.perf_counter() - t0, post_split)

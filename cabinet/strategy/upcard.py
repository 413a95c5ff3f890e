"""The shoe as both exact analyses see it from one dealer up card.

Owns: what ``analysis`` (total-dependent) and ``cd`` (composition-dependent)
share per up card: the key that encodes the cards removed from the shoe, the
shoe less the up card and its dealer model, the check (RULES.md "Blackjack
check") and late blackjack, the EV of standing and of busting on an exact
composition, the same-rank share of ten-valued pairs, the initial two-card
deals, and the checked full-shoe composition both ``analyse`` functions start
from. Pure; imports ``cabinet.game`` (rules only) and the dealer model.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from cabinet.game.rules import RuleSet

from .dealer import BLACKJACK, BUST, DealerModel, remove, shoe_counts

#: A key holds, per card value, how many of that value are out of the shoe, in
#: ``_SHIFT`` bits each (up to 31 of a value), Ace lowest.
_SHIFT = 5
_MASK = 31


def _enc(v: int) -> int:
    """The key of one card of value ``v`` (1-10) out of the shoe."""
    return 1 << (_SHIFT * (v - 1))


def fresh_counts(rules: RuleSet, counts: Sequence[int] | None) -> tuple[int, ...]:
    """The shoe an analysis starts from: ``counts``, or ``rules.decks`` full decks.

    Raises:
        ValueError: a composition that is not 10 non-negative counts.
    """
    full = tuple(shoe_counts(rules.decks) if counts is None else counts)
    if len(full) != 10 or any(c < 0 for c in full):
        raise ValueError(f"a composition is 10 non-negative counts, got {full}")
    return full


class UpCardShoe:
    """The shoe with one up card dealt, and what every hand's value is built from.

    Args:
        rules: the variant.
        counts: the shoe before the up card (10 counts, Ace first).
        up: the dealer's up card value, 1 (Ace) to 10.

    Raises:
        ValueError: the up card is not in ``counts``.
    """

    def __init__(self, rules: RuleSet, counts: Sequence[int], up: int) -> None:
        self.rules = rules
        self.up = up
        self.base = remove(counts, up)
        self.dealer = DealerModel(up, self.base)
        self.peek = rules.peeks_on(up)
        self.bj_card = 10 if up == 1 else (1 if up == 10 else 0)
        self.include_bj = self.bj_card != 0 and not self.peek
        self._dist: dict[int, list[float]] = {}

    def comp(self, key: int) -> list[int]:
        """The shoe's counts with the cards of ``key`` out."""
        return [c - ((key >> (_SHIFT * i)) & _MASK) for i, c in enumerate(self.base)]

    def p_blackjack(self, key: int) -> float:
        """P(the dealer's second card makes blackjack | cards in ``key`` seen)."""
        if not self.bj_card:
            return 0.0
        comp = self.comp(key)
        n = sum(comp)
        return comp[self.bj_card - 1] / n if n else 0.0

    def stand(self, key: int, total: int) -> float:
        """EV of standing on ``total`` with the cards of ``key`` out (the dealer's
        distribution on that exact composition, computed once per key); a late
        dealer blackjack counts as a loss where the dealer did not check."""
        d = self._dist.get(key)
        if d is None:
            d = self._dist[key] = self.dealer.distribution(self.comp(key))
        if total < 17:
            ev = d[BUST] - (d[0] + d[1] + d[2] + d[3] + d[4])
        else:
            i = total - 17
            ev = d[BUST] + sum(d[:i]) - sum(d[i + 1 : 5])
        if self.include_bj:
            ev -= d[BLACKJACK]
        return ev

    def bust(self, key: int) -> float:
        """EV of a bust: the stake, times P(no dealer blackjack) after a check."""
        return -(1.0 - self.p_blackjack(key)) if self.peek else -1.0

    def _same_rank_share(self, v: int) -> float:
        """Share of two-card pairs of value ``v`` that are splittable (ten-valued
        pairs split by rank: T, J, Q, K equally represented)."""
        if v != 10 or self.rules.split_by == "value":
            return 1.0
        per_rank = [self.base[9] // 4] * 4
        for i in range(self.base[9] - sum(per_rank)):
            per_rank[i] += 1
        t = sum(per_rank)
        return sum(c * (c - 1) for c in per_rank) / (t * (t - 1)) if t >= 2 else 0.0

    def two_card_deals(self) -> Iterator[tuple[int, int, float, int]]:
        """Every initial two-card hand that can be dealt: ``(a, b, probability, key)``
        with card values ``a <= b`` and ``key`` the two cards out."""
        base = self.base
        total = sum(base)
        for a in range(1, 11):
            for b in range(a, 11):
                ca, cb = base[a - 1], base[b - 1]
                prob = (ca * (ca - 1) if a == b else 2 * ca * cb) / (total * (total - 1))
                if prob > 0:
                    yield a, b, prob, _enc(a) + _enc(b)

"""Dealer final-total probabilities from an exact shoe composition.

Owns: the enumeration of every way the dealer can complete a hand from an up
card (RULES.md "Common to all three": the dealer draws on 16 or less and
stands on every 17, soft 17 included) and the exact probability of each final
outcome for a given composition of the remaining shoe. Pure: no I/O, imports
only the standard library.

A *composition* is a tuple of 10 counts, index ``v - 1`` for card value ``v``
(index 0 is the Ace, index 9 the ten-valued cards T/J/Q/K together).

The dealer's second card is treated as drawn from the remaining shoe after
every player card. That is exact for all three games: in ``classic`` and
``classic-multi`` it is literally so when no check is due, and otherwise (a
checked or hole card, never seen by the player) the cards are exchangeable,
so its joint law with the player's later draws is the same (RULES.md
"Dealing order and the dealer's second card"). A check is accounted for by
the caller, which drops the blackjack mass (see ``analysis``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: Final dealer outcomes, in the order of every probability vector here.
OUTCOMES: tuple[str, ...] = ("17", "18", "19", "20", "21", "bust", "blackjack")
BUST = 5
BLACKJACK = 6
N_VALUES = 10


def shoe_counts(decks: int) -> tuple[int, ...]:
    """Composition of a full shoe of ``decks`` 52-card decks.

    Returns:
        10 counts: ``4 * decks`` for Ace..9, ``16 * decks`` for ten-valued cards.
    """
    return (4 * decks,) * 9 + (16 * decks,)


def remove(counts: Sequence[int], *values: int) -> tuple[int, ...]:
    """The composition with one card of each of ``values`` (1-10) taken out.

    Raises:
        ValueError: a value is not in the composition.
    """
    out = list(counts)
    for v in values:
        if out[v - 1] <= 0:
            raise ValueError(f"no card of value {v} left in {tuple(counts)}")
        out[v - 1] -= 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class DealerTerm:
    """One multiset of cards the dealer may draw after the up card.

    Attributes:
        outcome: index into ``OUTCOMES``.
        drawn: number of cards drawn after the up card (the second card included).
        ways: number of orders in which those cards complete the hand (every
            proper prefix must leave the dealer drawing).
        counts: ``(value index, how many)`` pairs of the multiset, value index 0-9.
    """

    outcome: int
    drawn: int
    ways: int
    counts: tuple[tuple[int, int], ...]


def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard <= 11 else hard


def dealer_terms(up: int, cap: Sequence[int]) -> tuple[DealerTerm, ...]:
    """Every way the dealer completes a hand from up card ``up``.

    Multisets are built breadth first; the number of valid orders of a
    multiset is the sum over its last card of the orders of the multiset
    without it, when that smaller multiset still draws. The total (and so
    whether the dealer draws) depends only on the multiset, which makes this
    exact.

    Args:
        up: up card value, 1 (Ace) to 10.
        cap: per-value limit (index 0-9) on cards drawn, normally the full shoe
            less the up card; any larger composition must not be evaluated.

    Returns:
        The terms, grouped by multiset; blackjack (up card plus second card
        making 21) is its own outcome, distinct from a drawn 21.
    """
    if not 1 <= up <= 10:
        raise ValueError(f"up card value must be 1-10, got {up}")
    # state: multiset tuple -> ways; totals follow from the multiset.
    drawing: dict[tuple[int, ...], int] = {(0,) * N_VALUES: 1}
    final: dict[tuple[int, ...], tuple[int, int]] = {}
    drawn = 0
    while drawing:
        nxt: dict[tuple[int, ...], int] = {}
        for ms, ways in drawing.items():
            hard0 = up + sum((i + 1) * k for i, k in enumerate(ms))
            ace0 = up == 1 or ms[0] > 0
            for i in range(N_VALUES):
                if ms[i] >= cap[i]:
                    continue
                new = ms[:i] + (ms[i] + 1,) + ms[i + 1 :]
                hard = hard0 + i + 1
                total = _total(hard, ace0 or i == 0)
                if drawn == 0 and total == 21:
                    outcome = BLACKJACK
                elif total > 21:
                    outcome = BUST
                elif total >= 17:
                    outcome = total - 17
                else:
                    nxt[new] = nxt.get(new, 0) + ways
                    continue
                prev = final.get(new)
                final[new] = (outcome, ways + (prev[1] if prev else 0))
        drawing = nxt
        drawn += 1
    terms = []
    for ms, (outcome, ways) in final.items():
        pairs = tuple((i, k) for i, k in enumerate(ms) if k)
        terms.append(DealerTerm(outcome, sum(ms), ways, pairs))
    terms.sort(key=lambda t: (t.outcome, t.drawn, t.counts))
    return tuple(terms)


class DealerModel:
    """Dealer outcome probabilities for one up card, for any composition.

    Args:
        up: up card value, 1-10.
        cap: the largest composition that will be evaluated (index 0-9),
            normally the full shoe less the up card.

    ``distribution(counts)`` is the hot path of the analysis (tens of
    thousands of calls per variant). It is generated once per model as
    straight-line Python: for each outcome and number of cards drawn, the sum
    over multisets of ``ways x prod(falling factorials of the counts)`` is
    written in nested (Horner-like) form over the values, then multiplied by
    ``1 / (n)_m``. Integer arithmetic up to that last factor, so the only
    rounding is one float division per term group. ``distribution_reference``
    evaluates the same terms with a plain loop (for tests).
    """

    __slots__ = ("up", "terms", "_fn")

    def __init__(self, up: int, cap: Sequence[int]) -> None:
        self.up = up
        self.terms = dealer_terms(up, cap)
        self._fn = _compile(up, self.terms)

    def distribution(self, counts: Sequence[int]) -> list[float]:
        """Probabilities of ``OUTCOMES`` when the dealer draws from ``counts``.

        Args:
            counts: the remaining shoe (10 integer counts, up card and every
                player card already removed); must not exceed the ``cap``.

        Returns:
            7 floats summing to 1 (the blackjack entry is the probability that
            the second card makes blackjack, not conditioned on a check).
        """
        return self._fn(counts)

    def distribution_reference(self, counts: Sequence[int]) -> list[float]:
        """``distribution`` by a plain loop over ``terms`` (slow; for tests)."""
        n = sum(counts)
        out = [0.0] * 7
        for t in self.terms:
            num = t.ways
            for i, k in t.counts:
                num *= _falling(counts[i], k)
            den = _falling(n, t.drawn)
            if num:
                out[t.outcome] += num / den
        return out


def _falling(c: int, k: int) -> int:
    out = 1
    for j in range(k):
        out *= max(c - j, 0)
    return out


def _factored(terms: list[tuple[tuple[tuple[int, int], ...], int]]) -> str:
    """Sum of ``ways x prod f{i}_{k}`` as a nested expression (shared prefixes)."""
    const = sum(w for pairs, w in terms if not pairs)
    groups: dict[tuple[int, int], list[tuple[tuple[tuple[int, int], ...], int]]] = {}
    for pairs, w in terms:
        if pairs:
            groups.setdefault(pairs[0], []).append((pairs[1:], w))
    parts = [str(const)] if const else []
    for (i, k), sub in sorted(groups.items()):
        inner = _factored(sub)
        parts.append(f"f{i}_{k}" if inner == "1" else f"f{i}_{k}*({inner})")
    return " + ".join(parts) if parts else "0"


def _compile(up: int, terms: Sequence[DealerTerm]) -> Callable[[Sequence[int]], list[float]]:
    """Generate and compile the straight-line ``distribution`` of one up card."""
    max_k = [0] * N_VALUES
    max_m = 0
    for t in terms:
        max_m = max(max_m, t.drawn)
        for i, k in t.counts:
            max_k[i] = max(max_k[i], k)
    lines = ["def _dist(c):", "    " + ", ".join(f"c{i}" for i in range(N_VALUES)) + " = c"]
    for i in range(N_VALUES):
        if max_k[i] >= 1:
            lines.append(f"    f{i}_1 = c{i}")
        for k in range(2, max_k[i] + 1):
            lines.append(f"    f{i}_{k} = f{i}_{k - 1} * (c{i} - {k - 1}) if c{i} >= {k} else 0")
    lines.append("    n = " + " + ".join(f"c{i}" for i in range(N_VALUES)))
    lines.append("    d1 = 1.0 / n if n >= 1 else 0.0")
    for m in range(2, max_m + 1):
        lines.append(f"    d{m} = d{m - 1} / (n - {m - 1}) if n >= {m} else 0.0")
    groups: dict[tuple[int, int], list[tuple[tuple[tuple[int, int], ...], int]]] = {}
    for t in terms:
        groups.setdefault((t.outcome, t.drawn), []).append((t.counts, t.ways))
    lines += [f"    o{o} = 0.0" for o in range(len(OUTCOMES))]
    for (o, m), ts in sorted(groups.items()):
        lines.append(f"    o{o} += ({_factored(ts)}) * d{m}")
    lines.append("    return [" + ", ".join(f"o{o}" for o in range(len(OUTCOMES))) + "]")
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines), f"<dealer model, up {up}>", "exec"), namespace)
    fn: Callable[[Sequence[int]], list[float]] = namespace["_dist"]
    return fn


def dealer_table(counts: Sequence[int]) -> dict[int, list[float]]:
    """Dealer outcome probabilities by up card from a full composition.

    Args:
        counts: the shoe before the up card is dealt (10 counts).

    Returns:
        ``{up value: 7 probabilities}`` for every up value present, with only
        the up card removed (no player card), not conditioned on a check.
    """
    out = {}
    for up in range(1, 11):
        if counts[up - 1] == 0:
            continue
        rest = remove(counts, up)
        out[up] = DealerModel(up, rest).distribution(rest)
    return out

"""RNG lab kit: the shuffle deals every card to every position
uniformly, and the scaling of raw random bits onto a range is exactly unbiased.

Two tests the issue asks for, plus the pieces that make them mean something:

- card position: a chi-square over many seeded shuffles of the shoe's own
  ``fisher_yates``, against the uniform expectation at a fixed significance;
  the same test must FAIL for the classic naive shuffle (swap with any
  position), or it could not catch a biased one.
- scaling: the rejection sampling ``randrange`` does (``getrandbits(k)``,
  ``k = m.bit_length()``, redrawn while ``>= m``) is counted exhaustively over
  all ``2**k`` raw values for every ``m`` the simulator's lazy shoe draws in a
  52- or 208-card shoe (each output has exactly one raw value); the shoe's own
  draws are products of ranges up to 62 bits, too wide to enumerate, so for
  each of them the test checks the bits requested and the rejection boundary,
  and the mixed-radix reading of a chunk is enumerated exhaustively on shoes
  small enough to list every raw value.
"""

from __future__ import annotations

import itertools
import math
import random
import secrets
from collections.abc import Callable, Iterator
from statistics import NormalDist

import pytest

from cabinet.game import shoe as shoe_module
from cabinet.game.shoe import fisher_yates
from cabinet.strategy.simulate import LazyShoe

ALPHA = 0.001
"""Significance of the chi-square tests (fixed; the seeds make them deterministic)."""

SHOE_SIZES = (52, 208)
"""The games' shoes: ``classic`` one deck, ``classic-multi`` and ``american`` four."""


def chi2_critical(df: int, alpha: float = ALPHA) -> float:
    """Upper ``alpha`` quantile of chi-square with ``df`` degrees of freedom.

    Wilson-Hilferty: ``df·(1 - 2/(9df) + z·sqrt(2/(9df)))**3``; relative error
    well under 0.1 % for the df used here (thousands).
    """
    z = NormalDist().inv_cdf(1 - alpha)
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3


def position_chi2(
    shuffle: Callable[[list[int], random.Random], None], n: int, shuffles: int, seed: int
) -> tuple[float, int, list[float]]:
    """Chi-square of the card x position table over ``shuffles`` seeded shuffles.

    Returns:
        ``(statistic, df, per_card)``: Pearson's statistic of the whole table
        against ``shuffles / n`` in every cell, times ``(n-1)/n``, which is
        chi-square with ``df = (n-1)**2`` for a uniform shuffle (each shuffle
        adds a permutation matrix: both margins are fixed, and its covariance
        is ``1/(n-1)`` times the projection onto the ``(n-1)**2`` doubly
        centred directions, so the raw statistic has mean ``n(n-1)``); and each
        card's own statistic over the ``n`` positions (multinomial, ``df = n - 1``).
    """
    rng = random.Random(seed)
    counts = [0] * (n * n)
    for _ in range(shuffles):
        order = list(range(n))
        shuffle(order, rng)
        for pos, card in enumerate(order):
            counts[card * n + pos] += 1
    e = shuffles / n
    per_card = [sum((o - e) ** 2 for o in counts[c * n : (c + 1) * n]) / e for c in range(n)]
    return sum(per_card) * (n - 1) / n, (n - 1) ** 2, per_card


def naive_shuffle(cards: list[int], rng: random.Random) -> None:
    """The textbook biased shuffle: swap each position with ANY position (n**n paths)."""
    n = len(cards)
    for i in range(n):
        j = rng.randrange(n)
        cards[i], cards[j] = cards[j], cards[i]


def shoe_shuffle(cards: list[int], rng: random.Random) -> None:
    fisher_yates(cards, rng)  # type: ignore[arg-type]  # any items shuffle alike


SHUFFLES = {52: 12_000, 208: 3_000}
"""Shuffles per size: 230 (52) and 14 (208) expected per cell."""


@pytest.mark.parametrize("n", SHOE_SIZES)
def test_card_positions_are_uniform_and_a_naive_shuffle_fails(n: int) -> None:
    """Every card's position is uniform over the shoe (chi-square of the
    card x position table at ALPHA, seeded), and the same test rejects the naive
    swap-with-any shuffle, so it has the power to catch a biased one."""
    stat, df, per_card = position_chi2(shoe_shuffle, n, SHUFFLES[n], seed=16)
    crit = chi2_critical(df)
    assert stat < crit, f"fisher_yates: chi2 {stat:.0f} >= {crit:.0f} (df {df})"
    card_crit = chi2_critical(n - 1, ALPHA / n)  # Bonferroni over the n cards
    assert max(per_card) < card_crit, f"a card's chi2 {max(per_card):.0f} >= {card_crit:.0f}"

    bad, _, bad_cards = position_chi2(naive_shuffle, n, SHUFFLES[n], seed=16)
    assert bad > crit, f"naive shuffle passed: chi2 {bad:.0f} < {crit:.0f}"
    assert max(bad_cards) > card_crit


# --- the scaling: raw bits onto [0, m) ------------------------------------------------


class _Rejected(Exception):
    """The draw asked for a second raw value (the first was rejected)."""


class _OneRawValue(random.Random):
    """``getrandbits`` hands out one scripted raw value, then raises ``_Rejected``.

    A subclass that overrides ``getrandbits`` gets ``Random._randbelow_with_getrandbits``
    as its ``_randbelow``, exactly like ``secrets.SystemRandom`` (checked below), so
    ``randrange`` here runs the production code path on a chosen raw value.
    """

    def __init__(self) -> None:
        super().__init__(0)
        self.value = 0
        self.calls: list[int] = []

    def getrandbits(self, k: int) -> int:
        self.calls.append(k)
        if len(self.calls) > 1:
            raise _Rejected
        assert 0 <= self.value < 1 << k
        return self.value


def preimage_counts(draw: Callable[[_OneRawValue], int], m: int) -> tuple[list[int], int, int]:
    """Feed every raw value of ``k = m.bit_length()`` bits to ``draw`` once.

    Returns:
        ``(counts, rejected, k)``: how many raw values gave each output
        ``0..m-1``, how many were rejected (the draw asked for another).
    """
    k = m.bit_length()
    counts = [0] * m
    rejected = 0
    src = _OneRawValue()
    for v in range(1 << k):
        src.value = v
        src.calls.clear()
        try:
            out = draw(src)
        except _Rejected:
            rejected += 1
            continue
        assert src.calls == [k], f"m={m}: asked for {src.calls} bits, not [{k}]"
        counts[out] += 1
    return counts, rejected, k


def test_production_source_uses_the_rejection_sampler_under_test() -> None:
    """``secrets.SystemRandom.randrange`` scales with
    ``Random._randbelow_with_getrandbits``, the same method the scripted source runs."""
    assert secrets.SystemRandom._randbelow is random.Random._randbelow_with_getrandbits
    assert _OneRawValue._randbelow is random.Random._randbelow_with_getrandbits
    assert secrets.SystemRandom.randrange is random.Random.randrange


@pytest.mark.parametrize("n", SHOE_SIZES)
def test_scaling_is_exactly_uniform_for_every_range_a_shoe_draws(n: int) -> None:
    """For every m the lazy shoe draws in an n-card shoe (n, n-1, ..., 1),
    all 2**k raw values of getrandbits(k) through ``randrange(m)`` and through the
    simulator's inlined ``LazyShoe.draw`` give every output in [0, m) exactly once;
    the other 2**k - m are rejected (at most half)."""
    for m in range(1, n + 1):
        counts, rejected, k = preimage_counts(lambda src, m=m: src.randrange(m), m)
        assert counts == [1] * m, f"randrange({m}): {counts}"
        assert rejected == (1 << k) - m <= m  # at most half

        def lazy_draw(src: _OneRawValue, m: int = m) -> int:
            cards = list(range(n))
            lazy = LazyShoe(cards, src)
            lazy.position = n - m
            return lazy.draw() - (n - m)  # the card it took, as an offset into the undealt part

        assert preimage_counts(lazy_draw, m)[:2] == (counts, rejected), f"LazyShoe m={m}"

    # The same count catches modulo bias: ``getrandbits(k) % m`` gives some outputs twice.
    k = n.bit_length()
    modulo, rejected, _ = preimage_counts(lambda src: src.getrandbits(k) % n, n)
    assert rejected == 0 and sorted(set(modulo)) == [1, 2] and sum(modulo) == 1 << k


def _shoe_bounds(n: int) -> list[int]:
    """The bounds ``fisher_yates`` passes to ``randrange`` for an n-card shoe."""
    bounds: list[int] = []

    class Recorder:
        def randrange(self, m: int) -> int:
            bounds.append(m)
            return m - 1

    fisher_yates(list(range(n)), Recorder())  # type: ignore[arg-type]
    return bounds


@pytest.mark.parametrize("n", SHOE_SIZES)
def test_each_draw_of_the_shoe_rejects_exactly_the_values_past_its_range(n: int) -> None:
    """The production shuffle's draws (products of Fisher-Yates ranges, up to
    62 bits) ask getrandbits for m.bit_length() bits, return a raw value below m
    unchanged (one raw value per output) and reject every value from m up."""
    bounds = _shoe_bounds(n)
    assert math.prod(bounds) == math.factorial(n)  # every step's range is in exactly one draw
    assert all(m < shoe_module._CHUNK_LIMIT for m in bounds)
    probe = random.Random(n)
    for m in bounds:
        k = m.bit_length()
        assert 1 << (k - 1) <= m < 1 << k  # acceptance over one half
        src = _OneRawValue()
        for v in (0, 1, m // 2, m - 1, *(probe.randrange(m) for _ in range(20))):
            src.value, src.calls = v, []
            assert src.randrange(m) == v and src.calls == [k]
        for v in (m, m + 1, (1 << k) - 1, probe.randrange(m, 1 << k)):
            src.value, src.calls = v, []
            with pytest.raises(_Rejected):
                src.randrange(m)


class _Script:
    """A source whose ``randrange(m)`` returns scripted values (each checked below m)."""

    def __init__(self, values: tuple[int, ...]) -> None:
        self._it: Iterator[int] = iter(values)
        self.bounds: list[int] = []

    def randrange(self, m: int) -> int:
        self.bounds.append(m)
        r = next(self._it)
        assert 0 <= r < m
        return r


@pytest.mark.parametrize(("n", "limit"), [(5, 1 << 62), (7, 1 << 62), (6, 40), (7, 100)])
def test_mixed_radix_chunks_deal_every_permutation_exactly_once(
    n: int, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading several Fisher-Yates steps off one uniform draw (mixed radix)
    is a bijection: over every value of every draw, each of the n! orders comes out
    exactly once, with the production chunk limit and with small limits that split
    the shuffle into several draws."""
    monkeypatch.setattr(shoe_module, "_CHUNK_LIMIT", limit)
    bounds = _shoe_bounds(n)
    if limit < 1 << 62:
        assert len(bounds) > 1
    seen: dict[tuple[int, ...], int] = {}
    for values in itertools.product(*(range(m) for m in bounds)):
        order = list(range(n))
        src = _Script(values)
        fisher_yates(order, src)  # type: ignore[arg-type]
        assert src.bounds == bounds
        seen[tuple(order)] = seen.get(tuple(order), 0) + 1
    assert len(seen) == math.factorial(n)
    assert set(seen.values()) == {1}

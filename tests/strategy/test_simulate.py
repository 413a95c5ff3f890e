"""The simulator: reproducible per seed, independent of the worker count."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cabinet.game import preset
from cabinet.game.errors import ShoeExhausted
from cabinet.game.shoe import fresh_cards
from cabinet.strategy.simulate import LazyShoe, SimResult, chunks, run_chunk, simulate

from .conftest import simple_strategy


def test_lazy_shoe_deals_every_card_once_then_runs_out() -> None:
    shoe = LazyShoe(fresh_cards(1), random.Random(1))
    dealt = [shoe.draw() for _ in range(52)]
    assert len(set(dealt)) == 52
    with pytest.raises(ShoeExhausted):
        shoe.draw()
    shoe.reset()
    assert shoe.remaining == 52


def test_lazy_shoe_first_card_is_uniform() -> None:
    rng = random.Random(2)
    shoe = LazyShoe(fresh_cards(1), rng)
    seen: Counter[str] = Counter()
    for _ in range(13_000):
        shoe.reset()
        seen[shoe.draw().rank] += 1
    # 1000 expected per rank; 6 sigma is about 180.
    assert all(abs(n - 1000) < 180 for n in seen.values()) and len(seen) == 13


def test_lazy_shoe_draws_what_randrange_would() -> None:
    # the inlined draw is randrange's own rejection sampling: same seed, same cards
    shoe = LazyShoe(fresh_cards(2), random.Random(9))
    ref, rng = fresh_cards(2), random.Random(9)
    for i in range(len(ref)):
        j = i + rng.randrange(len(ref) - i)
        ref[i], ref[j] = ref[j], ref[i]
        assert shoe.draw() == ref[i]


def test_chunks_cover_the_run() -> None:
    assert chunks(25, 10) == [(0, 10), (1, 10), (2, 5)]


def test_same_seed_same_result_any_worker_count() -> None:
    rules = preset("classic-multi")
    s = simple_strategy()
    one = simulate(rules, s, 3_000, workers=1, seed="x", progress=False, chunk_rounds=1_000)
    two = simulate(rules, s, 3_000, workers=2, seed="x", progress=False, chunk_rounds=1_000)
    assert one.to_dict() == two.to_dict()
    other = simulate(rules, s, 3_000, workers=1, seed="y", progress=False, chunk_rounds=1_000)
    assert other.net_hist != one.net_hist


def test_tallies_are_consistent() -> None:
    rules = preset("american")
    res = run_chunk(rules, simple_strategy(), 1, 0, 2_000, 200)
    assert res.rounds == sum(res.net_hist.values()) == 2_000
    assert sum(k * v for k, v in res.net_hist.items()) * 100 == res.net_minor
    assert res.counts["insurance"] == 0 and res.counts["split"] > 0
    lo, hi = res.ci95
    assert lo < res.rtp < hi and hi - lo < 0.2
    assert sum(p for _, p in res.distribution()) == pytest.approx(1.0)


def test_full_shuffle_mode_plays_too() -> None:
    res = run_chunk(preset("classic"), simple_strategy(), 1, 0, 300, 200, full_shuffle=True)
    assert res.rounds == 300


def test_merge_adds() -> None:
    a = SimResult("v", 200, rounds=2, net_minor=100, net_hist={1: 2})
    a.merge(SimResult("v", 200, rounds=1, net_minor=-200, net_hist={-2: 1}))
    assert (a.rounds, a.net_minor, a.net_hist) == (3, -100, {1: 2, -2: 1})


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        simulate(preset("classic"), simple_strategy(), 0, progress=False)
    with pytest.raises(ValueError):
        simulate(preset("classic"), simple_strategy(), 10, workers=0, progress=False)

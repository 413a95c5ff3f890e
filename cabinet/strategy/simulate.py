"""The simulator: the real ``Round`` played with basic strategy, on all cores.

Owns: ``simulate`` (work split into fixed chunks, a ``multiprocessing`` pool,
a tqdm progress bar on stderr), ``SimResult`` (exact integer tallies and
what follows from them: RTP and its 95 % interval, frequencies, the
distribution of net results) and the lazily shuffled shoe. Imports
``cabinet.game`` and ``tqdm``; no other I/O than the progress bar.

Reproducibility: round ``i`` of a run belongs to chunk ``i // chunk``, and
each chunk draws from its own ``random.Random(f"{seed}:{chunk index}")``.
Tallies are integers (money in minor units), so merging is exact and the
result of ``--seed S`` is the same for any number of workers and any timing.
A seeded generator is allowed here only (production shuffles with
``secrets.SystemRandom``, RULES.md "Shuffling and randomness").

The shoe: by default each round deals from a *lazily* shuffled shoe: the
card at position ``i`` is swapped in from a uniformly chosen position
``>= i`` as it is drawn, i.e. Fisher-Yates performed only as far as the round
needs it. The order dealt has exactly the law of ``Shoe.shuffled`` (a
uniformly random permutation), and a round of ~6 cards costs ~6 random
numbers instead of 51 or 207. ``full_shuffle=True`` uses ``Shoe.shuffled``
itself for every round instead.

Speed: the rounds are made with ``Round(record=False)`` (no events,
no history; see ``autoplay``); for long runs ``bench/build_compiled.py`` builds
a mypyc-compiled copy of the rules core and of this simulator that
``PYTHONPATH=build/compiled`` selects, with the same tallies to the bit.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from cabinet.game import Card, RuleSet, Shoe
from cabinet.game.errors import ShoeExhausted
from cabinet.game.events import Outcome
from cabinet.game.hand import hand_total, is_natural
from cabinet.game.shoe import fresh_cards

from .autoplay import play_round
from .strategy import Strategy

CHUNK_ROUNDS = 10_000
"""Rounds per chunk; chunk ``k`` is seeded from ``(seed, k)``."""

Z95 = 1.959963984540054
"""Two-sided 95 % quantile of the standard normal."""

FREQUENCIES: tuple[str, ...] = (
    "player_blackjack",
    "dealer_blackjack",
    "player_bust",
    "dealer_bust",
    "push",
    "double",
    "split",
    "insurance",
)
"""Per-round events counted: a round counts once for each that happened in it
(e.g. ``push``: at least one hand pushed)."""


class LazyShoe(Shoe):
    """A shoe shuffled as it is dealt (see the module docstring).

    Args:
        cards: the shoe's cards, any order; the list is permuted in place.
        rng: a ``random.Random`` (or anything with ``randrange``).

    Call ``reset()`` between rounds; the left-over order is a fine start.
    """

    __slots__ = ("_getrandbits", "_bits")

    def __init__(self, cards: list[Card], rng: random.Random) -> None:
        super().__init__([])
        self.cards = cards
        self._getrandbits = rng.getrandbits
        #: ``m.bit_length()`` for every count ``m`` of cards left, looked up.
        self._bits = [m.bit_length() for m in range(len(cards) + 1)]

    def reset(self) -> None:
        """Start a new, freshly (lazily) shuffled shoe."""
        self.position = 0

    def draw(self) -> Card:
        """Deal a uniformly chosen card among those not yet dealt.

        The index is drawn exactly as ``random.Random.randrange(m)`` draws it
        (``k = m.bit_length()`` bits, rejected while ``>= m``: no modulo bias),
        inlined because this is the simulator's innermost call; a seed gives the
        same cards as ``randrange`` would.

        Raises:
            ShoeExhausted: no card is left.
        """
        i = self.position
        cards = self.cards
        m = len(cards) - i
        if m <= 0:
            raise ShoeExhausted(f"the shoe ran out after {len(cards)} card{'' if len(cards) == 1 else 's'}")
        k = self._bits[m]
        getrandbits = self._getrandbits
        r = getrandbits(k)
        while r >= m:
            r = getrandbits(k)
        j = i + r
        card = cards[j]
        cards[j] = cards[i]
        cards[i] = card
        self.position = i + 1
        return card


@dataclass
class SimResult:
    """Integer tallies of a simulation; merging two is exact.

    Attributes:
        variant: the variant id.
        bet_minor: the fixed initial bet per round, in minor units.
        rounds: rounds played.
        net_minor: sum of (returned - wagered), minor units.
        net_sq: sum of squared net results, in units of half a bet.
        wagered_minor: total staked (doubles, splits, insurance included).
        counts: ``{name: rounds}`` for each of ``FREQUENCIES``.
        net_hist: ``{net in half-bets: rounds}``.
    """

    variant: str
    bet_minor: int
    rounds: int = 0
    net_minor: int = 0
    net_sq: int = 0
    wagered_minor: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FREQUENCIES, 0))
    net_hist: dict[int, int] = field(default_factory=dict)

    def merge(self, other: SimResult) -> None:
        """Add ``other``'s tallies to this one."""
        self.rounds += other.rounds
        self.net_minor += other.net_minor
        self.net_sq += other.net_sq
        self.wagered_minor += other.wagered_minor
        for name, n in other.counts.items():
            self.counts[name] = self.counts.get(name, 0) + n
        for net, n in other.net_hist.items():
            self.net_hist[net] = self.net_hist.get(net, 0) + n

    @property
    def mean(self) -> float:
        """Mean net result per round, as a fraction of the initial bet."""
        return self.net_minor / (self.rounds * self.bet_minor) if self.rounds else 0.0

    @property
    def std(self) -> float:
        """Standard deviation of the net result per round, in initial bets."""
        if self.rounds < 2:
            return 0.0
        n = self.rounds
        mean_h = self.net_minor * 2 / self.bet_minor / n  # in half-bets
        var_h = (self.net_sq - n * mean_h * mean_h) / (n - 1)
        return math.sqrt(max(var_h, 0.0)) / 2

    @property
    def rtp(self) -> float:
        """Return to player, 1 + mean net per initial bet."""
        return 1.0 + self.mean

    @property
    def ci95(self) -> tuple[float, float]:
        """95 % confidence interval of the RTP (normal approximation)."""
        half = Z95 * self.std / math.sqrt(self.rounds) if self.rounds else math.inf
        return self.rtp - half, self.rtp + half

    def contains(self, rtp: float) -> bool:
        """True when ``rtp`` lies inside the 95 % interval."""
        lo, hi = self.ci95
        return lo <= rtp <= hi

    def frequency(self, name: str) -> float:
        """Share of rounds in which ``name`` (one of ``FREQUENCIES``) happened."""
        return self.counts[name] / self.rounds if self.rounds else 0.0

    def distribution(self) -> list[tuple[float, float]]:
        """``(net result in initial bets, share of rounds)``, ascending."""
        return [(k / 2, v / self.rounds) for k, v in sorted(self.net_hist.items())]

    def to_dict(self) -> dict[str, object]:
        """JSON-able summary (tallies and derived figures)."""
        lo, hi = self.ci95
        return {
            "variant": self.variant,
            "bet_minor": self.bet_minor,
            "rounds": self.rounds,
            "net_minor": self.net_minor,
            "net_sq_half_bets": self.net_sq,
            "wagered_minor": self.wagered_minor,
            "rtp": self.rtp,
            "ci95": [lo, hi],
            "std_per_round": self.std,
            "counts": self.counts,
            "net_hist_half_bets": {str(k): v for k, v in sorted(self.net_hist.items())},
        }


# -- one chunk ---------------------------------------------------------------------

_OUT_BUST, _OUT_PUSH = Outcome.BUST, Outcome.PUSH


def run_chunk(
    rules: RuleSet,
    strategy: Strategy,
    seed: int | str,
    index: int,
    rounds: int,
    bet_minor: int,
    full_shuffle: bool = False,
) -> SimResult:
    """Play ``rounds`` rounds of chunk ``index`` of a run seeded ``seed``.

    Returns:
        The chunk's tallies; the same arguments give the same result.
    """
    # A round leaves no reference cycle behind (refcounting frees it), so the
    # cyclic collector would only walk the young rounds, some 8 % of the time.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _play_chunk(rules, strategy, seed, index, rounds, bet_minor, full_shuffle)
    finally:
        if was_enabled:
            gc.enable()


def _play_chunk(
    rules: RuleSet, strategy: Strategy, seed: int | str, index: int, rounds: int, bet_minor: int, full_shuffle: bool
) -> SimResult:
    rng = random.Random(f"{seed}:{index}")
    res = SimResult(rules.variant, bet_minor)
    counts = res.counts
    hist = res.net_hist
    shoe = LazyShoe(fresh_cards(rules.decks), rng)
    half = bet_minor // 2
    net_total = net_sq = wagered_total = 0
    pbj = dbj = pbust = dbust = push = dbl = spl = ins = 0
    for _ in range(rounds):
        if full_shuffle:
            deal: Shoe = Shoe.shuffled(rules.decks, rng)
        else:
            shoe.reset()
            deal = shoe
        rnd = play_round(rules, deal, strategy, bet_minor)
        spot = rnd.spots[0]
        hands = spot.hands
        wagered = spot.insurance_stake_minor
        returned = spot.insurance_returned_minor or 0
        busted = pushed = doubled = False
        for h in hands:
            wagered += h.stake_minor
            returned += h.returned_minor or 0
            if h.outcome is _OUT_BUST:
                busted = True
            elif h.outcome is _OUT_PUSH:
                pushed = True
            if h.doubled:
                doubled = True
        net = returned - wagered
        net_total += net
        k = net // half
        net_sq += k * k
        hist[k] = hist.get(k, 0) + 1
        wagered_total += wagered
        if hands[0].blackjack:
            pbj += 1
        dealer = rnd.dealer_cards
        if is_natural(dealer):
            dbj += 1
        elif len(dealer) > 1 and hand_total(dealer)[0] > 21:
            dbust += 1
        pbust += busted
        push += pushed
        dbl += doubled
        spl += len(hands) > 1
        ins += spot.insurance == "taken"
    res.rounds = rounds
    res.net_minor = net_total
    res.net_sq = net_sq
    res.wagered_minor = wagered_total
    counts.update(
        player_blackjack=pbj,
        dealer_blackjack=dbj,
        player_bust=pbust,
        dealer_bust=dbust,
        push=push,
        double=dbl,
        split=spl,
        insurance=ins,
    )
    return res


# -- the pool ---------------------------------------------------------------------------

# One pool worker's run arguments, set once by the pool's initializer: (rules, strategy, seed, bet_minor,
# full_shuffle).
_WorkerArgs = tuple[RuleSet, Strategy, int | str, int, bool]
_WORKER: list[_WorkerArgs] = []


def _init_worker(rules: RuleSet, strategy: Strategy, seed: int | str, bet_minor: int, full_shuffle: bool) -> None:
    _WORKER[:] = [(rules, strategy, seed, bet_minor, full_shuffle)]


def _work(task: tuple[int, int]) -> SimResult:
    index, rounds = task
    rules, strategy, seed, bet_minor, full_shuffle = _WORKER[0]
    return run_chunk(rules, strategy, seed, index, rounds, bet_minor, full_shuffle)


def chunks(rounds: int, size: int = CHUNK_ROUNDS) -> list[tuple[int, int]]:
    """``(chunk index, rounds)`` covering ``rounds`` in fixed-size chunks."""
    return [(i, min(size, rounds - start)) for i, start in enumerate(range(0, rounds, size))]


def simulate(
    rules: RuleSet,
    strategy: Strategy,
    rounds: int,
    *,
    workers: int | None = None,
    seed: int | str = 0,
    bet_minor: int | None = None,
    full_shuffle: bool = False,
    progress: bool = True,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> SimResult:
    """Play ``rounds`` rounds of the real game with ``strategy``.

    Args:
        rules: the variant.
        strategy: the basic strategy (normally ``analyse(rules).strategy``,
            computed once in the parent and handed to the workers).
        rounds: rounds to play, >= 1.
        workers: processes; ``None`` for ``os.cpu_count()``; 1 runs in this
            process.
        seed: the run's seed; the result depends only on it, ``rounds``,
            ``chunk_rounds``, ``bet_minor`` and ``full_shuffle``.
        bet_minor: fixed initial bet; ``None`` for twice the table minimum.
        full_shuffle: a full ``Shoe.shuffled`` per round instead of the lazy shoe.
        progress: show a tqdm bar on stderr.
        chunk_rounds: rounds per seeded chunk.

    Returns:
        The merged ``SimResult``.

    Raises:
        ValueError: ``rounds`` or ``workers`` below 1.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    bet = bet_minor if bet_minor is not None else 2 * rules.min_bet_minor
    tasks = chunks(rounds, chunk_rounds)
    total = SimResult(rules.variant, bet)
    bar = _bar(rounds, rules.variant, progress)
    try:
        for res in _results(rules, strategy, seed, bet, full_shuffle, tasks, workers):
            total.merge(res)
            bar.update(res.rounds)
    finally:
        bar.close()
    return total


def _results(
    rules: RuleSet,
    strategy: Strategy,
    seed: int | str,
    bet: int,
    full: bool,
    tasks: Sequence[tuple[int, int]],
    workers: int,
) -> Iterator[SimResult]:
    if workers == 1 or len(tasks) == 1:
        for index, n in tasks:
            yield run_chunk(rules, strategy, seed, index, n, bet, full)
        return
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(workers, len(tasks)), _init_worker, (rules, strategy, seed, bet, full)) as pool:
        yield from pool.imap_unordered(_work, tasks)


def _bar(total: int, variant: str, enabled: bool):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=f"simulate {variant}",
        unit=" rounds",
        unit_scale=True,
        file=sys.stderr,
        disable=not enabled,
        smoothing=0.1,
    )

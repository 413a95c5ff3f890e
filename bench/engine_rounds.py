"""Rounds per second of the real ``Round`` on one core (issue: rules engine).

No persistence, basic play: a simple total-dependent policy (hit below 17,
stand otherwise; double 11; split Aces and 8s; decline insurance) so the
measure does not depend on the strategy package. Each round gets a fresh
Fisher-Yates shuffle of the variant's shoe from a seeded ``random.Random``
(production uses ``secrets.SystemRandom``), exactly as the cabinet deals.

Two numbers per variant: the round object alone (shoes shuffled before the
clock starts: the target of 20,000 rounds/s applies here), and the whole
deal including the per-round shuffle (pure-Python Fisher-Yates of 52 or 208
cards costs about 15 or 60 microseconds, which alone caps the 4-deck games
near 15,000 rounds/s).

Run: ``.venv/bin/python bench/engine_rounds.py [--rounds N] [--variant V]``.
"""

from __future__ import annotations

import argparse
import random
import time

from cabinet.game import Decision, Round, SeatBets, Shoe, hand_total, preset

_H, _S, _D, _P, _N = Decision.HIT, Decision.STAND, Decision.DOUBLE, Decision.SPLIT, Decision.DECLINE


def basic_play(rnd: Round) -> Decision:
    """A cheap policy from the prompt and the current hand."""
    prompt = rnd.prompt
    assert prompt is not None
    if prompt.kind == "insurance":
        return _N
    spot = rnd.spots[rnd._cursor[0]]
    hand = spot.hands[rnd._cursor[1]]
    legal = prompt.legal
    cards = hand.cards
    if _P in legal and cards[0].rank in "A8":
        return _P
    total, soft = hand_total(cards)
    if total == 11 and _D in legal:
        return _D
    if total < 17 or (soft and total < 18):
        return _H
    return _S


def play(rules, seats, shoe: Shoe) -> None:
    rnd = Round(rules, seats, shoe)
    rnd.start()
    while rnd.prompt is not None:
        rnd.decide(basic_play(rnd))


def run(variant: str, rounds: int, seed: int = 1, repeats: int = 5) -> tuple[float, float, float]:
    """Returns (best and median round-object rounds/s over ``repeats`` runs with the
    shoes shuffled beforehand, and rounds/s including a fresh Fisher-Yates shuffle
    per round). The best of several runs is the usual micro-benchmark figure on a
    shared machine: other load only ever slows a run down."""
    rules = preset(variant)
    rng = random.Random(seed)
    seats = [SeatBets(1, (rules.min_bet_minor * 2,))]
    per = max(1, rounds // repeats)
    rates = []
    for _ in range(repeats):
        shoes = [Shoe.shuffled(rules.decks, rng) for _ in range(per)]
        t0 = time.perf_counter()
        for shoe in shoes:
            play(rules, seats, shoe)
        rates.append(per / (time.perf_counter() - t0))
    t0 = time.perf_counter()
    for _ in range(per):
        play(rules, seats, Shoe.shuffled(rules.decks, rng))
    full_rate = per / (time.perf_counter() - t0)
    rates.sort()
    return rates[-1], rates[len(rates) // 2], full_rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--variant", default=None, help="one variant; default all three")
    args = ap.parse_args()
    print(f"one core, {args.rounds:,} rounds each in 5 runs, basic play, no persistence")
    print(f"{'variant':14s} {'best':>12s} {'median':>12s} {'with shuffle':>14s}")
    for v in [args.variant] if args.variant else ["classic", "classic-multi", "american"]:
        best, median, full = run(v, args.rounds)
        print(f"{v:14s} {best:8,.0f} r/s {median:8,.0f} r/s {full:10,.0f} r/s")


if __name__ == "__main__":
    main()

"""Property tests over random shoes and random legal decisions (hypothesis):
money is conserved, totals stay within what the cards allow, a saved round
continues identically, and the player view never shows a hidden card."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from cabinet.game import Round, SeatBets, Shoe, hand_total, preset
from cabinet.game.events import (
    HandDoubled,
    HandSettled,
    HandSplit,
    InsuranceSettled,
    InsuranceTaken,
    Outcome,
    RoundEnded,
)
from cabinet.game.round import _payout


@st.composite
def rounds(draw):
    variant = draw(st.sampled_from(["classic", "classic-multi", "american"]))
    rules = preset(variant)
    n_seats = draw(st.integers(1, rules.max_seats))
    seats = []
    for seat in range(1, n_seats + 1):
        n_spots = draw(st.integers(1, rules.max_spots_per_seat))
        steps = (rules.max_bet_minor - rules.min_bet_minor) // rules.bet_step_minor
        bets = tuple(
            rules.min_bet_minor + rules.bet_step_minor * draw(st.integers(0, min(steps, 20))) for _ in range(n_spots)
        )
        avail = draw(st.one_of(st.none(), st.integers(0, 5000)))
        seats.append(SeatBets(seat, bets, avail))
    seed = draw(st.integers(0, 2**32))
    choices = draw(st.lists(st.integers(0, 3), min_size=40, max_size=40))
    cut = draw(st.integers(0, 40))
    return rules, seats, seed, choices, cut


def _new(rules, seats, seed):
    return Round(rules, seats, Shoe.shuffled(rules.decks, random.Random(seed)))


def _play(rnd, choices, start_at=0):
    """Play with decisions picked from the legal ones by index; returns events."""
    ev = []
    i = start_at
    while rnd.prompt is not None:
        legal = sorted(d.value for d in rnd.legal_decisions())
        ev += rnd.decide(legal[choices[i % len(choices)] % len(legal)])
        i += 1
    return ev


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_money_is_conserved(case):
    rules, seats, seed, choices, _ = case
    rnd = _new(rules, seats, seed)
    ev = rnd.start() + _play(rnd, choices)
    assert rnd.finished
    hands = [(s.seat, s.spot, n) for s, n, _ in rnd.hands()]
    settled = [(e.seat, e.spot, e.hand) for e in ev if isinstance(e, HandSettled)]
    assert sorted(settled) == sorted(hands)  # each hand settled exactly once
    for e in ev:
        if isinstance(e, HandSettled):
            assert e.returned_minor == _payout(e.outcome, e.stake_minor)
    extra = sum(e.extra_stake_minor for e in ev if isinstance(e, HandDoubled | HandSplit)) + sum(
        e.stake_minor for e in ev if isinstance(e, InsuranceTaken)
    )
    initial = sum(sum(s.bets_minor) for s in seats)
    assert rnd.wagered_minor() == initial + extra
    returned = sum(e.returned_minor for e in ev if isinstance(e, HandSettled | InsuranceSettled))
    assert rnd.returned_minor() == returned
    assert ev[-1] == RoundEnded(initial + extra, returned)
    taken = [(e.seat, e.spot) for e in ev if isinstance(e, InsuranceTaken)]
    paid = [(e.seat, e.spot) for e in ev if isinstance(e, InsuranceSettled)]
    assert sorted(taken) == sorted(paid)
    # extra stakes never exceed what the seat had beyond its bets
    for s in seats:
        if s.available_minor is not None:
            spent = rnd.wagered_minor(s.seat) - sum(s.bets_minor)
            paid_at_once = sum(h.returned_minor or 0 for sp, _n, h in rnd.hands() if sp.seat == s.seat and h.blackjack)
            assert spent <= s.available_minor + paid_at_once
    # nothing is created: the house pays at most 1.5x stake on a hand, 2x on insurance
    assert all(isinstance(e.returned_minor, int) for e in ev if isinstance(e, HandSettled))


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_totals_stay_within_what_the_cards_allow(case):
    rules, seats, seed, choices, _ = case
    rnd = _new(rules, seats, seed)
    rnd.start()
    _play(rnd, choices)
    for _, _, h in rnd.hands():
        total, _soft = hand_total(h.cards)
        assert h.total == total
        assert total <= 30  # at most 20 + a ten
        if h.outcome is Outcome.BUST:
            assert total > 21
        else:
            assert total <= 21
        if rules.max_hand_cards:
            assert len(h.cards) <= rules.max_hand_cards
        if h.blackjack:
            assert len(h.cards) == 2 and not h.from_split
    d_total = hand_total(rnd.dealer_cards)[0]
    assert d_total <= 26
    if len(rnd.dealer_cards) > 2:
        assert hand_total(rnd.dealer_cards[:-1])[0] < 17  # drew only below 17


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_restore_of_save_continues_identically(case):
    rules, seats, seed, choices, cut = case
    a = _new(rules, seats, seed)
    a.start()
    i = 0
    while a.prompt is not None and i < cut % 6:
        legal = sorted(d.value for d in a.legal_decisions())
        a.decide(legal[choices[i % len(choices)] % len(legal)])
        i += 1
    saved = json.loads(json.dumps(a.to_dict()))
    b = Round.from_dict(saved)
    assert b.to_dict() == a.to_dict()
    assert b.prompt == a.prompt and b.legal_decisions() == a.legal_decisions()
    assert _play(a, choices, i) == _play(b, choices, i)
    assert a.result() == b.result() and a.to_dict() == b.to_dict()


def _view_cards(view):
    cards = list(view.dealer.cards)
    for s in view.spots:
        for h in s.hands:
            cards += h.cards
    return cards


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_player_view_never_holds_a_hidden_or_undealt_card(case):
    rules, seats, seed, choices, _ = case
    rnd = _new(rules, seats, seed)
    rnd.start()
    i = 0
    while True:
        view = rnd.player_view()
        dealt = Counter(map(str, rnd.shoe.cards[: rnd.shoe.position]))
        if rnd.dealer_hidden:
            dealt[str(rnd.dealer_cards[1])] -= 1
            assert view.dealer.face_down == 1
            assert len(view.dealer.cards) == 1
        assert Counter(_view_cards(view)) == +dealt
        assert "shoe" not in json.dumps(dataclasses.asdict(view))
        if rnd.prompt is None:
            break
        legal = sorted(d.value for d in rnd.legal_decisions())
        rnd.decide(legal[choices[i % len(choices)] % len(legal)])
        i += 1


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_an_illegal_decision_raises_and_changes_nothing(case):
    from cabinet.game import Decision, IllegalDecision

    rules, seats, seed, choices, _ = case
    rnd = _new(rules, seats, seed)
    rnd.start()
    i = 0
    while True:
        before = rnd.to_dict()
        for d in set(Decision) - rnd.legal_decisions():
            try:
                rnd.decide(d)
            except IllegalDecision as e:
                assert str(e).startswith(d.value + ":")
            else:
                raise AssertionError(f"{d} accepted but not legal")
            assert rnd.to_dict() == before
        if rnd.prompt is None:
            break
        legal = sorted(d.value for d in rnd.legal_decisions())
        rnd.decide(legal[choices[i % len(choices)] % len(legal)])
        i += 1


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_a_round_without_record_plays_exactly_as_one_with(case):
    """``record=False`` (the simulator) returns no events and keeps no
    history, and changes nothing else: the same prompts, legal decisions, cards,
    outcomes and amounts as a recording round, step by step."""
    rules, seats, seed, choices, _ = case
    a = _new(rules, seats, seed)
    b = Round(rules, seats, Shoe.shuffled(rules.decks, random.Random(seed)), record=False)
    assert a.start() and b.start() == []
    i = 0
    while True:
        assert b.prompt == a.prompt and b.legal_decisions() == a.legal_decisions()
        assert b.player_view() == a.player_view()
        if a.prompt is None:
            break
        legal = sorted(d.value for d in a.legal_decisions())
        pick = legal[choices[i % len(choices)] % len(legal)]
        assert a.decide(pick) and b.decide(pick) == []
        i += 1
    assert b.history == [] and len(a.history) == i
    assert b.result() == a.result()
    assert b.to_dict() | {"history": []} == a.to_dict() | {"history": []}


def test_the_quick_legality_check_agrees_with_the_explained_one():
    """The per-prompt legality test builds no message; a decision it
    allows is one the explaining check finds no reason to refuse, and the other
    way round, at every play prompt of 3 x 3,000 seeded rounds that split
    whenever they may (so split hands, split Aces and short credits all come up)."""
    from cabinet.game import Decision

    seen = Counter()
    for variant in ("classic", "classic-multi", "american"):
        rules = preset(variant)
        for seed in range(3_000):
            rng = random.Random(seed)
            n_spots = rng.randint(1, rules.max_spots_per_seat)
            avail = rng.choice([None, 0, 100, 300, 1000])
            seats = [SeatBets(1, (200,) * n_spots, avail)]
            rnd = _new(rules, seats, seed)
            rnd.start()
            while rnd.prompt is not None:
                legal = rnd.legal_decisions()
                if rnd.prompt.kind == "play":
                    spot, hand = rnd._current()
                    dbl, spl = Decision.DOUBLE in legal, Decision.SPLIT in legal
                    assert dbl == (rnd._double_refusal(spot, hand, True) is None)
                    assert spl == (rnd._split_refusal(spot, hand, True) is None)
                    seen[hand.from_split, dbl, spl] += 1
                pick = Decision.SPLIT if Decision.SPLIT in legal else rng.choice(sorted(legal, key=lambda d: d.value))
                rnd.decide(pick)
    assert seen[True, True, False] and seen[True, False, False] and seen[False, True, True]

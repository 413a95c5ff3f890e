"""RULES.md sections `classic`, `classic-multi`, `american`, the default table
settings, and "Shuffling and randomness"."""

from __future__ import annotations

import random
import secrets
from collections import Counter

import pytest

from cabinet.game import (
    AMERICAN,
    CLASSIC,
    CLASSIC_MULTI,
    BetError,
    Decision,
    IllegalDecision,
    RuleSetError,
    Shoe,
    fisher_yates,
    preset,
)
from cabinet.game import shoe as shoe_mod

from .helpers import hand, play, start

# -- classic ---------------------------------------------------------------------------


def test_classic_one_deck_shuffled_every_round_one_spot():
    assert (CLASSIC.decks, CLASSIC.shuffle_every_round) == (1, True)
    assert (CLASSIC.max_seats, CLASSIC.max_spots_per_seat) == (1, 1)
    with pytest.raises(BetError, match="spots"):
        start("classic", ["TS", "9H", "8D", "7C"], bets=[[1000, 1000]])
    with pytest.raises(BetError, match="seats"):
        start("classic", ["TS", "9H", "8D", "7C"], bets=[[1000], [1000]])


def test_classic_shoe_refuses_a_second_copy_of_a_card():
    from cabinet.tools.replay import ScenarioError

    with pytest.raises(ScenarioError, match="2 copies of AS"):
        play("classic", ["AS", "9H", "AS"])


def test_classic_default_limits_in_credits():
    assert CLASSIC.credit_minor == 100
    assert (CLASSIC.min_bet_minor, CLASSIC.max_bet_minor, CLASSIC.bet_step_minor) == (100, 10_000, 100)


@pytest.mark.parametrize(
    "cards,ok",
    [
        (["5S", "4H"], True),
        (["6S", "4H"], True),
        (["6S", "5H"], True),
        (["5S", "3H"], False),
        (["7S", "5H"], False),
        (["AS", "8H"], False),  # soft 19
    ],
)
def test_classic_doubles_only_on_9_10_11(cards, ok):
    rnd, _ = start("classic", [cards[0], "7C", cards[1], "TS", "TD"])
    assert (Decision.DOUBLE in rnd.legal_decisions()) is ok
    if not ok:
        with pytest.raises(IllegalDecision, match="^double: .*doubles only on 9, 10, 11"):
            rnd.decide("double")


def test_classic_double_once_one_card_stake_equals_initial_bet():
    out = play("classic", ["6S", "6H", "5D", "2C", "TD", "KH"], ["double"], bets=[[1000]])
    h = hand(out)
    assert h["cards"] == ["6S", "5D", "2C"] and h["doubled"] and h["stake"] == 2000
    assert out["prompts"] == ["play seat 1 spot 1 hand 1"]  # stands after one card


def test_classic_no_double_after_split():
    rnd, _ = start("classic", ["5S", "7H", "5D", "6C", "4C", "TD", "TH"])
    rnd.decide("split")
    assert Decision.DOUBLE not in rnd.legal_decisions()  # 5 6 = 11, but split
    with pytest.raises(IllegalDecision, match="^double: .*does not double after a split"):
        rnd.decide("double")


def test_classic_split_same_rank_only():
    ok, _ = start("classic", ["QS", "7H", "QD", "5C"])
    assert Decision.SPLIT in ok.legal_decisions()
    no, _ = start("classic", ["KS", "7H", "TD", "5C"])
    assert Decision.SPLIT not in no.legal_decisions()


def test_classic_splits_once_only():
    rnd, _ = start("classic", ["8S", "7H", "8D", "8C", "4C", "TD", "TH"])
    rnd.decide("split")  # hand 1: 8 8 again
    assert Decision.SPLIT not in rnd.legal_decisions()
    with pytest.raises(IllegalDecision, match="^split: .*splits once"):
        rnd.decide("split")


def test_classic_split_aces_are_played_like_any_split_hand():
    rnd, _ = start("classic", ["AS", "7H", "AD", "2C", "3C", "5D", "TD", "TH"])
    rnd.decide("split")
    assert rnd.prompt.hand == 1 and Decision.HIT in rnd.legal_decisions()
    rnd.decide("hit")  # A 2 5 = soft 18
    assert rnd.spots[0].hands[0].total == 18


def test_classic_eleven_card_hand_stands_automatically():
    # Two decks (a RuleSet change) let a hand reach 11 cards below 21: 8 Aces + 3 twos = 14.
    rules = CLASSIC.replace(decks=2)
    player = ["AS", "AH", "AD", "AC", "AS", "AH", "AD", "AC", "2S", "2H", "2D"]
    rnd, _ = start(rules, [player[0], "TH", player[1]] + player[2:] + ["7C"])
    hits = 0
    while rnd.prompt is not None:
        rnd.decide("hit")
        hits += 1
    h = rnd.spots[0].hands[0]
    assert (len(h.cards), h.total, hits) == (11, 14, 9)
    assert rnd.history[-1] == ("play seat 1 spot 1 hand 1", "hit")
    assert h.outcome.value == "lose"  # dealer T 7 = 17


def test_classic_card_limit_stands_an_11_card_hand_below_21():
    rules = CLASSIC.replace(max_hand_cards=3)  # same rule, reached sooner
    rnd, _ = start(rules, ["2S", "9H", "3D", "4C", "8C", "9C"])
    rnd.decide("hit")  # third card: stands at 9
    assert rnd.prompt is None
    assert rnd.spots[0].hands[0].outcome is not None


def test_classic_one_deck_eleven_cards_make_21_and_stand():
    cards = ["AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H", "3D"]
    rnd, _ = start("classic", [cards[0], "9D", cards[1]] + cards[2:] + ["9C"])
    n = 0
    while rnd.prompt is not None:
        rnd.decide("hit")
        n += 1
    h = rnd.spots[0].hands[0]
    assert (len(h.cards), h.total, n) == (11, 21, 9)
    assert h.outcome.value == "win"  # dealer 9 9 = 18


# -- classic-multi ------------------------------------------------------------------------


def test_multi_four_decks_one_to_three_seats_chips_and_limits():
    r = CLASSIC_MULTI
    assert (r.decks, r.max_seats, r.max_spots_per_seat) == (4, 3, 1)
    assert r.chip_values_minor == (100, 500, 2_500, 10_000)
    assert (r.min_bet_minor, r.max_bet_minor) == (100, 50_000)
    assert (r.bet_timer_s, r.decision_timer_s) == (30, 30)
    assert r.shuffle_every_round and r.penetration_percent is None


@pytest.mark.parametrize("pen,ok", [(49, False), (50, True), (85, True), (86, False)])
def test_multi_cut_card_penetration_50_to_85(pen, ok):
    if ok:
        r = CLASSIC_MULTI.replace(shuffle_every_round=False, penetration_percent=pen)
        shoe = Shoe.shuffled(r.decks, random.Random(1), r.penetration_percent)
        assert shoe.cut_index == 208 * pen // 100
    else:
        with pytest.raises(RuleSetError) as e:
            CLASSIC_MULTI.replace(shuffle_every_round=False, penetration_percent=pen)
        assert e.value.field == "penetration_percent"


def test_cut_card_reached_asks_for_a_reshuffle_between_rounds_never_mid_round():
    shoe = Shoe.shuffled(4, random.Random(3), 50)
    shoe.position = shoe.cut_index - 1
    assert not shoe.cut_card_reached
    shoe.draw()
    assert shoe.cut_card_reached
    shoe.draw()  # dealing goes on: the reshuffle waits for the round to end


def test_multi_double_any_two_cards_and_after_split():
    rnd, _ = start("classic-multi", ["7S", "6H", "5D", "TD"])  # 12: doubling allowed
    assert Decision.DOUBLE in rnd.legal_decisions()
    rnd, _ = start("classic-multi", ["8S", "6H", "8D", "3C", "2C", "TD", "TH", "9S"])
    rnd.decide("split")
    assert Decision.DOUBLE in rnd.legal_decisions()  # 8 3 after split


def test_multi_split_by_rank_only():
    rnd, _ = start("classic-multi", ["KS", "6H", "TD", "9C"])
    assert Decision.SPLIT not in rnd.legal_decisions()
    with pytest.raises(IllegalDecision, match="^split: .*same rank"):
        rnd.decide("split")


def test_multi_split_aces_get_one_card_and_cannot_be_hit_or_doubled():
    out = play("classic-multi", ["AS", "9H", "AD", "2C", "3C", "TS", "8S"], ["split"])
    assert out["prompts"] == ["play seat 1 spot 1 hand 1"]
    assert [len(h["cards"]) for h in out["spots"][0]["hands"]] == [2, 2]


def test_multi_player_blackjack_paid_at_once_unless_dealer_blackjack():
    rnd, ev = start("classic-multi", ["AS", "9S", "TH", "KD", "7C", "9C"], bets=[[1000], [1000]])
    # dealer ten up: checked (9C is not an Ace): no BJ; the natural is paid before seat 2 plays
    assert rnd.spots[0].hands[0].returned_minor == 2500
    assert rnd.prompt.seat == 2


# -- american -----------------------------------------------------------------------------


def test_american_table():
    r = AMERICAN
    assert (r.decks, r.dealer_hole_card, r.max_seats, r.max_spots_per_seat) == (4, True, 1, 3)
    assert (r.peek_on_ace, r.peek_on_ten, r.split_by) == (True, True, "value")


def test_american_split_any_two_ten_values():
    rnd, _ = start("american", ["KS", "6H", "TD", "9C", "2C", "3C"])
    assert Decision.SPLIT in rnd.legal_decisions()


def test_american_no_resplit_per_spot():
    rnd, _ = start("american", ["8S", "6H", "8D", "9C", "8C", "3C", "TS", "TH"])
    rnd.decide("split")
    assert Decision.SPLIT not in rnd.legal_decisions()


def test_american_double_after_split_but_not_split_aces():
    out = play("american", ["AS", "9H", "AD", "7C", "5C", "TS", "2D"], ["split"])
    # split Aces: one card each, no question asked
    assert out["prompts"] == ["play seat 1 spot 1 hand 1"]
    assert [h["cards"] for h in out["spots"][0]["hands"]] == [["AS", "5C"], ["AD", "TS"]]
    assert not any(h["doubled"] for h in out["spots"][0]["hands"])


def test_american_spots_played_in_order_each_split_separately():
    rnd, _ = start("american", ["8S", "TS", "6H", "8D", "9S", "7C", "2C", "3C", "TD"], bets=[[100, 100]])
    seen = []
    rnd.decide("split")
    while rnd.prompt is not None:
        seen.append((rnd.prompt.spot, rnd.prompt.hand))
        rnd.decide("stand")
    assert seen == [(1, 1), (1, 2), (2, 1)]


# -- Shuffling and randomness ----------------------------------------------------------------


def test_fisher_yates_is_unbiased_over_all_permutations_of_four():
    rng = random.Random(12345)
    counts: Counter[tuple[int, ...]] = Counter()
    n = 48_000
    for _ in range(n):
        items = [0, 1, 2, 3]
        fisher_yates(items, rng)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    expected = n / 24
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 49.7  # chi-square, 23 degrees of freedom, p = 0.001


def test_every_position_of_a_full_deck_is_uniform():
    rng = random.Random(7)
    first: Counter[str] = Counter()
    for _ in range(10_400):
        first[str(Shoe.shuffled(1, rng).cards[0])] += 1
    assert len(first) == 52
    expected = 10_400 / 52
    chi2 = sum((c - expected) ** 2 / expected for c in first.values())
    assert chi2 < 87.0  # 51 degrees of freedom, p = 0.001


def test_production_shuffle_draws_from_the_system_generator(monkeypatch):
    calls = []

    class Spy(secrets.SystemRandom):
        def randrange(self, *a, **k):
            calls.append(a)
            return super().randrange(*a, **k)

    monkeypatch.setattr(shoe_mod.secrets, "SystemRandom", Spy)
    s = Shoe.shuffled(1)
    assert calls and sorted(map(str, s.cards)) == sorted(map(str, Shoe.shuffled(1).cards))


def test_shuffles_are_fresh_each_round():
    rng = secrets.SystemRandom()
    orders = {tuple(map(str, Shoe.shuffled(1, rng).cards)) for _ in range(20)}
    assert len(orders) == 20


def test_shoe_has_every_card_decks_times():
    s = Shoe.shuffled(4, random.Random(2))
    counts = Counter(map(str, s.cards))
    assert len(counts) == 52 and set(counts.values()) == {4}


@pytest.mark.parametrize("variant", ["classic", "classic-multi", "american"])
def test_preset_lookup(variant):
    assert preset(variant).variant == variant
    with pytest.raises(RuleSetError):
        preset("spanish-21")

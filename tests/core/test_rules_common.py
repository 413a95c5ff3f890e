"""RULES.md "Common to all three": one test (at least) per rule line."""

from __future__ import annotations

import pytest

from cabinet.game import (
    CLASSIC,
    BetError,
    Decision,
    IllegalDecision,
    RuleSet,
    RuleSetError,
    hand_total,
    parse_cards,
    preset,
)
from cabinet.game.events import HandBusted, HandSettled, InsuranceOffered

from .helpers import hand, names, play, start

VARIANTS = ["classic", "classic-multi", "american"]


# -- Card values -----------------------------------------------------------------


@pytest.mark.parametrize(
    "codes,total,soft",
    [
        (["2S", "9H"], 11, False),
        (["TS", "JH"], 20, False),
        (["QS", "KH"], 20, False),
        (["AS", "6H"], 17, True),  # Ace counts 11: soft
        (["AS", "6H", "9D"], 16, False),  # Ace must count 1
        (["AS", "AH"], 12, True),
        (["AS", "AH", "9D"], 21, True),
        (["KS", "QH", "5D"], 25, False),  # bust: hard total shown
        (["10S", "AH"], 21, True),
    ],
)
def test_card_values_and_soft_totals(codes, total, soft):
    assert hand_total(parse_cards(codes)) == (total, soft)


def test_total_shown_is_best_total_not_above_21():
    out = play("classic", ["AS", "7H", "6D", "TC", "5C"], ["stand"])
    # A+6 shows 17 (soft), not 7
    assert hand(out)["total"] == 17


# -- Blackjack --------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_natural_stands_automatically_and_pays_3_to_2(variant):
    # player A K against a 9: no question is asked, paid 3:2
    shoe = ["AS", "9H", "KD"] + (["7C"] if variant == "american" else [])
    out = play(variant, shoe, [], bets=[[2000]])
    assert out["prompts"] == []
    h = hand(out)
    assert (h["blackjack"], h["outcome"], h["returned"]) == (True, "blackjack", 5000)


@pytest.mark.parametrize("variant", VARIANTS)
def test_natural_beats_a_dealer_21_of_three_cards(variant):
    if variant == "american":
        shoe = ["AS", "6H", "KD", "5C", "TD"]  # dealer 6 5 T = 21
    else:
        shoe = ["AS", "6H", "KD"]  # natural paid at once against a 6
    out = play(variant, shoe, [])
    assert hand(out)["outcome"] == "blackjack"
    assert hand(out)["returned"] == 2500


@pytest.mark.parametrize("variant", VARIANTS)
def test_natural_pushes_a_dealer_blackjack(variant):
    shoe = ["AS", "TH", "KD", "AC"]
    out = play(variant, shoe, [])
    assert out["dealer"]["blackjack"] is True
    assert (hand(out)["outcome"], hand(out)["returned"]) == ("push", 1000)


@pytest.mark.parametrize("variant", VARIANTS)
def test_split_ace_and_ten_is_21_not_blackjack_and_pays_1_to_1(variant):
    # AS AD split; hand 1 gets KC (21), hand 2 gets 7H; dealer 9 then 8 = 17
    if variant == "american":
        shoe = ["AS", "9H", "AD", "5C", "KC", "7H", "8S"]
    else:
        shoe = ["AS", "9H", "AD", "KC", "7H", "8S"]
    decisions = ["split"] + (["stand"] if variant == "classic" else [])
    out = play(variant, shoe, decisions)
    h1 = hand(out, 0, 0)
    assert h1["cards"][:2] == ["AS", "KC"] and h1["total"] == 21
    assert (h1["blackjack"], h1["outcome"], h1["returned"]) == (False, "win", 2000)


def test_split_21_loses_to_a_late_dealer_blackjack_in_classic():
    # classic, dealer ten up (no check): A A split, hand 1 AS+KC = 21, hand 2 AD+9H then stand;
    # the dealer's second card is an Ace: blackjack takes both hands.
    out = play("classic", ["AS", "TH", "AD", "KC", "9H", "AC"], ["split", "stand"])
    assert out["dealer"]["blackjack"] is True
    assert [h["outcome"] for h in out["spots"][0]["hands"]] == ["lose", "lose"]
    assert out["seats"][0]["net"] == -2000


def test_split_21_pushes_a_dealer_21():
    out = play("classic-multi", ["AS", "9H", "AD", "KC", "5H", "2C", "TS"], ["split"])
    assert hand(out)["outcome"] == "push"


# -- Win, push, bust ----------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_win_pays_1_to_1_and_push_returns_stake(variant):
    win = play(variant, ["TS", "7H", "9D", "TC"], ["stand"])  # 19 against 17
    assert (hand(win)["outcome"], hand(win)["returned"]) == ("win", 2000)
    push = play(variant, ["TS", "TH", "JD", "KC"], ["stand"])  # 20 against 20
    assert (hand(push)["outcome"], hand(push)["returned"]) == ("push", 1000)


@pytest.mark.parametrize("variant", VARIANTS)
def test_bust_loses_at_once_even_if_dealer_busts_later(variant):
    # two spots/seats so the dealer still plays after the bust
    if variant == "classic":
        # one spot only: the bust is settled at once, before the dealer plays
        rnd, _ = start("classic", ["TS", "6H", "6D", "9C", "TD"])
        ev = rnd.decide("hit")
        assert names(ev)[:3] == ["PlayerCardDealt", "HandBusted", "HandSettled"]
        assert ev[2] == HandSettled(1, 1, 1, ev[2].outcome, 1000, 0)
        assert ev[2].outcome.value == "bust"
        return
    if variant == "american":
        # spot 1: T 6, spot 2: 9 9, dealer 6 + hole 7; spot 1 hits T; dealer draws K
        rnd, _ = start(variant, ["TS", "9S", "6H", "6D", "9C", "7H", "TD", "KS"], bets=[[1000, 1000]])
    else:
        rnd, _ = start(variant, ["TS", "9S", "6H", "6D", "9C", "TD", "7H", "KS"], bets=[[1000], [1000]])
    ev = rnd.decide("hit")  # spot 1: 16 + ten = bust
    assert any(isinstance(e, HandBusted) for e in ev)
    while rnd.prompt is not None:
        rnd.decide("stand")
    out = rnd.result()
    assert out["dealer"]["total"] > 21  # the dealer busted too
    assert hand(out, 0)["outcome"] == "bust" and hand(out, 0)["returned"] == 0
    assert hand(out, 1)["outcome"] == "win"


# -- Dealer stands on all 17 -----------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_dealer_stands_on_soft_17(variant):
    if variant == "american":
        shoe = ["TS", "AH", "8D", "6C"]  # dealer A + hole 6: checked, no BJ
        decisions = ["decline", "stand"]
    else:
        shoe = ["TS", "AH", "8D", "6C", "9C"] if variant == "classic" else ["TS", "AH", "8D", "6C"]
        decisions = ["decline", "stand"]
    out = play(variant, shoe[:4], decisions)
    assert out["dealer"]["cards"] == ["AH", "6C"]
    assert out["dealer"]["total"] == 17
    assert hand(out)["outcome"] == "win"


@pytest.mark.parametrize("variant", VARIANTS)
def test_dealer_draws_on_16(variant):
    hole = variant == "american"
    shoe = ["TS", "TH", "8D", "6C", "2D"] if hole else ["TS", "9H", "8D", "7C", "2D"]
    out = play(variant, shoe, ["stand"])
    d = out["dealer"]
    assert d["total"] == 18 and len(d["cards"]) == 3


def test_dealer_hitting_soft_17_is_refused_as_a_rule():
    with pytest.raises(RuleSetError) as e:
        CLASSIC.replace(dealer_hits_soft_17=True)
    assert e.value.field == "dealer_hits_soft_17"


# -- 21 stands automatically ----------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_hand_reaching_21_stands_automatically(variant):
    shoe = ["5S", "9H", "6D"] + (["8C", "TC"] if variant == "american" else ["TC", "8C"])
    out = play(variant, shoe, ["hit"])
    # hit once to 21, then no more question
    assert out["prompts"] == ["play seat 1 spot 1 hand 1"]
    assert hand(out)["total"] == 21 and hand(out)["outcome"] == "win"


# -- Insurance --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_insurance_offered_only_on_an_ace_up(variant):
    out = play(variant, ["TS", "9H", "8D", "8C"], ["stand"])
    assert out["prompts"] == ["play seat 1 spot 1 hand 1"]
    assert hand(out)["outcome"] == "win"


@pytest.mark.parametrize("variant", VARIANTS)
def test_insurance_comes_before_any_other_decision(variant):
    rnd, ev = start(variant, ["TS", "AH", "6D", "7C", "5S", "4H"])
    assert rnd.prompt.kind == "insurance"
    assert rnd.legal_decisions() == {Decision.INSURE, Decision.DECLINE}
    with pytest.raises(IllegalDecision, match="^hit: insurance is being offered"):
        rnd.decide("hit")
    assert InsuranceOffered(1, 1, 500) in ev


@pytest.mark.parametrize("variant", VARIANTS)
def test_insurance_costs_half_and_pays_2_to_1_on_dealer_blackjack(variant):
    out = play(variant, ["9S", "AH", "7D", "KC"], ["insure"], bets=[[1000]])
    spot = out["spots"][0]
    assert spot["insurance"] == {"stake": 500, "returned": 1500}
    assert hand(out)["outcome"] == "lose"
    assert out["seats"][0] == {"seat": 1, "wagered": 1500, "returned": 1500, "net": 0}


@pytest.mark.parametrize("variant", VARIANTS)
def test_insurance_lost_without_dealer_blackjack_and_play_continues(variant):
    out = play(variant, ["TS", "AH", "9D", "6C", "2C"], ["insure", "stand"])
    assert out["spots"][0]["insurance"] == {"stake": 500, "returned": 0}
    assert out["prompts"] == ["insurance seat 1 spot 1", "play seat 1 spot 1 hand 1"]
    # dealer A 6 = soft 17 stands; player 19 wins
    assert hand(out)["outcome"] == "win"
    assert out["seats"][0]["net"] == 1000 - 500


@pytest.mark.parametrize("variant", VARIANTS)
def test_insurance_not_offered_to_a_blackjack(variant):
    out = play(variant, ["AS", "AH", "KD", "9C"], [])
    assert out["spots"][0]["insurance"] is None
    assert out["prompts"] == []
    assert hand(out)["outcome"] == "blackjack"


@pytest.mark.parametrize("variant", ["classic-multi", "american"])
def test_insurance_offered_to_each_initial_hand_in_order(variant):
    bets = [[1000], [2000]] if variant == "classic-multi" else [[1000, 2000]]
    rnd, ev = start(variant, ["TS", "9S", "AH", "9D", "8C", "7C", "5D"], bets=bets)
    first = rnd.prompt
    rnd.decide("insure")
    second = rnd.prompt
    assert first.kind == second.kind == "insurance"
    assert (first.spot, second.spot) != (second.spot, first.spot) or first.seat != second.seat
    ev = rnd.decide("insure")
    taken = [e for e in ev if type(e).__name__ == "InsuranceTaken"]
    assert taken[0].stake_minor == 1000  # half of 2000


# -- Dealer blackjack takes the whole stake ----------------------------------------------


def test_dealer_blackjack_takes_doubles_and_splits_in_classic():
    # 8 8 split against a ten (no check in classic); both hands stand; dealer turns an Ace.
    out = play("classic", ["8S", "TH", "8D", "3C", "2H", "AS"], ["split", "stand", "stand"])
    assert out["dealer"]["blackjack"]
    assert [h["outcome"] for h in out["spots"][0]["hands"]] == ["lose", "lose"]
    assert out["seats"][0]["net"] == -2000


def test_dealer_blackjack_takes_a_double_in_classic():
    out = play("classic", ["5S", "TH", "6D", "9C", "AD"], ["double"])
    assert hand(out)["stake"] == 2000 and hand(out)["returned"] == 0


# -- No surrender -----------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_surrender(variant):
    rnd, _ = start(variant, ["TS", "TH", "6D", "7C", "5S"])
    assert "surrender" not in {d.value for d in Decision}
    with pytest.raises(IllegalDecision, match="^surrender: not a decision"):
        rnd.decide("surrender")


# -- Money -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field,value",
    [
        ("bet_step_minor", 5),
        ("bet_step_minor", 0),
        ("chip_values_minor", (100, 501)),
        ("min_bet_minor", 60_000),
        ("chip_values_minor", (500, 100)),
    ],
)
def test_configuration_that_breaks_exact_money_is_rejected(field, value):
    with pytest.raises(RuleSetError) as e:
        preset("american").replace(**{field: value})
    assert e.value.field in (field, "min_bet_minor")


@pytest.mark.parametrize(
    "field,value,what",
    [
        ("double_totals", "all", "totals (4-21; empty for any total)"),
        ("double_totals", "91011", "totals (4-21; empty for any total)"),
        ("double_totals", 11, "totals (4-21; empty for any total)"),
        ("double_totals", None, "totals (4-21; empty for any total)"),
        ("double_totals", {"9": True}, "totals (4-21; empty for any total)"),
        ("chip_values_minor", "500", "amounts in minor units"),
        ("chip_values_minor", 500, "amounts in minor units"),
    ],
)
def test_a_list_rule_given_as_a_string_or_a_scalar_is_refused_not_split(field, value, what):
    with pytest.raises(RuleSetError) as e:
        CLASSIC.replace(**{field: value})
    assert e.value.field == field
    assert str(e.value) == f"{field}: must be a list of {what}, got {value!r}"


def test_list_rules_still_take_lists_and_bad_members_are_named():
    assert CLASSIC.replace(double_totals=[10, 11]).double_totals == frozenset({10, 11})
    assert preset("american").replace(chip_values_minor=[200, 1000]).chip_values_minor == (200, 1000)
    assert RuleSet.from_dict(CLASSIC.to_dict()) == CLASSIC
    with pytest.raises(RuleSetError, match=r"^double_totals: totals must be 4-21, got \[9, 'a'\]$"):
        CLASSIC.replace(double_totals=[9, "a"])  # mixed types: no TypeError
    with pytest.raises(RuleSetError, match=r"^double_totals: must be a list of totals"):
        CLASSIC.replace(double_totals=[[9]])  # unhashable member
    with pytest.raises(RuleSetError) as e:  # direct construction, no coercion
        RuleSet(variant="x", name="x", double_totals="all")
    assert e.value.field == "double_totals"
    with pytest.raises(RuleSetError) as e:
        CLASSIC.replace(credit_minor=True)  # a bool is not 1 cent
    assert e.value.field == "credit_minor"


def test_three_to_two_and_half_bet_insurance_are_exact_integers():
    out = play("classic", ["AS", "9H", "KD"], [], bets=[[200]])
    assert hand(out)["returned"] == 500 and isinstance(hand(out)["returned"], int)


@pytest.mark.parametrize("variant", VARIANTS)
def test_bet_off_the_bet_step_is_refused(variant):
    with pytest.raises(BetError, match="not a multiple"):
        start(variant, ["TS", "TH", "6D", "7C"], bets=[[150]])


# -- Table limits apply to the initial bet only --------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_table_limits_apply_to_initial_bet_only(variant):
    r = preset(variant)
    with pytest.raises(BetError, match="outside the table limits"):
        start(variant, ["5S", "6H", "6D", "TC"], bets=[[r.max_bet_minor + r.bet_step_minor]])
    with pytest.raises(BetError, match="outside the table limits"):
        start(r.replace(min_bet_minor=500), ["5S", "6H", "6D", "TC"], bets=[[400]])
    # a maximum bet may still double past the maximum
    shoe = ["5S", "6H", "6D"] + (["TD"] if variant == "american" else []) + ["TC", "TH", "9S"]
    out = play(variant, shoe, ["double"], bets=[[r.max_bet_minor]])
    assert hand(out)["stake"] == 2 * r.max_bet_minor


# -- Malfunction: a round that cannot go on ------------------------------------------------


def test_shoe_running_out_puts_the_round_in_error_and_refuses_play():
    rnd, _ = start("classic", ["TS", "6H", "6D"])
    from cabinet.game import ShoeExhausted

    with pytest.raises(ShoeExhausted):
        rnd.decide("hit")
    assert rnd.phase.value == "error" and rnd.prompt is None
    with pytest.raises(IllegalDecision, match="voided"):
        rnd.decide("stand")


# -- Credits must cover the extra stake ------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_double_split_insurance_only_when_credits_cover(variant):
    # 5 5 against an Ace: insurance costs 500, double/split 1000
    shoe = ["5S", "AH", "5D", "9C", "4S", "4H"]
    rnd, ev = start(variant, shoe, available=[499])
    assert not any(isinstance(e, InsuranceOffered) for e in ev)
    assert rnd.prompt.kind == "play"
    assert rnd.legal_decisions() == {Decision.HIT, Decision.STAND}
    with pytest.raises(IllegalDecision, match="^double: seat 1 has not enough credits"):
        rnd.decide("double")
    rnd2, _ = start(variant, shoe, available=[1000])
    assert rnd2.prompt.kind == "insurance"
    rnd2.decide("insure")  # 500 left: no longer covers a double
    assert Decision.DOUBLE not in rnd2.legal_decisions()
    rnd3, _ = start(variant, shoe, available=[1000])
    rnd3.decide("decline")
    legal = rnd3.legal_decisions()
    assert Decision.DOUBLE in legal
    assert (Decision.SPLIT in legal) is True


def test_insurance_is_not_offered_once_earlier_insurance_used_the_credits():
    # RULES.md: offered only when the station's credits cover the extra stake;
    # 3 spots of 1000 with 500 spare: insuring spot 1 uses it all up, so spots
    # 2 and 3 of the same seat are not asked (found by the money property test).
    shoe = ["9S", "9H", "9D", "AH", "8C", "8S", "8D", "6C", "TC", "TD", "TH"]
    rnd, _ = start("american", shoe, bets=[[1000, 1000, 1000]], available=[500])
    assert rnd.prompt.text == "insurance seat 1 spot 1"
    rnd.decide("insure")
    assert rnd.prompt.text == "play seat 1 spot 1 hand 1"
    assert [s.insurance for s in rnd.spots] == ["taken", "none", "none"]
    assert rnd.wagered_minor(1) == 3000 + 500

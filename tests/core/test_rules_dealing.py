"""RULES.md "Dealing order and the dealer's second card", "Blackjack check",
"When the dealer draws" and when a player blackjack is settled."""

from __future__ import annotations

import pytest

from cabinet.game import Decision, parse_card
from cabinet.game.events import (
    DealerCardDealt,
    DealerCardRevealed,
    DealerChecked,
    HandSettled,
    PlayerCardDealt,
)

from .helpers import hand, names, play, start

C = parse_card


def _targets(events):
    out = []
    for e in events:
        if isinstance(e, PlayerCardDealt):
            out.append((f"s{e.seat}p{e.spot}h{e.hand}", str(e.card)))
        elif isinstance(e, DealerCardDealt):
            out.append(("dealer" if e.face_up else "dealer-down", str(e.card)))
    return out


def test_deal_order_american_three_spots_with_hole_card():
    shoe = ["2S", "3S", "4S", "9H", "5S", "6S", "7S", "8H", "TD"]
    rnd, ev = start("american", shoe, bets=[[100, 200, 300]])
    assert _targets(ev) == [
        ("s1p1h1", "2S"),
        ("s1p2h1", "3S"),
        ("s1p3h1", "4S"),
        ("dealer", "9H"),
        ("s1p1h1", "5S"),
        ("s1p2h1", "6S"),
        ("s1p3h1", "7S"),
        ("dealer-down", "8H"),
    ]
    # spots are played in order, spot 1 first
    assert (rnd.prompt.seat, rnd.prompt.spot) == (1, 1)


def test_deal_order_multi_three_seats_no_hole_card():
    shoe = ["2S", "3S", "4S", "9H", "5S", "6S", "7S", "8H", "TD", "TC"]
    rnd, ev = start("classic-multi", shoe, bets=[[100], [200], [300]])
    assert _targets(ev) == [
        ("s1p1h1", "2S"),
        ("s2p1h1", "3S"),
        ("s3p1h1", "4S"),
        ("dealer", "9H"),
        ("s1p1h1", "5S"),
        ("s2p1h1", "6S"),
        ("s3p1h1", "7S"),
    ]
    assert len(rnd.dealer_cards) == 1
    order = []
    while rnd.prompt is not None:
        order.append(rnd.prompt.seat)
        rnd.decide("stand")
    assert order == [1, 2, 3]


def test_split_deals_second_card_to_each_new_hand_at_once_then_plays_in_order():
    rnd, _ = start("classic-multi", ["8S", "6H", "8D", "2C", "3C", "TC", "9D"])
    ev = rnd.decide("split")
    assert _targets(ev) == [("s1p1h1", "2C"), ("s1p1h2", "3C")]
    assert (rnd.prompt.hand) == 1
    rnd.decide("stand")
    assert rnd.prompt.hand == 2


@pytest.mark.parametrize("variant", ["classic", "classic-multi"])
def test_no_hole_card_dealer_has_one_card_after_the_deal(variant):
    rnd, ev = start(variant, ["TS", "9H", "7D", "8C"])
    assert rnd.dealer_cards == [C("9H")]
    assert not any(isinstance(e, DealerCardDealt) and not e.face_up for e in ev)


def test_classic_checks_on_ace_only_drawing_second_card_face_down():
    rnd, ev = start("classic", ["TS", "AH", "7D", "8C", "9S"])
    rnd.decide("decline")
    # second card drawn now, face down, checked: no blackjack
    view = rnd.player_view()
    assert rnd.dealer_cards == [C("AH"), C("8C")]
    assert view.dealer.cards == ["AH"] and view.dealer.face_down == 1


def test_classic_does_not_check_a_ten():
    rnd, ev = start("classic", ["TS", "KH", "7D", "AC"])
    assert not any(isinstance(e, DealerChecked) for e in ev)
    assert len(rnd.dealer_cards) == 1
    assert rnd.prompt.kind == "play"


@pytest.mark.parametrize("variant", ["classic-multi", "american"])
def test_ace_and_ten_are_checked(variant):
    for up in ("AH", "KH"):
        shoe = ["TS", up, "7D", "8C", "9S"]
        rnd, ev = start(variant, shoe)
        if up == "AH":
            ev += rnd.decide("decline")
        assert DealerChecked(False) in ev
        assert rnd.player_view().dealer.face_down == 1


@pytest.mark.parametrize("variant", ["classic", "classic-multi", "american"])
def test_low_up_card_is_not_checked(variant):
    rnd, ev = start(variant, ["TS", "6H", "7D", "5C"])
    assert not any(isinstance(e, DealerChecked) for e in ev)


def test_american_hole_card_is_looked_at_not_revealed():
    rnd, ev = start("american", ["TS", "KH", "7D", "8C", "9S"])
    assert DealerChecked(False) in ev
    assert not any(isinstance(e, DealerCardRevealed) for e in ev)
    assert rnd.player_view().dealer.cards == ["KH"]


@pytest.mark.parametrize("variant", ["classic", "classic-multi", "american"])
def test_check_finding_blackjack_ends_the_round_at_once(variant):
    # two spots where possible: one insures; one blackjack pushes; others lose
    if variant == "classic":
        out = play(variant, ["9S", "AH", "7D", "KC"], ["insure"])
        assert out["prompts"] == ["insurance seat 1 spot 1"]
        return
    bets = [[1000, 1000]] if variant == "american" else [[1000], [1000]]
    # spot 1: 9 7 (insures), spot 2: A K (blackjack); dealer A K
    out = play(variant, ["9S", "AS", "AH", "7D", "KD", "KC"], ["insure"], bets=bets)
    assert out["prompts"] == ["insurance seat 1 spot 1" if variant == "american" else "insurance seat 1 spot 1"]
    assert out["spots"][0]["insurance"] == {"stake": 500, "returned": 1500}
    assert hand(out, 0)["outcome"] == "lose"
    assert hand(out, 1)["outcome"] == "push"


def test_no_blackjack_at_check_insurance_lost_card_stays_face_down():
    rnd, ev = start("classic-multi", ["TS", "AH", "7D", "8C", "9S"])
    ev = rnd.decide("insure")
    assert names(ev)[-2:] == ["DealerChecked", "InsuranceSettled"]
    assert rnd.player_view().dealer.face_down == 1
    assert rnd.prompt.kind == "play"


# -- When the dealer draws ------------------------------------------------------------------


def test_dealer_draws_nothing_when_every_hand_busted_classic():
    out = play("classic", ["TS", "6H", "6D", "9C"], ["hit"])
    assert out["dealer"]["cards"] == ["6H"]
    assert out["cards_left_unused"] == 0


def test_dealer_draws_nothing_more_but_turns_the_hole_card_american():
    rnd, _ = start("american", ["TS", "6H", "6D", "9C", "9D", "TH"])
    ev = rnd.decide("hit")
    assert DealerCardRevealed(C("9C")) in ev
    assert rnd.dealer_cards == [C("6H"), C("9C")]  # 15, but no draw
    assert rnd.shoe.remaining == 1


def test_classic_ten_up_blackjack_waits_for_the_second_card_and_dealer_stops():
    # only a blackjack is undecided: the dealer takes the second card and stops at 14
    rnd, ev = start("classic", ["AS", "TH", "KD", "4C", "9S"])
    # the natural waits: it is settled only after the dealer's second card
    assert names(ev).index("HandSettled") > ev.index(DealerCardDealt(C("4C"), True))
    assert rnd.finished
    assert rnd.dealer_cards == [C("TH"), C("4C")]
    assert rnd.result()["spots"][0]["hands"][0]["outcome"] == "blackjack"


def test_classic_ten_up_blackjack_pushes_a_late_dealer_blackjack():
    out = play("classic", ["AS", "TH", "KD", "AC"], [])
    assert (hand(out)["outcome"], hand(out)["returned"]) == ("push", 1000)


@pytest.mark.parametrize("variant", ["classic", "classic-multi", "american"])
def test_blackjack_settled_right_after_deal_against_2_to_9(variant):
    bets = [[1000], [1000]] if variant == "classic-multi" else None
    if variant == "american":
        bets = [[1000, 1000]]
    shoe = ["AS", "TS", "9H", "KD", "6C"] if bets else ["AS", "9H", "KD"]
    if variant == "american":
        shoe = ["AS", "TS", "9H", "KD", "6C", "7C"]
    rnd, ev = start(variant, shoe, bets=bets)
    settled = [e for e in ev if isinstance(e, HandSettled)]
    assert settled and settled[0].outcome.value == "blackjack" and settled[0].returned_minor == 2500
    if bets:
        assert rnd.prompt is not None  # the other hand is still to play


@pytest.mark.parametrize("variant", ["classic-multi", "american"])
def test_blackjack_paid_right_after_the_check(variant):
    bets = [[1000], [1000]] if variant == "classic-multi" else [[1000, 1000]]
    rnd, ev = start(variant, ["AS", "TS", "KH", "KD", "6C", "7C", "5C"], bets=bets)
    names_ = names(ev)
    assert names_.index("DealerChecked") < names_.index("HandSettled")
    assert rnd.prompt.kind == "play"


def test_legal_decisions_match_what_decide_accepts():
    rnd, _ = start("american", ["8S", "6H", "8D", "7C", "2C", "3C"])
    assert rnd.legal_decisions() == {Decision.HIT, Decision.STAND, Decision.DOUBLE, Decision.SPLIT}


def test_player_view_is_a_typed_value():
    """``Round.player_view()`` is a typed ``PlayerView`` (money in ``*_minor``
    fields), not a dict walked by string keys; the hole card is only a count."""
    from cabinet.game.view import PlayerView, VisiblePrompt

    rnd, _ = start("american", ["TS", "KH", "7D", "8C", "9S"])
    view = rnd.player_view()
    assert isinstance(view, PlayerView)
    assert (view.variant, view.phase) == ("american", "player")
    assert (view.dealer.cards, view.dealer.face_down, view.dealer.total) == (["KH"], 1, 10)
    assert not view.dealer.blackjack
    (spot,) = view.spots
    assert (spot.seat, spot.spot, spot.insurance_stake_minor) == (1, 1, 0)
    (h,) = spot.hands
    assert (h.cards, h.total, h.total_text, h.outcome, h.returned_minor) == (["TS", "7D"], 17, "17", None, None)
    assert h.stake_minor == spot.bet_minor > 0
    assert view.prompt == VisiblePrompt(
        kind="play", seat=1, spot=1, hand=1, text="play seat 1 spot 1 hand 1", legal=["double", "hit", "stand"]
    )

"""Engine core: bills, bets, rounds, cash-out, vouchers, handpay — the money paths."""

from __future__ import annotations

import pytest

from cabinet.core.effects import (
    Journal,
    PrintVoucher,
    Rejected,
    ReturnNote,
    SaveVoucher,
    SetLamps,
    SetVoucherStatus,
    StackNote,
)
from cabinet.core.events import (
    DeviceFaulted,
    DoorChanged,
    KeyChanged,
    NoteEscrowed,
    PowerUp,
    PrintFinished,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.machine import Cabinet
from cabinet.core.settings import GameSettings

from .helpers import Rig, kinds

# -- bills ---------------------------------------------------------------------------


def test_note_escrow_stacks_an_enabled_denomination():
    rig = Rig()
    eff = rig.cab.handle(NoteEscrowed(1, 2000, "n1"))
    # the escrow is journaled with the driver's transaction id before the answer
    assert eff[:2] == [Journal("note_escrowed", 1, 2000, {"txn": "n1"}), StackNote(1)]


@pytest.mark.parametrize(
    "setup,amount,why",
    [
        (lambda r: None, 300, "not an enabled denomination"),
        (lambda r: r.note(300_000 - 1000), 2000, "credit limit"),
        (lambda r: r.cab.handle(DoorChanged("main", True)), 2000, "not accepting in door_open"),
        (lambda r: r.cab.handle(KeyChanged(True)), 2000, "not accepting in maintenance"),
        (lambda r: r.cab.handle(DeviceFaulted("printer", "printer_paper_out")), 2000, "not accepting in tilt"),
    ],
)
def test_refused_notes_come_back_out(setup, amount, why):
    rig = Rig()
    setup(rig)
    eff = rig.cab.handle(NoteEscrowed(1, amount))
    assert isinstance(eff[0], ReturnNote) and why in eff[0].reason


def test_stacked_note_credits_once_and_repeat_is_ignored():
    rig = Rig()
    from cabinet.core.events import NoteStacked

    rig.cab.handle(NoteStacked(1, 2000, "abc"))
    eff = rig.cab.handle(NoteStacked(1, 2000, "abc"))  # repeated vend valid
    assert rig.credits() == 2000
    assert rig.meters().bills_in_minor == 2000 and rig.meters().bills_in_count == 1
    assert rig.meters().bills_by_denom == {"2000": 1}
    assert any(isinstance(e, Journal) and e.kind == "note_repeat_ignored" for e in eff)
    assert rig.cab.s.stations[0].last_bills_minor == [2000]


def test_stacked_note_is_credited_even_if_a_door_opened_meanwhile():
    rig = Rig()
    rig.cab.handle(DoorChanged("main", True))
    rig.note(5000)
    assert rig.credits() == 5000 and rig.balanced()


# -- classic betting and a round ----------------------------------------------------------


def test_classic_bet_buttons_deal_and_lamps():
    rig = Rig()
    assert rig.cab.legal_actions(1) == frozenset()  # no credits: nothing lit
    rig.note(500)
    assert rig.cab.legal_actions(1) == {"bet_up", "cash_out"}
    for _ in range(5):
        rig.press("bet_up")
    assert rig.cab.s.stations[0].bets_minor[0] == 500
    assert "bet_up" not in rig.cab.legal_actions(1)  # credits cap the bet
    r = rig.press("bet_up")
    assert isinstance(r[0], Rejected)
    rig.press("bet_down")
    assert rig.cab.s.stations[0].bets_minor[0] == 400
    lamps = [e for e in rig.press("deal") if isinstance(e, SetLamps)]
    assert rig.cab.mode in ("in_round", "betting")
    if rig.cab.mode == "in_round":
        assert lamps[-1].actions == rig.cab.legal_actions(1)
        assert lamps[-1].actions <= {"hit", "stand", "double", "split", "insure", "decline"}
    assert rig.meters().coin_in_minor >= 400
    rig.play_out()
    assert rig.balanced()
    m = rig.meters()
    assert m.games_played == 1 and m.games_won + m.games_lost + m.games_pushed == 1


def test_bet_above_credits_or_table_max_is_not_lit():
    rig = Rig(GameSettings(variant="classic", max_bet_minor=300))
    rig.note(1000)
    for _ in range(10):
        rig.press("bet_up")
    assert rig.cab.s.stations[0].bets_minor[0] == 300


def test_many_rounds_keep_the_books_balanced_and_meters_consistent():
    rig = Rig(seed=7)
    rig.note(10_000)
    rig.press("bet_up")
    for _ in range(60):
        if rig.credits() < 100:
            break
        rig.press("deal")
        while rig.cab.mode == "in_round":
            legal = rig.cab.legal_actions(1)
            for choice in ("split", "double", "insure", "hit", "stand"):
                if choice in legal:
                    rig.press(choice)
                    break
        assert rig.balanced()
    m = rig.meters()
    assert m.games_played == m.games_won + m.games_lost + m.games_pushed > 10
    assert rig.credits() == 10_000 - m.coin_in_minor + m.coin_out_minor - m.insurance_in_minor + m.insurance_out_minor


# -- chips: american ----------------------------------------------------------------------


def test_american_chips_place_undo_clear_rebet():
    rig = Rig(GameSettings(variant="american"))
    rig.note(10_000)
    rig.press("chip", value=500)
    rig.press("place", value=1)
    rig.press("place", value=3)
    rig.press("chip", value=100)
    rig.press("place", value=3)
    st = rig.cab.s.stations[0]
    assert st.bets_minor == [500, 0, 600]
    rig.press("undo")
    assert st.bets_minor == [500, 0, 500]
    rig.press("clear")
    assert st.bets_minor == [0, 0, 0] and "deal" not in rig.cab.legal_actions(1)
    rig.press("place", value=2)
    rig.press("deal")
    rig.play_out()
    assert st.bets_minor == [0, 0, 0] and st.last_bets_minor == [0, 100, 0]
    rig.press("rebet")
    assert st.bets_minor == [0, 100, 0]
    rig.press("new_game")
    assert st.bets_minor == [0, 0, 0]
    assert rig.balanced()


def test_chip_that_is_not_on_the_table_is_rejected():
    rig = Rig(GameSettings(variant="american"))
    rig.note(10_000)
    eff = rig.press("chip", value=300)
    assert isinstance(eff[0], Rejected)
    assert rig.cab.s.stations[0].selected_chip_minor is None


# -- multi-station timers -------------------------------------------------------------------


def test_multi_bet_timer_deals_seats_with_bets_when_it_runs_out():
    rig = Rig(GameSettings(variant="classic-multi", stations=3, bet_timer_s=30))
    rig.note(1000, 1)
    rig.note(1000, 2)
    rig.note(1000, 3)
    rig.press("chip", 1, 500)
    rig.press("place", 1, 1)
    assert rig.cab.s.bet_deadline_ms == rig.now_ms + 30_000
    rig.press("chip", 2, 100)
    rig.press("place", 2, 1)  # seat 2 bets but never presses Deal
    rig.press("deal", 1)
    assert rig.cab.mode == "betting"  # seat 2 has a bet and has not pressed Deal
    rig.advance(29_900)
    assert rig.cab.mode == "betting"
    rig.advance(200)  # time is up: seats with a bet are dealt in
    assert rig.meters(1).coin_in_minor == 500 and rig.meters(2).coin_in_minor == 100
    assert rig.meters(3).coin_in_minor == 0  # seat 3 had credits but no bet: sits out
    assert rig.cab.s.round_id == 1 and not rig.cab.s.stations[2].in_round


def test_multi_round_starts_when_every_seat_with_a_bet_pressed_deal():
    rig = Rig(GameSettings(variant="classic-multi", stations=2))
    rig.note(1000, 1)
    rig.note(1000, 2)
    for n in (1, 2):
        rig.press("chip", n, 100)
        rig.press("place", n, 1)
    rig.press("deal", 1)
    assert not rig.cab.s.round_open  # seat 2 has a bet and has not pressed Deal
    rig.press("deal", 2)
    assert rig.meters(1).coin_in_minor == 100 and rig.meters(2).coin_in_minor == 100


def test_multi_decision_timer_stands_for_a_silent_seat():
    rig = Rig(GameSettings(variant="classic-multi", stations=2, decision_timer_s=30), seed=3)
    rig.note(1000, 1)
    rig.note(1000, 2)
    for n in (1, 2):
        rig.press("chip", n, 100)
        rig.press("place", n, 1)
    for n in (1, 2):
        rig.press("deal", n)
    assert rig.cab.s.round_open
    for _ in range(20):
        if rig.cab.mode != "in_round":
            break
        p = rig.cab.round.prompt
        before = (p.kind, p.seat, p.spot, p.hand)
        rig.advance(30_001)
        assert any(isinstance(e, Journal) and e.kind == "decision_timeout" for e in rig.effects)
        if rig.cab.mode == "in_round":
            q = rig.cab.round.prompt
            assert (q.kind, q.seat, q.spot, q.hand) != before
    assert rig.cab.mode != "in_round" and rig.balanced()


# -- cash-out, vouchers, handpay -------------------------------------------------------------


def _cash_out(rig):
    eff = rig.press("cash_out")
    rec = next(e.record for e in eff if isinstance(e, SaveVoucher))
    return eff, rec


def test_cash_out_prints_a_voucher_and_meters_move_only_on_success():
    rig = Rig()
    rig.note(2000)
    eff, rec = _cash_out(rig)
    assert kinds(eff)[:3] == ["SaveVoucher", "Journal", "PrintVoucher"]
    assert len(rec.validation_number) == 18 and rec.validation_number.isdigit()
    assert rec.amount_minor == 2000 and rec.sequence == 1 and rec.status == "printing"
    assert rec.expires_wall_s - rec.issued_wall_s == 30 * 86_400
    assert rig.credits() == 0 and rig.cab.mode == "cash_out"
    assert rig.meters().vouchers_out_minor == 0 and rig.balanced()
    eff = rig.cab.handle(PrintFinished(1, rec.validation_number, "done"))
    assert SetVoucherStatus(rec.validation_number, "issued", rig.wall_s) in eff
    assert rig.meters().vouchers_out_minor == 2000 and rig.meters().vouchers_out_count == 1
    assert rig.cab.mode == "attract" and rig.balanced()


@pytest.mark.parametrize("result", ["failed", "unknown"])
def test_failed_or_unknown_print_is_a_handpay_never_a_second_voucher(result):
    rig = Rig()
    rig.note(2000)
    _, rec = _cash_out(rig)
    eff = rig.cab.handle(PrintFinished(1, rec.validation_number, result))
    assert not any(isinstance(e, PrintVoucher) for e in eff)
    assert rig.cab.mode == "handpay"
    snap = rig.cab.snapshot(1)
    assert snap.handpay.amount_minor == 2000
    assert snap.handpay.validation_number == rec.validation_number
    assert rig.press("cash_out")[0].__class__ is Rejected
    eff = rig.cab.handle(KeyChanged(True))  # attendant resets
    assert SetVoucherStatus(rec.validation_number, "handpaid", rig.wall_s) in eff
    assert rig.meters().handpay_minor == 2000 and rig.meters().vouchers_out_minor == 0
    assert rig.cab.mode != "handpay" and rig.balanced()


def test_print_that_never_answers_times_out_to_handpay():
    rig = Rig()
    rig.note(2000)
    _cash_out(rig)
    rig.advance(29_000)
    assert rig.cab.mode == "cash_out"
    rig.advance(2_000)
    assert rig.cab.mode == "handpay"


def test_restart_mid_print_is_a_handpay():
    rig = Rig()
    rig.note(2000)
    _, rec = _cash_out(rig)
    cab = Cabinet(rig.cab.s, None)
    eff = cab.handle(PowerUp(0, rig.wall_s))
    assert cab.mode == "handpay" and not any(isinstance(e, PrintVoucher) for e in eff)


def test_cash_out_over_the_voucher_limit_is_a_handpay():
    rig = Rig(GameSettings(voucher_limit_minor=1000))
    rig.note(2000)
    eff, rec = _cash_out(rig)
    assert rec.status == "handpay" and not any(isinstance(e, PrintVoucher) for e in eff)
    assert rig.cab.mode == "handpay" and rig.balanced()


def test_cash_out_with_printer_out_of_paper_is_a_handpay():
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(DeviceFaulted("printer", "printer_paper_out"))
    assert rig.cab.mode == "tilt" and rig.cab.legal_actions(1) == {"cash_out"}
    eff, rec = _cash_out(rig)
    assert rig.cab.mode == "handpay" and rec.status == "handpay"


def _issued_voucher(amount=2000):
    rig = Rig()
    rig.note(amount)
    _, rec = _cash_out(rig)
    rig.cab.handle(PrintFinished(1, rec.validation_number, "done"))
    import msgspec

    return rig, msgspec.structs.replace(rec, status="issued")


def test_voucher_in_is_redeemed_once():
    rig, rec = _issued_voucher()
    eff = rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec, "v1"))
    assert eff[1] == StackNote(1) and eff[0].kind == "voucher_escrowed"
    eff = rig.cab.handle(VoucherStacked(1, rec.validation_number, "v1", rec))
    assert SetVoucherStatus(rec.validation_number, "redeemed", rig.wall_s) in eff
    assert rig.credits() == 2000 and rig.meters().vouchers_in_minor == 2000
    rig.cab.handle(VoucherStacked(1, rec.validation_number, "v1", rec))  # repeat
    assert rig.credits() == 2000 and rig.balanced()


@pytest.mark.parametrize(
    "change,why",
    [
        ({"status": "redeemed"}, "voucher is redeemed"),
        ({"status": "handpaid"}, "voucher is handpaid"),
        ({"expires_wall_s": 0.0}, "expired"),
    ],
)
def test_voucher_not_redeemable_comes_back(change, why):
    import msgspec

    rig, rec = _issued_voucher()
    bad = msgspec.structs.replace(rec, **change)
    eff = rig.cab.handle(VoucherEscrowed(1, rec.validation_number, bad))
    assert isinstance(eff[0], ReturnNote) and why in eff[0].reason
    rig.cab.handle(VoucherStacked(1, rec.validation_number, "v9", bad))
    assert rig.credits() == 0


def test_unknown_voucher_comes_back():
    rig = Rig()
    eff = rig.cab.handle(VoucherEscrowed(1, "123456789012345678", None))
    assert isinstance(eff[0], ReturnNote) and "not issued by this cabinet" in eff[0].reason


def test_panel_bet_buttons_work_on_a_chip_table():
    rig = Rig(GameSettings(variant="american"))
    rig.note(1000)
    assert {"bet_up", "chip"} <= rig.cab.legal_actions(1)
    rig.press("bet_up")  # the smallest chip on spot 1
    rig.press("chip", value=500)
    rig.press("bet_up")
    st = rig.cab.s.stations[0]
    assert st.bets_minor == [600, 0, 0]
    rig.press("bet_down")
    assert st.bets_minor == [100, 0, 0]
    rig.press("deal")
    assert rig.meters().coin_in_minor == 100


def test_the_table_says_what_was_won_net_and_the_paid_meter_what_came_back():
    rig = Rig(seed=3)
    rig.note(10_000)
    rig.press("bet_up")
    for _ in range(40):
        rig.press("deal")
        rig.play_out()
        spot = rig.cab.round.result()["spots"][0]
        hands = spot["hands"]
        if len(hands) == 1 and hands[0]["outcome"] == "win" and not spot["insurance"]:
            break
    else:
        raise AssertionError("no plain win in the seeded play")
    snap = rig.cab.snapshot(1)
    stake, paid = hands[0]["stake"], hands[0]["returned"]
    assert paid == 2 * stake
    assert snap.message == f"You win ${stake // 100}.{stake % 100:02d}"  # net, not paid
    assert snap.stations[0].win_minor == paid

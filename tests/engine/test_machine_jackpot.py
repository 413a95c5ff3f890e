"""Jackpot handpay: a round's win at or above the jackpot limit is paid by the
attendant, not to the credit meter (research/cabinet-features.md E "Handpay and
cancelled credits"; checklist 12)."""

from __future__ import annotations

import pytest

from cabinet.core.effects import Journal, Rejected, SaveRecall
from cabinet.core.errors import ConfigError
from cabinet.core.events import KeyChanged, PowerUp
from cabinet.core.machine import Cabinet
from cabinet.core.settings import GameSettings

from .helpers import Rig


def _play_until_a_win(rig: Rig, station: int = 1, rounds: int = 80) -> tuple[int, int]:
    """Deal and stand until a round nets a win; return (credits before, net win)."""
    for _ in range(rounds):
        before = rig.credits(station)
        rig.press("deal", station)
        rig.play_out()
        last = [e for e in rig.effects if isinstance(e, Journal) and e.kind == "round_end"]
        if last and last[-1].data["net_minor"] > 0:
            return before, last[-1].data["net_minor"]
    raise AssertionError("no winning round in the seeded play")


def test_a_win_at_the_limit_locks_up_and_is_paid_by_the_attendant():
    rig = Rig(GameSettings(jackpot_limit_minor=100), seed=3)
    rig.note(10_000)
    rig.press("bet_up")  # the table minimum: any win reaches the limit
    before, net = _play_until_a_win(rig)
    end = next(e for e in rig.effects if isinstance(e, Journal) and e.kind == "round_end")
    wagered, returned = end.data["wagered_minor"], end.data["returned_minor"]
    assert net == returned - wagered >= 100
    # the win is off the credit meter and waits for the attendant
    assert rig.cab.mode == "handpay"
    st = rig.cab.s.stations[0]
    assert rig.credits() == before - wagered + returned - net == before
    assert st.pending_out_minor == net and rig.balanced()
    hp = next(e for e in rig.effects if isinstance(e, Journal) and e.kind == "handpay")
    assert hp.amount_minor == net and hp.data["kind"] == "jackpot"
    recall = next(e.entry for e in rig.effects if isinstance(e, SaveRecall))
    assert recall.jackpot_handpay_minor == net and recall.credits_after_minor == rig.credits()
    snap = rig.cab.snapshot(1)
    assert snap.overlay == "handpay" and snap.handpay.kind == "jackpot"
    assert snap.handpay.amount_minor == net and snap.handpay.station == 1
    # nothing but the key moves the cabinet on
    assert isinstance(rig.press("deal")[0], Rejected)
    assert isinstance(rig.press("cash_out")[0], Rejected)
    m = rig.meters()
    coin_out = m.coin_out_minor
    eff = rig.cab.handle(KeyChanged(True))
    assert Journal("handpay_reset", 1, net, {"validation_number": "", "kind": "jackpot"}) in eff
    assert m.jackpot_handpay_minor == net and m.jackpot_handpay_count == 1
    assert m.handpay_minor == 0 and m.coin_out_minor == coin_out
    assert st.pending_out_minor == 0 and rig.cab.mode != "handpay" and rig.balanced()


def test_a_win_below_the_limit_goes_to_the_credit_meter():
    rig = Rig(GameSettings(jackpot_limit_minor=120_000), seed=3)
    rig.note(10_000)
    rig.press("bet_up")
    before, net = _play_until_a_win(rig)
    assert rig.cab.mode != "handpay" and rig.cab.s.stations[0].pending_out_minor == 0
    assert rig.credits() > before and rig.meters().jackpot_handpay_minor == 0


def test_a_push_or_a_loss_is_never_a_jackpot_however_big_the_stake():
    rig = Rig(GameSettings(jackpot_limit_minor=100), seed=5)
    rig.note(10_000)
    rig.press("bet_up")
    for _ in range(30):
        rig.press("deal")
        rig.play_out()
        end = next(e for e in rig.effects if isinstance(e, Journal) and e.kind == "round_end")
        if end.data["net_minor"] <= 0:
            assert rig.cab.mode != "handpay"
        elif rig.cab.mode == "handpay":
            rig.cab.handle(KeyChanged(True))
            rig.cab.handle(KeyChanged(False))
        assert rig.balanced()


def test_two_stations_hitting_a_jackpot_queue_one_after_the_other():
    rig = Rig(GameSettings(variant="classic-multi", stations=2, jackpot_limit_minor=100), seed=11)
    for n in (1, 2):
        rig.note(10_000, n)
    locked: list[int] = []
    base = [0, 0]
    for _ in range(200):
        base = [rig.meters(n).jackpot_handpay_minor for n in (1, 2)]
        for n in (1, 2):
            rig.press("bet_up", n)
        for n in (1, 2):
            rig.press("deal", n)
        rig.play_out()
        ends = [e for e in rig.effects if isinstance(e, Journal) and e.kind == "round_end"]
        if len(ends) == 2 and all(e.data["net_minor"] >= 100 for e in ends):
            locked = [e.data["net_minor"] for e in ends]
            break
        while rig.cab.mode == "handpay":
            rig.cab.handle(KeyChanged(True))
            rig.cab.handle(KeyChanged(False))
    assert locked, "no round where both stations won"
    s = rig.cab.s
    assert s.handpay.station == 1 and [h.station for h in s.handpay_queue] == [2]
    assert rig.cab.snapshot(1).handpay.waiting == 1
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "handpay" and s.handpay.station == 2 and s.handpay_queue == []
    rig.cab.handle(KeyChanged(False))
    rig.cab.handle(KeyChanged(True))
    assert s.handpay is None
    assert [rig.meters(n).jackpot_handpay_minor - base[n - 1] for n in (1, 2)] == locked
    assert rig.balanced()


def test_restart_during_a_jackpot_lockup_keeps_it_and_the_money():
    rig = Rig(GameSettings(jackpot_limit_minor=100), seed=3)
    rig.note(10_000)
    rig.press("bet_up")
    _, net = _play_until_a_win(rig)
    credits = rig.credits()
    cab = Cabinet(rig.cab.s, None)  # what the journal holds, after a power cut
    cab.handle(PowerUp(0, rig.wall_s))
    assert cab.mode == "handpay" and cab.s.handpay.kind == "jackpot"
    assert cab.s.stations[0].credits_minor == credits
    cab.handle(KeyChanged(True))
    assert cab.s.stations[0].meters.jackpot_handpay_minor == net


@pytest.mark.parametrize("value", [0, -100])
def test_jackpot_limit_must_be_positive(value):
    with pytest.raises(ConfigError, match="jackpot_limit_minor"):
        GameSettings(jackpot_limit_minor=value).validate()


def test_jackpot_is_journaled_and_shown_in_game_recall(tmp_path):
    import random

    from cabinet.core.events import IntentReceived, NoteStacked
    from cabinet.core.machine import new_state
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    store = Store(tmp_path / "j.db")
    store.commit(new_state(GameSettings(jackpot_limit_minor=100)), None, [], 1.8e9)
    eng = Engine(store, rng=random.Random(3), clock_ms=lambda: 0, wall_s=lambda: 1.8e9)
    eng.step(PowerUp(0, 1.8e9))
    eng.step(NoteStacked(1, 10_000, "t"))
    eng.step(IntentReceived(1, "bet_up"))
    for _ in range(40):
        eng.step(IntentReceived(1, "deal"))
        while eng.cab.mode == "in_round":
            legal = eng.cab.legal_actions(1)
            eng.step(IntentReceived(1, "decline" if "decline" in legal else "stand"))
        if eng.cab.mode == "handpay":
            break
    amount = eng.cab.s.handpay.amount_minor
    entry = store.recall(1, 1)[0]
    assert entry.jackpot_handpay_minor == amount > 0
    kinds = [(e["kind"], e["data"].get("kind")) for e in store.events(5)]
    assert ("handpay", "jackpot") in kinds
    eng.step(KeyChanged(True))  # the reset ...
    eng.step(KeyChanged(False))
    eng.step(KeyChanged(True))  # ... and the menu, on a second turn
    eng.step(IntentReceived(1, "menu_down"))
    eng.step(IntentReceived(1, "menu_select"))
    lines = eng.snapshot.maintenance.lines
    assert (
        f"Jackpot handpay ${amount // 100}.{amount % 100:02d} (paid by the attendant, not to the credit meter)" in lines
    )
    assert Store(tmp_path / "j.db", readonly=True).load_readonly().stations[0].meters.jackpot_handpay_minor == amount

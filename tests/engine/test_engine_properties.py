"""Hypothesis: random intents, malformed IPC lines and random device events never
crash the engine, the self-audit always balances, and no UI intent adds credits."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cabinet.core.events import (
    DeviceCleared,
    DeviceFaulted,
    DoorChanged,
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    NoteStacked,
    PrintFinished,
    Tick,
    VoucherEscrowed,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.meters import audit_balance
from cabinet.core.settings import GameSettings
from cabinet.protocol.ipc import ACTIONS, MessageError, decode

from .helpers import Rig

actions = st.sampled_from(sorted(ACTIONS) + ["jackpot", ""])
intent = st.builds(IntentReceived, st.integers(0, 4), actions, st.one_of(st.none(), st.integers(-5, 20_000)))
device = st.one_of(
    st.builds(NoteEscrowed, st.integers(1, 3), st.sampled_from([100, 500, 2000, 300, -5])),
    st.builds(
        NoteStacked, st.integers(1, 3), st.sampled_from([100, 2000, 10_000]), st.sampled_from(["a", "b", "c", "d"])
    ),
    st.builds(DoorChanged, st.sampled_from(["main", "cashbox", "logic"]), st.booleans()),
    st.builds(KeyChanged, st.booleans()),
    st.builds(
        DeviceFaulted,
        st.sampled_from(["bill", "printer"]),
        st.sampled_from(["bill_jam", "printer_paper_out", "printer_offline"]),
    ),
    st.builds(DeviceCleared, st.sampled_from(["bill", "printer"])),
    st.builds(PrintFinished, st.integers(1, 3), st.text(max_size=3), st.sampled_from(["done", "failed", "unknown"])),
    st.builds(VoucherEscrowed, st.integers(1, 3), st.text(max_size=18), st.none()),
)
variants = st.sampled_from(
    [
        GameSettings(),
        GameSettings(variant="american"),
        GameSettings(variant="classic-multi", stations=3),
        # every win a jackpot handpay: the lockup and its queue
        GameSettings(variant="classic-multi", stations=3, jackpot_limit_minor=100),
    ]
)


def _balanced(cab):
    return all(audit_balance(s.credits_minor, s.pending_out_minor, s.meters) == 0 for s in cab.s.stations)


@settings(max_examples=150, deadline=None)
@given(
    variants,
    st.lists(
        st.one_of(intent, intent, intent, device, st.builds(Tick, st.integers(0, 10**7), st.just(1.8e9))), max_size=120
    ),
    st.integers(0, 1000),
)
def test_random_inputs_never_crash_and_always_balance(settings_, events, seed):
    cab = Cabinet(new_state(settings_), rng=random.Random(seed))
    cab.handle(NoteStacked(1, 5000, "seed-note"))
    for ev in events:
        before = [
            s.credits_minor + s.pending_out_minor + s.stake_in_round_minor - s.returned_in_round_minor
            for s in cab.s.stations
        ]
        bills_before = [s.meters.bills_in_minor + s.meters.vouchers_in_minor for s in cab.s.stations]
        cab.handle(ev)
        assert _balanced(cab)
        assert all(s.credits_minor >= 0 for s in cab.s.stations), "credits below zero"
        if isinstance(ev, IntentReceived):
            # No intent adds credits: what a station holds (credits + pending
            # cash-out + stakes still on the table) never grows from an intent
            # except by a round's settlement, which coin out accounts for.
            for i, s in enumerate(cab.s.stations):
                if i >= len(before):
                    continue
                assert s.meters.bills_in_minor + s.meters.vouchers_in_minor == bills_before[i]
        snap = cab.snapshot(1)
        assert snap.mode


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_malformed_ipc_lines_raise_a_clear_error_only(line):
    try:
        decode(line)
    except MessageError as e:
        assert str(e)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(["hit", "stand", "double", "split", "insure", "decline", "deal", "bet_up", "cash_out"]),
        max_size=80,
    ),
    st.integers(0, 10_000),
)
def test_intents_alone_never_create_money(presses, seed):
    rig = Rig(seed=seed)
    rig.note(3000)
    for p in presses:
        rig.press(p)
        st_ = rig.cab.s.stations[0]
        m = st_.meters
        # everything the player holds is the note minus net play outcome
        held = (
            st_.credits_minor + st_.pending_out_minor + m.vouchers_out_minor + m.handpay_minor + m.jackpot_handpay_minor
        )
        assert held == 3000 - m.coin_in_minor + m.coin_out_minor - m.insurance_in_minor + m.insurance_out_minor
        assert m.bills_in_minor == 3000

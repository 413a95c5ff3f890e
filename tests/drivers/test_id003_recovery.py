"""The driver's side of "money safe against what the devices physically did"."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Recorder, make, run_until

from drivers.events import (
    BillFoundInStacker,
    BillPossiblyInPath,
    BillReturned,
    DeviceFault,
)
from drivers.id003_acceptor import Id003BillAcceptor
from drivers.id003_codec import Status
from drivers.interfaces import OpenTransaction
from drivers.sim.id003_device import SimId003Device, SimItem

pytestmark = pytest.mark.timeout(180)


def _hold(dev: SimId003Device, code: int, state: Status) -> None:
    """Put the twin where a dead engine left it: ``code`` at ``state``."""
    with dev._lock:
        dev.inhibited = False
        dev._item = SimItem(code)
        dev._escrow_since = dev._clock()
        dev.state = state


def test_escrow_journaled_before_a_kill_is_stacked_under_its_own_transaction(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """The engine journaled the $50 escrow "old" and died before STACK.
    After the restart the same note is STACKed and credited as "old" (no second
    transaction), so a later lone VEND VALID has nothing to be credited against."""
    _hold(sim_bill, 0x66, Status.ESCROW)  # $50 waiting in escrow
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("old", 5000))
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING and acc._txn is None)
    assert recorder.escrows == []  # not decided again
    assert [(c.transaction_id, c.denomination_minor) for c in recorder.credit_calls] == [("old", 5000)]
    # a lone VEND VALID later ($20 in the box): unattributed, never credited to "old"
    _hold(sim_bill, 0x65, Status.VEND_VALID)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    assert recorder.total_minor == 5000 and len(recorder.credit_calls) == 1
    assert [f.code for f in recorder.of_type(DeviceFault)] == ["vend_valid_unattributed"]
    acc.close()


def test_a_different_item_in_escrow_retires_the_old_transaction(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """An open transaction the device no longer holds is closed on the
    driver's side too (BillReturned, so the engine's journal closes it)."""
    _hold(sim_bill, 0x63, Status.ESCROW)  # $5, not the $50 the journal has
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("old", 5000))
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING and acc._txn is None)
    assert [e.transaction_id for e in recorder.of_type(BillReturned)] == ["old"]
    assert [(c.transaction_id, c.denomination_minor) for c in recorder.credit_calls] == [
        (recorder.escrows[0].transaction_id, 500)
    ]
    acc.close()


def test_idle_acceptor_after_a_restart_retires_the_open_transaction(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """The escrow timed out while the engine was dead: not credited,
    and not left open for a later VEND VALID."""
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("old", 2000))
    acc.connect()
    assert [e.transaction_id for e in recorder.of_type(BillReturned)] == ["old"]
    assert acc._txn is None
    acc.close()


def test_credited_transaction_repeat_vend_valid_is_only_acked(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """The engine credited "c1" and died before the ACK: the VEND VALID
    still pending is ACKed, not credited and not "unattributed"."""
    _hold(sim_bill, 0x65, Status.VEND_VALID)
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("c1", 2000, credited=True))
    acc.connect()
    assert recorder.credit_calls == [] and recorder.of_type(DeviceFault) == []
    assert sim_bill.log.acks_received == 1 and len(sim_bill.log.stacked) == 1
    acc.close()


@pytest.mark.parametrize("step", [Status.STACKING, Status.VEND_VALID])
def test_power_cut_past_stack_reports_the_note_and_its_value(
    sim_bill: SimId003Device, recorder: Recorder, step: Status
) -> None:
    """A power cut at STACKING / VEND VALID leaves the note in the cash
    box; the driver names its transaction and value (the engine keeps a review)."""
    acc = make(sim_bill, recorder)
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    recorder.credit = lambda ev: (_ for _ in ()).throw(RuntimeError("engine gone"))  # type: ignore[method-assign]
    acc._credit = recorder.credit
    sim_bill.on_enter(step, sim_bill.power_cycle)
    sim_bill.insert_bill(0x65)
    run_until(acc, lambda: bool(sim_bill.log.stacked))
    found = recorder.of_type(BillFoundInStacker)
    assert [(f.transaction_id, f.denomination_minor) for f in found] == [(recorder.escrows[0].transaction_id, 2000)]
    acc.close()


def test_jam_after_stack_is_a_possible_note_in_path_not_a_return(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """STACK, a stacker jam, the jam cleared: the note may be in the
    cash box, so it is reported "possibly in path", never "returned"."""
    acc = make(sim_bill, recorder)
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    sim_bill.on_enter(Status.STACKING, lambda: sim_bill.set_fault(Status.JAM_IN_STACKER))
    sim_bill.insert_bill(0x65)
    run_until(acc, lambda: sim_bill.state == Status.JAM_IN_STACKER and bool(recorder.of_type(DeviceFault)))
    sim_bill.clear_fault()
    run_until(acc, lambda: acc._txn is None)
    assert recorder.of_type(BillReturned) == [] and recorder.credit_calls == []
    assert [(e.transaction_id, e.denomination_minor) for e in recorder.of_type(BillPossiblyInPath)] == [
        (recorder.escrows[0].transaction_id, 2000)
    ]
    acc.close()


def test_garbled_link_is_its_own_fault_not_offline(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """Replies that arrive garbled (wrong baud or parity: every CRC bad)
    are a link-configuration fault, not "not responding" like a pulled cable."""
    from conftest import wait_for

    from drivers.events import DeviceOffline

    acc = make(sim_bill, recorder, backoff_s=(0.05, 0.1))
    sim_bill.corrupt_replies(10_000)
    acc.start()
    wait_for(lambda: bool(recorder.of_type(DeviceFault)), timeout_s=5)
    acc.close()
    assert [f.code for f in recorder.of_type(DeviceFault)] == ["link_garbled"]
    assert recorder.of_type(DeviceOffline) == [] and acc.crc_errors >= 3


def test_pulled_cable_is_still_offline(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """Silence (nothing arrives) stays "offline"."""
    from conftest import wait_for

    from drivers.events import DeviceOffline

    acc = make(sim_bill, recorder, backoff_s=(0.05, 0.1))
    sim_bill.drop_replies(10_000)
    acc.start()
    wait_for(lambda: bool(recorder.of_type(DeviceOffline)), timeout_s=5)
    acc.close()
    assert recorder.of_type(DeviceFault) == []


@pytest.mark.parametrize("step", [Status.STACKING, Status.VEND_VALID])
def test_engine_dead_and_power_cut_past_stack_is_found_with_the_journaled_value(
    sim_bill: SimId003Device, recorder: Recorder, step: Status
) -> None:
    """The engine died at STACKING / VEND VALID and then the acceptor lost
    power: the restarted driver reports the note in the stacker under the journal's
    open transaction and its value, before RESET puts it in the cash box."""
    _hold(sim_bill, 0x65, step)
    sim_bill.power_cycle()
    assert sim_bill.state == Status.POWER_UP_BILL_IN_STACKER
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("A", 2000))
    acc.connect()
    assert [(f.transaction_id, f.denomination_minor) for f in recorder.of_type(BillFoundInStacker)] == [("A", 2000)]
    assert recorder.credit_calls == [] and len(sim_bill.log.stacked) == 1
    assert acc._txn is None
    acc.close()


def test_note_in_stacker_not_journaled_is_reported_again_not_lost(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """When the engine cannot journal the note in the stacker, the driver
    does not RESET (the note stays reported) and reports it again on the next try."""
    _hold(sim_bill, 0x65, Status.VEND_VALID)
    sim_bill.power_cycle()
    calls: list[Any] = []

    def sink(ev: Any) -> None:
        if isinstance(ev, BillFoundInStacker):
            calls.append(ev)
            if len(calls) == 1:
                raise TimeoutError("engine busy")
        recorder.sink(ev)

    acc = Id003BillAcceptor(
        sim_bill.path,
        decide=recorder.decide,
        credit=recorder.credit,
        sink=sink,
        open_transaction=OpenTransaction("A", 2000),
        poll_interval_s=0.005,
        reply_timeout_s=0.1,
    )
    with pytest.raises(OSError):  # TimeoutError, or the DeviceOfflineError it became
        acc.connect()
    assert sim_bill.state == Status.POWER_UP_BILL_IN_STACKER and not sim_bill.log.stacked
    acc.connect()
    assert [(c.transaction_id, c.denomination_minor) for c in calls] == [("A", 2000)] * 2
    assert len(sim_bill.log.stacked) == 1
    acc.close()


def test_acceptor_reset_before_the_kill_retires_the_open_transaction(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """The engine saw "bill in acceptor" (returned), sent RESET and died
    before journaling it: the acceptor answers INITIALIZE; the open transaction is
    retired as returned, never left for a later "possibly in path"."""
    with sim_bill._lock:
        sim_bill.state = Status.INITIALIZE
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("A", 2000))
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    for _ in range(3):
        acc.poll_once()
    assert [e.transaction_id for e in recorder.of_type(BillReturned)] == ["A"]
    assert recorder.of_type(BillPossiblyInPath) == [] and acc._txn is None
    acc.close()


@pytest.mark.parametrize("step", [Status.STACKING, Status.VEND_VALID])
def test_a_second_power_cut_before_reset_keeps_the_note_in_the_twins_stacker(
    sim_bill: SimId003Device, recorder: Recorder, step: Status
) -> None:
    """The crash test's rare physical-truth mismatch under load: power cut
    past STACK, then a second cut while the twin sits in "power up, bill in stacker"
    (the engine dead, no RESET yet): the twin forgot the note, so its cash box read
    $20 short of what the engine had credited or kept for review. A note in the
    stacker stays there whatever the power does; the RESET then counts it once."""
    acc = make(sim_bill, recorder)
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    sim_bill.on_enter(step, sim_bill.power_cycle)
    sim_bill.insert_bill(0x65)
    run_until(acc, lambda: sim_bill.state == Status.POWER_UP_BILL_IN_STACKER, 400)
    acc.close()  # the engine dies before its RESET
    sim_bill.power_cycle()  # and the power goes again
    assert sim_bill.state == Status.POWER_UP_BILL_IN_STACKER
    acc = make(sim_bill, recorder)
    acc.connect()
    run_until(acc, lambda: bool(sim_bill.log.stacked), 400)
    assert len(sim_bill.log.stacked) == 1
    acc.close()


def test_garbled_link_inhibits_the_acceptor_and_hands_a_note_back(sim_bill: SimId003Device, recorder: Recorder) -> None:
    """protocols.md 1.9: a link that turns garbled while the acceptor is enabled
    (replies arrive, none valid) must not leave the acceptor holding a note nobody can
    decide on: the driver, which cannot read the validator but may still be heard,
    sends RETURN and inhibit, trusting no reply.  A $20 note that reaches escrow as
    the link garbles goes back to the player within a second (not at the acceptor's
    own escrow timeout, 5 s here), the acceptor ends inhibited (a note inserted during
    the fault is refused at once), and nothing is credited."""
    from conftest import wait_for

    acc = make(sim_bill, recorder, backoff_s=(0.05, 0.1))
    acc.set_accepting(True)
    acc.start()
    wait_for(lambda: sim_bill.state == Status.IDLING, timeout_s=5)
    sim_bill.on_enter(Status.ESCROW, lambda: sim_bill.corrupt_replies(10_000))
    sim_bill.insert_bill(0x65)
    wait_for(lambda: bool(sim_bill.log.returned) or bool(sim_bill.log.rejected), timeout_s=8)
    assert sim_bill.log.returned == [SimItem(0x65)] and sim_bill.log.rejected == []
    wait_for(lambda: sim_bill.inhibited, timeout_s=2)
    sim_bill.insert_bill(0x66)
    wait_for(lambda: bool(sim_bill.log.rejected), timeout_s=2)
    acc.close()
    assert sim_bill.log.rejected == [SimItem(0x66)] and sim_bill.log.stacked == []
    assert [f.code for f in recorder.of_type(DeviceFault)] == ["link_garbled"]
    assert recorder.credit_calls == [] and recorder.escrows == []


def test_jam_after_vend_valid_before_the_ack_is_credited_and_reported_in_path(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """protocols.md 1.8/1.9: VEND VALID is the credit point, so a note that jams in the
    stacker after it (before the ACK reached the validator) stays credited once; but it
    never reached the cash box (no STACKED), so the driver also reports it possibly in
    the path (journaled, for the attendant's 307 review): the cash box will be short
    by its value until someone looks."""
    acc = make(sim_bill, recorder)
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    credit = recorder.credit

    def credit_then_jam(ev: Any) -> None:  # the jam comes between VEND VALID and ACK
        credit(ev)
        sim_bill.set_fault(Status.JAM_IN_STACKER)

    acc._credit = credit_then_jam
    sim_bill.insert_bill(0x64)  # $10
    run_until(acc, lambda: sim_bill.state == Status.JAM_IN_STACKER and bool(recorder.of_type(DeviceFault)))
    txn = recorder.escrows[0].transaction_id
    # journaled when the jam is seen: a restart before it is cleared loses nothing
    assert [e.transaction_id for e in recorder.of_type(BillPossiblyInPath)] == [txn]
    sim_bill.clear_fault()
    run_until(acc, lambda: acc._txn is None)
    assert [(c.transaction_id, c.denomination_minor) for c in recorder.credit_calls] == [(txn, 1000)]
    assert [(e.transaction_id, e.denomination_minor) for e in recorder.of_type(BillPossiblyInPath)] == [(txn, 1000)]
    assert sim_bill.log.stacked == [] and recorder.of_type(BillReturned) == []
    acc.close()


def test_engine_dead_after_the_credit_and_the_note_jammed_is_reported_in_path(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """protocols.md 1.9: the engine credited the note at VEND VALID and died; the note
    then jammed before it was stacked.  The restarted driver finds the jam at start-up
    under the journal's credited transaction: no second credit, and the note is
    reported possibly in the path (the cash box may be short by it)."""
    _hold(sim_bill, 0x64, Status.VEND_VALID)
    sim_bill.set_fault(Status.JAM_IN_STACKER)
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("c1", 1000, credited=True))
    acc.connect()
    sim_bill.clear_fault()
    acc.set_accepting(True)
    run_until(acc, lambda: acc._txn is None)
    assert recorder.credit_calls == [] and sim_bill.log.stacked == []
    assert [(e.transaction_id, e.denomination_minor) for e in recorder.of_type(BillPossiblyInPath)] == [("c1", 1000)]
    acc.close()


def test_vend_valid_resumed_at_start_up_then_a_jam_at_the_ack_is_reported_in_path(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """protocols.md 1.9: the engine died at VEND VALID before crediting; the restarted
    driver credits the pending VEND VALID at start-up, and the note jams at its ACK:
    credited once and reported possibly in the path before RESET."""
    _hold(sim_bill, 0x64, Status.VEND_VALID)
    sim_bill.jam_at_ack()
    acc = make(sim_bill, recorder, open_transaction=OpenTransaction("v1", 1000))
    acc.connect()
    assert [(c.transaction_id, c.denomination_minor) for c in recorder.credit_calls] == [("v1", 1000)]
    assert [(e.transaction_id, e.denomination_minor) for e in recorder.of_type(BillPossiblyInPath)] == [("v1", 1000)]
    assert sim_bill.log.stacked == []
    acc.close()

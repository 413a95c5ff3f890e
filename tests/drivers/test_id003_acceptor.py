"""ID-003 driver against the simulated validator on a real pseudo-terminal."""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import Recorder, make, run_until, wait_for

from drivers.errors import DeviceBusyError, DeviceOfflineError
from drivers.events import (
    BillEscrowed,
    BillFoundInStacker,
    BillRejected,
    BillReturned,
    DeviceFault,
    DeviceFaultCleared,
    DeviceOffline,
    DeviceOnline,
    EscrowDecision,
    NoteStacked,
    TransactionClosed,
    VendValidRepeated,
    VoucherEscrowed,
    VoucherStacked,
)
from drivers.id003_acceptor import Id003BillAcceptor
from drivers.id003_codec import Status
from drivers.sim.id003_device import SimId003Device

pytestmark = pytest.mark.timeout(180)


def accepting(acc: Id003BillAcceptor, dev: SimId003Device) -> None:
    acc.connect()
    acc.set_accepting(True)
    run_until(acc, lambda: dev.state == Status.IDLING)


def settle(acc: Id003BillAcceptor, dev: SimId003Device) -> None:
    """Poll until the device is idle with no transaction left open."""
    run_until(
        acc,
        lambda: (
            dev.state in (Status.IDLING, Status.DISABLED) and not dev._queue and dev._item is None and acc._txn is None
        ),
    )
    for _ in range(3):
        acc.poll_once()


def test_start_up_sends_the_documented_sequence(sim_bill: SimId003Device, recorder: Recorder) -> None:
    acc = make(sim_bill, recorder, enabled_denominations_minor={100, 500, 1000})
    acc.connect()
    cmds = sim_bill.log.commands
    assert cmds[0] == 0x11 and 0x40 in cmds
    after_reset = cmds[cmds.index(0x40) :]
    settings = [c for c in after_reset if c >= 0x8A]
    assert settings == [0x8A, 0xC0, 0xC1, 0xC2, 0xC4, 0xC5, 0xC6, 0xC7, 0xC3]
    assert sim_bill.inhibited and sim_bill.state == Status.DISABLED
    # only $1 (0x61, bit 0), $5 (0x63, bit 2), $10 (0x64, bit 3) stay enabled
    assert sim_bill.denomination_inhibit_mask == 0xFFFF & ~0b1101
    assert recorder.of_type(DeviceOnline)
    acc.close()


def test_note_is_credited_exactly_once(sim_bill: SimId003Device, recorder: Recorder) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.insert_bill(0x65)
    settle(acc, sim_bill)
    (escrow,) = recorder.escrows
    assert isinstance(escrow, BillEscrowed) and escrow.denomination_minor == 2000
    assert recorder.credit_calls == [NoteStacked(escrow.transaction_id, 2000)]
    assert recorder.of_type(TransactionClosed) == [TransactionClosed(escrow.transaction_id)]
    assert len(sim_bill.log.stacked) == 1 and sim_bill.log.acks_received == 1
    acc.close()


def test_ack_is_sent_only_after_credit_returned(sim_bill: SimId003Device) -> None:
    seen: list[int] = []

    class Checking(Recorder):
        def credit(self, event: Any) -> None:
            seen.append(sim_bill.log.acks_received)
            super().credit(event)

    rec = Checking()
    acc = make(sim_bill, rec)
    accepting(acc, sim_bill)
    sim_bill.insert_bill(0x61)
    settle(acc, sim_bill)
    assert seen == [0] and sim_bill.log.acks_received == 1
    acc.close()


def test_credit_that_raises_is_not_acked_and_is_offered_again(sim_bill: SimId003Device) -> None:
    class Flaky(Recorder):
        fails = 2

        def credit(self, event: Any) -> None:
            if self.fails:
                self.fails -= 1
                raise OSError("journal disk full")
            super().credit(event)

    rec = Flaky()
    acc = make(sim_bill, rec)
    accepting(acc, sim_bill)
    sim_bill.insert_bill(0x64)
    for _ in range(40):
        try:
            acc.poll_once()
        except OSError:
            assert sim_bill.log.acks_received == 0
    settle(acc, sim_bill)
    assert rec.total_minor == 1000 and len(rec.credited) == 1
    assert sim_bill.log.acks_received == 1
    acc.close()


@pytest.mark.parametrize("inject", ["repeat_vend_valid", "lose_acks"])
def test_repeated_vend_valid_or_lost_ack_credits_once(
    sim_bill: SimId003Device, recorder: Recorder, inject: str
) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    getattr(sim_bill, inject)(3)
    sim_bill.insert_bill(0x65)
    settle(acc, sim_bill)
    assert len(recorder.credit_calls) == 1 and recorder.total_minor == 2000
    repeats = recorder.of_type(VendValidRepeated)
    assert [r.repeats for r in repeats] == [1, 2, 3]
    assert len(sim_bill.log.stacked) == 1
    acc.close()


def test_refused_notes_come_back_out(sim_bill: SimId003Device) -> None:
    # disabled denomination: the validator itself refuses $100
    rec = Recorder()
    acc = make(sim_bill, rec, enabled_denominations_minor={100, 500, 1000, 2000})
    accepting(acc, sim_bill)
    sim_bill.insert_bill(0x67)
    settle(acc, sim_bill)
    assert rec.credit_calls == [] and rec.escrows == []
    assert rec.of_type(BillRejected) == [BillRejected(0x79, "inhibited")]
    assert len(sim_bill.log.rejected) == 1
    # over the credit limit: the engine answers RETURN
    rec.decision = EscrowDecision.RETURN
    sim_bill.insert_bill(0x65)
    settle(acc, sim_bill)
    (escrow,) = rec.escrows
    assert rec.of_type(BillReturned) == [BillReturned(escrow.transaction_id, "engine decision")]
    assert len(sim_bill.log.returned) == 1 and rec.credit_calls == []
    # wrong mode: the engine inhibits acceptance
    acc.set_accepting(False)
    run_until(acc, lambda: sim_bill.state == Status.DISABLED)
    sim_bill.insert_bill(0x61)
    run_until(acc, lambda: len(sim_bill.log.rejected) == 2)
    assert rec.credit_calls == [] and sim_bill.log.stacked == []
    acc.close()


def test_voucher_escrow_and_redeem(sim_bill: SimId003Device, recorder: Recorder) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.insert_voucher("001234567890123456")
    settle(acc, sim_bill)
    (escrow,) = recorder.escrows
    assert isinstance(escrow, VoucherEscrowed)
    assert escrow.validation_number == "001234567890123456"
    assert recorder.credit_calls == [VoucherStacked(escrow.transaction_id, "001234567890123456")]
    acc.close()


@pytest.mark.parametrize(
    "barcode",
    ["x" * 10000, "1" * 10000, "1" * 19, "", "12a4", "0012-3456", " 123", "\u0661\u0662\u0663", 123, None],
)
def test_twin_refuses_a_barcode_no_ticket_carries_and_keeps_serving(
    sim_bill: SimId003Device, recorder: Recorder, barcode: Any
) -> None:
    # regression: a 10000-character barcode was queued, then encode_frame raised in the
    # sim-id003 thread at the ESCROW poll and the acceptor went "not responding" for good
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    with pytest.raises(ValueError, match=r"ticket barcode is (1-18 digits 0-9|a string of digits), not "):
        sim_bill.insert_voucher(barcode)
    assert list(sim_bill._queue) == []
    sim_bill.insert_voucher("9" * 18)  # the longest a ticket carries still works end to end
    settle(acc, sim_bill)
    assert [e.validation_number for e in recorder.escrows] == ["9" * 18]
    assert [c.validation_number for c in recorder.credit_calls] == ["9" * 18]
    assert sim_bill._thread is not None and sim_bill._thread.is_alive()
    acc.close()


def test_twin_refuses_bad_bills_and_fault_data_with_one_line_errors(sim_bill: SimId003Device) -> None:
    for code in (256, -1, True, "0x65"):
        with pytest.raises(ValueError, match=r"^an escrow code is a byte \(0-255\), not "):
            sim_bill.insert_bill(code)  # type: ignore[arg-type]
    for value in (300, -500, 0, True, 20.0):
        with pytest.raises(ValueError) as info:
            sim_bill.insert_bill_minor(value)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"no bill of {value!r} minor units in the currency table (it has 100, 500, 1000, 2000, 5000, 10000)"
        )
    with pytest.raises(ValueError, match="fault data of 251 bytes is longer than 250"):
        sim_bill.set_fault(Status.FAILURE, bytes(251))
    assert list(sim_bill._queue) == [] and sim_bill.state == Status.POWER_UP
    sim_bill.insert_bill(0x70)  # a byte the table lacks: queued, and rejected by the device
    sim_bill.insert_bill_minor(2000)
    assert [i.escrow_code for i in sim_bill._queue] == [0x70, 0x65]


def test_twin_thread_survives_an_action_that_raises(sim_bill: SimId003Device, recorder: Recorder) -> None:
    def boom() -> None:
        raise RuntimeError("scripted action failed")

    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.on_enter(Status.ACCEPTING, boom)
    sim_bill.insert_bill(0x63)
    settle(acc, sim_bill)
    assert recorder.total_minor == 500
    assert sim_bill._thread is not None and sim_bill._thread.is_alive()
    acc.close()


def test_escrow_timeout_returns_without_credit(sim_bill: SimId003Device, recorder: Recorder) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.escrow_timeout_s = 0.0  # the device gives up before STACK arrives
    sim_bill.insert_bill(0x63)
    settle(acc, sim_bill)
    (escrow,) = recorder.escrows
    assert recorder.credit_calls == [] and sim_bill.log.stacked == []
    assert recorder.of_type(BillReturned) == [BillReturned(escrow.transaction_id, "REJECTING (inhibited)")]
    acc.close()


@pytest.mark.parametrize(
    ("method", "code"),
    [
        ("jam", "jam_in_acceptor"),
        ("fill_stacker", "stacker_full"),
        ("open_stacker", "stacker_open"),
    ],
)
def test_faults_are_reported_and_cleared(sim_bill: SimId003Device, recorder: Recorder, method: str, code: str) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    getattr(sim_bill, method)()
    acc.poll_once()
    acc.poll_once()
    faults = recorder.of_type(DeviceFault)
    assert [f.code for f in faults] == [code]
    sim_bill.clear_fault()
    run_until(acc, lambda: bool(recorder.of_type(DeviceFaultCleared)))
    assert recorder.of_type(DeviceFaultCleared)[0].code == code
    # still takes money afterwards (stacker open re-ran the start-up sequence)
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.state == Status.IDLING)
    sim_bill.insert_bill(0x61)
    settle(acc, sim_bill)
    assert recorder.total_minor == 100
    acc.close()


@pytest.mark.parametrize(
    ("status", "data", "code"),
    [(Status.CHEATED, b"", "cheated"), (Status.FAILURE, b"\xa6", "failure")],
)
def test_cheat_and_failure_faults(
    sim_bill: SimId003Device, recorder: Recorder, status: Status, data: bytes, code: str
) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.set_fault(status, data)
    acc.poll_once()
    (fault,) = recorder.of_type(DeviceFault)
    assert fault.code == code
    if data:
        assert "transport motor" in fault.text
    acc.close()


def test_corrupt_dropped_and_split_replies_still_credit_once(sim_bill: SimId003Device, recorder: Recorder) -> None:
    acc = make(sim_bill, recorder, reply_timeout_s=0.05)
    accepting(acc, sim_bill)
    sim_bill.insert_bill(0x65)
    sim_bill.corrupt_replies(1)
    sim_bill.split_replies(4)
    acc.poll_once()  # corrupt
    acc.poll_once()  # split in two writes
    sim_bill.drop_replies(1)
    acc.poll_once()  # dropped
    acc.poll_once()
    sim_bill.corrupt_replies(1)
    settle(acc, sim_bill)
    assert recorder.total_minor == 2000 and len(recorder.credit_calls) == 1
    assert acc.crc_errors >= 1
    acc.close()


STEPS = [Status.ACCEPTING, Status.ESCROW, Status.STACKING, Status.VEND_VALID, Status.STACKED]


@pytest.mark.parametrize("step", STEPS, ids=[s.name for s in STEPS])
def test_power_loss_between_any_two_steps(sim_bill: SimId003Device, recorder: Recorder, step: Status) -> None:
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.on_enter(step, sim_bill.power_cycle)
    sim_bill.insert_bill(0x65)
    acc.set_accepting(True)
    run_until(acc, lambda: sim_bill.log.stacked or sim_bill.log.returned)
    settle(acc, sim_bill)
    stacked = len(sim_bill.log.stacked)
    found = recorder.of_type(BillFoundInStacker)
    # every note in the cash box is either credited or flagged for hand-pay review
    assert len(recorder.credit_calls) + len(found) == stacked <= 1
    if sim_bill.log.returned:
        assert recorder.credit_calls == []
    acc.close()


@pytest.mark.parametrize("step", [Status.ESCROW, Status.STACKING, Status.VEND_VALID])
def test_pty_closed_mid_transaction_reconnects_and_credits_once(
    sim_bill: SimId003Device, recorder: Recorder, step: Status
) -> None:
    acc = make(sim_bill, recorder, backoff_s=(0.02, 0.1), poll_interval_s=0.01)
    sim_bill.on_enter(step, sim_bill.link.unplug)
    acc.start()
    acc.set_accepting(True)
    wait_for(lambda: sim_bill.state == Status.IDLING)
    sim_bill.insert_bill(0x65)
    wait_for(lambda: bool(recorder.of_type(DeviceOffline)), timeout_s=1.0)
    assert not acc.online
    sim_bill.link.replug()
    wait_for(lambda: len(recorder.of_type(DeviceOnline)) == 2)
    wait_for(lambda: bool(sim_bill.log.stacked) and recorder.total_minor == 2000)
    wait_for(lambda: bool(recorder.of_type(TransactionClosed)))
    acc.close()
    assert len(recorder.credit_calls) == 1 and len(sim_bill.log.stacked) == 1


def test_second_exclusive_open_is_refused(sim_bill: SimId003Device, recorder: Recorder) -> None:
    a = make(sim_bill, recorder)
    a.connect()
    b = make(sim_bill, recorder)
    with pytest.raises(DeviceBusyError):
        b.connect()
    a.close()
    with pytest.raises(DeviceOfflineError):
        make(sim_bill, recorder).__class__(
            "/nonexistent/tty", decide=recorder.decide, credit=recorder.credit, sink=recorder.sink
        ).connect()


class RandomPort:
    """A fake port answering every write with random or truncated bytes."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pending = b""
        self.in_waiting = 0

    def write(self, data: bytes) -> int:
        r = self.rng.random()
        if r < 0.3:
            self.pending += self.rng.randbytes(self.rng.randint(0, 20))
        elif r < 0.8:  # a plausible-looking frame, truncated or bit-flipped
            from drivers import id003_codec as c

            frame = bytearray(c.encode_frame(self.rng.choice(list(Status)), self.rng.randbytes(1)))
            frame = frame[: self.rng.randint(1, len(frame))]
            if frame and self.rng.random() < 0.5:
                frame[self.rng.randrange(len(frame))] ^= 1 << self.rng.randrange(8)
            self.pending += bytes(frame)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        out, self.pending = self.pending[:size], self.pending[size:]
        return out

    def reset_input_buffer(self) -> None:
        self.pending = b""

    def close(self) -> None:
        pass


@pytest.mark.parametrize("seed", range(8))
def test_fuzz_random_bytes_never_crash_and_never_credit(seed: int, recorder: Recorder) -> None:
    port = RandomPort(random.Random(seed))
    acc = Id003BillAcceptor(
        "fake://",
        decide=recorder.decide,
        credit=recorder.credit,
        sink=recorder.sink,
        opener=lambda url: port,
        reply_timeout_s=0.0,
        poll_interval_s=0.0,
        offline_after_failures=10**9,
    )
    acc._port = port  # skip start-up: poll a device that speaks garbage
    for _ in range(400):
        try:
            acc.poll_once()
        except (DeviceOfflineError, ValueError):
            pass
    assert recorder.credit_calls == []


def test_a_held_ticket_outlives_the_acceptors_escrow_timeout_then_stacks(
    sim_bill: SimId003Device, recorder: Recorder
) -> None:
    """A ticket the casino host decides is HELD (0x44, refreshed while the
    engine answers HOLD) past the acceptor's own escrow timeout, then stacked once."""
    import time

    sim_bill.escrow_timeout_s = 0.6  # the device would give up after 0.6 s unheld
    answers = iter([EscrowDecision.HOLD] * 12)
    held_since: list[float] = []

    def decide(event: Any) -> EscrowDecision:
        recorder.escrows.append(event)
        held_since.append(time.monotonic())
        time.sleep(0.1)
        return next(answers, EscrowDecision.STACK)

    recorder.decide = decide  # type: ignore[method-assign]
    acc = make(sim_bill, recorder)
    accepting(acc, sim_bill)
    sim_bill.insert_voucher("001234567890123456")
    settle(acc, sim_bill)
    assert len(recorder.escrows) == 13 and held_since[-1] - held_since[0] > 1.2
    assert [v.validation_number for v in recorder.credit_calls] == ["001234567890123456"]
    assert sim_bill.log.returned == [] and len(sim_bill.log.stacked) == 1
    acc.close()

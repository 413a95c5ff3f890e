"""Pulse-mode acceptor: counting, width checks, end-of-train gap, inhibit, on MockFactory."""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import Recorder
from gpiozero.pins.mock import MockFactory

from drivers.events import Device, DeviceFault, DeviceFaultCleared, DeviceOnline, PulseTrainCounted
from drivers.pulse_acceptor import LineStuck, PulseAcceptor, PulseCounter, PulseRejected, TrainEnded
from drivers.sim.pulse_source import PulseSource
from drivers.wiring import PulseWiring

pytestmark = pytest.mark.timeout(20)


class FakeClock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


WIRING = PulseWiring(
    pin=4,
    inhibit_pin=18,
    value_per_pulse_minor=100,
    nominal_pulse_ms=50,
    gap_timeout_ms=300,
    accepted_counts=frozenset({1, 5, 10, 20}),
)


@pytest.fixture
def rig() -> Any:
    factory = MockFactory()
    clock = FakeClock()
    rec = Recorder()
    ids = iter(f"t{i}" for i in range(100))
    acc = PulseAcceptor(
        WIRING,
        credit=rec.credit,
        sink=rec.sink,
        pin_factory=factory,
        clock=clock,
        new_transaction_id=lambda: next(ids),
    )
    source = PulseSource(factory.pin(4), wait=clock.advance, rng=random.Random(7))
    yield acc, source, clock, rec, factory
    acc.close()
    factory.reset()


def test_counter_pure() -> None:
    c = PulseCounter(0.05, 0.3)
    out = []
    t = 0.0
    for _ in range(3):
        out += c.edge(True, t)
        out += c.edge(False, t + 0.05)
        t += 0.15
    out += c.edge(True, t)
    out += c.edge(False, t + 0.002)  # glitch
    assert out == [PulseRejected(pytest.approx(0.002))]
    assert c.poll(t + 0.2) == []
    assert c.poll(t + 0.31) == [TrainEnded(3, t + 0.002)]
    assert c.edge(True, 10.0) == [] and c.poll(11.5) == [LineStuck(True)]


def test_five_dollar_train_credits_once(rig: Any) -> None:
    acc, source, clock, rec, _ = rig
    source.train(5, jitter=0.2, glitches=2)
    acc.poll()
    assert rec.credit_calls == []  # the gap has not passed yet
    clock.advance(0.3)
    acc.poll()
    acc.poll()
    assert rec.credit_calls == [PulseTrainCounted("t0", 5, 500, True)]
    assert [e.code for e in rec.of_type(DeviceFault)] == ["pulse_width", "pulse_width"]


def test_two_trains_separated_by_a_gap(rig: Any) -> None:
    acc, source, clock, rec, _ = rig
    source.train(1)
    clock.advance(0.4)
    acc.poll()
    source.train(10)
    clock.advance(0.4)
    acc.poll()
    assert [(c.pulses, c.amount_minor) for c in rec.credit_calls] == [(1, 100), (10, 1000)]


def test_unknown_count_is_credited_and_flagged(rig: Any) -> None:
    acc, source, clock, rec, _ = rig
    source.train(3)
    clock.advance(0.4)
    acc.poll()
    assert rec.credit_calls == [PulseTrainCounted("t0", 3, 300, False)]
    assert rec.of_type(DeviceFault)[0].code == "unknown_pulse_count"


def test_stuck_line_and_slow_pulses_are_faults_not_credits(rig: Any) -> None:
    acc, source, clock, rec, factory = rig
    pin = factory.pin(4)
    pin.drive_low()
    clock.advance(1.5)
    acc.poll()
    pin.drive_high()
    clock.advance(0.5)
    acc.poll()
    assert rec.credit_calls == []
    assert [e.code for e in rec.of_type(DeviceFault)] == ["line_stuck", "pulse_width"]
    assert rec.of_type(DeviceFaultCleared)


def test_start_and_report_state_say_the_real_state(rig: Any) -> None:
    """The pulse acceptor reports its state at start (a stale bill fault
    clears) and on ``report_state`` (the Faults page): stuck while stuck."""
    acc, source, clock, rec, factory = rig
    acc.start()
    assert rec.of_type(DeviceOnline) == [DeviceOnline(Device.PULSE_ACCEPTOR, "reported again")]
    factory.pin(4).drive_low()
    clock.advance(1.5)
    acc.poll()
    rec.events.clear()
    acc.report_state()
    assert rec.events == [DeviceFault(Device.PULSE_ACCEPTOR, "line_stuck", "input active > 1 s")]


def test_inhibit_line_and_pulses_while_inhibited(rig: Any) -> None:
    acc, source, clock, rec, factory = rig
    assert factory.pin(18).state  # starts inhibited
    acc.set_accepting(True)
    assert not factory.pin(18).state
    acc.set_accepting(False)
    source.train(1)  # money already taken: still counted
    clock.advance(0.4)
    acc.poll()
    assert rec.credit_calls == [PulseTrainCounted("t0", 1, 100, True)]


def test_credit_failure_is_retried_not_lost(rig: Any) -> None:
    acc, source, clock, rec, _ = rig
    calls = []

    def flaky(event: Any) -> None:
        calls.append(event)
        if len(calls) == 1:
            raise OSError("journal busy")
        rec.credit(event)

    acc._credit = flaky
    source.train(5)
    clock.advance(0.4)
    with pytest.raises(OSError):
        acc.poll()
    acc.poll()
    assert rec.credit_calls == [PulseTrainCounted("t0", 5, 500, True)]

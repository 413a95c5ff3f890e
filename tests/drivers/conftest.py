"""Shared fixtures for driver tests: pty simulators and recording engine stand-ins."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.events import EscrowDecision
from drivers.id003_acceptor import Id003BillAcceptor
from drivers.sim.id003_device import SimId003Device

#: A deadline is a backstop, not a speed test: on a loaded machine (the suite beside other
#: work on two cores) threads and twins run late, so each wait gets at least this long.
MIN_WAIT_S = 30.0


def wait_for(predicate: Callable[[], bool], timeout_s: float = 3.0) -> None:
    """Wait until ``predicate()`` is true; fail the test after ``max(timeout_s,
    MIN_WAIT_S)`` seconds (it returns as soon as the condition holds)."""
    deadline = time.monotonic() + max(timeout_s, MIN_WAIT_S)
    tick = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        tick.wait(0.005)


class Recorder:
    """An in-memory engine: journals escrows, credits by transaction id, logs events."""

    def __init__(self, decision: EscrowDecision = EscrowDecision.STACK) -> None:
        self.decision = decision
        self.escrows: list[Any] = []
        self.credit_calls: list[Any] = []
        self.credited: dict[str, int] = {}
        self.events: list[Any] = []
        self.lock = threading.Lock()

    def decide(self, event: Any) -> EscrowDecision:
        with self.lock:
            self.escrows.append(event)
        return self.decision

    def credit(self, event: Any) -> None:
        with self.lock:
            self.credit_calls.append(event)
            if event.transaction_id not in self.credited:
                self.credited[event.transaction_id] = getattr(event, "denomination_minor", 0)

    def sink(self, event: Any) -> None:
        with self.lock:
            self.events.append(event)

    def of_type(self, kind: type) -> list[Any]:
        with self.lock:
            return [e for e in self.events if isinstance(e, kind)]

    @property
    def total_minor(self) -> int:
        return sum(self.credited.values())


@pytest.fixture
def sim_bill(tmp_path: Any) -> Iterator[SimId003Device]:
    dev = SimId003Device(link_path=str(tmp_path / "bill-acceptor"), escrow_timeout_s=5.0)
    dev.start()
    yield dev
    dev.close()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def make(dev: SimId003Device, rec: Recorder, **kw: Any) -> Id003BillAcceptor:
    """An ID-003 driver on the twin ``dev``, reporting to ``rec``, polling fast."""
    kw.setdefault("poll_interval_s", 0.005)
    kw.setdefault("reply_timeout_s", 0.1)
    return Id003BillAcceptor(dev.path, decide=rec.decide, credit=rec.credit, sink=rec.sink, **kw)


def run_until(acc: Id003BillAcceptor, cond: Any, max_polls: int = 200) -> None:
    """Poll ``acc`` until ``cond()`` holds (AssertionError after ``max_polls``)."""
    for _ in range(max_polls):
        if cond():
            return
        acc.poll_once()
    raise AssertionError("condition not reached")

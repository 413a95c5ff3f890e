"""Pulse-mode note/coin acceptor on one GPIO input (protocols.md section 3).

Owns: ``PulseCounter`` (pure: edge timestamps -> accepted pulses, glitches, stuck
line, end of train) and ``PulseAcceptor`` (gpiozero input + optional inhibit output,
hands each finished train to the engine's ``credit``).
Must not import: cabinet.*, serial.

Wiring: the acceptor's open-collector output to a BCM pin with the internal pull-up
(active low; never feed it 12 V), its INHIBIT input (if any) from a BCM output
through a transistor (high = inhibit).

There is no escrow: the money is already taken when pulses arrive, so pulses that
arrive while inhibited are still counted and credited (protocols.md 3 step 5).
"""

from __future__ import annotations

import asyncio
import logging
import math
import queue
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import DigitalInputDevice, DigitalOutputDevice

from drivers.events import (
    Device,
    DeviceFault,
    DeviceFaultCleared,
    DeviceOnline,
    PulseTrainCounted,
)
from drivers.interfaces import BillAcceptor, CreditCallback, EventSink
from drivers.wiring import PulseWiring

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TrainEnded:
    """A pulse train finished with ``pulses`` accepted pulses."""

    pulses: int
    at_s: float


@dataclass(frozen=True, slots=True)
class PulseRejected:
    """An active period outside [0.5, 2] x nominal width (glitch or slow pulse)."""

    width_s: float


@dataclass(frozen=True, slots=True)
class LineStuck:
    """The line has been active for longer than ``stuck_s`` (``True``) or recovered."""

    stuck: bool


class PulseCounter:
    """Count pulses from edge timestamps; pure and clock-free.

    Args:
        nominal_s: nominal pulse width in seconds; accepted widths are
            [0.5 x, 2 x] nominal.
        gap_timeout_s: a train ends after this long without an edge.
        stuck_s: an active period longer than this is a line fault (default 1 s).
    """

    def __init__(self, nominal_s: float, gap_timeout_s: float, stuck_s: float = 1.0) -> None:
        self.min_width_s = 0.5 * nominal_s
        self.max_width_s = 2.0 * nominal_s
        self.gap_timeout_s = gap_timeout_s
        self.stuck_s = stuck_s
        self._active_since: float | None = None
        self._last_edge = -math.inf
        self._count = 0
        self._stuck = False

    @property
    def stuck(self) -> bool:
        """True while the line is reported stuck (active longer than ``stuck_s``)."""
        return self._stuck

    def edge(self, active: bool, at_s: float) -> list[TrainEnded | PulseRejected | LineStuck]:
        """Feed one edge (``active`` = pulse started) at ``at_s`` seconds."""
        out: list[TrainEnded | PulseRejected | LineStuck] = []
        out += self.poll(at_s)
        if active:
            if self._active_since is None:
                self._active_since = at_s
        elif self._active_since is not None:
            width = at_s - self._active_since
            self._active_since = None
            if self._stuck:
                self._stuck = False
                out.append(LineStuck(False))
            if self.min_width_s <= width <= self.max_width_s:
                self._count += 1
            else:
                out.append(PulseRejected(width))
        self._last_edge = at_s
        return out

    def poll(self, now_s: float) -> list[TrainEnded | PulseRejected | LineStuck]:
        """Report a finished train or a stuck line as of ``now_s``."""
        out: list[TrainEnded | PulseRejected | LineStuck] = []
        if self._active_since is not None:
            if not self._stuck and now_s - self._active_since > self.stuck_s:
                self._stuck = True
                out.append(LineStuck(True))
        elif self._count and now_s - self._last_edge >= self.gap_timeout_s:
            out.append(TrainEnded(self._count, self._last_edge))
            self._count = 0
        return out


class PulseAcceptor(BillAcceptor):
    """A pulse-output acceptor as a ``BillAcceptor``.

    Args:
        wiring: pins and pulse settings (``drivers.wiring.PulseWiring``).
        credit: engine callback, given a ``PulseTrainCounted`` per finished train
            (retried on the next ``poll`` if it raises: the money was taken).
        sink: receives ``DeviceFault`` ("pulse_width", "line_stuck",
            "unknown_pulse_count") and ``DeviceFaultCleared``.
        pin_factory: gpiozero pin factory, passed explicitly.
        clock: monotonic seconds.
        new_transaction_id: id per train.

    Threading: gpiozero's callback only queues the timestamped edge.  Call ``poll``
    from the consumer (e.g. every engine tick, <= gap/4 apart), or ``start(loop=...)``
    to have it scheduled on an asyncio loop.
    """

    def __init__(
        self,
        wiring: PulseWiring,
        *,
        credit: CreditCallback,
        sink: EventSink,
        pin_factory: Any,
        clock: Callable[[], float] = time.monotonic,
        new_transaction_id: Callable[[], str] = lambda: secrets.token_hex(8),
    ) -> None:
        log.info("pulse acceptor pin factory: %r", pin_factory)
        self.wiring = wiring
        self._credit = credit
        self._sink = sink
        self._clock = clock
        self._new_id = new_transaction_id
        self._counter = PulseCounter(wiring.nominal_pulse_ms / 1000, wiring.gap_timeout_ms / 1000)
        self._edges: queue.SimpleQueue[tuple[bool, float]] = queue.SimpleQueue()
        self._unpaid: list[PulseTrainCounted] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._input = DigitalInputDevice(
            wiring.pin, pull_up=wiring.active_low, bounce_time=None, pin_factory=pin_factory
        )
        self._inhibit = (
            DigitalOutputDevice(wiring.inhibit_pin, initial_value=True, pin_factory=pin_factory)
            if wiring.inhibit_pin is not None
            else None
        )
        self._input.when_activated = lambda: self._edges.put((True, self._clock()))
        self._input.when_deactivated = lambda: self._edges.put((False, self._clock()))

    def start(self, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Begin processing; with ``loop``, ``poll`` runs there every gap/4.

        Reports the state first (``report_state``): a fault a previous run left
        in the engine's journal clears.
        """
        self._loop = loop
        self.report_state()
        if loop is not None:
            loop.call_soon_threadsafe(self._tick)

    def report_state(self) -> None:
        """Send the current state now (``BillAcceptor.report_state``): stuck or healthy."""
        if self._counter.stuck:
            self._sink(DeviceFault(Device.PULSE_ACCEPTOR, "line_stuck", "input active > 1 s"))
        else:
            self._sink(DeviceOnline(Device.PULSE_ACCEPTOR, "reported again"))

    def _tick(self) -> None:
        self.poll()
        if self._loop is not None:
            self._timer = self._loop.call_later(self.wiring.gap_timeout_ms / 4000, self._tick)

    def set_accepting(self, accepting: bool) -> None:
        """Drive the INHIBIT line (if wired): high while not accepting."""
        if self._inhibit is not None:
            self._inhibit.value = not accepting

    def poll(self) -> None:
        """Process queued edges and timeouts; call ``credit`` for finished trains."""
        results: list[TrainEnded | PulseRejected | LineStuck] = []
        while True:
            try:
                active, at_s = self._edges.get_nowait()
            except queue.Empty:
                break
            results += self._counter.edge(active, at_s)
        results += self._counter.poll(self._clock())
        for r in results:
            if isinstance(r, TrainEnded):
                self._train(r.pulses)
            elif isinstance(r, PulseRejected):
                self._sink(DeviceFault(Device.PULSE_ACCEPTOR, "pulse_width", f"{r.width_s * 1000:.1f} ms"))
            elif r.stuck:
                self._sink(DeviceFault(Device.PULSE_ACCEPTOR, "line_stuck", "input active > 1 s"))
            else:
                self._sink(DeviceFaultCleared(Device.PULSE_ACCEPTOR, "line_stuck"))
        while self._unpaid:
            self._credit(self._unpaid[0])  # raises -> retried next poll, never dropped
            self._unpaid.pop(0)

    def _train(self, pulses: int) -> None:
        known = not self.wiring.accepted_counts or pulses in self.wiring.accepted_counts
        if not known:
            self._sink(DeviceFault(Device.PULSE_ACCEPTOR, "unknown_pulse_count", f"{pulses} pulses"))
        amount = pulses * self.wiring.value_per_pulse_minor
        self._unpaid.append(PulseTrainCounted(self._new_id(), pulses, amount, known))

    def close(self) -> None:
        """Release the pins.  Pending trains are not credited after close."""
        if self._timer is not None:
            self._timer.cancel()
        self._input.close()
        if self._inhibit is not None:
            self._inhibit.close()

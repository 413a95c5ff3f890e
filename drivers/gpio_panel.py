"""gpiozero button panel (buttons, doors, key switch) and lamp bank (button lamps, tower).

Owns: building gpiozero devices from a ``Wiring`` with an explicit pin factory, the
hand-off from gpiozero's thread to the consumer, debouncing (``drivers.debounce``),
the per-action refire guard, and lamps.
Must not import: cabinet.*, serial.

Inputs are gpiozero ``DigitalInputDevice`` objects (a ``Button`` without its hold
thread, which we do not use and which made closing slow), with gpiozero's own
``bounce_time`` off: debouncing is ours, so it holds whatever the pin factory.

Wiring: each button/door/key contact between its BCM pin and ground, internal
pull-up (pressed/closed = low).  Doors: contact closed = door shut.  Lamps and tower
segments: BCM pin high = lit (through a driver transistor).

Threading: a gpiozero callback only timestamps the edge, puts it on a
``queue.SimpleQueue`` and (if a loop was given) calls ``loop.call_soon_threadsafe``.
All debouncing and event delivery happen on the consumer: the asyncio loop, or the
thread that calls ``poll``.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, DigitalInputDevice, DigitalOutputDevice

from drivers.debounce import Debouncer, RefireGuard
from drivers.errors import ConfigError
from drivers.events import (
    Action,
    ButtonPressed,
    Door,
    DoorClosed,
    DoorOpened,
    DoorOpenedWhileOff,
    KeySwitchTurned,
    PanelEvent,
)
from drivers.interfaces import ButtonPanel, EventSink, LampBank
from drivers.wiring import Wiring

log = logging.getLogger(__name__)

_KEY = "key"
#: How long after a settle time ends its timer comes due (s): a timer that fires a hair
#: early only polls again; half the settle time (2.5 ms) was in every press's latency
#: (press-to-snapshot p99 under 20 ms).
TIMER_SLACK_S = 0.0005
#: Door and key switches: settle time and the hold after a change.
SWITCH_SETTLE_S = 0.03
SWITCH_HOLD_S = 0.25
#: Width of the door latch reset pulse (a 74HC74 needs ns, a bistable relay ~10 ms).
LATCH_RESET_S = 0.02


@dataclass(frozen=True, slots=True)
class _Edge:
    name: Action | Door | str
    active: bool
    at_s: float


#: Buttons a player presses again and again on purpose (a bet built up press by
#: press): a shorter refire window, so a deliberate press every 150 ms counts
#:. Deal and the decisions keep the full window (Deal hammered is one).
REPEAT_GUARD_S: dict[Action, float] = {
    a: 0.1 for a in (Action.BET_UP, Action.BET_DOWN, Action.CHIP_1, Action.CHIP_5, Action.CHIP_25, Action.CHIP_100)
}


class GpioButtonPanel(ButtonPanel):
    """Player buttons, door switches and the operator key switch on GPIO.

    Args:
        wiring: pins (``drivers.wiring``).
        pin_factory: gpiozero pin factory, passed explicitly (``LGPIOFactory()`` on
            the Pi, ``MockFactory()`` in tests and simulation).  Never the global default.
        clock: monotonic seconds; edges are timestamped with it.
        settle_s: a button's level counts after holding this long (default 5 ms).
        refire_guard_s: at most one ``ButtonPressed`` per action in this window
            (default 0.25 s): Deal hammered 5 times in 200 ms is one intent.
        switch_settle_s: a door or key switch level counts after holding this long
            (default 30 ms: key and door contacts bounce longer than buttons).
        switch_hold_s: after a door or key change, the next is reported no sooner
            than this (default 0.25 s, as the buttons' refire guard), and then if
            the contact still holds it: one event per real move, however the
            contact chatters; the last position is never lost.
        refire_guard_overrides_s: per-action windows, over ``REPEAT_GUARD_S``
            (0.1 s for Bet+/Bet- and the chip buttons).

    Raises:
        gpiozero.GPIOZeroError: a pin is invalid or already in use.
    """

    def __init__(
        self,
        wiring: Wiring,
        *,
        pin_factory: Any,
        clock: Callable[[], float] = time.monotonic,
        settle_s: float = 0.005,
        refire_guard_s: float = 0.25,
        refire_guard_overrides_s: Mapping[Action, float] | None = None,
        switch_settle_s: float = SWITCH_SETTLE_S,
        switch_hold_s: float = SWITCH_HOLD_S,
    ) -> None:
        log.info("button panel pin factory: %r", pin_factory)
        self._clock = clock
        self._settle_s = settle_s
        self._edges: queue.SimpleQueue[_Edge] = queue.SimpleQueue()
        self._sink: EventSink | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._devices: dict[Action | Door | str, DigitalInputDevice] = {}
        self._debouncers: dict[Action | Door | str, Debouncer] = {}
        overrides = {**REPEAT_GUARD_S, **(refire_guard_overrides_s or {})}
        self._guards = {a: RefireGuard(overrides.get(a, refire_guard_s)) for a in wiring.buttons}
        inputs: dict[Action | Door | str, int] = {}
        for action, pin in wiring.buttons.items():
            inputs[action] = pin
        for door, pin in wiring.doors.items():
            inputs[door] = pin
        if wiring.key_switch is not None:
            inputs[_KEY] = wiring.key_switch
        self._latches: dict[Door, DigitalInputDevice] = {}
        self._latch_reset: DigitalOutputDevice | None = None
        try:
            if wiring.door_latch is not None:
                for door, pin in wiring.door_latch.inputs.items():
                    self._latches[door] = DigitalInputDevice(
                        pin, pull_up=False, bounce_time=None, pin_factory=pin_factory
                    )
                self._latch_reset = DigitalOutputDevice(
                    wiring.door_latch.reset_pin, initial_value=False, pin_factory=pin_factory
                )
            for name, pin in inputs.items():
                dev = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self._devices[name] = dev
                self._debouncers[name] = (
                    Debouncer(settle_s, initial=dev.is_active)
                    if isinstance(name, Action)
                    else Debouncer(switch_settle_s, initial=dev.is_active, hold_s=switch_hold_s)
                )
                dev.when_activated = self._callback(name, True)
                dev.when_deactivated = self._callback(name, False)
        except Exception:
            self.close()
            raise

    def _callback(self, name: Action | Door | str, active: bool) -> Callable[[], None]:
        def on_edge() -> None:  # runs on gpiozero's thread: hand off only
            self._edges.put(_Edge(name, active, self._clock()))
            loop = self._loop
            if loop is not None:
                loop.call_soon_threadsafe(self._edge_wake)

        return on_edge

    def start(self, sink: EventSink, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Deliver events to ``sink``; with ``loop``, processing runs on that loop.

        Reports the current door and key-switch positions first, then a
        ``DoorOpenedWhileOff`` for each door whose latch held an opening while the
        Pi was off (wiring ``[door_latch]``; ``clear_door_latch`` resets them).
        """
        self._sink = sink
        self._loop = loop
        now = self._clock()
        for name, deb in self._debouncers.items():
            if isinstance(name, Door) or name == _KEY:
                self._deliver(name, deb.stable, now)
        for door, latch in self._latches.items():
            if latch.is_active:
                self._emit(DoorOpenedWhileOff(door, now))

    def clear_door_latch(self) -> None:
        """Pulse the latch reset pin high for ``LATCH_RESET_S`` (on gpiozero's thread).

        A latch whose door is open now stays set (its set input wins) until the
        next reset, which comes when every door is shut again while powered.
        """
        if self._latch_reset is not None:
            self._latch_reset.blink(on_time=LATCH_RESET_S, off_time=0, n=1, background=True)

    def poll(self) -> None:
        """Process queued edges and due settle timers now (consumer thread)."""
        while True:
            try:
                edge = self._edges.get_nowait()
            except queue.Empty:
                break
            for t in self._debouncers[edge.name].edge(edge.active, edge.at_s):
                self._transition(edge.name, t.level, t.at_s)
        now = self._clock()
        for name, deb in self._debouncers.items():
            for t in deb.poll(now):
                self._transition(name, t.level, t.at_s)

    def _edge_wake(self) -> None:
        if self._timer is not None:  # one timer: the new edge re-plans it
            self._timer.cancel()
        self._wake()

    def _wake(self) -> None:
        """Poll now, then again when the next settle time or switch hold ends."""
        self._timer = None
        self.poll()
        if self._loop is None:
            return
        due = [t for t in (d.deadline() for d in self._debouncers.values()) if t is not None]
        if due:
            self._timer = self._loop.call_later(max(0.0, min(due) - self._clock()) + TIMER_SLACK_S, self._wake)

    def _transition(self, name: Action | Door | str, level: bool, at_s: float) -> None:
        if isinstance(name, Action):
            if level and self._guards[name].allow(at_s):
                self._emit(ButtonPressed(name, at_s))
            return
        self._deliver(name, level, at_s)
        if (
            isinstance(name, Door)
            and level
            and self._latches
            and self._sink is not None
            and all(d.stable for n, d in self._debouncers.items() if isinstance(n, Door))
        ):
            # every door shut while powered (and the boot reading taken): re-arm
            self.clear_door_latch()

    def _deliver(self, name: Action | Door | str, level: bool, at_s: float) -> None:
        if isinstance(name, Door):
            self._emit(DoorClosed(name, at_s) if level else DoorOpened(name, at_s))
        elif name == _KEY:
            self._emit(KeySwitchTurned(level, at_s))

    def _emit(self, event: PanelEvent) -> None:
        if self._sink is None:
            return
        try:
            self._sink(event)
        except Exception:
            log.exception("panel sink raised for %r", event)

    def close(self) -> None:
        """Release all pins.  Idempotent."""
        if self._timer is not None:
            self._timer.cancel()
        for dev in [*self._devices.values(), *self._latches.values()]:
            dev.close()
        self._devices.clear()
        self._latches.clear()
        if self._latch_reset is not None:
            self._latch_reset.close()
            self._latch_reset = None


class GpioLampBank(LampBank):
    """One lamp (gpiozero ``LED``) per button, plus tower-light segments.

    Args:
        wiring: pins.
        pin_factory: gpiozero pin factory, passed explicitly.
    """

    def __init__(self, wiring: Wiring, *, pin_factory: Any) -> None:
        log.info("lamp bank pin factory: %r", pin_factory)
        self._lamps: dict[Action, LED] = {}
        self._tower: dict[str, LED] = {}
        try:
            for action, pin in wiring.lamps.items():
                self._lamps[action] = LED(pin, pin_factory=pin_factory)
            for name, pin in wiring.tower_light.items():
                self._tower[name] = LED(pin, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def set_lamps(self, legal_actions: Iterable[Action]) -> None:
        """Light exactly the lamps of ``legal_actions``."""
        legal = frozenset(legal_actions)
        for action, led in self._lamps.items():
            if action in legal:
                led.on()
            else:
                led.off()

    def lamps_lit(self) -> frozenset[Action]:
        """Actions whose lamp is lit."""
        return frozenset(a for a, led in self._lamps.items() if led.is_lit)

    def set_tower_light(self, lit: Iterable[str]) -> None:
        """Light exactly the named tower segments.

        Raises:
            ConfigError: a segment name that is not wired.
        """
        wanted = frozenset(lit)
        unknown = wanted - self._tower.keys()
        if unknown:
            raise ConfigError("tower_light", f"no segment named {sorted(unknown)}")
        for name, led in self._tower.items():
            if name in wanted:
                led.on()
            else:
                led.off()

    def close(self) -> None:
        """Turn everything off and release the pins.  Idempotent."""
        for led in [*self._lamps.values(), *self._tower.values()]:
            led.close()
        self._lamps.clear()
        self._tower.clear()

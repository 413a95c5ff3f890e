"""Button panel, debounce and lamps on gpiozero's MockFactory (passed explicitly)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from drivers.debounce import Debouncer, RefireGuard, Transition
from drivers.errors import ConfigError
from drivers.events import (
    Action,
    ButtonPressed,
    Door,
    DoorClosed,
    DoorOpened,
    DoorOpenedWhileOff,
    KeySwitchTurned,
)
from drivers.gpio_panel import GpioButtonPanel, GpioLampBank
from drivers.pins import BUTTON_PINS, DOOR_PINS, KEY_SWITCH_PIN, LAMP_PINS
from drivers.wiring import Wiring, load_wiring, parse_wiring

pytestmark = pytest.mark.timeout(20)


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory() -> Any:
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def panel(factory: Any, clock: FakeClock) -> Any:
    p = GpioButtonPanel(Wiring(), pin_factory=factory, clock=clock)
    for pin in DOOR_PINS.values():  # doors shut, key off
        factory.pin(pin).drive_low()
    clock.t += 0.3  # past the switches' 30 ms settle time and 0.25 s hold
    p.poll()
    events: list[Any] = []
    p.start(events.append)
    p.events = events
    yield p
    p.close()


def press(factory: Any, clock: FakeClock, action: Action, hold_s: float = 0.05) -> None:
    pin = factory.pin(BUTTON_PINS[action])
    pin.drive_low()
    clock.t += hold_s
    pin.drive_high()


def test_debouncer_ignores_chatter_and_glitches() -> None:
    d = Debouncer(0.005)
    out = []
    for i in range(5):  # 5 bounces within 3 ms, ending pressed
        out += d.edge(True, i * 0.0006)
        out += d.edge(False, i * 0.0006 + 0.0003)
    out += d.edge(True, 0.003)
    assert out == [] and d.poll(0.004) == []
    assert d.poll(0.008) == [Transition(True, 0.003)]
    assert d.edge(False, 0.0081) == [] and d.edge(True, 0.0082) == []  # 0.1 ms glitch
    assert d.poll(1.0) == []


@given(st.lists(st.floats(0.0001, 0.05), min_size=1, max_size=30), st.floats(0, 0.1))
def test_late_processing_gives_the_same_transitions(gaps: list[float], delay: float) -> None:
    times, t = [], 0.0
    for g in gaps:
        t += g
        times.append(t)
    prompt, late = Debouncer(0.005), Debouncer(0.005)
    got_prompt, got_late = [], []
    for i, at in enumerate(times):
        got_prompt += prompt.poll(at)
        got_prompt += prompt.edge(i % 2 == 0, at)
    for i, at in enumerate(times):
        got_late += late.edge(i % 2 == 0, at)
    end = times[-1] + delay + 1
    got_prompt += prompt.poll(end)
    got_late += late.poll(end)
    assert got_prompt == got_late


def test_refire_guard() -> None:
    g = RefireGuard(0.25)
    assert [g.allow(t) for t in (0, 0.04, 0.2, 0.26, 0.3)] == [True, False, False, True, False]


def test_chatter_5_times_in_3_ms_is_one_press(panel: Any, factory: Any, clock: FakeClock) -> None:
    pin = factory.pin(BUTTON_PINS[Action.HIT])
    start = clock.t
    for _ in range(5):
        pin.drive_low()
        clock.t += 0.0003
        pin.drive_high()
        clock.t += 0.0003
    pin.drive_low()  # settles pressed at +3 ms
    clock.t = start + 0.003
    panel.poll()
    clock.t += 0.1
    pin.drive_high()
    clock.t += 0.1
    panel.poll()
    presses = [e for e in panel.events if isinstance(e, ButtonPressed)]
    assert presses == [ButtonPressed(Action.HIT, presses[0].at_s)]


def test_deal_5_times_in_200_ms_is_one_intent(panel: Any, factory: Any, clock: FakeClock) -> None:
    for _ in range(5):
        press(factory, clock, Action.DEAL, hold_s=0.02)
        clock.t += 0.02
        panel.poll()
    assert [e.action for e in panel.events if isinstance(e, ButtonPressed)] == [Action.DEAL]
    clock.t += 0.3
    press(factory, clock, Action.DEAL)
    clock.t += 0.01
    panel.poll()
    assert len([e for e in panel.events if isinstance(e, ButtonPressed)]) == 2


def test_different_buttons_are_not_guarded_against_each_other(panel: Any, factory: Any, clock: FakeClock) -> None:
    press(factory, clock, Action.HIT, hold_s=0.02)
    press(factory, clock, Action.STAND, hold_s=0.02)
    clock.t += 0.01
    panel.poll()
    assert [e.action for e in panel.events if isinstance(e, ButtonPressed)] == [
        Action.HIT,
        Action.STAND,
    ]


def test_doors_and_key_switch(panel: Any, factory: Any, clock: FakeClock) -> None:
    initial = list(panel.events)
    assert DoorClosed(Door.MAIN, clock.t) in initial
    assert KeySwitchTurned(False, clock.t) in initial
    panel.events.clear()
    factory.pin(DOOR_PINS[Door.MAIN]).drive_high()  # door opened
    t_open = clock.t
    clock.t += 0.01
    factory.pin(KEY_SWITCH_PIN).drive_low()
    t_key = clock.t
    clock.t += 0.05
    panel.poll()
    assert panel.events == [DoorOpened(Door.MAIN, t_open), KeySwitchTurned(True, t_key)]


def test_press_from_another_thread_while_loop_busy_is_delivered_once(factory: Any) -> None:
    panel = GpioButtonPanel(Wiring(), pin_factory=factory)  # real monotonic clock
    received: list[Any] = []
    loop_threads: set[int] = set()

    async def scenario() -> None:
        loop = asyncio.get_running_loop()

        def sink(event: Any) -> None:
            loop_threads.add(threading.get_ident())
            received.append(event)

        panel.start(sink, loop=loop)

        def presser() -> None:
            pin = factory.pin(BUTTON_PINS[Action.STAND])
            pin.drive_low()
            time.sleep(0.03)  # a 30 ms press on a foreign thread
            pin.drive_high()

        t = threading.Thread(target=presser)
        t.start()
        time.sleep(0.1)  # the engine is busy: the loop is blocked
        t.join()
        for _ in range(20):
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    panel.close()
    presses = [e for e in received if isinstance(e, ButtonPressed)]
    assert [p.action for p in presses] == [Action.STAND]
    assert loop_threads == {threading.get_ident()}  # delivered on the loop, not gpiozero's thread


def test_lamps_light_exactly_the_legal_actions(factory: Any) -> None:
    bank = GpioLampBank(Wiring(), pin_factory=factory)
    bank.set_lamps([Action.HIT, Action.STAND, Action.DOUBLE])
    lit = {a for a, pin in LAMP_PINS.items() if factory.pin(pin).state}
    assert lit == {Action.HIT, Action.STAND, Action.DOUBLE} == bank.lamps_lit()
    bank.set_lamps([Action.DEAL])
    assert {a for a, pin in LAMP_PINS.items() if factory.pin(pin).state} == {Action.DEAL}
    bank.set_tower_light({"red"})
    assert factory.pin(14).state and not factory.pin(7).state
    with pytest.raises(ConfigError):
        bank.set_tower_light({"blue"})
    bank.close()


def test_wiring_file_loads_and_errors_name_the_field(tmp_path: Path) -> None:
    good = tmp_path / "wiring.toml"
    good.write_text(
        "[buttons]\ndeal = 5\nhit = 6\n[lamps]\ndeal = 17\n[doors]\nmain = 2\n"
        "[key_switch]\npin = 8\n[tower_light]\nred = 14\n"
        "[pulse_acceptor]\npin = 4\nvalue_per_pulse_minor = 500\naccepted_counts = [1, 2]\n"
    )
    w = load_wiring(good)
    assert w.buttons == {Action.DEAL: 5, Action.HIT: 6} and w.pulse is not None
    assert w.pulse.value_per_pulse_minor == 500 and w.pulse.accepted_counts == {1, 2}
    cases = {
        "[buttons]\ndeal = 'x'\n": "buttons.deal: expected a BCM pin",
        "[buttons]\nfold = 5\n": "buttons.fold: unknown name",
        "[buttons]\ndeal = 5\n[lamps]\ndeal = 5\n": ("lamps.deal: pin 5 is already used by buttons.deal"),
        "[lights]\nx = 1\n": "lights: unknown section",
        "[pulse_acceptor]\npin = 4\nnominal_pulse_ms = 0\n": "pulse_acceptor.nominal_pulse_ms",
        "[buttons\n": "not valid TOML",
    }
    for text, message in cases.items():
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("[", r"\[")):
            load_wiring(bad)
    with pytest.raises(ValueError):  # ConfigError is also a ValueError
        parse_wiring({"buttons": {"deal": 99}})


def _chatter(pin: Any, clock: FakeClock, active: bool, rng: Any) -> None:
    """Move a contact to ``active`` (pin low) through 3-5 bounces of 1-40 ms each,
    200 ms at most in all (a worn key switch, a door plunger), then hold it there
    for a second: levels held longer than the 30 ms settle time included."""
    left = 0.2
    for i in range(rng.randint(3, 5) * 2):
        level = active if i % 2 == 0 else not active
        pin.drive_low() if level else pin.drive_high()
        dwell = min(rng.uniform(0.001, 0.040), left)
        clock.t += dwell
        left -= dwell
    pin.drive_low() if active else pin.drive_high()
    clock.t += 0.001
    for _ in range(100):  # the consumer polls every 10 ms
        clock.t += 0.01
        yield


def test_a_chattering_key_switch_and_door_give_one_event_per_change(panel: Any, factory: Any, clock: FakeClock) -> None:
    """50 key turns and 50 door openings through a chattering contact
    give exactly 50 key-on, 50 key-off, 50 door-open and 50 door-closed events
    (before: 154 key-on events for 50 turns, one opening counted three times)."""
    import random

    rng = random.Random(1113)
    panel.events.clear()
    key, door = factory.pin(KEY_SWITCH_PIN), factory.pin(DOOR_PINS[Door.MAIN])
    for _ in range(50):
        for pin, active in ((key, True), (key, False), (door, False), (door, True)):
            for _ in _chatter(pin, clock, active, rng):  # door: pin high = open
                panel.poll()
    turns = [e.on for e in panel.events if isinstance(e, KeySwitchTurned)]
    doors = [type(e).__name__ for e in panel.events if isinstance(e, DoorOpened | DoorClosed)]
    assert turns == [True, False] * 50
    assert doors == ["DoorOpened", "DoorClosed"] * 50


def test_switch_debouncer_reports_each_change_once_and_never_loses_the_last() -> None:
    """With a hold, a change is reported at most once per ``hold_s``;
    a level that holds is reported when the hold ends, never dropped."""
    d = Debouncer(0.03, hold_s=0.25)
    assert d.edge(True, 0.0) == [] and d.poll(0.03) == [Transition(True, 0.0)]
    assert d.edge(False, 0.04) == [] and d.poll(0.1) == []  # held 60 ms, inside the hold
    assert d.deadline() == pytest.approx(0.28)
    assert d.poll(0.28) == [Transition(False, 0.04)]  # the door really is shut
    assert d.edge(True, 0.5) == [] and d.edge(False, 0.51) == [] and d.poll(2.0) == []


def test_a_door_change_held_back_by_the_hold_arrives_on_the_loop_by_itself(factory: Any) -> None:
    """On an asyncio loop, a door shut and opened again 50 ms later
    (inside the 0.25 s hold) reports "closed" then, with no further edge, "opened"
    when the hold ends: the panel re-arms its own timer."""
    panel = GpioButtonPanel(Wiring(), pin_factory=factory)  # real monotonic clock
    got: list[Any] = []

    async def scenario() -> None:
        panel.start(lambda e: got.append(e), loop=asyncio.get_running_loop())
        got.clear()
        pin = factory.pin(DOOR_PINS[Door.MAIN])
        pin.drive_low()  # shut
        await asyncio.sleep(0.05)
        pin.drive_high()  # open again
        await asyncio.sleep(0.5)

    asyncio.run(scenario())
    panel.close()
    assert [type(e).__name__ for e in got if getattr(e, "door", None) == Door.MAIN] == ["DoorClosed", "DoorOpened"]


LATCH_WIRING = {
    "buttons": {"deal": 5},
    "lamps": {"deal": 17},
    "tower_light": {"red": 14},
    "doors": {"main": 2, "cash_box": 3},
    "key_switch": {"pin": 8},
    "door_latch": {"main": 20, "cash_box": 21, "reset_pin": 26},
}


def test_the_wiring_file_takes_a_door_latch() -> None:
    """``[door_latch]``: door = latch input pin, ``reset_pin`` = output."""
    w = parse_wiring(LATCH_WIRING)
    assert w.door_latch is not None
    assert w.door_latch.inputs == {Door.MAIN: 20, Door.CASH_BOX: 21}
    assert w.door_latch.reset_pin == 26
    assert parse_wiring({}).door_latch is None
    cases = [
        ({"main": 20}, "door_latch.reset_pin: expected a BCM pin"),
        ({"roof": 20, "reset_pin": 26}, "door_latch.roof: unknown name"),
        ({"main": 5, "reset_pin": 26}, "door_latch.main: pin 5 is already used"),
        ({"main": 20, "reset_pin": 20}, "door_latch.reset_pin: pin 20 is already used"),
        ({"reset_pin": 26}, "door_latch: names no door"),
    ]
    for table, message in cases:
        with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
            parse_wiring({**LATCH_WIRING, "door_latch": table})


def test_a_latched_door_opening_is_reported_at_start_and_the_latch_reset(factory: Any) -> None:
    """A latch that holds an opening while the Pi was off is read at
    start (``DoorOpenedWhileOff`` for its door, doors shut now) and reset by a pulse
    on the reset pin only when asked (after the engine journaled it); the latch
    is re-armed whenever every door is shut again while powered."""
    clock = FakeClock()
    p = GpioButtonPanel(parse_wiring(LATCH_WIRING), pin_factory=factory, clock=clock)
    factory.pin(20).drive_high()  # the main door's latch held an opening
    for pin in (2, 3):
        factory.pin(pin).drive_low()  # both doors are shut now
    clock.t += 0.3
    p.poll()
    events: list[Any] = []
    p.start(events.append)
    assert [e for e in events if isinstance(e, DoorOpenedWhileOff)] == [DoorOpenedWhileOff(Door.MAIN, clock.t)]
    reset = factory.pin(26)
    assert reset.state == 0 and [s.state for s in reset.states] == [0]
    p.clear_door_latch()
    time.sleep(0.1)  # the pulse runs on gpiozero's thread
    assert [s.state for s in reset.states] == [0, 1, 0]
    factory.pin(3).drive_high()  # cash box door opened while powered ...
    clock.t += 0.3
    p.poll()
    factory.pin(3).drive_low()  # ... and shut: the latch is re-armed
    clock.t += 0.3
    p.poll()
    time.sleep(0.1)
    assert [s.state for s in reset.states] == [0, 1, 0, 1, 0]
    p.close()


def test_bet_up_pressed_every_150_ms_counts_every_press(panel: Any, factory: Any, clock: FakeClock) -> None:
    """40 deliberate Bet+ presses 150 ms apart are 40 intents (the 0.25 s
    refire guard dropped every second one); Deal hammered stays one intent (above)."""
    for _ in range(40):
        press(factory, clock, Action.BET_UP, hold_s=0.07)
        clock.t += 0.08
        panel.poll()
    assert [e.action for e in panel.events if isinstance(e, ButtonPressed)] == [Action.BET_UP] * 40


def test_a_press_is_looked_at_again_right_when_its_settle_time_ends(factory: Any, clock: FakeClock, panel: Any) -> None:
    """Latency (press-to-snapshot p99 under 20 ms): on the engine loop, the
    timer after a button's first edge comes due when the 5 ms settle time ends, plus at
    most 1 ms (it was half the settle time more: 2.5 ms in every press)."""

    class Loop:
        def __init__(self) -> None:
            self.soon: list[Any] = []
            self.later: list[float] = []

        def call_soon_threadsafe(self, cb: Any, *args: Any) -> None:
            self.soon.append(cb)

        def call_later(self, delay: float, cb: Any, *args: Any) -> Any:
            self.later.append(delay)
            return asyncio.TimerHandle(0.0, cb, args, asyncio.new_event_loop())

    loop = Loop()
    got: list[Any] = []
    panel.start(got.append, loop=loop)
    factory.pin(BUTTON_PINS[Action.DEAL]).drive_low()
    assert len(loop.soon) == 1
    loop.soon.pop()()
    assert len(loop.later) == 1 and 0.005 <= loop.later[0] <= 0.006

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
from drivers.events import Action, ButtonPressed, Door, DoorClosed, DoorOpened, KeySwitchTurned
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
    clock.t += 0.01
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


def test_different_buttons_are_not_guarded_against_each_other(
    panel: Any, factory: Any, clock: FakeClock
) -> None:
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
    clock.t += 0.01
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
        "[buttons]\ndeal = 5\n[lamps]\ndeal = 5\n": (
            "lamps.deal: pin 5 is already used by buttons.deal"
        ),
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


def test_bet_up_pressed_every_150_ms_counts_every_press(panel: Any, factory: Any, clock: FakeClock) -> None:
    """Issue 11.20: 40 deliberate Bet+ presses 150 ms apart are 40 intents (the 0.25 s
    refire guard dropped every second one); Deal hammered stays one intent (above)."""
    for _ in range(40):
        press(factory, clock, Action.BET_UP, hold_s=0.07)
        clock.t += 0.08
        panel.poll()
    assert [e.action for e in panel.events if isinstance(e, ButtonPressed)] == [Action.BET_UP] * 40

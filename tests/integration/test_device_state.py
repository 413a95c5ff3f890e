"""Devices report their real state at start-up, on reconnection and when the
Faults page asks: a fault journaled by one process must not outlive
its cause in the next."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cabinet.core.effects import PollDevices
from cabinet.core.events import DeviceCleared, DeviceFaulted, Event, PowerUp
from cabinet.core.machine import new_state
from cabinet.core.settings import GameSettings
from cabinet.shell.devices import DriverDevices, StationDevices
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store
from drivers.factory import DriverSettings

pytestmark = pytest.mark.timeout(60)


def _journal_with_printer_fault(path: Path) -> None:
    """A journal left by a run that faulted the printer (paper out) and then stopped."""
    store = Store(path)
    eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: 1.8e9)
    eng.cab.s = new_state(GameSettings(variant="classic"))
    eng.cab.rules = eng.cab.s.settings.validate()
    eng.step(PowerUp(0, 1.8e9))
    eng.step(DeviceFaulted("printer", "printer_paper_out", ""))
    assert "printer_paper_out" in eng.cab.s.faults and eng.cab.mode == "tilt"
    store.close()


async def _run_until(eng: Engine, cond: Callable[[], bool], timeout_s: float) -> bool:
    stop = asyncio.Event()
    task = asyncio.create_task(eng.run(stop=stop))
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and not (eng.loop is not None and cond()):
            await asyncio.sleep(0.05)
        return cond()
    finally:
        stop.set()
        await task


def test_a_restart_with_a_healthy_printer_clears_the_journaled_paper_out(tmp_path: Path) -> None:
    """Paper out, stop, start again with a healthy printer: the fresh
    process reads the printer at start-up and the stale TILT 401 clears by itself
    (before: the watcher reported only changes, so "healthy" was never said)."""
    journal = tmp_path / "journal.db"
    _journal_with_printer_fault(journal)
    store = Store(journal)
    eng = Engine(store, rng=random.Random(2))
    assert "printer_paper_out" in eng.cab.s.faults
    devices = StationDevices(
        [
            DriverDevices(
                DriverSettings(mode="sim", sim_dir=tmp_path / "sim", bill_poll_interval_s=0.05), eng.cab.legal_actions
            )
        ]
    )
    eng.devices = devices
    t0 = time.monotonic()
    cleared = asyncio.run(_run_until(eng, lambda: "printer_paper_out" not in eng.cab.s.faults, 10))
    took = time.monotonic() - t0
    store.close()
    assert cleared, f"still faulted: {eng.cab.s.faults}"
    assert eng.cab.mode == "attract"
    assert took < 3.0  # read at start, not after the first watch period
    rows = Store(journal).events(50)
    assert [r["kind"] for r in rows if r["kind"].startswith("fault")][:1] == ["fault_cleared"]


class _Recorder:
    """A ``post`` that records events and completes at once."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> Any:
        import concurrent.futures

        self.events.append(event)
        f: concurrent.futures.Future[None] = concurrent.futures.Future()
        f.set_result(None)
        return f


def _cleared(rec: _Recorder, device: str) -> bool:
    """``device`` reported healthy (for whichever station it belongs to)."""
    return any(isinstance(e, DeviceCleared) and e.device == device for e in rec.events)


def _wait(cond: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.02)
    return cond()


def test_poll_devices_reports_the_printer_and_the_acceptor_again(tmp_path: Path) -> None:
    """The Faults page's ``PollDevices`` makes every device report its
    state now, even unchanged: a healthy printer says "cleared" again, the ID-003
    acceptor says it is online (both clear a stale fault in the engine)."""
    rec = _Recorder()
    dd = DriverDevices(DriverSettings(mode="sim", sim_dir=tmp_path, bill_poll_interval_s=0.05), lambda _s: frozenset())

    async def scenario() -> None:
        dd.start(rec)
        try:
            assert await asyncio.to_thread(_wait, lambda: _cleared(rec, "printer") and _cleared(rec, "bill"))
            rec.events.clear()
            await asyncio.sleep(2.5)  # a watch period: nothing changed
            assert [e for e in rec.events if isinstance(e, DeviceCleared | DeviceFaulted)] == []
            dd.run(PollDevices())
            assert await asyncio.to_thread(_wait, lambda: _cleared(rec, "printer") and _cleared(rec, "bill"), 3.0), (
                rec.events
            )
        finally:
            dd.stop()

    asyncio.run(scenario())


def test_the_bridge_passes_panel_buttons_through_in_maintenance(tmp_path: Path) -> None:
    """In maintenance the bridge sends the physical button (Cash Out stays
    ``cash_out``, not ``menu_back``): the core decides what it means on each page."""
    menu = frozenset({"menu_up", "menu_down", "menu_select", "menu_back"})
    dd = DriverDevices(DriverSettings(mode="sim", sim_dir=tmp_path), lambda _s: menu, station=2)
    from cabinet.core.events import IntentReceived
    from drivers.events import Action

    assert dd._intent_for(Action.CASH_OUT) == IntentReceived(2, "cash_out")
    assert dd._intent_for(Action.HIT) == IntentReceived(2, "hit")
    assert dd._intent_for(Action.CHIP_5) == IntentReceived(2, "chip", 500)


def test_a_latched_door_opening_is_posted_and_the_latch_reset_once_journaled(tmp_path: Path) -> None:
    """The bridge posts the panel's ``DoorOpenedWhileOff`` as the
    cabinet's event and resets the latch only after the engine journaled it (a
    failed journal keeps the latch for the next boot)."""
    import concurrent.futures

    from cabinet.core.events import DoorOpenedWhileOff
    from drivers.events import Door
    from drivers.events import DoorOpenedWhileOff as LatchRead

    class Panel:
        cleared = 0

        def clear_door_latch(self) -> None:
            self.cleared += 1

    class Drivers:
        panel = Panel()

    futures: list[concurrent.futures.Future[None]] = []
    posted: list[Event] = []

    def post(ev: Event) -> concurrent.futures.Future[None]:
        posted.append(ev)
        futures.append(concurrent.futures.Future())
        return futures[-1]

    dd = DriverDevices(DriverSettings(mode="sim", sim_dir=tmp_path), lambda _s: frozenset())
    dd.post, dd.drivers = post, Drivers()  # type: ignore[assignment]
    dd._panel_event(LatchRead(Door.CASH_BOX, 1.0))
    assert posted == [DoorOpenedWhileOff("cashbox")] and Drivers.panel.cleared == 0
    futures[0].set_result(None)  # journaled
    assert Drivers.panel.cleared == 1
    dd._panel_event(LatchRead(Door.MAIN, 2.0))
    futures[1].set_exception(OSError("disk full"))  # not journaled: keep the latch
    assert Drivers.panel.cleared == 1

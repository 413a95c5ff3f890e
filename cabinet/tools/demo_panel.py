"""The demo player's hands on the cabinet: panel buttons, the operator key, the menu.

Owns: ``DemoPanel``, the base of ``DemoPlayer``: pressing a panel button through
the sim control (and waiting for the table to answer), the screenshot pause,
and the operator's side: switching the game in the maintenance menu and the
meters tour. What it presses comes from ``demo_player``; it sees the table
only through a ``TableWatch`` and acts only through ``SimControl``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from cabinet.protocol.snapshot import Snapshot, StationView, WireMode
from cabinet.tools.table_client import DemoError, SimControl, TableWatch

#: The panel ignores a second press of the same button within 0.25 s (its refire
#: guard, ``drivers.gpio_panel``; 0.1 s for Bet+/Bet- and chips); the player waits
#: a little longer than the longest.
SAME_BUTTON_GAP_S = 0.3
#: The technician PIN the demo sets on a new cabinet, and the factory PIN.
DEMO_PIN, FACTORY_PIN = "2580", "0000"


class DemoPanel:
    """A person at the cabinet: the table they see and the buttons and key they use.

    Args:
        watch: a started ``TableWatch`` (the table as the player sees it).
        sim: the sim control link.
        shot: called with a name when the table is worth a screenshot
            (after it has settled ``settle_s`` seconds); ``None`` for none.
        say: progress output.
        stop: set to abandon the demo between steps.
        settle_s: pause before a screenshot so animations have finished.
        station_no: the station this person sits at (1-3): its panel, acceptor,
            printer and its own part of the snapshot (one player a station).
    """

    def __init__(
        self,
        watch: TableWatch,
        sim: SimControl,
        *,
        shot: Callable[[str], Any] | None,
        say: Callable[[str], None],
        stop: threading.Event | None,
        settle_s: float,
        station_no: int = 1,
    ) -> None:
        self.station_no = station_no
        self.watch = watch
        self.sim = sim
        self.shot = shot or (lambda name: None)
        self.say = say
        self.stop = stop or threading.Event()
        self.settle_s = settle_s
        self._last_press: dict[str, float] = {}
        #: The technician PIN typed on the Settings page (``cabinet run --pin``), and
        #: whether the journal still has the factory PIN (``None``: not known; try
        #: ``pin`` first), both from ``cabinet.tools.run_settings.plan_settings``.
        self.pin = DEMO_PIN
        self.factory_pin: bool | None = None

    @property
    def snap(self) -> Snapshot:
        assert self.watch.snapshot is not None
        return self.watch.snapshot

    def station(self, snap: Snapshot | None = None) -> StationView:
        """This player's own station in ``snap`` (default: the latest snapshot).

        Raises:
            DemoError: the table has no such station (fewer stations set).
        """
        for st in (snap or self.snap).stations:
            if st.station == self.station_no:
                return st
        raise DemoError(f"the table has no station {self.station_no}")

    def sim_station(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """A sim control command for this player's own station's devices."""
        return self.sim({**cmd, "station": self.station_no})

    def wait_acceptor_enabled(self, timeout_s: float = 10.0) -> None:
        """Wait until this station's bill acceptor twin is enabled (an inhibited acceptor
        hands a note or ticket straight back, as a real one does).

        Raises:
            DemoError: still inhibited after ``timeout_s`` seconds.
        """
        deadline = time.monotonic() + timeout_s
        while "inhibited=False" not in str(self.sim_station({"cmd": "bill", "line": "status"}).get("reply", "")):
            self._check_stop()
            if time.monotonic() > deadline:
                raise DemoError(f"station {self.station_no}'s bill acceptor stays inhibited")
            time.sleep(0.05)

    def _check_stop(self) -> None:
        if self.stop.is_set():
            raise DemoError("stopped")

    def press(self, action: str, timeout_s: float = 3.0) -> Snapshot | None:
        """Press a panel button; the next snapshot (``None`` if nothing changed)."""
        self._check_stop()
        wait = self._last_press.get(action, -1e9) + SAME_BUTTON_GAP_S - time.monotonic()
        if wait > 0 and self.stop.wait(wait):
            raise DemoError("stopped")
        seq = self.watch.seq
        if self.station_no == 1:
            self.sim.press(action)
        else:
            self.sim.press(action, station=self.station_no)
        self._last_press[action] = time.monotonic()
        return self.watch.wait_newer(seq, timeout_s)

    def settle_and_shoot(self, name: str) -> None:
        if self.stop.wait(self.settle_s):
            raise DemoError("stopped")
        self.shot(name)

    # -- the operator ------------------------------------------------------------------

    def switch_variant(self, variant: str, stations: int | None = None) -> None:
        """Operator menu: key on, Settings (the technician PIN), cycle Game to ``variant`` (and Stations to
        ``stations`` when given), Save, key off.

        Raises:
            DemoError: no such game or station count in the menu, or the save refused.
        """
        more = f", stations -> {stations}" if stations is not None else ""
        self.say(f"demo: operator key on, settings: game -> {variant}{more}")
        self.sim({"cmd": "key", "on": True})
        self.watch.wait_for(lambda s: s.mode == WireMode.MAINTENANCE, 5.0, "the maintenance menu")
        self.menu_to("Settings")
        self.press("deal")
        self.technician_pin()
        self.watch.wait_for(
            lambda s: s.maintenance is not None and s.maintenance.page == "settings", 5.0, "the settings page"
        )
        self._cycle_to("Game: ", variant, exact=True)
        if stations is not None:
            self._cycle_to("Stations: ", str(stations), exact=False)
        self.menu_to("Save settings")
        self.press("deal")
        m = self.snap.maintenance
        assert m is not None
        if not any(line.startswith("Saved") for line in m.lines):
            raise DemoError(f"settings not saved: {m.lines}")
        self.sim({"cmd": "key", "on": False})
        self.watch.wait_for(
            lambda s: s.mode != WireMode.MAINTENANCE and s.variant == variant, 5.0, "the table with the new game"
        )

    def technician_pin(self) -> None:
        """The Settings page asks for the technician PIN: type ``self.pin``
        with the panel's buttons; on a new cabinet the factory PIN first, then
        ``self.pin`` twice (the forced change). With ``factory_pin`` known (the
        journal read before the run) no wrong PIN is ever typed."""
        m = self.snap.maintenance
        if m is None or m.title != "Technician PIN":
            return
        if not self.factory_pin:
            self.type_digits(self.pin)
            m = self.snap.maintenance
        if m is not None and m.title == "Technician PIN":  # a new cabinet: 0000 first
            for pin in (FACTORY_PIN, self.pin, self.pin):
                self.type_digits(pin)

    def type_digits(self, digits: str) -> None:
        """Type ``digits`` and Enter on the menu's PIN keypad with Up/Down and Select."""
        for d in [*digits, "Enter"]:
            self.menu_to(d)
            self.press("deal", timeout_s=5.0)

    def _cycle_to(self, prefix: str, value: str, *, exact: bool) -> None:
        """Select the row ``prefix`` and step it (Deal) until it shows ``value``
        (the whole value, or its first word: ``"Stations: 3 (default)"``)."""
        self.menu_to(prefix)
        for _ in range(8):
            m = self.snap.maintenance
            assert m is not None
            shown = m.items[m.selected].removeprefix(prefix)
            if shown == value or (not exact and shown.split(" ")[0] == value):
                return
            self.press("deal")
        raise DemoError(f"no {prefix}{value} in the settings")

    def menu_to(self, label: str) -> None:
        """Move the menu cursor to the first item starting with ``label`` (Bet+/Hit)."""
        for _ in range(60):
            m = self.snap.maintenance
            if m is None:
                raise DemoError("not in the maintenance menu")
            target = next((i for i, it in enumerate(m.items) if it.startswith(label)), None)
            if target is None:
                raise DemoError(f"no menu item {label!r}")
            if target == m.selected:
                return
            self.press("hit" if target > m.selected else "bet_up")
        raise DemoError(f"could not reach {label!r}")

    def maintenance_tour(self) -> None:
        """Operator key on: the menu, then the meters page; key off."""
        self._check_stop()
        self.sim({"cmd": "key", "on": True})
        self.watch.wait_for(lambda s: s.mode == WireMode.MAINTENANCE, 5.0, "the maintenance menu")
        self.say("demo: operator key on: maintenance menu, meters")
        self.menu_to("Meters")
        self.press("deal")
        self.watch.wait_for(
            lambda s: s.maintenance is not None and s.maintenance.page == "meters", 5.0, "the meters page"
        )
        self.settle_and_shoot("maintenance-meters")
        self.press("cash_out")  # Back
        self.sim({"cmd": "key", "on": False})
        self.watch.wait_for(lambda s: s.mode != WireMode.MAINTENANCE, 5.0, "the key off")


def mode_is_not(mode: str) -> Callable[[Any], bool]:
    """A ``TableWatch.wait_for`` condition: the snapshot's mode is no longer ``mode``."""
    return lambda snap: bool(snap.mode != mode)

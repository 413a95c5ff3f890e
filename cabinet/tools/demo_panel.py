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

from cabinet.protocol.snapshot import Snapshot, StationView
from cabinet.tools.table_client import DemoError, SimControl, TableWatch

#: The panel ignores a second press of the same button within 0.25 s (its refire
#: guard, ``drivers.gpio_panel``; 0.1 s for Bet+/Bet- and chips); the player waits
#: a little longer than the longest.
SAME_BUTTON_GAP_S = 0.3
#: The technician PIN the demo sets on a new cabinet (issue 15), and the factory PIN.
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
    """

    def __init__(self, watch: TableWatch, sim: SimControl, *,
                 shot: Callable[[str], Any] | None, say: Callable[[str], None],
                 stop: threading.Event | None, settle_s: float) -> None:
        self.watch = watch
        self.sim = sim
        self.shot = shot or (lambda name: None)
        self.say = say
        self.stop = stop or threading.Event()
        self.settle_s = settle_s
        self._last_press: dict[str, float] = {}

    @property
    def snap(self) -> Snapshot:
        assert self.watch.snapshot is not None
        return self.watch.snapshot

    def station(self, snap: Snapshot | None = None) -> StationView:
        return (snap or self.snap).stations[0]

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
        self.sim.press(action)
        self._last_press[action] = time.monotonic()
        return self.watch.wait_newer(seq, timeout_s)

    def settle_and_shoot(self, name: str) -> None:
        if self.stop.wait(self.settle_s):
            raise DemoError("stopped")
        self.shot(name)


    # -- the operator ------------------------------------------------------------------

    def switch_variant(self, variant: str) -> None:
        """Operator menu: key on, Settings (the technician PIN), cycle Game to ``variant``,
        Save, key off."""
        self.say(f"demo: operator key on, settings: game -> {variant}")
        self.sim({"cmd": "key", "on": True})
        self.watch.wait_for(lambda s: s.mode == "maintenance", 5.0, "the maintenance menu")
        self.menu_to("Settings")
        self.press("deal")
        self.technician_pin()
        self.watch.wait_for(lambda s: s.maintenance is not None and s.maintenance.page == "settings",
                            5.0, "the settings page")
        self.menu_to("Game:")
        for _ in range(4):
            m = self.snap.maintenance
            assert m is not None
            if m.items[m.selected] == f"Game: {variant}":
                break
            self.press("deal")
        else:
            raise DemoError(f"no game {variant!r} in the settings")
        self.menu_to("Save settings")
        self.press("deal")
        m = self.snap.maintenance
        assert m is not None
        if "Saved" not in m.lines:
            raise DemoError(f"settings not saved: {m.lines}")
        self.sim({"cmd": "key", "on": False})
        self.watch.wait_for(lambda s: s.mode != "maintenance" and s.variant == variant, 5.0,
                            "the table with the new game")

    def technician_pin(self) -> None:
        """Issue 15: the Settings page asks for the technician PIN: type ``DEMO_PIN``
        with the panel's buttons; on a new cabinet the factory PIN first, then
        ``DEMO_PIN`` twice (the forced change)."""
        m = self.snap.maintenance
        if m is None or m.title != "Technician PIN":
            return
        self.type_digits(DEMO_PIN)
        m = self.snap.maintenance
        if m is not None and m.title == "Technician PIN":       # a new cabinet: 0000 first
            for pin in (FACTORY_PIN, DEMO_PIN, DEMO_PIN):
                self.type_digits(pin)

    def type_digits(self, digits: str) -> None:
        """Type ``digits`` and Enter on the menu's PIN keypad with Up/Down and Select."""
        for d in [*digits, "Enter"]:
            self.menu_to(d)
            self.press("deal", timeout_s=5.0)

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
        self.watch.wait_for(lambda s: s.mode == "maintenance", 5.0, "the maintenance menu")
        self.say("demo: operator key on: maintenance menu, meters")
        self.menu_to("Meters")
        self.press("deal")
        self.watch.wait_for(lambda s: s.maintenance is not None and s.maintenance.page == "meters",
                            5.0, "the meters page")
        self.settle_and_shoot("maintenance-meters")
        self.press("cash_out")  # Back
        self.sim({"cmd": "key", "on": False})
        self.watch.wait_for(lambda s: s.mode != "maintenance", 5.0, "the key off")


def mode_is_not(mode: str) -> Callable[[Any], bool]:
    """A ``TableWatch.wait_for`` condition: the snapshot's mode is no longer ``mode``."""
    return lambda snap: bool(snap.mode != mode)


"""A three-station cabinet: each station has its own simulated panel, bill
acceptor and printer, and money lands on the station whose device took it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest

from cabinet.core.events import PowerUp
from cabinet.core.machine import new_state
from cabinet.core.settings import GameSettings
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .crash_harness import EngineProc, verify_journal

pytestmark = pytest.mark.timeout(120)


def _credits(proc: EngineProc) -> list[int]:
    return [s["credits_minor"] for s in (proc.snapshot or {}).get("stations", [])]


def test_each_station_has_its_own_devices(tmp_path):
    store = Store(tmp_path / "journal.db")
    eng = Engine(store, rng=random.Random(1))
    eng.cab.s = new_state(GameSettings(variant="classic-multi", stations=3))
    eng.cab.rules = eng.cab.s.settings.validate()
    eng.step(PowerUp(0, 1.8e9))
    store.close()
    proc = EngineProc(tmp_path)
    proc.start()
    try:
        assert proc.sim({"cmd": "note", "amount_minor": 500, "station": 4})["ok"] is False
        # an acceptor refuses notes until its start-up is done: insert until credited
        for station, amount in ((2, 2000), (3, 500)):
            deadline = time.monotonic() + 20
            while _credits(proc)[station - 1] != amount and time.monotonic() < deadline:
                assert proc.sim({"cmd": "note", "amount_minor": amount, "station": station})["ok"]
                wait = time.monotonic() + 3
                while _credits(proc)[station - 1] != amount and time.monotonic() < wait:
                    time.sleep(0.05)
        assert _credits(proc) == [0, 2000, 500]
        # station 2's own panel: Bet+ puts the smallest chip on its spot
        assert proc.sim({"cmd": "press", "action": "bet_up", "station": 2})["ok"]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and \
                proc.snapshot["stations"][1]["bet_minor"] != 100:
            time.sleep(0.05)
        assert [s["bet_minor"] for s in proc.snapshot["stations"]] == [0, 100, 0]
    finally:
        proc.stop()
    verify_journal(tmp_path / "journal.db")
    r = subprocess.run([sys.executable, "-m", "cabinet", "meters", "--journal",
                        str(tmp_path / "journal.db"), "--json"], capture_output=True, text=True,
                       timeout=60)
    stations = json.loads(r.stdout)["stations"]
    assert [s["meters"]["bills_in_minor"] for s in stations] == [0, 2000, 500]

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
        while time.monotonic() < deadline and proc.snapshot["stations"][1]["bet_minor"] != 100:
            time.sleep(0.05)
        assert [s["bet_minor"] for s in proc.snapshot["stations"]] == [0, 100, 0]
    finally:
        proc.stop()
    verify_journal(tmp_path / "journal.db")
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(tmp_path / "journal.db"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    stations = json.loads(r.stdout)["stations"]
    assert [s["meters"]["bills_in_minor"] for s in stations] == [0, 2000, 500]


def test_cabinet_run_stations_3_headless_three_players_each_reading_its_own_messages(tmp_path):
    """`cabinet run --stations 3` without a display seats three players
    (classic-multi, set through the operator menu, the engine restarted for the new
    stations' devices), runs one table UI per station and plays one demo player per
    station: each reads its own console's message after every round (never another
    station's line, and a win says its own net win), each cashes out its own voucher
    from its own printer, and each station's screen has its own screenshots."""
    import os
    import re
    from pathlib import Path

    from PIL import Image

    from cabinet.protocol.money import fmt_money

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "out"
    env = {**os.environ, "CABINET_DATA_DIR": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "run",
            "--stations",
            "3",
            "--rounds",
            "2",
            "--size",
            "640x360",
            "--out",
            str(out),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text
    assert "Traceback" not in text
    rounds = re.findall(
        r"^station (\d) demo: round (\d): .* \| net (-?\$[\d.,]+), credits .* \| "
        r"told '(.*)'$",
        proc.stdout,
        re.M,
    )
    assert sorted({(s, n) for s, n, _, _ in rounds}) == [(s, n) for s in "123" for n in "12"], text
    for station, _, net, told in rounds:
        assert not told.startswith("Station "), (station, told)  # the table's line, not its own
        if not net.startswith("-") and net != "$0.00":
            assert told.endswith(f"win {net}") or told.startswith("Paid"), (station, net, told)
        elif net.startswith("-"):
            assert "win $" not in told, (station, net, told)
    vouchers = re.findall(r"^station (\d) demo: voucher (\d+) for (\$[\d.,]+) printed$", proc.stdout, re.M)
    assert sorted(s for s, _, _ in vouchers) == ["1", "2", "3"], text
    assert len({v for _, v, _ in vouchers}) == 3
    # the summary: one line per station, named and in station order (not
    # three unnamed lines in the order 2, 3, 1), each with its own voucher
    summary = re.findall(
        r"^cabinet run: station (\d): \d+ round\(s\) of classic-multi, .*voucher (\d+) for", proc.stdout, re.M
    )
    assert [s for s, _ in summary] == ["1", "2", "3"], text
    assert sorted(summary) == sorted((s, v) for s, v, _ in vouchers), text
    for who in ("", "station2-", "station3-"):
        assert (out / f"voucher-{who}0001.txt").exists(), who
    for n in (1, 2, 3):
        shots = sorted(out.glob(f"station{n}-*-settled-round.png"))
        assert shots, f"station {n}: no screenshot"
        assert Image.open(shots[0]).size == (640, 360)
    assert (out / "ui-station2.log").exists() and (out / "ui-station3.log").exists()
    assert fmt_money(10_000) in text  # each inserted its own $100.00 note
    # a new journal: the factory PIN typed, then changed to 2580, no wrong PIN ever typed
    from tests.test_run_pin import event_kinds

    kinds = event_kinds(tmp_path / "data" / "journal.db")
    assert "pin_changed" in kinds and "pin_wrong" not in kinds, kinds

"""`cabinet run --stations 3 --screens shared`, headless: one table UI (the
shared wide screen, a panel per station) for three demo players."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.core.events import PowerUp
from cabinet.core.machine import new_state
from cabinet.core.settings import GameSettings
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[2]


def _seat_three(journal: Path) -> None:
    """A journal already seating three players (the run skips the operator menu tour
    that would switch the game and restart the engine: the test stays short)."""
    journal.parent.mkdir(parents=True, mode=0o700)
    store = Store(journal)
    eng = Engine(store, rng=random.Random(1))
    eng.cab.s = new_state(GameSettings(variant="classic-multi", stations=3))
    eng.cab.rules = eng.cab.s.settings.validate()
    eng.step(PowerUp(0, 1.8e9))
    store.close()


def test_cabinet_run_screens_shared_one_ui_three_players_each_its_own_messages(tmp_path):
    """`cabinet run --stations 3 --screens shared` without a display runs ONE
    table UI (``--screens shared``: the shared wide screen) while three demo players play
    the one table, each reading its own station's message after every round (never the
    table's line, a win its own net win) and cashing out its own voucher; the run's
    config says ``[display] screens = "shared"`` (the engine tells the UI), and every
    station's screenshots come from that one UI at its size, named for the station."""
    from PIL import Image

    _seat_three(tmp_path / "data" / "journal.db")
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
            "--screens",
            "shared",
            "--rounds",
            "1",
            "--size",
            "1280x480",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text
    assert "Traceback" not in text
    assert "3 stations, one shared screen (1280x480" in proc.stdout, text
    rounds = re.findall(
        r"^station (\d) demo: round 1: .* \| net (-?\$[\d.,]+), credits .* \| "
        r"told '(.*)'$",
        proc.stdout,
        re.M,
    )
    assert sorted(s for s, _, _ in rounds) == ["1", "2", "3"], text
    for station, net, told in rounds:
        assert told and not told.startswith("Station "), (station, told)  # its own line
        if not net.startswith("-") and net != "$0.00":
            assert told.endswith(f"win {net}") or told.startswith("Paid"), (station, net, told)
    vouchers = re.findall(r"^station (\d) demo: voucher (\d+) for", proc.stdout, re.M)
    assert sorted(s for s, _ in vouchers) == ["1", "2", "3"], text
    # one UI process: its log says the shared screen, no station has a UI of its own
    assert not list(out.glob("ui-station*.log"))
    ui_log = (out / "ui.log").read_text()
    assert "Shared screen: the keys" in ui_log and "drawing the classic table" not in ui_log
    assert 'screens = "shared"' in (out / "cabinet.toml").read_text()
    for n in (1, 2, 3):
        shots = sorted(out.glob(f"station{n}-*-settled-round.png"))
        assert shots, f"station {n}: no screenshot"
        assert Image.open(shots[0]).size == (1280, 480)

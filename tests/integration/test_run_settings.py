"""``cabinet run --stations N`` / ``--variant X`` in a window (no demo player): the run
changes the game through the operator menu before the table UIs start, typing the
technician PIN it checked against the journal (``--pin``)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from cabinet.shell.store import Store
from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child
from tests.test_run_pin import event_kinds, make_journal

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]


def _windowed_run(tmp_path: Path, *args: str, until: str) -> tuple[int, str]:
    """``cabinet run --window ARGS`` on SDL's dummy driver until a stdout line has
    ``until``, then Ctrl-C (SIGINT); the exit status and all its output."""
    env = {
        **os.environ,
        "CABINET_DATA_DIR": str(tmp_path / "data"),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("CABINET_PIN", None)
    proc = Child(
        [sys.executable, "-m", "cabinet", "run", "--window", *args, "--out", str(tmp_path / "out")],
        name="cabinet run",
        cwd=ROOT,
        env=env,
    )
    try:
        proc.wait_for(until, START_DEADLINE_S)
        proc.signal(signal.SIGINT)
        status = proc.wait_exit(STOP_DEADLINE_S + 20)
    finally:
        proc.kill()
    return status, proc.text("stdout") + proc.text("stderr")


def _settings(journal: Path) -> tuple[str, int]:
    store = Store(journal, readonly=True)
    try:
        state = store.load_readonly()
    finally:
        store.close()
    assert state is not None
    return state.settings.variant, len(state.stations)


def test_run_with_the_journals_pin_given_seats_the_stations(tmp_path: Path) -> None:
    """cabinet run, PIN changed: with `--pin` set to the journal's PIN, `cabinet run
    --stations 2` types that PIN (not 2580) and seats the stations: no pin_wrong, one
    pin_accepted, the journal then plays classic-multi with 2 stations."""
    journal = make_journal(tmp_path / "data" / "journal.db", "1357")
    status, text = _windowed_run(tmp_path, "--stations", "2", "--pin", "1357", until="play in the window")
    assert status == 130, text
    assert "2 stations" in text and "could not seat" not in text, text
    assert _settings(journal) == ("classic-multi", 2)
    kinds = event_kinds(journal)
    assert "pin_wrong" not in kinds and kinds.count("pin_accepted") == 1, kinds


def test_variant_without_the_demo_in_a_window_switches_the_game(tmp_path: Path) -> None:
    """cabinet run: `--variant american` in a window without `--demo` was silently
    ignored (the table stayed Classic). Now the run switches the game first, as the demo
    did, and says so, with the demo's PIN (a journal an earlier run set to 2580; a new
    journal's factory PIN change is the 3-station run of test_stations.py)."""
    journal = make_journal(tmp_path / "data" / "journal.db", "2580")
    status, text = _windowed_run(tmp_path, "--variant", "american", until="play in the window")
    assert status == 130, text
    assert "game -> american" in text, text
    assert _settings(journal) == ("american", 1)
    kinds = event_kinds(journal)
    assert "pin_wrong" not in kinds and kinds.count("pin_accepted") == 1, kinds

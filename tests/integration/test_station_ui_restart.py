"""``cabinet run --stations 2``: one station's table UI dying does not end the others'
game: the run restarts that UI (as ``cabinet-ui@.service``'s ``Restart=always`` does)."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.procs import START_DEADLINE_S, Child

pytestmark = pytest.mark.timeout(240)
ROOT = Path(__file__).resolve().parents[2]


def _station_ui_pids(frames: Path) -> list[int]:
    """The pids of the UI processes drawing into ``frames`` or a folder in it (their
    --screenshot-dir)."""
    pids = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            argv = (p / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ui" in argv and any(a.startswith(str(frames).encode()) for a in argv):
            pids.append(int(p.name))
    return pids


def test_killing_station_2s_ui_restarts_it_and_the_run_goes_on(tmp_path: Path) -> None:
    """cabinet run: `kill -9` of station 2's UI mid-run ended the whole run ("the table
    UI stopped (status -9)"). Now the run says so, starts station 2's UI again (a new
    pid, which draws its first frame again), both players finish their rounds and the
    run exits 0."""
    out = tmp_path / "out"
    env = {**os.environ, "CABINET_DATA_DIR": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    (tmp_path / "data").mkdir(mode=0o700)
    from tests.test_run_pin import make_journal

    make_journal(tmp_path / "data" / "journal.db", "2580", variant="classic-multi", stations=2)
    proc = Child(
        [sys.executable, "-m", "cabinet", "run", "--rounds", "2", "--size", "640x360", "--out", str(out)],
        name="cabinet run",
        cwd=ROOT,
        env=env,
        merge_stderr=True,
    )
    killed = 0
    try:
        proc.wait_for(re.compile(r"station 2 demo: round 1:"), START_DEADLINE_S + 60)
        pids = _station_ui_pids(out / "frames" / "station2")
        assert len(pids) == 1, (pids, proc.tail())
        killed = pids[0]
        os.kill(killed, signal.SIGKILL)
        status = proc.wait_exit(2 * START_DEADLINE_S)
    finally:
        proc.kill()
    lines = proc.text().splitlines(keepends=True)
    text = "".join(lines)
    assert killed, text
    assert status == 0, text
    m = re.search(r"station 2's table UI stopped \(status -9\); started it again \(pid (\d+)", text)
    assert m, text
    assert int(m.group(1)) != killed
    rounds = re.findall(r"^station (\d) demo: round (\d):", text, re.M)
    assert sorted(set(rounds)) == [(s, n) for s in "12" for n in "12"], text
    log = (out / "ui-station2.log").read_text()
    assert log.count("first frame") == 2, log  # it reconnected and drew again
    deadline = time.monotonic() + 5
    while _station_ui_pids(out / "frames" / "station2") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _station_ui_pids(out / "frames" / "station2")  # nothing left running

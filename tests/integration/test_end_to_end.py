"""End to end: the engine and the table UI as separate processes with simulated devices.

A note goes in through the ID-003 bill acceptor twin, rounds are played by
pressing the mock panel's buttons (sim control ``press``, the same pins the
real buttons drive), and Cash Out prints a voucher on the printer twin. Then
the voucher is read back (text and barcode), the meters are read with
``cabinet meters --json``, and the UI's screenshots are checked. Also: the
whole ``cabinet run --headless`` as a user starts it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from cabinet.protocol.money import fmt_money as money
from cabinet.tools.demo_player import DemoPlayer
from cabinet.tools.table_client import SimControl, TableWatch
from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child

from .table_procs import TableProcs, decode_itf_png, felt_green_fraction

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]


def test_note_rounds_cash_out_voucher_meters_and_screenshots(tmp_path: Path) -> None:
    procs = TableProcs(tmp_path, size="800x480")
    watch = sim = None
    try:
        procs.start_engine()
        procs.start_ui()
        watch = TableWatch(procs.sock, authenticate=True).start()
        sim = SimControl(procs.sim_sock)
        player = DemoPlayer(
            watch, sim, rounds=2, note_minor=2_000, bet_minor=200, strategy=None, say=lambda _text: None
        )
        player.insert_note(2_000)
        assert watch.snapshot is not None and watch.snapshot.stations[0].credits_minor == 2_000
        for n in (1, 2):
            player.play_round(n)
        player.cash_out()
        result = player.result
        final = procs.shot()
    finally:
        for link in (sim, watch):
            if link is not None:
                link.close()
        procs.stop()

    # the voucher: its text and its barcode say the amount and the number
    assert len(result.rounds) == 2
    assert result.cashed_out_minor == 2_000 + sum(r.net_minor for r in result.rounds)
    assert result.voucher_png is not None and result.voucher_txt is not None
    text = result.voucher_txt.read_text()
    assert money(result.cashed_out_minor) in text
    assert len(result.validation_number) == 18
    assert decode_itf_png(result.voucher_png) == result.validation_number

    # the meters, as the operator's command line reads them
    out = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(procs.journal), "--json"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    st = json.loads(out.stdout)["stations"][0]
    m = st["meters"]
    assert st["credits_minor"] == 0
    assert (m["bills_in_minor"], m["bills_in_count"]) == (2_000, 1)
    assert (m["vouchers_out_minor"], m["vouchers_out_count"]) == (result.cashed_out_minor, 1)
    assert m["games_played"] == 2
    assert (m["coin_in_minor"] + m["insurance_in_minor"]) - (
        m["coin_out_minor"] + m["insurance_out_minor"]
    ) == 2_000 - result.cashed_out_minor

    # the final screenshot: the table's felt, at the window's size, back in attract
    assert Image.open(final).size == (800, 480)
    assert felt_green_fraction(final) > 0.4
    assert watch.snapshot is not None and watch.snapshot.mode == "attract"
    # and the UI caught the printing screen on its way (mode-change screenshot)
    printing = sorted(procs.shots.glob("[0-9]*-cash_out-printing.png"))
    assert printing, sorted(p.name for p in procs.shots.iterdir())
    assert Image.open(printing[-1]).size == (800, 480)
    assert felt_green_fraction(printing[-1]) > 0.05  # dimmed felt around the overlay


def test_cabinet_run_headless_plays_cashes_out_and_exits_0(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    env = {**os.environ, "CABINET_DATA_DIR": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "cabinet", "run", "--rounds", "1", "--size", "640x360", "--out", str(out_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=55,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert f"output: {out_dir}" in proc.stdout
    # The run says where its UI socket is, for a second station's table
    sock_line = next(line for line in proc.stdout.splitlines() if "UI socket" in line)
    assert "/ui.sock," in sock_line and "--station 2" in sock_line, sock_line
    names = sorted(p.name for p in out_dir.glob("*.png"))
    assert names == [
        "01-mid-round.png",
        "02-settled-round.png",
        "03-cash-out-printing.png",
        "04-maintenance-meters.png",
        "voucher-0001.png",
    ] or names == [
        "01-settled-round.png",
        "02-cash-out-printing.png",  # a blackjack: no decision
        "03-maintenance-meters.png",
        "voucher-0001.png",
    ], names
    assert (out_dir / "voucher-0001.txt").exists()
    assert (tmp_path / "data" / "journal.db").exists()
    for name in names[:-1]:
        assert Image.open(out_dir / name).size == (640, 360)


def test_a_table_ui_that_dies_ends_a_windowed_run_with_a_line_and_status_1(tmp_path: Path) -> None:
    """The run stops when either process dies: a
    windowed run whose table UI is killed said nothing and exited 0, as if the player
    had closed the window; it must name the UI's log and exit 1."""
    import signal as _signal

    env = {
        **os.environ,
        "CABINET_DATA_DIR": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
    }
    proc = Child(
        [sys.executable, "-m", "cabinet", "run", "--window", "--size", "640x360", "--out", str(tmp_path / "out")],
        name="cabinet run",
        cwd=ROOT,
        env=env,
    )
    try:
        proc.wait_for("play in the window", START_DEADLINE_S)
        ui = subprocess.run(
            ["pgrep", "-P", str(proc.pid), "-f", "--", " -m ui --socket"], capture_output=True, text=True, timeout=30
        ).stdout.split()
        assert len(ui) == 1, ui
        os.kill(int(ui[0]), _signal.SIGKILL)
        status = proc.wait_exit(STOP_DEADLINE_S + 20)
    finally:
        proc.kill()
    err = proc.text("stderr")
    assert status == 1, err
    assert "table UI stopped" in err and "ui.log" in err, err

"""``cabinet run``'s plan (``cabinet.tools.launcher.plan_run``): which processes it
starts, with which command lines, stations, screens and sizes, decided from the
arguments alone; nothing is started here."""

from __future__ import annotations

from pathlib import Path

import pytest

from cabinet.tools.launcher import RunRefused, plan_run

OUT = Path("/runs/run-1")
JOURNAL = Path("/data/journal.sqlite3")
SOCK, SIM_SOCK = Path("/tmp/r/ui.sock"), Path("/tmp/r/ui.sock.sim")


def _plan(**kw: object):
    args: dict[str, object] = dict(
        python="/venv/bin/python", out_dir=OUT, journal=JOURNAL, own_journal=False, display_present=False
    )
    args.update(kw)
    return plan_run(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "line"),
    [
        ({"tickets": "paper"}, "cabinet run: --tickets must be one of cabinet, host"),
        ({"display": "wall"}, "cabinet run: --screens must be one of per-station, shared"),
        ({"stations": 4}, "cabinet run: --stations must be 1, 2 or 3"),
        ({"stations": 0}, "cabinet run: --stations must be 1, 2 or 3"),
        (
            {"stations": 2, "variant": "american"},
            "cabinet run: --stations 2 needs the multi-player game (classic-multi), not --variant american",
        ),
        ({"size": "big"}, "cabinet run: --size 'big': give WIDTHxHEIGHT, e.g. 1280x720"),
        ({"size": "100x100"}, "cabinet run: --size 100x100 is too small: at least 320x240"),
        ({"rounds": 0}, "cabinet run: --rounds must be 1 or more, got 0"),
    ],
)
def test_a_bad_argument_is_refused_with_its_line(kw: dict[str, object], line: str) -> None:
    with pytest.raises(RunRefused) as e:
        _plan(**kw)
    assert str(e.value) == line


def test_headless_by_default_without_a_display_and_the_demo_plays() -> None:
    plan = _plan()
    assert (plan.windowed, plan.play) == (False, True)
    plan = _plan(display_present=True)
    assert (plan.windowed, plan.play) == (True, False)
    plan = _plan(display_present=True, window=False, demo=False)
    assert (plan.windowed, plan.play) == (False, False)
    plan = _plan(window=True, demo=True)
    assert (plan.windowed, plan.play) == (True, True)


def test_the_host_twin_and_the_engine_command_lines() -> None:
    plan = _plan(journal=Path("/j/cab.sqlite3"))
    assert plan.host_argv(3) == [
        "/venv/bin/python",
        "-m",
        "cabinet",
        "sim-host",
        "--machines",
        "3",
        "--dir",
        "/runs/run-1/sim/sas",
    ]
    assert plan.engine_argv(SOCK) == [
        "/venv/bin/python",
        "-m",
        "cabinet",
        "engine",
        "--journal",
        "/j/cab.sqlite3",
        "--socket",
        "/tmp/r/ui.sock",
        "--devices",
        "sim",
        "--sim-dir",
        "/runs/run-1/sim",
        "--config",
        "/runs/run-1/cabinet.toml",
    ]


def test_the_engine_config_gives_each_station_its_machine_and_the_screens() -> None:
    ports = {1: "/dev/pts/7", 2: "/dev/pts/8"}
    per_station = _plan(stations=2).engine_config(ports)
    assert "/dev/pts/7" in per_station and "/dev/pts/8" in per_station
    assert "[display]" not in per_station
    shared = _plan(stations=2, display="shared").engine_config(ports)
    assert shared.endswith('[display]\nscreens = "shared"\n')
    assert 'validation = "system"' in _plan(tickets="host").engine_config({1: "/dev/pts/7"})


def test_one_station_headless_one_silent_ui_at_the_default_size() -> None:
    (ui,) = _plan().ui_launches(1, SOCK, SIM_SOCK)
    assert (ui.station, ui.name, ui.log, ui.frames) == (1, "ui", OUT / "ui.log", OUT / "frames")
    assert ui.env == {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    assert ui.argv == (
        "/venv/bin/python",
        "-m",
        "ui",
        "--socket",
        "/tmp/r/ui.sock",
        "--size",
        "1280x720",
        "--screenshot-dir",
        "/runs/run-1/frames",
        "--station",
        "1",
        "--no-sound",
    )
    assert (ui.shot_prefix, ui.to_terminal) == ("", False)


def test_three_stations_in_windows_tile_one_ui_each() -> None:
    plan = _plan(window=True, stations=3, variant="classic-multi", language="en,es")
    uis = plan.ui_launches(3, SOCK, SIM_SOCK)
    assert [u.name for u in uis] == ["ui", "ui-station2", "ui-station3"]
    assert [u.frames for u in uis] == [OUT / "frames", OUT / "frames/station2", OUT / "frames/station3"]
    assert [u.env for u in uis] == [
        {"SDL_VIDEO_WINDOW_POS": "0,0"},
        {"SDL_VIDEO_WINDOW_POS": "960,0"},
        {"SDL_VIDEO_WINDOW_POS": "0,540"},
    ]
    assert [u.shot_prefix for u in uis] == ["station1-", "station2-", "station3-"]
    assert [u.to_terminal for u in uis] == [True, False, False]
    second = uis[1].argv
    assert second[second.index("--size") + 1] == "960x540"
    assert second[second.index("--station") + 1] == "2"
    assert "--own-station" in second
    assert second[second.index("--sim-socket") + 1] == "/tmp/r/ui.sock.sim"
    assert [u.argv[-1] for u in uis] == ["en", "es", "es"]  # a station past the list takes the last


def test_a_given_size_is_kept_with_several_stations() -> None:
    plan = _plan(stations=2, size="800x600")
    assert [u.argv[u.argv.index("--size") + 1] for u in plan.ui_launches(2, SOCK, SIM_SOCK)] == ["800x600"] * 2


def test_the_shared_screen_is_one_wide_ui_for_every_station() -> None:
    plan = _plan(stations=3, display="shared")
    (ui,) = plan.ui_launches(3, SOCK, SIM_SOCK)
    assert ui.argv[ui.argv.index("--size") + 1] == "1920x540"
    assert ui.argv[-3:] == ("--screens", "shared", "--no-sound")
    assert (ui.name, ui.shot_prefix) == ("ui", "")


def test_the_stations_may_be_left_to_the_journal() -> None:
    plan = _plan()
    assert plan.stations is None and plan.variant is None
    assert [u.name for u in plan.ui_launches(2, SOCK, SIM_SOCK)] == ["ui", "ui-station2"]

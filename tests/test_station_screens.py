"""``cabinet run --stations N``: where the station windows go and what each runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cabinet.tools import launcher
from cabinet.tools.station_screens import TILE_SIZE, tile_positions, ui_command


def test_station_windows_tile_on_one_display() -> None:
    """Three 960x540 windows tile a 1920x1080 display, station 1 top left,
    none over another."""
    w, h = TILE_SIZE
    corners = tile_positions(3, w, h)
    assert corners == [(0, 0), (960, 0), (0, 540)]
    assert all(x + w <= 1920 and y + h <= 1080 for x, y in corners)
    assert tile_positions(1, 1280, 720) == [(0, 0)]
    with pytest.raises(ValueError):
        tile_positions(4, w, h)


def test_each_station_ui_acts_for_its_own_station() -> None:
    """Station N's UI gets ``--station N`` (its keys, touches and dev keys),
    the own-station layout when there are several, the dev keys with a display."""
    argv = ui_command("py", Path("/s/ui.sock"), 2, 3, "960x540", Path("/f"), Path("/s/ui.sock.sim"))
    assert argv[argv.index("--station") + 1] == "2" and "--own-station" in argv
    assert argv[argv.index("--sim-socket") + 1] == "/s/ui.sock.sim" and "--no-sound" not in argv
    one = ui_command("py", Path("/s/ui.sock"), 1, 1, "1280x720", Path("/f"), None)
    assert "--own-station" not in one and "--no-sound" in one


def test_stations_are_checked_before_anything_starts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A station count out of 1-3, or several stations with a one-seat game,
    is refused with a line and status 2, nothing started."""
    assert launcher.main(stations=4, out=str(tmp_path)) == 2
    assert "--stations must be 1, 2 or 3" in capsys.readouterr().err
    assert launcher.main(stations=3, variant="american", out=str(tmp_path)) == 2
    assert "classic-multi" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_station_player_that_fails_says_which_station_and_what_it_waited_for() -> None:
    """Several demo players share one table: the first to fail stops the others (the
    run ends) and the box says at once which station failed and what it waited for,
    before the others have finished, for ``cabinet run``'s line on stderr."""
    import threading

    from cabinet.tools.station_screens import play_station
    from cabinet.tools.table_client import DemoError

    class Stuck:
        station_no = 1

        def play_rounds(self) -> None:
            raise DemoError("waited 10 s for the table to take bets (table: in_round)")

    class Stopped:
        station_no = 2

        def play_rounds(self) -> None:
            raise DemoError("stopped")

    stop, box = threading.Event(), {}
    play_station(Stuck(), box, stop)
    assert stop.is_set()
    assert box["error"] == "station 1: waited 10 s for the table to take bets (table: in_round)"
    play_station(Stopped(), box, stop)  # the other player, stopped by the first
    assert box["error"] == "station 1: waited 10 s for the table to take bets (table: in_round)"
    assert box["errors"] == [box["error"], "station 2: stopped"]

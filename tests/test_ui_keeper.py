"""``cabinet run``'s watch over its table UIs (``cabinet.tools.ui_keeper``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cabinet.tools.ui_keeper import MAX_RESTARTS, RESTART_S, UIKeeper


class FakeProc:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode


class FakeUI:
    def __init__(self, pid: int) -> None:
        self.proc = FakeProc(pid)
        self.log_path = Path(f"ui-{pid}.log")
        self.drew = False
        self.stopped = False

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    def wait_line(self, text: str, timeout_s: float) -> str | None:
        return "first frame after 1 ms" if self.drew and text == "first frame" else None

    def stop(self) -> int | None:
        self.stopped = True
        return self.proc.returncode


class FakeShots:
    def __init__(self) -> None:
        self.followed: list[tuple[Any, Path]] = []

    def follow(self, ui: Any, frames: Path) -> None:
        self.followed.append((ui, frames))


def keeper(
    tmp_path: Path, n: int, *, restart: bool, windowed: bool = False
) -> tuple[UIKeeper, list[float], list[FakeUI]]:
    now = [100.0]
    uis = [FakeUI(10 + i) for i in range(n)]
    started: list[FakeUI] = []

    def start(station: int, frames: Path) -> FakeUI:
        started.append(FakeUI(100 + len(started)))
        return started[-1]

    k = UIKeeper(
        uis,
        [object(), *uis],
        [FakeShots() for _ in uis],
        start,
        [tmp_path / f"station{i + 1}" for i in range(n)],
        restart=restart,
        windowed=windowed,
        clock=lambda: now[0],
    )
    return k, now, started


def test_a_killed_station_ui_is_started_again_and_the_run_goes_on(tmp_path: Path) -> None:
    """cabinet run --stations 3: station 2's UI killed (-9) does not end the run: after
    RestartSec a new UI takes its place (in the children stopped at the end too), and
    its screenshots are asked of it only once it drew its first frame."""
    k, now, started = keeper(tmp_path, 3, restart=True)
    old = k.uis[1]
    old.proc.returncode = -9
    assert k.ended() is None and not started  # waits RestartSec first
    now[0] += RESTART_S
    assert k.ended() is None
    assert len(started) == 1 and k.uis[1] is started[0] and old.stopped
    assert started[0] in k.children and old not in k.children
    assert (tmp_path / "station2" / "restart-1").is_dir()
    assert k.shots[1].followed == []  # not drawn yet: no SIGUSR1 to it
    started[0].drew = True
    assert k.ended() is None
    assert k.shots[1].followed == [(started[0], tmp_path / "station2" / "restart-1")]


def test_what_still_ends_the_run(tmp_path: Path) -> None:
    """The one UI of a one-station run, a window its player closed (status 0), and a
    station UI that died again after MAX_RESTARTS starts end the run."""
    single, _, _ = keeper(tmp_path / "a", 1, restart=False)
    single.uis[0].proc.returncode = -9
    assert single.ended() is single.uis[0]
    closed, _, _ = keeper(tmp_path / "b", 2, restart=True, windowed=True)
    closed.uis[1].proc.returncode = 0
    assert closed.ended() is closed.uis[1]
    k, now, started = keeper(tmp_path / "c", 2, restart=True)
    for _ in range(MAX_RESTARTS):
        k.uis[1].proc.returncode = 2
        assert k.ended() is None
        now[0] += RESTART_S
        assert k.ended() is None
    assert len(started) == MAX_RESTARTS
    k.uis[1].proc.returncode = 2
    assert k.ended() is k.uis[1]


@pytest.mark.parametrize("status", [-9, 1])
def test_a_crash_of_station_1s_screen_is_started_again_too(tmp_path: Path, status: int) -> None:
    """Station 1 is a player too: on a cabinet with several screens its UI is started again."""
    k, now, started = keeper(tmp_path, 2, restart=True)
    k.uis[0].proc.returncode = status
    assert k.ended() is None
    now[0] += RESTART_S
    assert k.ended() is None and k.uis[0] is started[0]

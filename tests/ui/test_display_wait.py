"""The UI waits for a display that comes up late.

On the cabinet the KMSDRM display can appear seconds after the UI starts. The UI
used to exit in 0.2 s, and with ``RestartSec=1`` systemd's default start limit
(5 starts in 10 s) left it dead for good; now it keeps trying in-process, with a
growing pause and one log line per window, and draws as soon as the display is
there."""

from __future__ import annotations

import logging
import os
import random
import re
import shutil
import signal
import sys
import time

import pygame
import pytest

from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child
from ui.display import LOG_WINDOW_S, MAX_BACKOFF_S, DisplayUnavailable, open_display


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.t += s


def _failing_until(clock: FakeClock, up_at: float, calls: list[float]):  # type: ignore[no-untyped-def]
    surface = pygame.Surface((8, 8))

    def attempt(size: tuple[int, int], fullscreen: bool) -> pygame.Surface:
        calls.append(clock.t)
        if clock.t < up_at:
            raise pygame.error("Could not initialize KMSDRM: no DRM device")
        return surface

    return attempt


def test_a_display_down_for_15_s_is_waited_for_with_backoff_and_two_log_lines(caplog):
    """15 s without a display: tries at 0, 0.5, 1.5, 3.5, 7.5, 12.5, 17.5 s
    (pause doubling from 0.5 s to 5 s), then opens it; logs the first failure and the
    recovery, not a line per try."""
    clock, calls = FakeClock(), []
    attempt = _failing_until(clock, clock.t + 15, calls)
    resets: list[int] = []
    with caplog.at_level(logging.INFO, logger="ui.display"):
        surface = open_display(
            (0, 0), True, 3600, attempt=attempt, sleep=clock.sleep, clock=clock, reset=lambda: resets.append(1)
        )
    assert surface.get_size() == (8, 8)
    assert [round(t - 100, 1) for t in calls] == [0, 0.5, 1.5, 3.5, 7.5, 12.5, 17.5]
    assert clock.sleeps == [0.5, 1, 2, 4, 5, 5]
    assert len(resets) == 6  # SDL shut down after each failure
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 2, msgs
    assert "display not ready (Could not initialize KMSDRM: no DRM device)" in msgs[0]
    assert msgs[1] == "display ready after 6 failed attempts in 17.5 s"


def test_a_long_outage_logs_once_per_window(caplog):
    """10 minutes without a display: one line per LOG_WINDOW_S, with the count."""
    clock, calls = FakeClock(), []
    attempt = _failing_until(clock, clock.t + 600, calls)
    with caplog.at_level(logging.INFO, logger="ui.display"):
        open_display((0, 0), True, 3600, attempt=attempt, sleep=clock.sleep, clock=clock, reset=lambda: None)
    still = [r.getMessage() for r in caplog.records if "still not ready" in r.getMessage()]
    assert 600 / LOG_WINDOW_S - 2 <= len(still) <= 600 / LOG_WINDOW_S
    assert "6 attempts failed in the last 30 s" in still[-1]  # 5 s apart once backed off
    assert max(clock.sleeps) == MAX_BACKOFF_S


def test_it_gives_up_after_the_wait_and_says_why():
    """Past ``wait_s`` a clear error (the unit restarts the UI); 0: one try."""
    clock, calls = FakeClock(), []
    attempt = _failing_until(clock, clock.t + 10_000, calls)
    with pytest.raises(DisplayUnavailable, match=r"after \d+ attempts in 60 s: Could not"):
        open_display((0, 0), True, 60, attempt=attempt, sleep=clock.sleep, clock=clock, reset=lambda: None)
    assert clock.t - 100 == 60
    calls.clear()
    with pytest.raises(DisplayUnavailable, match="after 1 attempts in 0 s"):
        open_display((0, 0), True, 0, attempt=attempt, sleep=clock.sleep, clock=clock, reset=lambda: None)
    assert len(calls) == 1


def _free_display() -> int:
    # a number far from the usual :0-:99 and drawn at random: other tests or people on
    # the machine may start an X server on the number between our check and Xvfb's start
    rng = random.Random(os.getpid() ^ time.time_ns())
    for n in rng.sample(range(200, 5000), 200):
        if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not os.path.exists(f"/tmp/.X{n}-lock"):
            return n
    raise RuntimeError("no free X display number")


@pytest.mark.timeout(150)
@pytest.mark.skipif(
    shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb) to bring a real display up late"
)
def test_the_ui_process_recovers_by_itself_when_the_display_comes_up_15_s_late(tmp_path):
    """``python -m ui --fullscreen --display-wait 3600`` started with no
    display (SDL's x11 driver, no X server yet) is still running 15 s later, and draws
    its first frame once an X server (Xvfb) comes up, without a restart."""
    n = _free_display()
    env = {
        **os.environ,
        "SDL_VIDEODRIVER": "x11",
        "DISPLAY": f":{n}",
        "SDL_AUDIODRIVER": "dummy",
        "PYGAME_HIDE_SUPPORT_PROMPT": "1",
    }
    ui = Child(
        [
            sys.executable,
            "-m",
            "ui",
            "--socket",
            str(tmp_path / "ui.sock"),
            "--fullscreen",
            "--no-sound",
            "--display-wait",
            "3600",
        ],
        name="ui",
        env=env,
        merge_stderr=True,
    )
    xvfb = None
    try:
        time.sleep(15)
        assert ui.running, ui.tail()  # still waiting
        xvfb = Child(["Xvfb", f":{n}", "-screen", "0", "800x480x24", "-nolisten", "tcp"], name="Xvfb")
        ui.wait_for(re.compile("^first frame"), START_DEADLINE_S)
        lines = ui.text().splitlines()
        lines = lines[: [i for i, line in enumerate(lines) if line.startswith("first frame")][0] + 1]
        assert any(line.startswith("table UI:") and "800x480" in line for line in lines), lines
        assert lines[-1].startswith("first frame"), lines
        text = "\n".join(lines)
        assert "display not ready" in text and "display ready after" in text, text
        assert text.count("display not ready") == 1, text  # one line, not one per try
        ui.signal(signal.SIGTERM)
        assert ui.wait_exit(STOP_DEADLINE_S) == 0
    finally:
        for p in (ui, xvfb):
            if p is not None:
                p.kill()


def test_a_window_that_fell_back_to_no_screen_is_not_a_display(monkeypatch):
    """``DISPLAY=:57 cabinet run --window`` with no X server
    on :57 ran on, "first frame after 1437 ms", and showed nothing: SDL had fallen back
    to its off-screen driver. Unless that driver was asked for (``SDL_VIDEODRIVER``),
    it is no display: the wait goes on, then says why."""
    from ui import display

    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.setattr(pygame.display, "init", lambda: None)
    monkeypatch.setattr(pygame.display, "set_mode", lambda *a, **k: pygame.Surface((4, 4)))
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "offscreen")
    with pytest.raises(pygame.error, match="offscreen"):
        display.init_display((640, 360), False)
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")  # asked for: fine
    assert display.init_display((640, 360), False).get_size() == (4, 4)
    monkeypatch.delenv("SDL_VIDEODRIVER")
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "x11")
    assert display.init_display((640, 360), False).get_size() == (4, 4)

"""Opening the display, waiting for it when it comes up late.

Owns: ``open_display``: SDL's video init and the window/full-screen mode, tried
again with a growing pause (0.5 s doubling to ``MAX_BACKOFF_S``) until it works
or ``wait_s`` has passed. On a cabinet the KMSDRM display (the DRM device, the
monitor's hot-plug) may appear seconds after the UI starts; exiting at once
(in 0.2 s) would let systemd's start limit leave it dead for good.

Logging: the first failure, then at most one line per ``LOG_WINDOW_S`` (how many
attempts failed in that window and the last error), then the recovery; never a
line per attempt.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

import pygame

log = logging.getLogger(__name__)

FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 5.0
#: One log line per this many seconds of failed attempts.
LOG_WINDOW_S = 30.0


#: SDL video drivers that show nothing: taken only when asked for by ``SDL_VIDEODRIVER``.
NO_SCREEN_DRIVERS = frozenset({"offscreen", "dummy"})


class DisplayUnavailable(RuntimeError):
    """The display did not open within the wait; the message has the last SDL error."""


def init_display(size: tuple[int, int], fullscreen: bool) -> pygame.Surface:
    """One attempt: SDL video init and the mode; full screen hides the cursor.

    Raises:
        pygame.error: SDL could not open the display (no DRM device, no X server...).
    """
    pygame.display.init()
    driver = pygame.display.get_driver()
    if driver in NO_SCREEN_DRIVERS and os.environ.get("SDL_VIDEODRIVER", "") != driver:
        # SDL found no X server, Wayland or DRM device and fell back to drawing off-screen:
        # nobody would see the table
        raise pygame.error(
            f"no screen: SDL fell back to its {driver!r} driver (is $DISPLAY "
            "right and its X server running, or the DRM device there?)"
        )
    if fullscreen:
        window = pygame.display.set_mode(size, pygame.FULLSCREEN)
        pygame.mouse.set_visible(False)
    else:
        window = pygame.display.set_mode(size)
    return window


def open_display(
    size: tuple[int, int],
    fullscreen: bool,
    wait_s: float,
    *,
    attempt: Callable[[tuple[int, int], bool], pygame.Surface] = init_display,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    reset: Callable[[], None] = pygame.display.quit,
) -> pygame.Surface:
    """The display surface, trying again for up to ``wait_s`` seconds (0: one try).

    Args:
        size: the window size, or ``(0, 0)`` for the display's own size (full screen).
        fullscreen: full screen without a cursor (the cabinet).
        wait_s: how long to keep trying after the first failure.
        attempt, sleep, clock, reset: injectable for tests (one try, a pause,
            monotonic s, SDL's video shutdown after a failed try).

    Raises:
        DisplayUnavailable: still failing after ``wait_s``.
    """
    start = clock()
    backoff = FIRST_BACKOFF_S
    failures = 0
    window_start = start
    window_failures = 0
    while True:
        try:
            surface = attempt(size, fullscreen)
        except pygame.error as e:
            error = str(e) or "unknown SDL error"
            failures += 1
            window_failures += 1
            reset()  # a clean slate for SDL's next try
            now = clock()
            if failures == 1:
                log.warning("display not ready (%s); trying again for up to %.0f s", error, wait_s)
                window_start, window_failures = now, 0
            elif now - window_start >= LOG_WINDOW_S:
                log.warning(
                    "display still not ready: %d attempts failed in the last %.0f s (%s)",
                    window_failures,
                    now - window_start,
                    error,
                )
                window_start, window_failures = now, 0
            if now - start >= wait_s:
                raise DisplayUnavailable(
                    f"display not ready after {failures} attempts in {now - start:.0f} s: {error}"
                ) from None
            sleep(min(backoff, max(0.0, wait_s - (now - start))))
            backoff = min(backoff * 2, MAX_BACKOFF_S)
            continue
        if failures:
            log.info("display ready after %d failed attempts in %.1f s", failures, clock() - start)
        return surface

"""Drive a gpiozero mock pin like a pulse-mode acceptor's output (protocols.md 3 step 6).

Owns: generating pulse trains (with width jitter and glitches) on a ``MockPin``.
Must not import: serial, cabinet.*.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any


class PulseSource:
    """Emit pulse trains on an active-low mock pin.

    Args:
        pin: a gpiozero ``MockPin`` (``factory.pin(n)``).
        wait: called with a duration in seconds between edges: a fake clock's
            ``advance`` in tests, ``threading.Event().wait`` in live simulation.
        rng: randomness for jitter; seeded ``random.Random`` in tests.
    """

    def __init__(
        self,
        pin: Any,
        *,
        wait: Callable[[float], object] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.pin = pin
        self._wait = wait or threading.Event().wait
        self._rng = rng or random.Random()

    def train(
        self,
        pulses: int,
        *,
        width_s: float = 0.05,
        gap_s: float = 0.1,
        jitter: float = 0.0,
        glitches: int = 0,
    ) -> None:
        """Send ``pulses`` pulses; ``jitter`` is a fraction of width/gap (0.2 = +-20 %).

        ``glitches`` inserts that many 1 ms spikes between pulses.
        """
        for i in range(pulses):
            self.pin.drive_low()
            self._wait(width_s * (1 + self._rng.uniform(-jitter, jitter)))
            self.pin.drive_high()
            self._wait(gap_s * (1 + self._rng.uniform(-jitter, jitter)))
            if i < glitches:
                self.pin.drive_low()
                self._wait(0.001)
                self.pin.drive_high()
                self._wait(0.01)

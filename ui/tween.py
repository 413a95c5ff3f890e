"""Spans of time and easing, shared by every tween of the table UI.

Owns: ``Tween`` (a start and a duration, in the caller's monotonic ms) and
``ease_out``. Pure; nothing here reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tween:
    """A span of time: ``start_ms`` (may be in the future) lasting ``duration_ms``."""

    start_ms: int
    duration_ms: int

    def progress(self, now_ms: int) -> float:
        """Linear progress: < 0 before the start, 0-1 while running, 1 after."""
        if now_ms < self.start_ms:
            return -1.0
        return min(1.0, (now_ms - self.start_ms) / max(1, self.duration_ms))

    def end_ms(self) -> int:
        return self.start_ms + self.duration_ms


def ease_out(p: float) -> float:
    """Cubic ease-out of a 0-1 progress."""
    p = max(0.0, min(1.0, p))
    return 1 - (1 - p) ** 3

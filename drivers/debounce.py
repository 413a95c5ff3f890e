"""Pure, clock-injected debouncing for contacts (buttons, doors, key switch).

Owns: ``Debouncer`` (a level is believed only after it held for ``settle_s``) and
``RefireGuard`` (one intent per action per ``guard_s``).  Works from edge timestamps,
so it holds whatever the pin factory and however late the consumer runs.
Must not import: gpiozero, serial, time, threading, cabinet.*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Transition:
    """A debounced change: the contact settled at ``level`` from time ``at_s``."""

    level: bool
    at_s: float


class Debouncer:
    """Level debouncer for one contact.

    A raw level counts only once it lasted ``settle_s`` without another edge; chatter
    shorter than that is invisible, and a glitch shorter than that never reports.
    Stability is judged from edge timestamps, so edges processed late (the consumer
    was busy) give exactly the same result as edges processed at once.

    Args:
        settle_s: seconds a level must hold, > 0 (5 ms suits push buttons).
        initial: the level believed at start (True = active).
    """

    def __init__(self, settle_s: float, initial: bool = False) -> None:
        if settle_s <= 0:
            raise ValueError("settle_s must be > 0")
        self.settle_s = settle_s
        self.stable = initial
        self._level = initial
        self._since = -math.inf

    def edge(self, level: bool, at_s: float) -> list[Transition]:
        """Record a raw edge at ``at_s`` (seconds).  Returns transitions it proves."""
        out: list[Transition] = []
        if level == self._level:
            return out
        if at_s - self._since >= self.settle_s and self._level != self.stable:
            self.stable = self._level
            out.append(Transition(self._level, self._since))
        self._level, self._since = level, at_s
        return out

    def poll(self, now_s: float) -> list[Transition]:
        """Report the current raw level if it has now held for ``settle_s``."""
        if self._level != self.stable and now_s - self._since >= self.settle_s:
            self.stable = self._level
            return [Transition(self._level, self._since)]
        return []

    def deadline(self) -> float | None:
        """When ``poll`` could next report something (seconds), or None."""
        return self._since + self.settle_s if self._level != self.stable else None


class RefireGuard:
    """Accept at most one press per ``guard_s`` seconds (e.g. Deal hammered 5 times).

    Args:
        guard_s: minimum seconds between accepted presses, >= 0.
    """

    def __init__(self, guard_s: float) -> None:
        self.guard_s = guard_s
        self._last = -math.inf

    def allow(self, at_s: float) -> bool:
        """True if a press at ``at_s`` is a new intent; it then starts a new window."""
        if at_s - self._last < self.guard_s:
            return False
        self._last = at_s
        return True

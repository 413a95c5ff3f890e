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

    With ``hold_s`` (switches: the key, doors), a reported change is the last one
    for ``hold_s``: a contact that bounces for longer than ``settle_s`` still gives
    one change per real move.  A level still held when the hold
    ends is reported then (late, never lost), so the believed level always ends
    equal to the contact's.

    Args:
        settle_s: seconds a level must hold, > 0 (5 ms suits push buttons).
        initial: the level believed at start (True = active).
        hold_s: seconds after a reported change before another may be, >= 0
            (0: none, the button case; buttons have ``RefireGuard`` instead).
    """

    def __init__(self, settle_s: float, initial: bool = False, hold_s: float = 0.0) -> None:
        if settle_s <= 0:
            raise ValueError("settle_s must be > 0")
        if hold_s < 0:
            raise ValueError("hold_s must be >= 0")
        self.settle_s = settle_s
        self.hold_s = hold_s
        self.stable = initial
        self._level = initial
        self._since = -math.inf
        self._changed = -math.inf  # when the last change was proven

    def _due(self) -> float:
        """When the current raw level becomes believable (seconds)."""
        return max(self._since + self.settle_s, self._changed + self.hold_s)

    def edge(self, level: bool, at_s: float) -> list[Transition]:
        """Record a raw edge at ``at_s`` (seconds).  Returns transitions it proves."""
        out: list[Transition] = []
        if level == self._level:
            return out
        if self._level != self.stable and at_s >= self._due():
            out.append(self._prove())
        self._level, self._since = level, at_s
        return out

    def poll(self, now_s: float) -> list[Transition]:
        """Report the current raw level if it has now held long enough."""
        if self._level != self.stable and now_s >= self._due():
            return [self._prove()]
        return []

    def _prove(self) -> Transition:
        self._changed = self._due()
        self.stable = self._level
        return Transition(self._level, self._since)

    def deadline(self) -> float | None:
        """When ``poll`` could next report something (seconds), or None."""
        return self._due() if self._level != self.stable else None


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

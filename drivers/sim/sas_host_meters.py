"""The host twin's meter rollback alarm, as a casino's CMS raises one.

Owns: ``MeterAlarm`` and ``MeterWatch``: the last value the host read of each of a
machine's lifetime meters (from its database at start, so a host restart forgets
nothing) and the check of each new reading against it. A lifetime meter read lower
than the host last read it means the EGM's memory was set back: a restored SD-card
image of the cabinet (the $200 it paid out gone from its coin-out meter), a RAM
clear, a replaced board. The host detects this; the EGM cannot read the host's
database (SAS gives it no poll for that), so the cabinet's own detection is its
hardware counter (``cabinet.shell.journal.counter``).

Not watched: ``current_credits`` (0x1A), which goes down in play. A drop from the top
tenth of a 4-byte BCD meter's range (99,999,999) to its bottom tenth is a rollover,
not an alarm. Each drop is flagged once; the watch then follows the new value.
Must not import: cabinet.*. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: Meters that go down in normal play.
NOT_LIFETIME = frozenset({"current_credits"})
#: A 4-byte BCD meter's largest value (it rolls over to 0 after it).
METER_MAX = 99_999_999


@dataclass(frozen=True, slots=True)
class MeterAlarm:
    """A lifetime meter read lower than before: ``last`` (what the host had read),
    ``now`` (what it read), ``at`` (Unix seconds). Credits or counts, as read."""

    name: str
    last: int
    now: int
    at: float


class MeterWatch:
    """One machine's last-read lifetime meters (``last``: name -> value)."""

    def __init__(self, last: Mapping[str, int] | None = None) -> None:
        self.last = {k: v for k, v in (last or {}).items() if k not in NOT_LIFETIME}

    def check(self, values: Mapping[str, int], at: float) -> list[MeterAlarm]:
        """The meters of one reading that went back; ``last`` follows the reading."""
        alarms = []
        for name, now in values.items():
            if name in NOT_LIFETIME:
                continue
            last = self.last.get(name)
            rollover = last is not None and last > METER_MAX * 9 // 10 and now < METER_MAX // 10
            if last is not None and now < last and not rollover:
                alarms.append(MeterAlarm(name, last, now, at))
            self.last[name] = now
        return alarms

"""A player's session at a station and its reminders (issue 17 "reality check").

Owns: ``Session`` and ``follow``. A station's session starts with its first credit in
(the credit meter goes above zero with no session running) and ends at a cash-out to
zero (a ``cash_out`` press that leaves the meter at zero). Its net is the sum over its
rounds of what they paid back less what they staked (voided rounds: 0), counted from
the rounds' recall records (``SaveRecall``). Every ``GameSettings.reality_check_min``
minutes of a session (0 = off) a reminder is due: the minutes played and the net,
shown until the player touches it (``dismiss``); the next one comes N minutes after
the one before, never stacked. Sessions live in memory only: a restart starts them
again at the next credit in. Pure: time is ``CabinetState.now_ms`` (the shell's ticks).
"""

from __future__ import annotations

from dataclasses import dataclass

from cabinet.core.effects import Effect, SaveRecall
from cabinet.core.events import Event, IntentReceived
from cabinet.core.state import CabinetState
from cabinet.protocol.snapshot import RealityCheck

MINUTE_MS = 60_000


@dataclass
class Session:
    """One station's session: ``start_ms`` (monotonic ms of the first credit in), its
    net so far (minor units), the reminders given (``told``) and the one shown now."""

    start_ms: int
    net_minor: int = 0
    told: int = 0
    shown: RealityCheck | None = None


def follow(sessions: dict[int, Session], s: CabinetState, event: Event,
           out: list[Effect]) -> None:
    """After every event: count the rounds just recorded, start and end sessions, and
    make a reminder due when its minute comes (see the module docstring)."""
    for eff in out:
        if isinstance(eff, SaveRecall) and eff.entry.station in sessions and not eff.entry.voided:
            sessions[eff.entry.station].net_minor += \
                eff.entry.returned_minor - eff.entry.wagered_minor
    period = s.settings.reality_check_min * MINUTE_MS
    for st in s.stations:
        n = st.station
        if isinstance(event, IntentReceived) and event.station == n \
                and event.action == "cash_out" and st.credits_minor == 0:
            sessions.pop(n, None)                  # the cash-out to zero ends it
            continue
        ses = sessions.get(n)
        if ses is None:
            if st.credits_minor > 0:
                sessions[n] = Session(start_ms=s.now_ms)
            continue
        if not period:
            ses.shown = None
            continue
        elapsed = s.now_ms - ses.start_ms
        if ses.shown is None and elapsed >= (ses.told + 1) * period:
            ses.told = elapsed // period
            ses.shown = RealityCheck(elapsed_min=elapsed // MINUTE_MS, net_minor=ses.net_minor)
    for n in [n for n in sessions if n > len(s.stations)]:
        del sessions[n]                            # a station removed by the settings


def dismiss(sessions: dict[int, Session], station: int) -> None:
    """Station ``station``'s player touched its reminder: it goes (the session goes on)."""
    ses = sessions.get(station)
    if ses is not None:
        ses.shown = None

"""A player's session at a station and its reminders ("reality check").

Owns: ``follow`` and ``dismiss``. A station's session (``StationState.session``,
committed with the state, so a restart goes on counting) starts with its first credit
in (the credit meter goes above zero with no session running) and ends at a cash-out to
zero (a ``cash_out`` press that leaves the meter at zero). Its net is the sum over its
rounds of what they paid back less what they staked (voided rounds: 0), counted from
the rounds' recall records (``SaveRecall``). Every ``GameSettings.reality_check_min``
minutes of a session (0 = off) a reminder is due: the minutes played and the net,
shown until the player touches it (``dismiss``); the next one comes N minutes after
the one before, never stacked. Session time is wall time (``CabinetState.wall_s``, the
shell's ticks), so the minutes a cabinet was off count: the player's session went on.
The reminder on screen is memory only (``shown``): a restart does not show a
reminder already given again. Pure.
"""

from __future__ import annotations

from cabinet.core.effects import Effect, SaveRecall
from cabinet.core.events import Event, IntentReceived
from cabinet.core.state import CabinetState, PlayerSession, StationState
from cabinet.protocol.snapshot import RealityCheck

MINUTE_MS = 60_000


def follow(shown: dict[int, RealityCheck], s: CabinetState, event: Event, out: list[Effect]) -> None:
    """After every event: count the rounds just recorded, start and end sessions, and
    make a reminder due when its minute comes (see the module docstring). ``shown``:
    station -> the reminder on its screen now."""
    by_station = {st.station: st for st in s.stations}
    for eff in out:
        if isinstance(eff, SaveRecall) and not eff.entry.voided:
            st = by_station.get(eff.entry.station)
            if st is not None and st.session is not None:
                st.session.net_minor += eff.entry.returned_minor - eff.entry.wagered_minor
    period = s.settings.reality_check_min * MINUTE_MS
    for st in s.stations:
        n = st.station
        if ends_session(event, st):
            st.session = None
            shown.pop(n, None)
            continue
        ses = st.session
        if ses is None:
            if st.credits_minor > 0:
                st.session = PlayerSession(start_wall_s=s.wall_s)
            continue
        if not period:
            shown.pop(n, None)
            continue
        elapsed = max(0, int((s.wall_s - ses.start_wall_s) * 1000))
        if n not in shown and elapsed >= (ses.told + 1) * period:
            ses.told = elapsed // period
            shown[n] = RealityCheck(elapsed_min=elapsed // MINUTE_MS, net_minor=ses.net_minor)
    for n in [n for n in shown if n not in by_station]:
        del shown[n]  # a station removed by the settings


def ends_session(event: Event, st: StationState) -> bool:
    """``event`` is station ``st``'s cash-out press that left its meter at zero: its
    player has gone (the session ends; so does a Service call, ``player_desk``)."""
    return (
        isinstance(event, IntentReceived)
        and event.station == st.station
        and event.action == "cash_out"
        and st.credits_minor == 0
    )


def dismiss(shown: dict[int, RealityCheck], station: int) -> None:
    """Station ``station``'s player touched its reminder: it goes (the session goes on)."""
    shown.pop(station, None)

"""What a player asks of the table for themself ("What a player expects"):
the History panel of their own station's last rounds, the session reminders
(``cabinet.core.sessions``) and the Service call (the attendant, without stopping play:
the tower's service lamp, journaled ``service_called``/``service_cancelled``, which the
host hears as SAS 0x71/0x72 "change lamp on/off"; cancelled by a second touch or the
attendant's key).

Owns: ``PLAYER_ACTIONS`` (the intents that are a player's look, never a move: they
are taken in every mode but the operator menu, change no money and no lamp),
``PlayerDesk`` (which stations have their panel open, with the rows; memory only,
not journaled: a restart closes the panels; the sessions and Service calls are
committed state), ``press`` and ``dress`` (the station's
view with its panel). Pure: the rows come from the journal's recall entries
(``History.recall``, newest first), the same the Game recall page reads.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

import msgspec

from cabinet.core import sessions
from cabinet.core.desk_state import PlayerDesk
from cabinet.core.effects import Effect, Journal
from cabinet.core.events import Event, KeyChanged
from cabinet.core.maintenance.recall_view import recall_view
from cabinet.core.records import RecallEntry
from cabinet.core.state import CabinetState
from cabinet.protocol.snapshot import RoundLine, StationView

#: "the last 10 rounds of this station on a touch".
HISTORY_ROUNDS = 10
PLAYER_ACTIONS = frozenset({"history", "history_close", "reminder_ok", "service"})
__all__ = ["HISTORY_ROUNDS", "PLAYER_ACTIONS", "PlayerDesk", "dress", "follow", "press", "round_line", "tower"]


class _Recall(Protocol):
    def recall(self, station: int, limit: int) -> list[RecallEntry]: ...


def round_line(e: RecallEntry) -> RoundLine:
    """A recall entry as one History row (cards, stakes, result, net)."""
    v = recall_view(e, 1, 1)
    hands = [h for sp in v.table.spots for h in sp.hands]
    when = dt.datetime.fromtimestamp(e.wall_s).strftime("%H:%M") if e.wall_s else ""
    return RoundLine(
        round_id=e.round_id,
        when=when,
        dealer=v.dealer.cards,
        dealer_text=v.dealer.total_text,
        hands=hands,
        wagered_minor=e.wagered_minor,
        returned_minor=e.returned_minor,
        net_minor=0 if e.voided else e.returned_minor - e.wagered_minor,
        voided=e.voided,
    )


def press(desk: PlayerDesk, s: CabinetState, history: _Recall, station: int, action: str, out: list[Effect]) -> None:
    """Station ``station`` touched ``action`` (one of ``PLAYER_ACTIONS``): "history" shows
    its last ``HISTORY_ROUNDS`` rounds as the shell read them for the touch
    (``shell_inputs.desk_query``; the panel shows them as of the touch);
    "history_close" closes its panel; "reminder_ok" dismisses its reminder;
    "service" calls the attendant, or cancels its call (a cash-out to zero cancels it too:
    ``follow``)."""
    if action == "history":
        desk.history[station] = [round_line(e) for e in history.recall(station, HISTORY_ROUNDS)]
    elif action == "history_close":
        desk.history.pop(station, None)
    elif action == "reminder_ok":
        sessions.dismiss(desk.shown, station)
    elif action == "service":
        st = next((x for x in s.stations if x.station == station), None)
        if st is None:
            return
        st.service_called = not st.service_called
        if st.service_called:
            out.append(Journal("service_called", station, 0, {}))
        else:
            out.append(Journal("service_cancelled", station, 0, {"by": "player"}))


def follow(desk: PlayerDesk, s: CabinetState, event: Event, out: list[Effect]) -> None:
    """After every event (``Cabinet.handle``): the sessions and their reminders; the
    attendant's key turned on answers every Service call."""
    sessions.follow(desk.shown, s, event, out)
    for st in s.stations:
        if st.service_called and sessions.ends_session(event, st):
            st.service_called = False  # the player who called has cashed out and gone
            out.append(Journal("service_cancelled", st.station, 0, {"by": "cash_out"}))
    if isinstance(event, KeyChanged) and event.on:
        for st in s.stations:
            if st.service_called:
                st.service_called = False
                out.append(Journal("service_cancelled", st.station, 0, {"by": "attendant_key"}))


def tower(s: CabinetState, light: str) -> str:
    """The tower light with the Service calls: ``service`` (amber) when a call stands
    and nothing else lights it (a lockup's own light wins)."""
    return "service" if light == "off" and any(st.service_called for st in s.stations) else light


def dress(desk: PlayerDesk, s: CabinetState, view: StationView) -> StationView:
    """``view`` with its station's open panel, due reminder and Service call, if any (no
    other station's)."""
    rows = desk.history.get(view.station)
    shown = desk.shown.get(view.station)
    called = any(st.service_called for st in s.stations if st.station == view.station)
    if rows is None and shown is None and not called:
        return view
    return msgspec.structs.replace(view, history=rows, reminder=shown, service=called)

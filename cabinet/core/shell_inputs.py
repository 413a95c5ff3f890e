"""What the shell reads for the core arrives as events: their handlers.

Owns: the handlers of ``HistoryLoaded`` (the journal rows the open menu page
shows), ``ProgramChecked`` (this start's program identity), ``HostPollsRead``
(the casino host links' live status) and ``StorageFailed`` (the storage tilt),
each ``handler(cab, event, out)`` as ``Cabinet``'s handler table calls it; and
``history_query``, what the open page shows of the journal, which the shell
reads (``read_history``) when the page opens and again after a commit, and
``desk_query``, the rounds a player's History panel opens on, and
``event_query``, the rows any event decides on (that touch, a ticket found in the
cash box, the RAM clear's and the audit export's Select), read before the event is
handled (``cabinet.shell.engine``) and kept for that event only (``rows_for``).

The shell never sets an attribute of the ``Cabinet``: it hands in data, and only
these handlers store it (tests/test_shell_inputs.py holds that). Pure but for
``read_history``, which reads through the ``History`` the shell hands it.
"""

from __future__ import annotations

from typing import Any

from cabinet.core.context import OUTSTANDING, History, LoadedHistory, MaintenanceContext, ViewContext
from cabinet.core.effects import Effect
from cabinet.core.events import (
    Event,
    HistoryLoaded,
    HistoryQuery,
    HostPollsRead,
    IntentReceived,
    KeyChanged,
    ProgramChecked,
    StorageFailed,
)
from cabinet.core.maintenance.event_log import EVENT_LOG_DEPTH
from cabinet.core.maintenance.export import AUDIT_HANDPAYS
from cabinet.core.maintenance.history import BILL_KINDS, EVENT_FILTERS, HANDPAY_KINDS, HISTORY_DEPTH
from cabinet.core.maintenance.menu import BUTTON_MENU
from cabinet.core.modes import MODE_TABLE
from cabinet.core.player_desk import HISTORY_ROUNDS
from cabinet.protocol.faults import FaultCode


def history_query(cab: MaintenanceContext) -> HistoryQuery | None:
    """What the open menu page shows of the journal, or ``None`` when no page that
    shows the journal is open (``cabinet.core.maintenance.history`` and the Game
    recall page read exactly these rows)."""
    m = cab.s.maintenance
    if m is None or m.entry is not None:
        return None
    if m.page == "recall":
        return HistoryQuery(recall_limit=cab.s.settings.recall_depth)
    if m.page == "events":
        return HistoryQuery(events_limit=EVENT_LOG_DEPTH, event_kinds=EVENT_FILTERS.get(m.filter))
    if m.page == "bills":
        return HistoryQuery(events_limit=HISTORY_DEPTH, event_kinds=BILL_KINDS)
    if m.page == "vouchers":
        return HistoryQuery(vouchers_limit=HISTORY_DEPTH)
    if m.page == "handpays":
        return HistoryQuery(events_limit=HISTORY_DEPTH * 3, event_kinds=HANDPAY_KINDS)
    if m.page == "ram_clear":
        return HistoryQuery(outstanding=True)
    return None


def desk_query(cab: ViewContext, ev: Event) -> HistoryQuery | None:
    """What a player's touch of "history" opens (``player_desk.press``: the station's
    newest ``HISTORY_ROUNDS`` rounds), read by the shell before the touch is handled;
    ``None`` for any other event, and in the menu (where the touch is a menu move)."""
    if isinstance(ev, IntentReceived) and ev.action == "history" and MODE_TABLE[cab.mode].lamps != "menu":
        return HistoryQuery(recall_limit=HISTORY_ROUNDS, recall_station=ev.station)
    return None


def event_query(cab: ViewContext, ev: Event) -> HistoryQuery | None:
    """The journal rows event ``ev`` decides on, read by the shell right before it is
    handled and handed in as ``HistoryLoaded`` (the core keeps them for ``ev`` only:
    ``context.rows_for``); ``None``: ``ev`` reads none.

    - a player's touch of "history": ``desk_query``;
    - the key turned on with a ticket found in the cash box waiting
      (``TicketClaims.ticket_in_box``): the outstanding vouchers (``OUTSTANDING``);
    - Select on the RAM clear page: the outstanding vouchers it records it keeps;
    - Select on the Export page: the handpays the audit report lists
      (``export.AUDIT_HANDPAYS``).
    """
    desk = desk_query(cab, ev)
    if desk is not None:
        return desk
    s = cab.s
    if isinstance(ev, KeyChanged) and ev.on and s.note_reviews and s.note_reviews[0].validation_number:
        return OUTSTANDING
    m = s.maintenance
    if (
        isinstance(ev, IntentReceived)
        and m is not None
        and m.entry is None
        and MODE_TABLE[cab.mode].lamps == "menu"
        and BUTTON_MENU.get(ev.action, ev.action) in ("menu_select", "menu_pick")
    ):
        if m.page == "ram_clear":
            return OUTSTANDING
        if m.page == "export":
            return AUDIT_HANDPAYS
    return None


def read_history(history: History, query: HistoryQuery) -> HistoryLoaded:
    """The rows ``query`` asks for, read from ``history`` (the shell calls this with
    its journal, outside ``handle``; the reads raise what ``history`` raises)."""
    events: list[dict[str, Any]] = []
    if query.events_limit and query.event_kinds is None:
        events = history.events(query.events_limit)
    elif query.events_limit and query.event_kinds is not None:
        events = history.events_of(query.event_kinds, query.events_limit)
    return HistoryLoaded(
        query,
        tuple(history.recall(query.recall_station, query.recall_limit)) if query.recall_limit else (),
        tuple(events),
        tuple(history.vouchers(query.vouchers_limit)) if query.vouchers_limit else (),
        tuple(history.outstanding_vouchers()) if query.outstanding else (),
    )


def history_loaded(cab: MaintenanceContext, ev: HistoryLoaded, out: list[Effect]) -> None:
    """The open page shows ``ev``'s rows from now on; the next event decides on them
    (``context.rows_for``)."""
    cab.shown = LoadedHistory(ev)
    cab.handed = ev


def program_checked(cab: MaintenanceContext, ev: ProgramChecked, out: list[Effect]) -> None:
    """The program's identity for the menu pages (memory only)."""
    cab.program_id, cab.program_digest, cab.program_status = ev.program_id, ev.digest, ev.status


def host_polls_read(cab: MaintenanceContext, ev: HostPollsRead, out: list[Effect]) -> None:
    """The host links' live status for the Host page (memory only)."""
    cab.host_polls = dict(ev.polls)


def storage_failed(cab: MaintenanceContext, ev: StorageFailed, out: list[Effect]) -> None:
    """The storage tilt's fault (nothing journaled: the journal cannot be written)."""
    cab.s.faults = {**cab.s.faults, FaultCode.STORAGE_FAILURE: ev.reason}


def shows_host_polls(cab: MaintenanceContext) -> bool:
    """The Host page is open: the shell keeps its live status current (``HostPollsRead``)."""
    m = cab.s.maintenance
    return m is not None and m.entry is None and m.page == "host"

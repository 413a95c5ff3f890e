"""The cabinet's side of the casino host link: the host event queue and
the host's commands.

Owns: ``HostLink``, the host owner's link machine (``Cabinet.host_link``; each station's
``HostState`` but its tickets): queueing the host events each ``handle`` raises
(``queue_host_events``, called
by ``Cabinet.handle`` after every event, so the queue is journaled in the same
transaction as what raised it: exactly once across a SIGKILL), dropping acknowledged
ones (``HostEventAcked``), the link state (``HostLinkChanged``), and carrying out or
refusing the host's commands (``HostCommanded``), each journaled as ``host_command``
with the host as its source. Pure: no I/O, no clock.

Rules ("Host control"; research/sas.md "Long polls the cabinet needs"):
shut down (0x01) and maintenance mode (0x0A) disable play at the station after the
round in progress, the table says so and the lamps agree (cash-out stays possible);
start up (0x02) and exit maintenance mode (0x0B) enable it again; the bill acceptor
enable/disable and denominations (0x06-0x08) narrow what the settings enable, never
widen it; the host's clock (0x7F) is journaled as an offset, the cabinet's own clock is
not changed; a remote handpay reset (0x94) resets the station's handpay only when that
station's handpay is the one showing and no rule forbids it now.
"""

from __future__ import annotations

from cabinet.core import access
from cabinet.core.effects import Effect, Journal, Rejected
from cabinet.core.events import (
    HOST_COMMANDS,
    HostCommanded,
    HostEventAcked,
    HostLinkChanged,
    HostLinkConfigured,
)
from cabinet.core.host_events import HOST_QUEUE_MAX, OVERFLOW, host_events_for
from cabinet.core.queries import CabinetQueries, Machine
from cabinet.core.state import HostEvent, HostState, StationState
from cabinet.protocol.said import N_

#: Why play is disabled, in the player's words, by ``HostState.disabled_by``.
DISABLED_TEXT = {
    "shut_down": N_("Play disabled by the casino host"),
    "enter_maintenance_mode": N_("Out of service: casino host maintenance"),
}


class HostLink(Machine):
    """The host link's events and commands (``Cabinet.host_link``)."""

    def __init__(self, cab: CabinetQueries) -> None:
        super().__init__(cab)
        #: the operator menu was entered with the logic area open (the host's
        #: event for it says operator, not attendant); memory only
        self.menu_technician = False

    # -- the queue -----------------------------------------------------------------------

    def queue_host_events(self, out: list[Effect]) -> None:
        """Queue the host events the journal effects in ``out`` raise, and apply a
        pending shut down once no round is open."""
        s = self.s
        for eff in list(out):
            if not isinstance(eff, Journal):
                continue
            if eff.kind == "maintenance_enter":
                # the menu entered with the logic area open is the operator menu
                self.menu_technician = access.ram_clear_door_open(s.doors_open)
            raised = host_events_for(eff, self.menu_technician)
            if eff.kind == "power_up" and s.ram_error:  # the journal failed its check
                raised.append((0, "cmos_ram_error_no_data_recovered", 0))
            for station, name, amount in raised:
                targets = s.stations if station == 0 else [st for st in s.stations if st.station == station]
                for st in targets:
                    _push(st.host, self._details(st, eff, name, amount))
            if eff.kind in ("voucher_printed", "handpay") and eff.data.get("validation_number"):
                for st in s.stations:
                    if st.station == eff.station:  # SAS 0x3D: the last cash-out ticket
                        st.host.last_ticket_number = str(eff.data["validation_number"])
                        st.host.last_ticket_minor = eff.amount_minor
        if not s.round_open:
            for st in s.stations:
                h = st.host
                if h.disable_pending:
                    h.disabled, h.disabled_by, h.disable_pending = True, h.disable_pending, ""
                    out.append(
                        Journal(
                            "host_command",
                            st.station,
                            0,
                            {"command": h.disabled_by, "source": "host", "result": "done", "note": "after the round"},
                        )
                    )

    def _details(self, st: StationState, eff: Journal, name: str, amount_minor: int) -> HostEvent:
        """The event as queued, with the values its real-time form carries (``HostEvent``)."""
        ev = HostEvent(event_id=0, name=name, amount_minor=amount_minor)
        if name == "game_started":
            bets = eff.data.get("bets", {})
            spots = [int(b) for b in bets.get(st.station, bets.get(str(st.station), []))]
            ev.amount_minor, ev.meter_minor = sum(spots), st.meters.coin_in_minor
            ev.max_bet = any(b >= self.cab.rules.max_bet_minor for b in spots)
        elif name == "game_ended":
            ev.amount_minor = eff.amount_minor
        elif name == "bill_accepted":
            ev.count = st.meters.bills_by_denom.get(str(amount_minor), 0)
        return ev

    def on_host_acked(self, ev: HostEventAcked, out: list[Effect]) -> None:
        """The host took the events up to ``event_id``: drop them from the queue."""
        st = self.cab.station(ev.station)
        if st is None:
            out.append(Rejected(f"host ack from station {ev.station}", "no such station"))
            return
        st.host.queue = [e for e in st.host.queue if e.event_id > ev.event_id]

    def on_host_configured(self, ev: HostLinkConfigured, out: list[Effect]) -> None:
        """The shell's link settings at start: a station without one drops its queue;
        one with a link is offline (since now) until the host's first poll."""
        st = self.cab.station(ev.station)
        if st is None:
            out.append(Rejected(f"host link of station {ev.station}", "no such station"))
            return
        h = st.host
        if not ev.address:
            if h.link or h.queue:
                out.append(Journal("host_link", st.station, 0, {"link": "none"}))
            h.link, h.address, h.port, h.queue = "", 0, "", []
            return
        h.address, h.port = ev.address, ev.port
        h.link, h.link_since_s = "offline", ev.wall_s
        h.validation = ev.validation if ev.validation in ("none", "system") else "none"
        h.validation_timeout_ms = int(ev.validation_timeout_s * 1000)
        h.denomination_minor = max(1, ev.denomination_minor)
        out.append(
            Journal(
                "host_link",
                st.station,
                0,
                {
                    "link": "offline",
                    "address": ev.address,
                    "port": ev.port,
                    "validation": h.validation,
                    "validation_timeout_ms": h.validation_timeout_ms,
                    "denomination_minor": h.denomination_minor,
                },
            )
        )

    def on_host_link(self, ev: HostLinkChanged, out: list[Effect]) -> None:
        """The host link went up or down (journaled once per change)."""
        st = self.cab.station(ev.station)
        if st is None:
            out.append(Rejected(f"host link of station {ev.station}", "no such station"))
            return
        h = st.host
        link = "online" if ev.up else "offline"
        if h.link != link:
            h.link, h.link_since_s = link, self.s.wall_s
            out.append(Journal("host_link", st.station, 0, {"link": link}))
            if not ev.up:
                self.cab.tito.tito_link_down(st, out)

    # -- commands ----------------------------------------------------------------------------

    def on_host_command(self, ev: HostCommanded, out: list[Effect]) -> None:
        """Carry out or refuse a host command; journaled as ``host_command`` with the result."""
        st = self.cab.station(ev.station)
        what = f"host {ev.name} for station {ev.station}"
        if st is None or ev.name not in HOST_COMMANDS:
            out.append(Rejected(what, "no such station" if st is None else "unknown command"))
            return
        h = st.host
        result = "done"
        data: dict[str, object] = {}
        if ev.name in DISABLED_TEXT:
            if self.s.round_open and any(x.station == st.station and x.in_round for x in self.s.stations):
                h.disable_pending, result = ev.name, "after the round"
            else:
                h.disabled, h.disabled_by, h.disable_pending = True, ev.name, ""
        elif ev.name in ("start_up", "exit_maintenance_mode"):
            wanted = "shut_down" if ev.name == "start_up" else "enter_maintenance_mode"
            if h.disable_pending == wanted:
                h.disable_pending = ""
            if h.disabled and h.disabled_by == wanted:
                h.disabled, h.disabled_by = False, ""
            else:
                result = "nothing to undo"
        elif ev.name in ("enable_bill_acceptor", "disable_bill_acceptor"):
            h.bills_disabled = ev.name == "disable_bill_acceptor"
        elif ev.name == "configure_bill_denominations":
            h.bills_minor = sorted(set(ev.bills_minor))
            data["bills_minor"] = h.bills_minor
        elif ev.name == "set_clock":
            if ev.host_wall_s is None:
                out.append(Rejected(what, "no date and time"))
                return
            self.s.host_clock_offset_s = round(ev.host_wall_s - self.s.wall_s, 3)
            data["offset_s"] = self.s.host_clock_offset_s
        elif ev.name == "validation_number":  # 0x58
            result = self.cab.tito.on_validation_number(st, ev, out)
            data["validation_number"] = ev.validation_number[-4:]
        elif ev.name == "redeem_ticket":  # 0x71
            result = self.cab.tito.on_redeem(st, ev, out)
            data.update(transfer_code=ev.transfer_code, amount_minor=ev.amount_minor)
        elif ev.name in ("set_ticket_data", "set_extended_validation_status"):
            data.update(self.cab.tito.on_ticket_data(st, ev))  # 0x7D / 0x7C / 0x7B
        elif ev.name == "handpay_reset_to_credit_meter":
            result = "refused: the operator allows no handpay reset to the credit meter"
        else:  # remote_handpay_reset
            result = self._host_handpay_reset(st.station, out)
        out.append(
            Journal("host_command", st.station, 0, {"command": ev.name, "source": "host", "result": result, **data})
        )

    def _host_handpay_reset(self, station: int, out: list[Effect]) -> str:
        hp = self.s.handpay
        if hp is None or hp.station != station:
            return "refused: no handpay pending at this station"
        if self.s.maintenance is not None:
            return "refused: the operator menu is open"
        self.cab.ledger.reset_handpay(out)
        return "done"

    # -- what the rest of the cabinet asks ---------------------------------------------

    def host_bills_minor(self, station: int, enabled: tuple[int, ...]) -> tuple[int, ...]:
        """The bill values ``station``'s acceptor takes: the settings' ``enabled``, narrowed
        by the host (0x06-0x08); ``()`` when the host disabled bills or play."""
        st = self.cab.station(station)
        if st is None:
            return enabled
        h: HostState = st.host
        if h.bills_disabled or h.disabled:
            return ()
        if h.bills_minor is None:
            return enabled
        return tuple(v for v in enabled if v in h.bills_minor)


def _push(h: HostState, ev: HostEvent) -> None:
    """Append one event (its id given here); a full queue keeps its last slot for the
    overflow event.  Nothing is queued for a station without a host link."""
    if not h.link:
        return
    if h.queue and h.queue[-1].name == OVERFLOW and len(h.queue) >= HOST_QUEUE_MAX:
        return
    if len(h.queue) >= HOST_QUEUE_MAX - 1:
        ev = HostEvent(event_id=0, name=OVERFLOW)
    ev.event_id = h.next_event_id
    h.queue.append(ev)
    h.next_event_id += 1

"""``Cabinet``: the whole cabinet as one pure state machine.

Owns: ``handle`` (the one entry point, ``handle(event) -> list[Effect]``, plus
``snapshot()``; STYLE.md 5.1-5.6), the intent dispatch, the lamps, acceptor
enable and tower light each mode calls for (read from
``cabinet.core.modes.MODE_TABLE``; ``mode_of`` there derives the mode); RAM
clear and settings changes (called from the operator menu). The rest
of the cabinet is composed of machines, one per owner, each a plain class
holding the cabinet as ``cabinet.core.queries.CabinetQueries`` (what it reads, and
the port of each other machine): ledger (``cashout.Ledger``), table
(``betting.Betting``, ``play.Table``), acceptance (``money_in.Acceptance``), host
(``host.HostLink``, ``tito.Tito``, ``tito_claims.TicketClaims``) and service
(``doors.Service``, ``displays.Displays``). ``handle`` dispatches each event to
the machine that owns it. The state stays one journaled record
(``CabinetState``); each machine's module says which part of it it changes.

Pure: no I/O, no clock (time arrives in ``Tick``), no global randomness (the
shuffle and validation numbers draw from the injected ``rng``). The shell
journals the new state and the journal effects in one transaction after
every ``handle`` and only then runs the device effects (DESIGN.md "Money
moves exactly once"). Must not import ``drivers`` or ``ui``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cabinet.core import maintenance, player_desk, reconfigure, shell_inputs
from cabinet.core.betting import Betting
from cabinet.core.cashout import Ledger
from cabinet.core.context import History, LoadedHistory, NoRandom, RandomSource
from cabinet.core.displays import Displays
from cabinet.core.doors import Service
from cabinet.core.effects import (
    Effect,
    Journal,
    Rejected,
    SetAcceptor,
    SetLamps,
    SetTowerLight,
)
from cabinet.core.errors import present
from cabinet.core.events import (
    AuditExported,
    DeviceCleared,
    DeviceFaulted,
    DisplayChanged,
    DoorChanged,
    DoorOpenedWhileOff,
    Event,
    HistoryLoaded,
    HostCommanded,
    HostEventAcked,
    HostLinkChanged,
    HostLinkConfigured,
    HostPollsRead,
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    NoteReturned,
    NoteStacked,
    NoteUncredited,
    PowerUp,
    PrintFinished,
    ProgramChecked,
    ProgramInstalled,
    StorageFailed,
    Tick,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.host import HostLink
from cabinet.core.maintenance import bill_test, diagnostics
from cabinet.core.meters import Meters
from cabinet.core.modes import MODE_TABLE, ROUND_ACTIONS, Mode, mode_of
from cabinet.core.money_in import Acceptance
from cabinet.core.play import Table
from cabinet.core.reconfigure import new_state
from cabinet.core.settings import GameSettings
from cabinet.core.state import CabinetState, PrintingState, StationState
from cabinet.core.tito import Tito
from cabinet.core.tito_claims import TicketClaims
from cabinet.game import GameError, Round, RuleSet, StateError


class Cabinet:
    """The cabinet core.

    Args:
        state: restored critical state, or ``None`` for a fresh cabinet.
        round_state: the journaled round (``Round.to_dict()``), or ``None``.
        rng: the random source for shuffles and validation numbers (the shell
            hands in ``secrets.SystemRandom()``); ``None``: a source that raises
            ``RuntimeError`` when drawn from (the core holds no randomness of its own).

    The core reads no journal: the rows an event or an open page needs arrive as
    data (``HistoryLoaded``, ``cabinet.core.shell_inputs``).

    A ``round_state`` that cannot be restored while a round is open voids
    that round at the next ``PowerUp`` (RULES.md "Malfunctions void all
    plays and pays").
    """

    def __init__(
        self,
        state: CabinetState | None = None,
        round_state: dict[str, Any] | None = None,
        rng: RandomSource | None = None,
    ) -> None:
        self.s = state if state is not None else new_state()
        self.rng: RandomSource = rng if rng is not None else NoRandom()
        self.shown: History = LoadedHistory()  # what the open page shows (``HistoryLoaded``)
        #: the rows read for the event being handled (``shell_inputs.event_query``)
        self.handed: HistoryLoaded | None = None
        self.rules: RuleSet = self.s.settings.validate()
        self.round: Round | None = None
        self.round_unrestorable = False
        if round_state is not None:
            try:
                self.round = Round.from_dict(round_state)
            except (StateError, GameError):
                self.round_unrestorable = True
        elif self.s.round_open:
            self.round_unrestorable = True
        self._lamps: dict[int, frozenset[str]] = {}
        self._acceptor: dict[int, tuple[bool, tuple[int, ...], bool]] = {}
        self._tower = ""
        #: A screen draws the whole table; ``station_displays``: station -> its own
        #: screen draws it (``cabinet.core.displays``). Not journaled: the UI server says
        #: ``DisplayChanged(False)`` when it starts and True on a screen's first frame.
        self.display_showing = True
        self.station_displays: dict[int, bool] = {}
        #: The program's identity, set by the shell from
        #: ``cabinet.shell.program_check`` before boot: status ``verified``,
        #: ``development`` or ``mismatch`` (a mismatch is also a ``program_`` fault).
        self.program_id = ""
        self.program_digest = ""
        self.program_status = "development"
        #: The host links' live status, set by the shell, not journaled:
        #: station -> (polls seen, wall time of the last poll or None), for the Host page.
        self.host_polls: dict[int, tuple[Any, ...]] = {}
        #: The digits of a PIN being typed in the menu: memory only, never
        #: journaled nor in a snapshot; emptied when the entry ends or the key goes off.
        self.secret = ""
        #: (station, device) -> the firmware version it reported (not journaled).
        self.firmware: dict[tuple[int, str], str] = {}
        self.desk = player_desk.PlayerDesk()  # the players' own panels (memory only)
        # the machines, one per owner (each module's docstring says what it owns)
        self.ledger: Ledger = Ledger(self)
        self.bets: Betting = Betting(self)
        self.table: Table = Table(self)
        self.acceptance: Acceptance = Acceptance(self)
        self.host_link: HostLink = HostLink(self)
        self.tito: Tito = Tito(self)
        self.ticket_claims: TicketClaims = TicketClaims(self)
        self.service: Service = Service(self)
        self.displays: Displays = Displays(self)

    # -- queries the machines read (``cabinet.core.queries.CabinetQueries``) ----------

    def station(self, n: int) -> StationState | None:
        """Station ``n`` (1-based), or ``None`` if the cabinet has no such station."""
        if 1 <= n <= len(self.s.stations):
            return self.s.stations[n - 1]
        return None

    def seats_in_play(self) -> list[int]:
        """The stations dealt in this game's seats (``GameSettings.seats_in_play``)."""
        return self.s.settings.seats_in_play(self.rules)

    @property
    def uses_chips(self) -> bool:
        """The table bets with chips (the rules list chip values)."""
        return bool(self.rules.chip_values_minor)

    def station_of(self, seat: int) -> StationState:
        """Station ``seat``; ``InvariantError`` if the cabinet has none (a seat of the
        round is always a station)."""
        return present(self.station(seat), f"station {seat}")

    def cashing_out(self, st: StationState) -> bool:
        """Station ``st``'s cash-out is under way: its voucher prints on its own printer,
        waits for the casino host's validation number, or an unknown print of a
        host-numbered ticket waits for the host's word before any handpay."""
        return (
            st.printing is not None or st.host.pending_cashout is not None or bool(self.ticket_claims.print_checks(st))
        )

    def prints(self) -> list[PrintingState]:
        """Every voucher sent to a printer whose verdict has not come back."""
        held = [self.s.printing] if self.s.printing is not None else []
        return held + [st.printing for st in self.s.stations if st.printing is not None]

    def in_service(self, st: StationState) -> bool:
        """Station ``st`` may be dealt in: none of its devices failed and a screen draws it."""
        return not st.faults and self.display_shows(st.station)

    def display_shows(self, n: int) -> bool:
        """A screen draws station ``n``: the table's screen, or the station's own."""
        return self.display_showing or self.station_displays.get(n, False)

    @property
    def mode(self) -> Mode:
        """The effective mode (``cabinet.core.modes.mode_of``: lock-ups first, then
        the base mode)."""
        return mode_of(self.s, self.cashing_out)

    # -- the one entry point -----------------------------------------------------------

    def handle(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects to run, in order.

        Never raises on player or device input: what is not accepted now
        yields ``Rejected`` and changes nothing.
        """
        out: list[Effect] = []
        handler = _HANDLERS.get(type(event))
        if handler is None:
            out.append(Rejected(type(event).__name__, "unknown event"))
        else:
            handler(self, event, out)
        if not isinstance(event, HistoryLoaded):
            self.handed = None  # rows read for one event only
        if isinstance(event, NoteEscrowed | VoucherEscrowed):
            self.acceptance.remember_return(event.station, event.txn, out)
        player_desk.follow(self.desk, self.s, event, out)  # sessions, service
        self.service.enter_maintenance_if_keyed(out)
        self.host_link.queue_host_events(out)
        self._refresh_outputs(out)
        return out

    # -- legality -------------------------------------------------------------------------

    def legal_actions(self, n: int) -> frozenset[str]:
        """Intents station ``n`` may send now; its button lamps show exactly these
        (the mode's ``ModeFacts.lamps`` rule over its ``intents``)."""
        st = self.station(n)
        facts = MODE_TABLE[self.mode]
        if st is None:
            return frozenset()
        if facts.lamps == "menu":
            return facts.intents
        if not self.display_shows(n) or self.cashing_out(st):
            return frozenset()  # nobody sees it, or its ticket is out
        if facts.lamps == "cash_out":
            return frozenset({"cash_out"}) if self.bets.can_cash_out(st) else frozenset()
        if facts.lamps == "prompt":
            rnd = self.round
            if rnd is None or rnd.prompt is None or rnd.prompt.seat != n:
                return frozenset()
            return frozenset(d.value for d in rnd.legal_decisions())
        if facts.lamps != "bets" or n not in self.seats_in_play():
            return frozenset()
        if st.faults or st.host.disabled:  # out of service: cash out at most
            return frozenset({"cash_out"}) if self.bets.can_cash_out(st) else frozenset()
        return self.bets.betting_legal(st)

    # -- intents --------------------------------------------------------------------------------

    def _on_intent(self, ev: IntentReceived, out: list[Effect]) -> None:
        st = self.station(ev.station)
        what = f"{ev.action} from station {ev.station}"
        if st is None:
            out.append(Rejected(what, "no such station"))
            return
        if ev.action == "help":
            return  # the UI shows help by itself
        mode = self.mode
        menu = MODE_TABLE[mode].lamps == "menu"
        if ev.action in player_desk.PLAYER_ACTIONS and not menu:
            player_desk.press(self.desk, self.s, self.shown, ev.station, ev.action, out)
            return  # a look, never a move
        st.refusal = ""
        if not menu:
            diagnostics.record_press(self.s, ev.action)  # missing buttons audit
        else:
            self.s.last_button = ev.action
            maintenance.press(self, ev.action, ev.value, out, ev.station)
            return
        if ev.action not in self.legal_actions(ev.station):
            out.append(Rejected(what, f"not legal in {mode}"))
            return
        if ev.action in ROUND_ACTIONS:
            self.table.decide(ev.action, out)
        elif ev.action == "cash_out":
            self.ledger.cash_out(st, out)
        elif ev.action == "deal":
            self.table.press_deal(st, out)
        else:
            self.bets.bet_action(st, ev, out)

    # -- money in: which modes take it ------------------------------------------------

    def accepting(self) -> bool:
        """The mode takes notes and vouchers (each station also needs a screen drawing
        it and no cash-out of its own under way: ``accepting_at``)."""
        return MODE_TABLE[self.mode].money_in

    def accepting_at(self, st: StationState) -> bool:
        """Station ``st`` may take money: the mode takes it, a screen draws the station
        (never money into a black screen) and its ticket is not printing."""
        return self.accepting() and self.display_shows(st.station) and not self.cashing_out(st)

    # -- reconfiguring (called from maintenance) --------------------------------------------------

    def ram_clear(self, out: list[Effect], vouchers: History) -> None:
        """A RAM clear (``cabinet.core.reconfigure.ram_clear``); the menu checked the access
        level. ``vouchers``: the outstanding vouchers the shell read (``HistoryLoaded``),
        recorded in the clear's summary as kept."""
        reconfigure.ram_clear(self, maintenance.ram_clear_summary(self, vouchers), out)

    def apply_settings(self, settings: GameSettings, out: list[Effect], level: str = "") -> str | None:
        """Change the game settings between rounds (``cabinet.core.reconfigure.apply_settings``);
        an error message or ``None``."""
        return reconfigure.apply_settings(self, settings, out, level)

    # -- outputs --------------------------------------------------------------------------------

    def _refresh_outputs(self, out: list[Effect]) -> None:
        """Lamps, acceptor enable and tower light follow the state (only changes are sent)."""
        facts = MODE_TABLE[self.mode]
        test_lamps = diagnostics.lamps(self.s)  # the lamp test
        for st in self.s.stations:
            lamps = self.legal_actions(st.station) if test_lamps is None else test_lamps
            if self._lamps.get(st.station) != lamps:
                self._lamps[st.station] = lamps
                out.append(SetLamps(st.station, lamps))
            bills = self.host_link.host_bills_minor(st.station, tuple(self.s.settings.denominations_minor))
            test = facts.acceptor == "bill_test" and bill_test.active(self.s)
            on = facts.acceptor == "enabled" and self.accepting_at(st)
            acc = ((on or test) and not st.faults and bool(bills), bills, test)
            if self._acceptor.get(st.station) != acc:
                self._acceptor[st.station] = acc
                out.append(SetAcceptor(st.station, acc[0], acc[1], test))
        tower: str = facts.tower
        if tower == "off" and any(st.faults for st in self.s.stations):
            tower = "tilt"  # a station out of service calls the attendant
        tower = player_desk.tower(self.s, tower)  # a player's Service call
        tower = diagnostics.tower(self.s) or tower  # the tower light test
        if tower != self._tower:
            self._tower = tower
            out.append(SetTowerLight(tower))

    def resend_outputs(self) -> None:
        """Forget what lamps, acceptor and tower were last told: the next ``handle``
        sends them all again (devices (re)started)."""
        self._lamps.clear()
        self._acceptor.clear()
        self._tower = ""

    def outputs(self) -> list[Effect]:
        """The lamp, acceptor and tower effects the state calls for that were not sent
        yet; changes nothing else (the engine's storage tilt)."""
        out: list[Effect] = []
        self._refresh_outputs(out)
        return out

    def fault_lines(self) -> list[str]:
        """The faults in words (``Service.fault_lines``), for the menu and the tilt screen."""
        return self.service.fault_lines()

    def snapshot(self, seq: int) -> Any:
        """The player-visible ``Snapshot`` numbered ``seq`` (see ``cabinet.core.view``)."""
        from cabinet.core.view import build_snapshot

        return build_snapshot(self, seq)

    def round_dict(self) -> dict[str, Any] | None:
        """The round to journal (``None`` when there is none)."""
        return self.round.to_dict() if self.round is not None else None


_HANDLERS: dict[type, Callable[[Cabinet, Any, list[Effect]], None]] = {
    IntentReceived: Cabinet._on_intent,
    NoteEscrowed: lambda cab, ev, out: cab.acceptance.on_note_escrow(ev, out),
    NoteStacked: lambda cab, ev, out: cab.acceptance.on_note_stacked(ev, out),
    NoteReturned: lambda cab, ev, out: cab.acceptance.on_note_returned(ev, out),
    NoteUncredited: lambda cab, ev, out: cab.acceptance.on_note_uncredited(ev, out),
    VoucherEscrowed: lambda cab, ev, out: cab.acceptance.on_voucher_escrow(ev, out),
    VoucherStacked: lambda cab, ev, out: cab.acceptance.on_voucher_stacked(ev, out),
    PrintFinished: lambda cab, ev, out: cab.ledger.on_print(ev, out),
    DoorChanged: lambda cab, ev, out: cab.service.on_door(ev, out),
    DoorOpenedWhileOff: lambda cab, ev, out: cab.service.on_door_while_off(ev, out),
    KeyChanged: lambda cab, ev, out: cab.service.on_key(ev, out),
    DeviceFaulted: lambda cab, ev, out: cab.service.on_fault(ev, out),
    DeviceCleared: lambda cab, ev, out: cab.service.on_cleared(ev, out),
    DisplayChanged: lambda cab, ev, out: cab.displays.on_display(ev, out),
    Tick: lambda cab, ev, out: cab.service.on_tick(ev, out),
    PowerUp: lambda cab, ev, out: cab.service.on_power_up(ev, out),
    HostCommanded: lambda cab, ev, out: cab.host_link.on_host_command(ev, out),
    HostEventAcked: lambda cab, ev, out: cab.host_link.on_host_acked(ev, out),
    HostLinkChanged: lambda cab, ev, out: cab.host_link.on_host_link(ev, out),
    HostLinkConfigured: lambda cab, ev, out: cab.host_link.on_host_configured(ev, out),
    AuditExported: lambda cab, ev, out: maintenance.audit_exported(cab, ev, out),
    HistoryLoaded: shell_inputs.history_loaded,
    ProgramChecked: shell_inputs.program_checked,
    HostPollsRead: shell_inputs.host_polls_read,
    StorageFailed: shell_inputs.storage_failed,
    ProgramInstalled: lambda cab, ev, out: out.append(
        Journal(
            "program_installed",
            0,
            0,
            {
                "action": ev.action,
                "program_id": ev.program_id,
                "digest": ev.digest,
                "previous": ev.previous,
                "seq": ev.seq,
                "installed_wall_s": ev.wall_s,
            },
        )
    ),
}

__all__ = ["Cabinet", "Meters", "new_state"]

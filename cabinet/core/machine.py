"""``Cabinet``: the whole cabinet as one pure state machine.

Owns: ``handle`` (the one entry point, ``handle(event) -> list[Effect]``, plus
``snapshot()``; STYLE.md 5.1-5.6), the modes and every per-mode table: what
each mode accepts (``ACCEPTS``: intents, and whether money may come in), the
intent dispatch, the lamps, acceptor enable and tower light each mode calls
for; RAM clear and settings changes (called from the operator menu). The rest
of the cabinet is in one module per concern, combined here as mixins over
``cabinet.core.base.CabinetBase``: ``betting``, ``play`` (dealing and
settlement), ``cashout`` (vouchers out and handpays), ``money_in`` (notes and
vouchers in), ``doors`` (doors, key, faults, time).

Pure: no I/O, no clock (time arrives in ``Tick``), no global randomness (the
shuffle and validation numbers draw from the injected ``rng``). The shell
journals the new state and the journal effects in one transaction after
every ``handle`` and only then runs the device effects (DESIGN.md "Money
moves exactly once"). Must not import ``drivers`` or ``ui``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cabinet.core import maintenance, player_desk, shell_inputs
from cabinet.core.betting import BettingMixin
from cabinet.core.cashout import CashOutMixin
from cabinet.core.context import History, LoadedHistory, NoHistory, NoRandom, RandomSource
from cabinet.core.displays import DisplaysMixin
from cabinet.core.doors import DoorsMixin
from cabinet.core.effects import (
    ClearJournal,
    Effect,
    Journal,
    Rejected,
    SetAcceptor,
    SetLamps,
    SetTowerLight,
)
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
from cabinet.core.host import HostMixin
from cabinet.core.maintenance import bill_test, diagnostics
from cabinet.core.meters import Meters
from cabinet.core.money_in import MoneyInMixin
from cabinet.core.play import PlayMixin
from cabinet.core.settings import GameSettings
from cabinet.core.state import CabinetState, MaintState, StationState
from cabinet.core.tito import TitoMixin
from cabinet.core.tito_claims import TicketClaimsMixin
from cabinet.game import GameError, Round, RuleSet, StateError

BETTING_ACTIONS = frozenset(
    {"bet_up", "bet_down", "chip", "place", "undo", "clear", "rebet", "new_game", "deal", "cash_out"}
)
ROUND_ACTIONS = frozenset({"hit", "stand", "double", "split", "insure", "decline"})
MENU_ACTIONS = frozenset({"menu_up", "menu_down", "menu_select", "menu_back"})

#: What each mode accepts (STYLE.md 5.5): intents, and whether notes may come in.
ACCEPTS: dict[str, tuple[frozenset[str], bool]] = {
    "attract": (BETTING_ACTIONS, True),
    "betting": (BETTING_ACTIONS, True),
    "in_round": (ROUND_ACTIONS, True),
    "cash_out": (frozenset(), False),
    "handpay": (frozenset(), False),
    "tilt": (frozenset({"cash_out"}), False),
    "door_open": (frozenset(), False),
    "maintenance": (MENU_ACTIONS, False),
    "ram_error": (frozenset(), False),
    "needs_config": (frozenset(), False),
}


def new_state(settings: GameSettings | None = None) -> CabinetState:
    """A fresh cabinet state (first boot or after a RAM clear)."""
    settings = settings or GameSettings()
    settings.validate()
    return CabinetState(settings=settings, stations=[StationState(station=n) for n in range(1, settings.stations + 1)])


class Cabinet(
    BettingMixin,
    PlayMixin,
    CashOutMixin,
    MoneyInMixin,
    DoorsMixin,
    HostMixin,
    TitoMixin,
    DisplaysMixin,
    TicketClaimsMixin,
):
    """The cabinet core.

    Args:
        state: restored critical state, or ``None`` for a fresh cabinet.
        round_state: the journaled round (``Round.to_dict()``), or ``None``.
        rng: the random source for shuffles and validation numbers (the shell
            hands in ``secrets.SystemRandom()``); ``None``: a source that raises
            ``RuntimeError`` when drawn from (the core holds no randomness of its own).
        history: journal reader for the maintenance screens.

    A ``round_state`` that cannot be restored while a round is open voids
    that round at the next ``PowerUp`` (RULES.md "Malfunctions void all
    plays and pays").
    """

    def __init__(
        self,
        state: CabinetState | None = None,
        round_state: dict[str, Any] | None = None,
        rng: RandomSource | None = None,
        history: History | None = None,
    ) -> None:
        self.s = state if state is not None else new_state()
        self.rng: RandomSource = rng if rng is not None else NoRandom()
        self.history: History = history if history is not None else NoHistory()
        self.shown: History = LoadedHistory()  # what the open page shows (``HistoryLoaded``)
        self.rules: RuleSet = self.s.settings.validate()
        self.round: Round | None = None
        self._round_unrestorable = False
        if round_state is not None:
            try:
                self.round = Round.from_dict(round_state)
            except (StateError, GameError):
                self._round_unrestorable = True
        elif self.s.round_open:
            self._round_unrestorable = True
        #: station -> (txn, reason) of an escrow being handed back, until its
        #: return is journaled (not critical: lost on a restart)
        self._returning: dict[int, tuple[str, str]] = {}
        self._lamps: dict[int, frozenset[str]] = {}
        self._acceptor: dict[int, tuple[bool, tuple[int, ...], bool]] = {}
        self._tower = ""
        #: A screen draws the whole table; ``station_displays``: station ->
        #: its own screen draws it; ``_dark_since_ms``: station -> ``now_ms`` since no
        #: screen draws it; ``_drawn``: stations drawn since start (``cabinet.core.displays``).
        #: Not journaled: the UI server says ``DisplayChanged(False)`` when it starts and
        #: True on a screen's first frame.
        self.display_showing = True
        self.station_displays: dict[int, bool] = {}
        self._dark_since_ms: dict[int, int] = {}
        self._drawn: set[int] = set()
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

    # -- derived -------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """The effective mode: lockups first, then the base mode."""
        s = self.s
        if s.ram_error:
            return "maintenance" if s.maintenance is not None else "ram_error"
        if s.maintenance is not None:
            return "maintenance"
        if s.handpay is not None:
            return "handpay"
        if s.doors_open:
            return "door_open"
        if s.faults or s.audit_failed or (len(s.stations) == 1 and s.stations[0].faults):
            return "tilt"
        # a cash-out is its station's (its own printer): the mode of a one-station table
        if s.printing is not None or (len(s.stations) == 1 and self._cashing_out(s.stations[0])):
            return "cash_out"
        if s.needs_config:
            return "needs_config"
        if s.round_open:
            return "in_round"
        if any(st.credits_minor or any(st.bets_minor) for st in self.s.stations):
            return "betting"
        return "attract"

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
        if isinstance(event, NoteEscrowed | VoucherEscrowed):
            self._remember_return(event.station, event.txn, out)
        player_desk.follow(self.desk, self.s, event, out)  # sessions, service
        self._enter_maintenance_if_keyed(out)
        self._queue_host_events(out)
        self._refresh_outputs(out)
        return out

    # -- legality -------------------------------------------------------------------------

    def legal_actions(self, n: int) -> frozenset[str]:
        """Intents station ``n`` may send now; its button lamps show exactly these."""
        st = self.station(n)
        mode = self.mode
        if st is None:
            return frozenset()
        accepted, _ = ACCEPTS[mode]
        if mode == "maintenance":
            return accepted
        if not self.display_shows(n) or self._cashing_out(st):
            return frozenset()  # nobody sees it, or its ticket is out
        if mode == "tilt":
            return frozenset({"cash_out"}) if self._can_cash_out(st) else frozenset()
        if mode == "in_round":
            rnd = self.round
            if rnd is None or rnd.prompt is None or rnd.prompt.seat != n:
                return frozenset()
            return frozenset(d.value for d in rnd.legal_decisions())
        if mode not in ("attract", "betting") or n not in self.seats_in_play():
            return frozenset()
        if st.faults or st.host.disabled:  # out of service: cash out at most
            return frozenset({"cash_out"}) if self._can_cash_out(st) else frozenset()
        return self._betting_legal(st)

    # -- intents --------------------------------------------------------------------------------

    def _on_intent(self, ev: IntentReceived, out: list[Effect]) -> None:
        st = self.station(ev.station)
        what = f"{ev.action} from station {ev.station}"
        if st is None:
            out.append(Rejected(what, "no such station"))
            return
        if ev.action == "help":
            return  # the UI shows help by itself
        if ev.action in player_desk.PLAYER_ACTIONS and self.mode != "maintenance":
            player_desk.press(self.desk, self.s, self.shown, ev.station, ev.action, out)
            return  # a look, never a move
        st.refusal = ""
        mode = self.mode
        if mode != "maintenance":
            diagnostics.record_press(self.s, ev.action)  # missing buttons audit
        if mode == "maintenance":
            self.s.last_button = ev.action
            maintenance.press(self, ev.action, ev.value, out, ev.station)
            return
        if ev.action not in self.legal_actions(ev.station):
            out.append(Rejected(what, f"not legal in {mode}"))
            return
        if ev.action in ROUND_ACTIONS:
            self._decide(ev.action, out)
        elif ev.action == "cash_out":
            self._cash_out(st, out)
        elif ev.action == "deal":
            self._press_deal(st, out)
        else:
            self._bet_action(st, ev, out)

    # -- money in: which modes take it ------------------------------------------------

    def _accepting(self) -> bool:
        """The mode takes notes and vouchers (each station also needs a screen drawing
        it and no cash-out of its own under way: ``_accepting_at``)."""
        return ACCEPTS[self.mode][1]

    def _accepting_at(self, st: StationState) -> bool:
        """Station ``st`` may take money: the mode takes it, a screen draws the station
        (never money into a black screen) and its ticket is not printing."""
        return self._accepting() and self.display_shows(st.station) and not self._cashing_out(st)

    # -- RAM clear (called from maintenance) ------------------------------------------------------

    def ram_clear(self, out: list[Effect]) -> None:
        """research C "RAM clear": zero credits, meters and history; configure again.

        The caller (the maintenance menu) has checked the access level
        (``maintenance.ram_clear_refusal``). Kept: the settings, the power-up
        count, the voucher sequence and recent acceptor transactions (so an
        outstanding voucher, whose record the journal keeps, is redeemed
        exactly once), the doors' and devices' present state, and the clock.
        The ``ram_clear`` event records what was erased.
        """
        old = self.s
        summary = maintenance.ram_clear_summary(self)
        self.s = new_state(old.settings)
        s = self.s
        s.power_ups, s.voucher_seq, s.recent_txns = old.power_ups, old.voucher_seq, old.recent_txns
        s.doors_open, s.now_ms, s.wall_s = old.doors_open, old.now_ms, old.wall_s
        for st, was in zip(s.stations, old.stations, strict=False):  # the host link lives on;
            h = was.host  # event ids never repeat
            st.host.link, st.host.address, st.host.port = h.link, h.address, h.port
            st.host.link_since_s, st.host.next_event_id = h.link_since_s, h.next_event_id
            st.host.validation, st.host.validation_timeout_ms = h.validation, h.validation_timeout_ms
            st.host.next_ticket_id, st.host.next_cashout_id = h.next_ticket_id, h.next_cashout_id
        s.faults = {c: t for c, t in old.faults.items() if c.startswith(("bill_", "printer_"))}
        s.operator = maintenance.carry_operator(old)  # PIN, lifetime meters
        bill_test.carry(old, s)
        s.needs_config = True
        s.maintenance = MaintState(
            page="settings",
            confirm=maintenance.RAM_CLEARED,
            level=old.maintenance.level if old.maintenance is not None else "attendant",
        )
        s.key_on = True
        self.round = None
        self._round_unrestorable = False
        out.append(ClearJournal())
        out.append(
            Journal(
                "ram_clear",
                0,
                sum(summary["credits_minor"].values()),
                {**summary, "access": maintenance.access_name(old)},
            )
        )

    def apply_settings(self, settings: GameSettings, out: list[Effect], level: str = "") -> str | None:
        """Change the game settings between rounds; returns an error message or None.
        ``level``: the access level that saved them, journaled."""
        from cabinet.core.errors import ConfigError

        if self.s.round_open:
            return "finish the round first"
        try:
            rules = settings.validate()
        except ConfigError as e:
            return str(e)
        old = self.s.settings
        stations = self.s.stations
        while len(stations) < settings.stations:
            stations.append(StationState(station=len(stations) + 1))
        if settings.stations < len(stations) and any(
            st.credits_minor or st.pending_out_minor for st in stations[settings.stations :]
        ):
            return "stations: a station being removed still holds credits"
        del stations[settings.stations :]
        self.s.settings = settings
        self.rules = rules
        for st in stations:
            st.bets_minor = [0] * rules.max_spots_per_seat
            st.chip_log = []
            st.selected_chip_minor = None
            st.last_bets_minor = []
        self.s.shoe = None
        self.s.needs_config = False
        self.round = None
        out.append(
            Journal(
                "settings_changed",
                0,
                0,
                {"old": _settings_dict(old), "new": _settings_dict(settings), **({"level": level} if level else {})},
            )
        )
        return None

    # -- outputs --------------------------------------------------------------------------------

    def _refresh_outputs(self, out: list[Effect]) -> None:
        """Lamps, acceptor enable and tower light follow the state (only changes are sent)."""
        test_lamps = diagnostics.lamps(self.s)  # the lamp test
        for st in self.s.stations:
            lamps = self.legal_actions(st.station) if test_lamps is None else test_lamps
            if self._lamps.get(st.station) != lamps:
                self._lamps[st.station] = lamps
                out.append(SetLamps(st.station, lamps))
            bills = self.host_bills_minor(st.station, tuple(self.s.settings.denominations_minor))
            test = not self._accepting() and bill_test.active(self.s)
            acc = ((self._accepting_at(st) or test) and not st.faults and bool(bills), bills, test)
            if self._acceptor.get(st.station) != acc:
                self._acceptor[st.station] = acc
                out.append(SetAcceptor(st.station, acc[0], acc[1], test))
        mode = self.mode
        tower = {
            "handpay": "handpay",
            "tilt": "tilt",
            "ram_error": "tilt",
            "door_open": "service",
            "maintenance": "service",
        }.get(mode, "off")
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

    def snapshot(self, seq: int) -> Any:
        """The player-visible ``Snapshot`` numbered ``seq`` (see ``cabinet.core.view``)."""
        from cabinet.core.view import build_snapshot

        return build_snapshot(self, seq)

    def round_dict(self) -> dict[str, Any] | None:
        """The round to journal (``None`` when there is none)."""
        return self.round.to_dict() if self.round is not None else None


def _settings_dict(s: GameSettings) -> dict[str, Any]:
    import msgspec

    out: dict[str, Any] = msgspec.to_builtins(s)
    return out


_HANDLERS: dict[type, Callable[[Cabinet, Any, list[Effect]], None]] = {
    IntentReceived: Cabinet._on_intent,
    NoteEscrowed: Cabinet._on_note_escrow,
    NoteStacked: Cabinet._on_note_stacked,
    NoteReturned: Cabinet._on_note_returned,
    NoteUncredited: Cabinet._on_note_uncredited,
    VoucherEscrowed: Cabinet._on_voucher_escrow,
    VoucherStacked: Cabinet._on_voucher_stacked,
    PrintFinished: Cabinet._on_print,
    DoorChanged: Cabinet._on_door,
    DoorOpenedWhileOff: Cabinet._on_door_while_off,
    KeyChanged: Cabinet._on_key,
    DeviceFaulted: Cabinet._on_fault,
    DeviceCleared: Cabinet._on_cleared,
    DisplayChanged: Cabinet._on_display,
    Tick: Cabinet._on_tick,
    PowerUp: Cabinet._on_power_up,
    HostCommanded: Cabinet._on_host_command,
    HostEventAcked: Cabinet._on_host_acked,
    HostLinkChanged: Cabinet._on_host_link,
    HostLinkConfigured: Cabinet._on_host_configured,
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

__all__ = ["ACCEPTS", "Cabinet", "Meters", "new_state"]

"""``Cabinet``: the whole cabinet as one pure state machine.

Owns: the modes and which intents and device events each accepts; betting,
dealing, the round's money, cash-out and vouchers, bills, doors, the key,
faults, timers and the self-audit. One entry point, ``handle(event) ->
list[Effect]``, plus ``snapshot()`` (STYLE.md 5.1-5.6).

Pure: no I/O, no clock (time arrives in ``Tick``), no global randomness (the
shuffle and validation numbers draw from the injected ``rng``). The shell
journals the new state and the journal effects in one transaction after
every ``handle`` and only then runs the device effects (DESIGN.md "Money
moves exactly once"). Must not import ``drivers`` or ``ui``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cabinet.core import maintenance
from cabinet.core.context import History, RandomSource
from cabinet.core.effects import (
    ClearJournal,
    Effect,
    Journal,
    PrintVoucher,
    Rejected,
    ReturnNote,
    SaveRecall,
    SaveVoucher,
    SendCue,
    SetAcceptor,
    SetLamps,
    SetTowerLight,
    SetVoucherStatus,
    StackNote,
)
from cabinet.core.errors import FAULTS, fault_text
from cabinet.core.events import (
    DeviceCleared,
    DeviceFaulted,
    DisplayChanged,
    DoorChanged,
    DoorOpenedWhileOff,
    Event,
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    NoteReturned,
    NoteStacked,
    NoteUncredited,
    PowerUp,
    PrintFinished,
    Tick,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.meters import Meters, audit_balance
from cabinet.core.records import RecallEntry, VoucherRecord
from cabinet.core.rules_text import money
from cabinet.core.settings import GameSettings
from cabinet.core.state import (
    CabinetState,
    HandpayState,
    MaintState,
    NoteReview,
    PrintingState,
    StationState,
)
from cabinet.game import (
    BetError,
    Decision,
    GameError,
    Round,
    RuleSet,
    SeatBets,
    Shoe,
    StateError,
)
from cabinet.game import events as rev

#: How long a print may take before its outcome counts as unknown.
PRINT_TIMEOUT_MS = 30_000
#: Wall time that moves this many seconds more or less than the monotonic clock
#: between two ticks (or is behind the journal at power-up) is a clock jump (issue 11.8).
CLOCK_JUMP_S = 2.0
#: Why an expired voucher comes back (journaled; the screen sends the player to the
#: attendant, who can check it in the voucher log).
EXPIRED_REASON = "expired - see attendant"
#: How many stacked-note transaction ids are remembered to refuse repeats.
TXN_MEMORY = 64

BETTING_ACTIONS = frozenset({"bet_up", "bet_down", "chip", "place", "undo", "clear", "rebet",
                             "new_game", "deal", "cash_out"})
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


class _NoRandom:
    """The random source of a cabinet given none: drawing from it is a bug."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise RuntimeError("no random source: the shell hands the cabinet one")


class _NoHistory:
    def recall(self, station: int, limit: int) -> list[RecallEntry]:
        return []

    def events(self, limit: int) -> list[dict[str, Any]]:
        return []

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        return []

    def outstanding_vouchers(self) -> list[VoucherRecord]:
        return []


def new_state(settings: GameSettings | None = None) -> CabinetState:
    """A fresh cabinet state (first boot or after a RAM clear)."""
    settings = settings or GameSettings()
    settings.validate()
    return CabinetState(settings=settings,
                        stations=[StationState(station=n) for n in range(1, settings.stations + 1)])


class Cabinet:
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

    def __init__(self, state: CabinetState | None = None,
                 round_state: dict[str, Any] | None = None,
                 rng: RandomSource | None = None, history: History | None = None) -> None:
        self.s = state if state is not None else new_state()
        self.rng: RandomSource = rng if rng is not None else _NoRandom()
        self.history: History = history if history is not None else _NoHistory()
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
        #: return is journaled (issue 10.2; not critical: lost on a restart)
        self._returning: dict[int, tuple[str, str]] = {}
        self._lamps: dict[int, frozenset[str]] = {}
        self._acceptor: dict[int, tuple[bool, tuple[int, ...]]] = {}
        self._tower = ""
        #: A display shows the table (issue 11.9). Not journaled: the UI server
        #: says ``DisplayChanged(False)`` when it starts and True on the first frame.
        self.display_showing = True
        #: The program's identity (issue 11.18), set by the shell from
        #: ``cabinet.shell.manifest.check_manifest`` before boot: status ``verified``,
        #: ``unverified`` or ``mismatch`` (a mismatch is also a ``program_`` fault).
        self.program_id = ""
        self.program_digest = ""
        self.program_status = "unverified"

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
        if s.printing is not None:
            return "cash_out"
        if s.needs_config:
            return "needs_config"
        if s.round_open:
            return "in_round"
        if any(st.credits_minor or any(st.bets_minor) for st in self.s.stations):
            return "betting"
        return "attract"

    def station(self, n: int) -> StationState | None:
        """Station ``n`` (1-based), or ``None`` if the cabinet has no such station."""
        if 1 <= n <= len(self.s.stations):
            return self.s.stations[n - 1]
        return None

    def seats_in_play(self) -> list[int]:
        return self.s.settings.seats_in_play(self.rules)

    @property
    def uses_chips(self) -> bool:
        return bool(self.rules.chip_values_minor)

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
        self._enter_maintenance_if_keyed(out)
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
        if mode == "tilt":
            return frozenset({"cash_out"}) if self._can_cash_out(st) else frozenset()
        if mode == "in_round":
            rnd = self.round
            if rnd is None or rnd.prompt is None or rnd.prompt.seat != n:
                return frozenset()
            return frozenset(d.value for d in rnd.legal_decisions())
        if mode not in ("attract", "betting") or n not in self.seats_in_play():
            return frozenset()
        if st.faults:                                 # out of service: cash out at most
            return frozenset({"cash_out"}) if self._can_cash_out(st) else frozenset()
        return self._betting_legal(st)

    def _betting_legal(self, st: StationState) -> frozenset[str]:
        r = self.rules
        legal: set[str] = set()
        total = sum(st.bets_minor)
        if self._can_cash_out(st) and not st.ready:
            legal.add("cash_out")
        if st.ready:
            return frozenset(legal)
        if not self.uses_chips:
            bet = st.bets_minor[0] if st.bets_minor else 0
            up = r.min_bet_minor if bet == 0 else bet + r.bet_step_minor
            if up <= min(r.max_bet_minor, st.credits_minor):
                legal.add("bet_up")
            if bet > 0:
                legal.add("bet_down")
        else:
            affordable = [c for c in r.chip_values_minor if total + c <= st.credits_minor]
            if affordable:
                legal.add("chip")
            chip = st.selected_chip_minor
            if chip is not None and total + chip <= st.credits_minor and any(
                    self._spot_bet(st, i) + chip <= r.max_bet_minor
                    for i in range(r.max_spots_per_seat)):
                legal.add("place")
            if st.chip_log:
                legal.add("undo")
            if total:
                legal.add("clear")
            if st.last_bets_minor and not total and sum(st.last_bets_minor) <= st.credits_minor:
                legal.add("rebet")
            # The physical Bet+/Bet- work on chip tables too: Bet+ puts the selected
            # chip (the smallest if none) on spot 1, Bet- takes the last chip back.
            up_chip = chip if chip is not None else r.chip_values_minor[0]
            if total + up_chip <= st.credits_minor and \
                    self._spot_bet(st, 0) + up_chip <= r.max_bet_minor:
                legal.add("bet_up")
            if st.chip_log:
                legal.add("bet_down")
        if total or (self.round is not None and self.round.finished):
            legal.add("new_game")
        if self._bets_valid(st):
            legal.add("deal")
        return frozenset(legal)

    @staticmethod
    def _spot_bet(st: StationState, i: int) -> int:
        return st.bets_minor[i] if i < len(st.bets_minor) else 0

    def _bets_valid(self, st: StationState) -> bool:
        r = self.rules
        bets = [b for b in st.bets_minor if b]
        return bool(bets) and sum(bets) <= st.credits_minor and all(
            r.min_bet_minor <= b <= r.max_bet_minor and b % r.bet_step_minor == 0 for b in bets)

    def _can_cash_out(self, st: StationState) -> bool:
        if len(self.s.stations) > 1 and any(c.startswith("printer_") for c in st.faults):
            return False        # its printer is out; a handpay would stop every station
        return st.credits_minor > 0 and not self.s.round_open and self.s.printing is None

    # -- intents --------------------------------------------------------------------------------

    def _on_intent(self, ev: IntentReceived, out: list[Effect]) -> None:
        st = self.station(ev.station)
        what = f"{ev.action} from station {ev.station}"
        if st is None:
            out.append(Rejected(what, "no such station"))
            return
        if ev.action == "help":
            return                                     # the UI shows help by itself
        st.refusal = ""
        mode = self.mode
        if mode == "maintenance":
            self.s.last_button = ev.action
            maintenance.press(self, ev.action, ev.value, out)
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

    def _clear_finished_round(self) -> None:
        if self.round is not None and self.round.finished:
            self.round = None
            for st in self.s.stations:
                st.win_minor = 0

    def _bet_action(self, st: StationState, ev: IntentReceived, out: list[Effect]) -> None:
        r = self.rules
        self._clear_finished_round()
        a = ev.action
        if not st.bets_minor:
            st.bets_minor = [0] * r.max_spots_per_seat
        if a in ("bet_up", "bet_down") and self.uses_chips:
            if a == "bet_up":
                up = st.selected_chip_minor or r.chip_values_minor[0]
                st.bets_minor[0] += up
                st.chip_log.append([1, up])
            else:
                at, back = st.chip_log.pop()
                st.bets_minor[at - 1] -= back
        elif a == "bet_up":
            st.bets_minor[0] = r.min_bet_minor if st.bets_minor[0] == 0 \
                else st.bets_minor[0] + r.bet_step_minor
        elif a == "bet_down":
            st.bets_minor[0] = 0 if st.bets_minor[0] <= r.min_bet_minor \
                else st.bets_minor[0] - r.bet_step_minor
        elif a == "chip":
            total = sum(st.bets_minor)
            if ev.value in r.chip_values_minor and total + ev.value <= st.credits_minor:
                st.selected_chip_minor = ev.value
            else:
                out.append(Rejected(f"chip {ev.value}", "not a chip of this table, or over credits"))
                return
        elif a == "place":
            spot = ev.value or 1
            chip = st.selected_chip_minor
            assert chip is not None
            if not 1 <= spot <= r.max_spots_per_seat or \
                    st.bets_minor[spot - 1] + chip > r.max_bet_minor:
                out.append(Rejected(f"place on spot {spot}", "no such spot, or over the maximum"))
                return
            st.bets_minor[spot - 1] += chip
            st.chip_log.append([spot, chip])
            out.append(SendCue("chip_placed", st.station, {"spot": spot, "chip_minor": chip}))
        elif a == "undo":
            spot, chip = st.chip_log.pop()
            st.bets_minor[spot - 1] -= chip
        elif a in ("clear", "new_game"):
            st.bets_minor = [0] * r.max_spots_per_seat
            st.chip_log = []
        elif a == "rebet":
            st.bets_minor = list(st.last_bets_minor)
            st.chip_log = [[i + 1, b] for i, b in enumerate(st.bets_minor) if b]
        self._maybe_start_bet_timer()

    # -- dealing ---------------------------------------------------------------------------------

    def _occupied(self) -> list[StationState]:
        return [st for st in self.s.stations if st.station in self.seats_in_play()
                and not st.faults and (st.credits_minor > 0 or any(st.bets_minor))]

    def _maybe_start_bet_timer(self) -> None:
        if len(self._occupied()) >= 2 and self.s.bet_deadline_ms is None and any(
                any(st.bets_minor) for st in self.s.stations):
            self.s.bet_deadline_ms = self.s.now_ms + self.rules.bet_timer_s * 1000

    def _press_deal(self, st: StationState, out: list[Effect]) -> None:
        self._clear_finished_round()
        st.ready = True
        occupied = self._occupied()
        waiting = [o for o in occupied if any(o.bets_minor) and not o.ready]
        if len(occupied) <= 1 or not waiting:
            self._start_round(out)
        else:
            self._maybe_start_bet_timer()

    def _self_audit(self, out: list[Effect]) -> bool:
        """research A "Self-audit": every station must balance; else tilt."""
        for st in self.s.stations:
            diff = audit_balance(st.credits_minor, st.pending_out_minor, st.meters)
            if diff:
                self.s.audit_failed = True
                out.append(Journal("audit_mismatch", st.station, diff,
                                   {"credits_minor": st.credits_minor}))
                return False
        return True

    def _start_round(self, out: list[Effect]) -> None:
        r = self.rules
        s = self.s
        s.bet_deadline_ms = None
        players = [st for st in s.stations if st.station in self.seats_in_play()
                   and not st.faults and self._bets_valid(st)]
        for st in s.stations:
            st.ready = False
        if not players:
            return
        if not self._self_audit(out):
            return
        shoe = None
        if not r.shuffle_every_round and s.shoe is not None:
            shoe = Shoe.from_dict(s.shoe)
            if shoe.cut_card_reached:
                shoe = None
        if shoe is None:
            shoe = Shoe.shuffled(r.decks, self.rng, r.penetration_percent)
            out.append(SendCue("shuffle"))
        seats = []
        for st in players:
            stake = sum(st.bets_minor)
            st.credits_at_round_start_minor = st.credits_minor
            st.credits_minor -= stake
            st.meters.add("coin_in_minor", stake)
            st.in_round = True
            st.stake_in_round_minor = stake
            st.returned_in_round_minor = 0
            st.win_minor = 0
            st.last_bets_minor = list(st.bets_minor)
            seats.append(SeatBets(st.station, tuple(st.bets_minor), st.credits_minor))
        try:
            rnd = Round(r, seats, shoe)
        except BetError as e:                      # legality was checked: a bug
            for st in players:                     # give the stakes straight back
                st.credits_minor += st.stake_in_round_minor
                st.meters.add("coin_out_minor", st.stake_in_round_minor)
                st.in_round = False
            out.append(Rejected("deal", str(e)))
            return
        s.round_id += 1
        s.round_open = True
        self.round = rnd
        out.append(Journal("round_start", 0, sum(st.stake_in_round_minor for st in players),
                           {"round_id": s.round_id, "shoe_position": shoe.position,
                            "bets": {st.station: st.bets_minor for st in players}}))
        self._run_round(rnd.start, out)

    def _decide(self, action: str, out: list[Effect]) -> None:
        rnd = self.round
        assert rnd is not None
        self._run_round(lambda: rnd.decide(Decision(action)), out)

    def _run_round(self, step: Callable[[], list[rev.Event]], out: list[Effect]) -> None:
        rnd = self.round
        assert rnd is not None
        try:
            events = step()
        except GameError as e:                     # shoe exhausted or a bug: void
            self._void_round(f"round fault: {e}", out)
            return
        self._apply_round_events(events, out)
        if rnd.finished:
            self._finish_round(out)
        else:
            self._arm_decision_timer()

    def _arm_decision_timer(self) -> None:
        in_round = [st for st in self.s.stations if st.in_round]
        if len(in_round) >= 2:
            self.s.decision_deadline_ms = self.s.now_ms + self.rules.decision_timer_s * 1000
        else:
            self.s.decision_deadline_ms = None

    def _apply_round_events(self, events: list[rev.Event], out: list[Effect]) -> None:
        """Move the money of round events onto the ledger; cue what players may see."""
        for e in events:
            if isinstance(e, rev.PlayerCardDealt):
                out.append(SendCue("card_dealt", e.seat, {"to": "player", "spot": e.spot,
                                                          "hand": e.hand, "card": str(e.card)}))
            elif isinstance(e, rev.DealerCardDealt):
                out.append(SendCue("card_dealt", None, {
                    "to": "dealer", "card": str(e.card) if e.face_up else None,
                    "face_down": not e.face_up}))
            elif isinstance(e, rev.DealerCardRevealed):
                out.append(SendCue("hole_card_revealed", None, {"card": str(e.card)}))
            elif isinstance(e, rev.DealerChecked):
                out.append(SendCue("dealer_checked", None, {"blackjack": e.blackjack}))
            elif isinstance(e, rev.InsuranceTaken):
                st = self._st(e.seat)
                self._stake(st, e.stake_minor, "insurance_in_minor")
                st.meters.add("insurance_taken", 1)
            elif isinstance(e, rev.HandDoubled):
                st = self._st(e.seat)
                self._stake(st, e.extra_stake_minor, "coin_in_minor")
                st.meters.add("doubles", 1)
            elif isinstance(e, rev.HandSplit):
                st = self._st(e.seat)
                self._stake(st, e.extra_stake_minor, "coin_in_minor")
                st.meters.add("splits", 1)
            elif isinstance(e, rev.InsuranceSettled):
                self._pay(self._st(e.seat), e.returned_minor, "insurance_out_minor")
            elif isinstance(e, rev.HandSettled):
                st = self._st(e.seat)
                self._pay(st, e.returned_minor, "coin_out_minor")
                if e.outcome is rev.Outcome.BLACKJACK:
                    st.meters.add("blackjacks", 1)
                out.append(SendCue("hand_settled", e.seat, {
                    "spot": e.spot, "hand": e.hand, "outcome": e.outcome.value,
                    "returned_minor": e.returned_minor}))

    def _st(self, seat: int) -> StationState:
        st = self.station(seat)
        assert st is not None
        return st

    @staticmethod
    def _stake(st: StationState, amount: int, meter: str) -> None:
        st.credits_minor -= amount
        st.meters.add(meter, amount)
        st.stake_in_round_minor += amount

    @staticmethod
    def _pay(st: StationState, amount: int, meter: str) -> None:
        st.credits_minor += amount
        st.meters.add(meter, amount)
        st.returned_in_round_minor += amount

    def _finish_round(self, out: list[Effect]) -> None:
        rnd = self.round
        assert rnd is not None
        s = self.s
        result = rnd.result()
        for st in s.stations:
            if not st.in_round:
                continue
            m = st.meters
            net = st.returned_in_round_minor - st.stake_in_round_minor
            m.add("games_played", 1)
            m.add("games_won" if net > 0 else "games_lost" if net < 0 else "games_pushed", 1)
            st.win_minor = st.returned_in_round_minor
            jackpot = net if net >= s.settings.jackpot_limit_minor else 0
            if jackpot:
                # research E "Handpay": the win is paid by the attendant, not to the
                # credit meter; it waits in pending-out until the key resets it.
                st.credits_minor -= jackpot
                st.pending_out_minor += jackpot
            out.append(SaveRecall(self._recall_entry(st, result, voided=False, jackpot=jackpot)))
            out.append(Journal("round_end", st.station, st.returned_in_round_minor,
                               {"round_id": s.round_id, "wagered_minor": st.stake_in_round_minor,
                                "returned_minor": st.returned_in_round_minor, "net_minor": net}))
            if jackpot:
                limit = money(s.settings.jackpot_limit_minor, s.settings.currency_symbol)
                self._lock_handpay(st.station, jackpot, f"a win of {limit} or more is paid by hand",
                                   "", out, kind="jackpot")
            st.in_round = False
            st.stake_in_round_minor = st.returned_in_round_minor = 0
            if self.uses_chips:
                st.bets_minor = [0] * self.rules.max_spots_per_seat
                st.chip_log = []
            elif st.bets_minor and st.bets_minor[0] > st.credits_minor:
                st.bets_minor = [0]
        s.round_open = False
        s.decision_deadline_ms = None
        s.games_since_power_up += 1
        s.games_since_door_close += 1
        s.door_closed_notice = False
        if not self.rules.shuffle_every_round:
            s.shoe = rnd.shoe.to_dict()
        out.append(SendCue("round_over", None, {"round_id": s.round_id}))
        self._self_audit(out)

    def _recall_entry(self, st: StationState, result: dict[str, Any],
                      voided: bool, jackpot: int = 0) -> RecallEntry:
        steps: list[str] = []
        rnd = self.round
        mine = f" seat {st.station} "
        if rnd is not None:      # issue 10.4: this station's decisions and spots only
            steps += [f"{p}: {d}" for p, d in rnd.history if mine in f" {p} "]
        result = {**result,
                  "spots": [sp for sp in result.get("spots", []) if sp["seat"] == st.station],
                  "seats": [x for x in result.get("seats", []) if x["seat"] == st.station]}
        ins = 0
        for spot in result.get("spots", []):
            if spot["seat"] == st.station and spot.get("insurance"):
                ins += spot["insurance"]["stake"]
        return RecallEntry(
            round_id=self.s.round_id, station=st.station, variant=self.rules.variant,
            wall_s=self.s.wall_s, credits_before_minor=st.credits_at_round_start_minor,
            credits_after_minor=st.credits_minor, wagered_minor=st.stake_in_round_minor,
            returned_minor=st.returned_in_round_minor, insurance_minor=ins,
            steps=steps, result=result, voided=voided, jackpot_handpay_minor=jackpot)

    def _void_round(self, reason: str, out: list[Effect]) -> None:
        """RULES.md "Malfunctions void all plays and pays": every stake back, nothing paid."""
        s = self.s
        result = self.round.result() if self.round is not None else {}
        for st in s.stations:
            if not st.in_round:
                continue
            # Give back what was staked and not yet returned: the round's
            # settled parts are undone as far as the player is concerned.
            refund = st.stake_in_round_minor - st.returned_in_round_minor
            st.credits_minor += refund
            if refund > 0:
                st.meters.add("void_returned_minor", refund)
            elif refund < 0:
                st.meters.add("void_reclaimed_minor", -refund)
            out.append(SaveRecall(self._recall_entry(st, result, voided=True)))
            out.append(Journal("round_void", st.station, max(refund, 0),
                               {"round_id": s.round_id, "reason": reason,
                                "wagered_minor": st.stake_in_round_minor,
                                "returned_minor": st.returned_in_round_minor}))
            st.in_round = False
            st.stake_in_round_minor = st.returned_in_round_minor = 0
        s.round_open = False
        s.decision_deadline_ms = None
        self.round = None
        s.message = "Round voided: stakes returned"

    # -- cash-out and vouchers ------------------------------------------------------------------

    def _validation_number(self) -> str:
        return str(self.rng.randrange(10**17, 10**18))

    def _printer_ready(self, st: StationState) -> bool:
        return not any(code.startswith("printer_") for code in [*self.s.faults, *st.faults])

    def _cash_out(self, st: StationState, out: list[Effect]) -> None:
        s = self.s
        if not self._self_audit(out):
            return
        self._clear_finished_round()
        amount = st.credits_minor
        st.bets_minor = [0] * self.rules.max_spots_per_seat
        st.chip_log = []
        st.ready = False
        s.voucher_seq += 1
        vn = self._validation_number()
        settings = s.settings
        to_handpay = amount > settings.voucher_limit_minor or not self._printer_ready(st)
        record = VoucherRecord(
            validation_number=vn, sequence=s.voucher_seq, amount_minor=amount,
            station=st.station, issued_wall_s=s.wall_s,
            expires_wall_s=s.wall_s + settings.voucher_expiry_days * 86_400,
            clock_adjust_s=s.clock_adjust_s,
            status="handpay" if to_handpay else "printing",
            venue=settings.venue_name, machine_number=settings.machine_number)
        st.credits_minor -= amount
        st.pending_out_minor += amount
        out.append(SaveVoucher(record))
        out.append(Journal("cash_out", st.station, amount,
                           {"validation_number": vn, "sequence": s.voucher_seq}))
        if to_handpay:
            reason = ("over the voucher limit" if amount > settings.voucher_limit_minor
                      else "printer not ready")
            self._lock_handpay(st.station, amount, reason, vn, out)
        else:
            s.printing = PrintingState(station=st.station, validation_number=vn,
                                       amount_minor=amount, started_ms=s.now_ms)
            out.append(PrintVoucher(record))
            out.append(SendCue("ticket_printing", st.station, {"amount_minor": amount}))

    def _lock_handpay(self, station: int, amount: int, reason: str, vn: str,
                      out: list[Effect], kind: str = "cancelled_credits") -> None:
        """Lock up for the attendant (or queue behind the lockup already shown)."""
        hp = HandpayState(station=station, amount_minor=amount, reason=reason,
                          validation_number=vn, kind=kind)
        if self.s.handpay is None:
            self.s.handpay = hp
        else:
            self.s.handpay_queue = [*self.s.handpay_queue, hp]
        out.append(Journal("handpay", station, amount, {"validation_number": vn,
                                                        "reason": reason, "kind": kind}))

    def _on_print(self, ev: PrintFinished, out: list[Effect]) -> None:
        p = self.s.printing
        if p is None or p.validation_number != ev.validation_number:
            out.append(Rejected(f"print result for {ev.validation_number[-4:]}",
                                "no such print pending"))
            return
        st = self._st(p.station)
        self.s.printing = None
        if ev.result == "done":
            st.pending_out_minor -= p.amount_minor
            st.meters.add("vouchers_out_minor", p.amount_minor)
            st.meters.add("vouchers_out_count", 1)
            out.append(SetVoucherStatus(p.validation_number, "issued", self.s.wall_s))
            out.append(Journal("voucher_printed", st.station, p.amount_minor,
                               {"validation_number": p.validation_number}))
            out.append(SendCue("ticket_printed", st.station, {"amount_minor": p.amount_minor}))
        else:
            out.append(SetVoucherStatus(p.validation_number, "handpay", self.s.wall_s))
            self._lock_handpay(st.station, p.amount_minor, f"print {ev.result}",
                               p.validation_number, out)

    def _reset_handpay(self, out: list[Effect]) -> None:
        hp = self.s.handpay
        assert hp is not None
        st = self._st(hp.station)
        st.pending_out_minor -= hp.amount_minor
        if hp.kind == "jackpot":
            st.meters.add("jackpot_handpay_minor", hp.amount_minor)
            st.meters.add("jackpot_handpay_count", 1)
        else:
            st.meters.add("handpay_minor", hp.amount_minor)
            st.meters.add("handpay_count", 1)
        queue = self.s.handpay_queue
        self.s.handpay = queue[0] if queue else None
        self.s.handpay_queue = queue[1:]
        if hp.validation_number:
            out.append(SetVoucherStatus(hp.validation_number, "handpaid", self.s.wall_s))
        out.append(Journal("handpay_reset", hp.station, hp.amount_minor,
                           {"validation_number": hp.validation_number, "kind": hp.kind}))

    # -- notes and vouchers in -----------------------------------------------------------------

    def _accepting(self) -> bool:
        """Notes and vouchers may come in: the mode takes money and a display shows
        the table (never money into a black screen, issue 11.9)."""
        return ACCEPTS[self.mode][1] and self.display_showing

    def _on_display(self, ev: DisplayChanged, out: list[Effect]) -> None:
        if ev.showing != self.display_showing:
            self.display_showing = ev.showing
            out.append(Journal("display_shown" if ev.showing else "display_dark", 0, 0, {}))

    def tell_refusal(self, st: StationState | None, what: str, reason: str,
                     amount_minor: int = 0) -> None:
        """Show station ``st`` why its note or voucher came back (issue 10.8).

        ``what`` is ``"Note returned"`` or ``"Voucher refused"``; ``reason`` is a
        ``ReturnNote`` reason of this module, put in the player's words
        (``"credit limit $1,000.00"``, ``"expired - see attendant"``).
        """
        if st is None:
            return
        sym = self.s.settings.currency_symbol
        words = {
            "over the credit limit":
                f"credit limit {money(self.s.settings.credit_limit_minor, sym)}",
            "not issued by this cabinet": "not issued here",
            EXPIRED_REASON: EXPIRED_REASON,
            "voucher is redeemed": "already redeemed - see attendant",
            "voucher is handpaid": "already paid by hand - see attendant",
            "voucher is handpay": "waiting for a handpay - see attendant",
            "voucher is printing": "not printed yet - see attendant",
            "not an enabled denomination": f"{money(amount_minor, sym)} notes not taken",
            "station out of service": "station out of service",
        }
        text = words.get(reason)
        if text is None and reason.startswith("voucher is "):
            text = f"{reason.removeprefix('voucher is ')} - see attendant"
        elif text is None and reason.startswith("not accepting"):
            text = "not accepting now"
        st.refusal = f"{what}: {text or reason}"

    def _on_note_escrow(self, ev: NoteEscrowed, out: list[Effect]) -> None:
        st = self.station(ev.station)
        reason = self._refuse_money_in(st, ev.denomination_minor)
        if reason is None and ev.denomination_minor not in self.s.settings.denominations_minor:
            reason = f"{ev.denomination_minor} is not an enabled denomination"
        if reason is not None:
            self.tell_refusal(st, "Note returned", "not an enabled denomination"
                              if reason.endswith("denomination") else reason,
                              ev.denomination_minor)
            out.append(ReturnNote(ev.station, reason))
        else:
            out.append(Journal("note_escrowed", ev.station, ev.denomination_minor,
                               {"txn": ev.txn}))
            out.append(StackNote(ev.station, ev.txn))

    def _refuse_money_in(self, st: StationState | None, amount: int) -> str | None:
        if st is None:
            return "no such station"
        if not self.display_showing:
            return "no display showing the table"
        if not self._accepting():
            return f"not accepting in {self.mode}"
        if st.faults:
            return "station out of service"
        if st.credits_minor + amount > self.s.settings.credit_limit_minor:
            return "over the credit limit"
        return None

    def _seen_txn(self, txn: str) -> bool:
        if txn in self.s.recent_txns:
            return True
        self.s.recent_txns = (self.s.recent_txns + [txn])[-TXN_MEMORY:]
        return False

    def _on_note_stacked(self, ev: NoteStacked, out: list[Effect]) -> None:
        st = self.station(ev.station)
        if st is None or ev.denomination_minor <= 0:
            out.append(Rejected("note stacked", "no such station or bad amount"))
            return
        if self._seen_txn(ev.txn):
            out.append(Journal("note_repeat_ignored", ev.station, ev.denomination_minor,
                               {"txn": ev.txn}))
            return
        # A stacked note is always credited, whatever the mode: it is in the box.
        self._drop_review(ev.txn)       # issue 11.1: a resumed VEND VALID credits it
        self._credit_note(st, ev.denomination_minor, ev.txn, out)

    def _credit_note(self, st: StationState, amount: int, txn: str, out: list[Effect],
                     via: str = "") -> None:
        st.refusal = ""
        st.credits_minor += amount
        st.meters.add("bills_in_minor", amount)
        st.meters.add("bills_in_count", 1)
        st.meters.count_bill(amount)
        st.last_bills_minor = (st.last_bills_minor + [amount])[-5:]
        data = {"txn": txn, "via": via} if via else {"txn": txn}
        out.append(Journal("bill_stacked", st.station, amount, data))
        out.append(SendCue("bill_stacked", st.station, {"amount_minor": amount}))

    def _drop_review(self, txn: str) -> None:
        if txn and any(r.txn == txn for r in self.s.note_reviews):
            self.s.note_reviews = [r for r in self.s.note_reviews if r.txn != txn]
            self._review_faults()

    def _review_faults(self) -> None:
        """The tilt codes follow the reviews still waiting (errors.FAULTS 306/307)."""
        kinds = {f"note_{r.kind}" for r in self.s.note_reviews}
        faults = {c: t for c, t in self.s.faults.items()
                  if not c.startswith("note_in_") or c in kinds}
        for code in sorted(kinds - set(faults)):
            faults[code] = FAULTS[code][1]
        self.s.faults = faults

    def _on_note_uncredited(self, ev: NoteUncredited, out: list[Effect]) -> None:
        """Issue 11.1 / 11.10: journal the uncredited item and lock up for the attendant."""
        st = self.station(ev.station)
        if st is None or ev.kind not in ("in_stacker", "in_path"):
            out.append(Rejected("note uncredited", "no such station or kind"))
            return
        data = {"txn": ev.txn, "validation_number": ev.validation_number[-4:]}
        if ev.txn and ev.txn in self.s.recent_txns:
            out.append(Journal(f"note_{ev.kind}", ev.station, ev.denomination_minor,
                               {**data, "credited": True}))
            return                        # already credited: nothing is owed
        if ev.txn and any(r.txn == ev.txn for r in self.s.note_reviews):
            return
        self.s.note_reviews = [*self.s.note_reviews, NoteReview(
            station=ev.station, txn=ev.txn, amount_minor=ev.denomination_minor,
            kind=ev.kind, validation_number=ev.validation_number)]
        self._review_faults()
        out.append(Journal(f"note_{ev.kind}", ev.station, ev.denomination_minor,
                           {**data, "credited": False}))

    def _resolve_review(self, out: list[Effect]) -> None:
        """The attendant's key on the oldest review: a note in the cash box of known
        value is credited (once: its txn is remembered); anything else is recorded
        as reviewed, not credited."""
        r = self.s.note_reviews[0]
        self.s.note_reviews = self.s.note_reviews[1:]
        self._review_faults()
        st = self._st(r.station)
        credit = r.kind == "in_stacker" and r.amount_minor > 0 and not r.validation_number \
            and not (r.txn and self._seen_txn(r.txn))
        if credit:
            self._credit_note(st, r.amount_minor, r.txn, out, via="attendant")
        out.append(Journal("note_review_resolved", r.station, r.amount_minor if credit else 0,
                           {"txn": r.txn, "kind": r.kind, "credited": credit}))

    def _voucher_refusal(self, st: StationState | None, rec: VoucherRecord | None) -> str | None:
        if rec is None:
            return "not issued by this cabinet"
        if rec.status != "issued":
            return f"voucher is {rec.status}"
        if self._expired(rec):
            return EXPIRED_REASON
        return self._refuse_money_in(st, rec.amount_minor)

    def _expired(self, rec: VoucherRecord) -> bool:
        """Past its expiry counted from its issue as journaled: the clock jumps journaled
        since the issue do not count (issue 11.8: a ticket printed on a slow clock
        stays good for its days once the clock is corrected)."""
        return self.s.wall_s - (self.s.clock_adjust_s - rec.clock_adjust_s) > rec.expires_wall_s

    def _on_voucher_escrow(self, ev: VoucherEscrowed, out: list[Effect]) -> None:
        reason = self._voucher_refusal(self.station(ev.station), ev.record)
        if reason is not None:
            self.tell_refusal(self.station(ev.station), "Voucher refused", reason)
            vn = ev.validation_number if ev.record is not None else ev.validation_number[-4:]
            out.append(ReturnNote(ev.station, reason))
            out.append(Journal("voucher_refused", ev.station, 0,
                               {"validation_number": vn, "reason": reason, "txn": ev.txn}))
        else:
            assert ev.record is not None
            out.append(Journal("voucher_escrowed", ev.station, ev.record.amount_minor,
                               {"txn": ev.txn, "validation_number": ev.validation_number}))
            out.append(StackNote(ev.station, ev.txn))

    def _on_voucher_stacked(self, ev: VoucherStacked, out: list[Effect]) -> None:
        st = self.station(ev.station)
        rec = ev.record
        if self._seen_txn(ev.txn):
            out.append(Journal("voucher_repeat_ignored", ev.station, 0, {"txn": ev.txn}))
            return
        if st is None or rec is None or rec.status != "issued" or self._expired(rec):
            out.append(Journal("voucher_stacked_invalid", ev.station, 0,
                               {"validation_number": ev.validation_number[-4:], "txn": ev.txn}))
            return
        st.refusal = ""
        self._drop_review(ev.txn)       # issue 11.1: a resumed VEND VALID credits it
        st.credits_minor += rec.amount_minor
        st.meters.add("vouchers_in_minor", rec.amount_minor)
        st.meters.add("vouchers_in_count", 1)
        out.append(SetVoucherStatus(rec.validation_number, "redeemed", self.s.wall_s))
        out.append(Journal("voucher_in", ev.station, rec.amount_minor,
                           {"validation_number": rec.validation_number, "txn": ev.txn}))
        out.append(SendCue("voucher_accepted", ev.station, {"amount_minor": rec.amount_minor}))

    def _remember_return(self, station: int, txn: str, out: list[Effect]) -> None:
        """An escrow handed back: keep why until its return is journaled (issue 10.2)."""
        reasons = [e.reason for e in out if isinstance(e, ReturnNote) and e.station == station]
        if reasons:
            self._returning[station] = (txn, reasons[-1])

    def _on_note_returned(self, ev: NoteReturned, out: list[Effect]) -> None:
        data: dict[str, Any] = {"txn": ev.txn}
        txn, reason = self._returning.get(ev.station, (None, ""))
        if txn == ev.txn:
            data["reason"] = reason                 # why we handed it back (issue 10.2)
            del self._returning[ev.station]
        out.append(Journal("note_returned", ev.station, 0, data))

    # -- doors, key, faults, time ------------------------------------------------------------------

    def _on_door(self, ev: DoorChanged, out: list[Effect]) -> None:
        s = self.s
        if ev.open and ev.door not in s.doors_open:
            s.doors_open = s.doors_open + [ev.door]
            s.door_opens[ev.door] = s.door_opens.get(ev.door, 0) + 1
            out.append(Journal("door_open", 0, 0, {"door": ev.door}))
        elif not ev.open and ev.door in s.doors_open:
            s.doors_open = [d for d in s.doors_open if d != ev.door]
            out.append(Journal("door_closed", 0, 0, {"door": ev.door}))
            if not s.doors_open:
                s.door_closed_notice = True
                s.games_since_door_close = 0

    def _on_door_while_off(self, ev: DoorOpenedWhileOff, out: list[Effect]) -> None:
        """An opening nobody saw: counted and journaled (shown in the Event log)."""
        s = self.s
        s.door_opens[ev.door] = s.door_opens.get(ev.door, 0) + 1
        out.append(Journal("door_opened_while_powered_off", 0, 0, {"door": ev.door}))

    def _on_key(self, ev: KeyChanged, out: list[Effect]) -> None:
        s = self.s
        was_on, s.key_on = s.key_on, ev.on
        if ev.on and was_on:
            return                  # a position report (start-up, re-poll), not a turn
        if ev.on:
            if s.handpay is not None:
                self._reset_handpay(out)
            elif s.note_reviews:
                self._resolve_review(out)
            elif s.maintenance is None and self._may_enter_maintenance():
                s.maintenance = MaintState(page="settings" if s.needs_config else "main")
                out.append(Journal("maintenance_enter"))
            elif s.maintenance is None:
                # issue 10.6: the menu opens when the round (or the ticket) is over,
                # if the key is still on; the table says so meanwhile
                out.append(Journal("maintenance_requested", 0, 0,
                                   {"after": "round" if s.round_open else "ticket"}))
        elif s.maintenance is not None:
            s.maintenance = None
            out.append(Journal("maintenance_exit"))

    def _may_enter_maintenance(self) -> bool:
        """Between rounds, with no ticket printing, no handpay and no note review waiting (research I
        "Audit / test mode": "any time except during play or cash-out")."""
        s = self.s
        return s.ram_error or (not s.round_open and s.printing is None and s.handpay is None
                               and not s.note_reviews)

    def _enter_maintenance_if_keyed(self, out: list[Effect]) -> None:
        """The key on opens the menu as soon as it may: at once, or when the round
        ends, the ticket is out or the last handpay is reset (issue 10.6)."""
        s = self.s
        if s.key_on and s.maintenance is None and self._may_enter_maintenance():
            s.maintenance = MaintState(page="settings" if s.needs_config else "main")
            out.append(Journal("maintenance_enter"))

    def _on_fault(self, ev: DeviceFaulted, out: list[Effect]) -> None:
        """A shared device's fault (``station`` 0) tilts the cabinet; a station's
        own device stops that station only, or tilts a one-station cabinet
        (issue 10.8)."""
        st = self.station(ev.station) if ev.station else None
        faults = st.faults if st is not None else self.s.faults
        if ev.code not in faults:
            text = ev.text or FAULTS.get(ev.code, (0, ev.code))[1]
            if st is not None:
                st.faults = {**faults, ev.code: text}
            else:
                self.s.faults = {**faults, ev.code: text}
            out.append(Journal("fault", ev.station if st is not None else 0, 0,
                               {"device": ev.device, "code": ev.code, "text": text}))

    def _on_cleared(self, ev: DeviceCleared, out: list[Effect]) -> None:
        prefix = ev.device + "_"
        st = self.station(ev.station) if ev.station else None
        # a cabinet-wide fault of this device kind clears too: journals written before
        # faults were kept per station hold a station's device fault there, and every
        # device reports its real state at start-up (issue 10.1), so one still failing
        # is reported again as its station's own
        cleared = [c for c in self.s.faults if c.startswith(prefix)]
        if cleared:
            self.s.faults = {c: t for c, t in self.s.faults.items() if c not in cleared}
            out.append(Journal("fault_cleared", 0, 0, {"device": ev.device, "codes": cleared}))
        for other in self.s.stations if st is None else [st]:
            mine = [c for c in other.faults if c.startswith(prefix)]
            if mine:
                other.faults = {c: t for c, t in other.faults.items() if c not in mine}
                out.append(Journal("fault_cleared", other.station, 0,
                                   {"device": ev.device, "codes": mine}))

    def fault_lines(self) -> list[str]:
        """Every fault as ``"300 Bill acceptor jam"``, a station's own named
        ``"Station 2: 300 Bill acceptor jam"`` on a table of several stations."""
        lines = [fault_text(c) for c in self.s.faults]
        many = len(self.s.stations) > 1
        for st in self.s.stations:
            lines += [f"Station {st.station}: {fault_text(c)}" if many else fault_text(c)
                      for c in st.faults]
        return lines

    def _clock_jump(self, old_wall_s: float, new_wall_s: float, jump_s: float,
                    out: list[Effect]) -> None:
        """Journal a wall-clock jump and remember it for voucher ages (issue 11.8)."""
        self.s.clock_adjust_s += jump_s
        out.append(Journal("clock_jump", 0, 0, {"old_wall_s": old_wall_s,
                                                "new_wall_s": new_wall_s,
                                                "jump_s": round(jump_s, 3)}))

    def _on_tick(self, ev: Tick, out: list[Effect]) -> None:
        s = self.s
        if s.now_ms or s.wall_s:
            jump = (ev.wall_s - s.wall_s) - (ev.now_ms - s.now_ms) / 1000
            if abs(jump) > CLOCK_JUMP_S:
                self._clock_jump(s.wall_s, ev.wall_s, jump, out)
        s.now_ms = ev.now_ms
        s.wall_s = ev.wall_s
        mode = self.mode
        if s.printing is not None and s.now_ms - s.printing.started_ms > PRINT_TIMEOUT_MS:
            self._on_print(PrintFinished(s.printing.station, s.printing.validation_number,
                                         "unknown"), out)
        if mode in ("attract", "betting") and s.bet_deadline_ms is not None \
                and s.now_ms >= s.bet_deadline_ms:
            self._start_round(out)
        elif mode == "in_round" and s.decision_deadline_ms is not None \
                and s.now_ms >= s.decision_deadline_ms and self.round is not None:
            prompt = self.round.prompt
            if prompt is not None:
                action = "decline" if prompt.kind == "insurance" else "stand"
                out.append(Journal("decision_timeout", prompt.seat, 0, {"decision": action}))
                self._decide(action, out)

    def _on_power_up(self, ev: PowerUp, out: list[Effect]) -> None:
        s = self.s
        if s.wall_s and ev.wall_s < s.wall_s - CLOCK_JUMP_S:  # behind the journal's last time
            self._clock_jump(s.wall_s, ev.wall_s, ev.wall_s - s.wall_s, out)
        s.now_ms = ev.now_ms
        s.wall_s = ev.wall_s
        s.power_ups += 1
        s.games_since_power_up = 0
        out.append(Journal("power_up", 0, 0, {"power_ups": s.power_ups}))
        # Deadlines were on the old monotonic clock: start them again.
        if s.bet_deadline_ms is not None:
            s.bet_deadline_ms = s.now_ms + self.rules.bet_timer_s * 1000
        if s.round_open:
            if self._round_unrestorable or self.round is None:
                self._void_round("stored round failed its integrity check", out)
                self._round_unrestorable = False
            else:
                self._arm_decision_timer()
        if s.printing is not None:          # the print's outcome is unknown: never reprint
            p = s.printing
            self._on_print(PrintFinished(p.station, p.validation_number, "unknown"), out)

    # -- RAM clear (called from maintenance) ------------------------------------------------------

    def ram_clear(self, out: list[Effect]) -> None:
        """research C "RAM clear": zero credits, meters and history; configure again.

        The caller (the maintenance menu) has checked the access level
        (``maintenance.ram_clear_refusal``). Kept: the settings, the power-up
        count, the voucher sequence and recent acceptor transactions (so an
        outstanding voucher, whose record the journal keeps, is redeemed
        exactly once), the doors' and devices' present state, and the clock.
        The ``ram_clear`` event records what was erased (issues 10.2, 11.12).
        """
        old = self.s
        summary = maintenance.ram_clear_summary(self)
        self.s = new_state(old.settings)
        s = self.s
        s.power_ups, s.voucher_seq, s.recent_txns = old.power_ups, old.voucher_seq, old.recent_txns
        s.doors_open, s.now_ms, s.wall_s = old.doors_open, old.now_ms, old.wall_s
        s.faults = {c: t for c, t in old.faults.items() if c.startswith(("bill_", "printer_"))}
        s.needs_config = True
        s.maintenance = MaintState(page="settings")
        s.key_on = True
        self.round = None
        self._round_unrestorable = False
        out.append(ClearJournal())
        out.append(Journal("ram_clear", 0, sum(summary["credits_minor"].values()), {
            **summary, "access": maintenance.access_name(old)}))

    def apply_settings(self, settings: GameSettings, out: list[Effect]) -> str | None:
        """Change the game settings between rounds; returns an error message or None."""
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
                st.credits_minor or st.pending_out_minor for st in stations[settings.stations:]):
            return "stations: a station being removed still holds credits"
        del stations[settings.stations:]
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
        out.append(Journal("settings_changed", 0, 0, {
            "old": _settings_dict(old), "new": _settings_dict(settings)}))
        return None

    # -- outputs --------------------------------------------------------------------------------

    def _refresh_outputs(self, out: list[Effect]) -> None:
        """Lamps, acceptor enable and tower light follow the state (only changes are sent)."""
        for st in self.s.stations:
            lamps = self.legal_actions(st.station)
            if self._lamps.get(st.station) != lamps:
                self._lamps[st.station] = lamps
                out.append(SetLamps(st.station, lamps))
            acc = (self._accepting() and not st.faults, tuple(self.s.settings.denominations_minor))
            if self._acceptor.get(st.station) != acc:
                self._acceptor[st.station] = acc
                out.append(SetAcceptor(st.station, acc[0], acc[1]))
        mode = self.mode
        tower = {"handpay": "handpay", "tilt": "tilt", "ram_error": "tilt",
                 "door_open": "service", "maintenance": "service"}.get(mode, "off")
        if tower == "off" and any(st.faults for st in self.s.stations):
            tower = "tilt"                     # a station out of service calls the attendant
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
        yet; changes nothing else (the engine's storage tilt, issue 11.6)."""
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
}

__all__ = ["ACCEPTS", "Cabinet", "Meters", "new_state"]

"""Dealing and settlement: the bet timer, Deal, the self-audit, starting a round,
the player's decisions, the round's money (stakes and pays), finishing and
voiding a round, game recall.

Owns: ``Table``, the table owner's round machine (``Cabinet.table``): ``round``,
``round_id``, ``round_open``, the shoe, the bet and decision deadlines, the games
counters, and the stakes and pays of play on each station's credits and meters.
Reads the rest through ``cabinet.core.queries.CabinetQueries``. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cabinet.core.effects import Effect, Journal, Rejected, SaveRecall, SendCue
from cabinet.core.errors import present
from cabinet.core.meters import audit_balance
from cabinet.core.queries import Machine
from cabinet.core.records import RecallEntry
from cabinet.core.state import StationState
from cabinet.game import BetError, Decision, GameError, Round, SeatBets, Shoe
from cabinet.game import events as round_events
from cabinet.protocol.money import fmt_money
from cabinet.protocol.said import N_


class Table(Machine):
    """A round from Deal to settlement, and its money."""

    def _occupied(self) -> list[StationState]:
        return [
            st
            for st in self.s.stations
            if st.station in self.cab.seats_in_play()
            and self.cab.in_service(st)
            and (st.credits_minor > 0 or any(st.bets_minor))
        ]

    def maybe_start_bet_timer(self) -> None:
        """Start the bet timer once two stations sit at the table and one has bet."""
        if (
            len(self._occupied()) >= 2
            and self.s.bet_deadline_ms is None
            and any(any(st.bets_minor) for st in self.s.stations)
        ):
            self.s.bet_deadline_ms = self.s.now_ms + self.cab.rules.bet_timer_s * 1000

    def press_deal(self, st: StationState, out: list[Effect]) -> None:
        """Station ``st`` pressed Deal: deal now, or when the other stations with bets are ready."""
        self.cab.bets.clear_finished_round()
        st.ready = True
        occupied = self._occupied()
        waiting = [o for o in occupied if any(o.bets_minor) and not o.ready]
        if len(occupied) <= 1 or not waiting:
            self.start_round(out)
        else:
            self.maybe_start_bet_timer()

    def self_audit(self, out: list[Effect]) -> bool:
        """research A "Self-audit": every station must balance; else tilt."""
        for st in self.s.stations:
            diff = audit_balance(st.credits_minor, st.pending_out_minor, st.meters)
            if diff:
                self.s.audit_failed = True
                out.append(Journal("audit_mismatch", st.station, diff, {"credits_minor": st.credits_minor}))
                return False
        return True

    def start_round(self, out: list[Effect]) -> None:
        """Deal a round to every station in play with valid bets (stakes off the credits)."""
        r = self.cab.rules
        s = self.s
        s.bet_deadline_ms = None
        players = [
            st
            for st in s.stations
            if st.station in self.cab.seats_in_play() and self.cab.in_service(st) and self.cab.bets.bets_valid(st)
        ]
        for st in s.stations:
            st.ready = False
        if not players:
            return
        if not self.self_audit(out):
            return
        shoe = None
        if not r.shuffle_every_round and s.shoe is not None:
            shoe = Shoe.from_dict(s.shoe)
            if shoe.cut_card_reached:
                shoe = None
        if shoe is None:
            shoe = Shoe.shuffled(r.decks, self.cab.rng, r.penetration_percent)
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
        except BetError as e:  # legality was checked: a bug
            for st in players:  # give the stakes straight back
                st.credits_minor += st.stake_in_round_minor
                st.meters.add("coin_out_minor", st.stake_in_round_minor)
                st.in_round = False
            out.append(Rejected("deal", str(e)))
            return
        s.round_id += 1
        s.round_open = True
        self.cab.round = rnd
        out.append(
            Journal(
                "round_start",
                0,
                sum(st.stake_in_round_minor for st in players),
                {
                    "round_id": s.round_id,
                    "shoe_position": shoe.position,
                    "bets": {st.station: st.bets_minor for st in players},
                },
            )
        )
        self._run_round(rnd.start, out)

    def decide(self, action: str, out: list[Effect]) -> None:
        """The prompted hand's ``action`` (a ``Decision`` value); ``InvariantError`` without a round."""
        rnd = present(self.cab.round, "the round")
        self._run_round(lambda: rnd.decide(Decision(action)), out)

    def _run_round(self, step: Callable[[], list[round_events.Event]], out: list[Effect]) -> None:
        rnd = present(self.cab.round, "the round")
        try:
            events = step()
        except GameError as e:  # shoe exhausted or a bug: void
            self.void_round(f"round fault: {e}", out)
            return
        self._apply_round_events(events, out)
        if rnd.finished:
            self._finish_round(out)
        else:
            self.arm_decision_timer()

    def arm_decision_timer(self) -> None:
        """Run the decision timer while two or more stations play the round; else stop it."""
        in_round = [st for st in self.s.stations if st.in_round]
        if len(in_round) >= 2:
            self.s.decision_deadline_ms = self.s.now_ms + self.cab.rules.decision_timer_s * 1000
        else:
            self.s.decision_deadline_ms = None

    def _apply_round_events(self, events: list[round_events.Event], out: list[Effect]) -> None:
        """Move the money of round events onto the ledger; cue what players may see."""
        for e in events:
            if isinstance(e, round_events.PlayerCardDealt):
                out.append(
                    SendCue("card_dealt", e.seat, {"to": "player", "spot": e.spot, "hand": e.hand, "card": str(e.card)})
                )
            elif isinstance(e, round_events.DealerCardDealt):
                out.append(
                    SendCue(
                        "card_dealt",
                        None,
                        {"to": "dealer", "card": str(e.card) if e.face_up else None, "face_down": not e.face_up},
                    )
                )
            elif isinstance(e, round_events.DealerCardRevealed):
                out.append(SendCue("hole_card_revealed", None, {"card": str(e.card)}))
            elif isinstance(e, round_events.DealerChecked):
                out.append(SendCue("dealer_checked", None, {"blackjack": e.blackjack}))
            elif isinstance(e, round_events.InsuranceTaken):
                st = self.cab.station_of(e.seat)
                self._stake(st, e.stake_minor, "insurance_in_minor")
                st.meters.add("insurance_taken", 1)
            elif isinstance(e, round_events.HandDoubled):
                st = self.cab.station_of(e.seat)
                self._stake(st, e.extra_stake_minor, "coin_in_minor")
                st.meters.add("doubles", 1)
            elif isinstance(e, round_events.HandSplit):
                st = self.cab.station_of(e.seat)
                self._stake(st, e.extra_stake_minor, "coin_in_minor")
                st.meters.add("splits", 1)
            elif isinstance(e, round_events.InsuranceSettled):
                self._pay(self.cab.station_of(e.seat), e.returned_minor, "insurance_out_minor")
            elif isinstance(e, round_events.HandSettled):
                st = self.cab.station_of(e.seat)
                self._pay(st, e.returned_minor, "coin_out_minor")
                if e.outcome is round_events.Outcome.BLACKJACK:
                    st.meters.add("blackjacks", 1)
                out.append(
                    SendCue(
                        "hand_settled",
                        e.seat,
                        {
                            "spot": e.spot,
                            "hand": e.hand,
                            "outcome": e.outcome.value,
                            "returned_minor": e.returned_minor,
                        },
                    )
                )

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
        rnd = present(self.cab.round, "the round")
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
            out.append(
                Journal(
                    "round_end",
                    st.station,
                    st.returned_in_round_minor,
                    {
                        "round_id": s.round_id,
                        "wagered_minor": st.stake_in_round_minor,
                        "returned_minor": st.returned_in_round_minor,
                        "net_minor": net,
                    },
                )
            )
            if jackpot:
                limit = fmt_money(s.settings.jackpot_limit_minor, s.settings.currency_symbol)
                self.cab.ledger.lock_handpay(
                    st.station, jackpot, f"a win of {limit} or more is paid by hand", "", out, kind="jackpot"
                )
            st.in_round = False
            st.stake_in_round_minor = st.returned_in_round_minor = 0
            if self.cab.uses_chips:
                st.bets_minor = [0] * self.cab.rules.max_spots_per_seat
                st.chip_log = []
            elif st.bets_minor and st.bets_minor[0] > st.credits_minor:
                st.bets_minor = [0]
        s.round_open = False
        s.decision_deadline_ms = None
        s.games_since_power_up += 1
        s.games_since_door_close += 1
        s.door_closed_notice = False
        if not self.cab.rules.shuffle_every_round:
            s.shoe = rnd.shoe.to_dict()
        out.append(SendCue("round_over", None, {"round_id": s.round_id}))
        self.self_audit(out)

    def _recall_entry(self, st: StationState, result: dict[str, Any], voided: bool, jackpot: int = 0) -> RecallEntry:
        steps: list[str] = []
        rnd = self.cab.round
        mine = f" seat {st.station} "
        if rnd is not None:  # this station's decisions and spots only
            steps += [f"{p}: {d}" for p, d in rnd.history if mine in f" {p} "]
        result = {
            **result,
            "spots": [sp for sp in result.get("spots", []) if sp["seat"] == st.station],
            "seats": [x for x in result.get("seats", []) if x["seat"] == st.station],
        }
        ins = 0
        for spot in result.get("spots", []):
            if spot["seat"] == st.station and spot.get("insurance"):
                ins += spot["insurance"]["stake"]
        return RecallEntry(
            round_id=self.s.round_id,
            station=st.station,
            variant=self.cab.rules.variant,
            wall_s=self.s.wall_s,
            credits_before_minor=st.credits_at_round_start_minor,
            credits_after_minor=st.credits_minor,
            wagered_minor=st.stake_in_round_minor,
            returned_minor=st.returned_in_round_minor,
            insurance_minor=ins,
            steps=steps,
            result=result,
            voided=voided,
            jackpot_handpay_minor=jackpot,
        )

    def void_round(self, reason: str, out: list[Effect]) -> None:
        """RULES.md "Malfunctions void all plays and pays": every stake back, nothing paid."""
        s = self.s
        result = self.cab.round.result() if self.cab.round is not None else {}
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
            out.append(
                Journal(
                    "round_void",
                    st.station,
                    max(refund, 0),
                    {
                        "round_id": s.round_id,
                        "reason": reason,
                        "wagered_minor": st.stake_in_round_minor,
                        "returned_minor": st.returned_in_round_minor,
                    },
                )
            )
            st.in_round = False
            st.stake_in_round_minor = st.returned_in_round_minor = 0
        s.round_open = False
        s.decision_deadline_ms = None
        self.cab.round = None
        s.message = N_("Round voided: stakes returned")

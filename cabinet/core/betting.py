"""Betting: what a station may bet now, the bet intents (chips, spots, rebet,
undo, clear, new game).

Owns: ``Betting``, the table owner's betting machine (``Cabinet.bets``): each
station's ``bets_minor``, ``chip_log``, ``selected_chip_minor`` and ``last_bets_minor``.
Reads the rest through ``cabinet.core.queries.CabinetQueries``. Pure.
"""

from __future__ import annotations

from cabinet.core.effects import Effect, Rejected, SendCue
from cabinet.core.errors import STORAGE_FAULT
from cabinet.core.events import IntentReceived
from cabinet.core.queries import Machine
from cabinet.core.state import StationState


class Betting(Machine):
    """Bets on the spots between rounds (RULES.md table limits)."""

    def betting_legal(self, st: StationState) -> frozenset[str]:
        """The betting intents station ``st`` may send now (its lamps): what its credits,
        bets, chips and readiness allow."""
        r = self.cab.rules
        legal: set[str] = set()
        total = sum(st.bets_minor)
        if self.can_cash_out(st) and not st.ready:
            legal.add("cash_out")
        if st.ready:
            return frozenset(legal)
        if not self.cab.uses_chips:
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
            if (
                chip is not None
                and total + chip <= st.credits_minor
                and any(self._spot_bet(st, i) + chip <= r.max_bet_minor for i in range(r.max_spots_per_seat))
            ):
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
            if total + up_chip <= st.credits_minor and self._spot_bet(st, 0) + up_chip <= r.max_bet_minor:
                legal.add("bet_up")
            if st.chip_log:
                legal.add("bet_down")
        if total or (self.cab.round is not None and self.cab.round.finished):
            legal.add("new_game")
        if self.bets_valid(st):
            legal.add("deal")
        return frozenset(legal)

    @staticmethod
    def _spot_bet(st: StationState, i: int) -> int:
        return st.bets_minor[i] if i < len(st.bets_minor) else 0

    def bets_valid(self, st: StationState) -> bool:
        """Station ``st``'s bets may be dealt: at least one, covered by its credits, each
        within the table limits and a multiple of the bet step."""
        r = self.cab.rules
        bets = [b for b in st.bets_minor if b]
        return (
            bool(bets)
            and sum(bets) <= st.credits_minor
            and all(r.min_bet_minor <= b <= r.max_bet_minor and b % r.bet_step_minor == 0 for b in bets)
        )

    def can_cash_out(self, st: StationState) -> bool:
        """Station ``st`` may cash out now: credits, no round open, no cash-out of its own
        under way, the journal writable and (at a shared table) its own printer well."""
        if STORAGE_FAULT in self.s.faults:
            return False  # the journal cannot be written: nothing can be paid out
        if len(self.s.stations) > 1 and any(c.startswith("printer_") for c in st.faults):
            return False  # its printer is out; a handpay would stop every station
        return st.credits_minor > 0 and not self.s.round_open and not self.cab.cashing_out(st)

    def clear_finished_round(self) -> None:
        """Take a settled round off the table (and each station's last win)."""
        if self.cab.round is not None and self.cab.round.finished:
            self.cab.round = None
            for st in self.s.stations:
                st.win_minor = 0

    def bet_action(self, st: StationState, ev: IntentReceived, out: list[Effect]) -> None:
        """Apply a betting intent (chips, spots, Bet+/-, undo, clear, rebet, new game) of
        station ``st``; refusals go to ``out`` as ``Rejected``."""
        r = self.cab.rules
        self.clear_finished_round()
        a = ev.action
        if not st.bets_minor:
            st.bets_minor = [0] * r.max_spots_per_seat
        if a in ("bet_up", "bet_down") and self.cab.uses_chips:
            if a == "bet_up":
                up = st.selected_chip_minor or r.chip_values_minor[0]
                st.bets_minor[0] += up
                st.chip_log.append([1, up])
            else:
                at, back = st.chip_log.pop()
                st.bets_minor[at - 1] -= back
        elif a == "bet_up":
            st.bets_minor[0] = r.min_bet_minor if st.bets_minor[0] == 0 else st.bets_minor[0] + r.bet_step_minor
        elif a == "bet_down":
            st.bets_minor[0] = 0 if st.bets_minor[0] <= r.min_bet_minor else st.bets_minor[0] - r.bet_step_minor
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
            if chip is None:
                out.append(Rejected(f"place on spot {spot}", "no chip selected"))
                return
            if not 1 <= spot <= r.max_spots_per_seat or st.bets_minor[spot - 1] + chip > r.max_bet_minor:
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
        self.cab.table.maybe_start_bet_timer()

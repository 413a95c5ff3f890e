"""What every section of the ``Cabinet`` shares: its attributes, the derived
lookups, and the methods one section calls in another (defined there).

Owns: ``CabinetBase``, the base of the section mixins (``betting``, ``play``,
``cashout``, ``money_in``, ``doors``) that ``cabinet.core.machine.Cabinet``
combines. Pure.
"""

from __future__ import annotations

from cabinet.core.context import History, RandomSource
from cabinet.core.effects import Effect
from cabinet.core.errors import present
from cabinet.core.events import (
    HostCommanded,
    IntentReceived,
    NoteUncredited,
    PrintFinished,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.modes import Mode
from cabinet.core.records import VoucherRecord
from cabinet.core.state import CabinetState, NoteReview, PrintingState, StationState, TicketIn
from cabinet.game import Round, RuleSet


class CabinetBase:
    """The ``Cabinet``'s attributes (set by ``Cabinet.__init__``) and shared lookups."""

    s: CabinetState
    rng: RandomSource
    history: History
    rules: RuleSet
    round: Round | None
    _round_unrestorable: bool
    _returning: dict[int, tuple[str, str]]
    _lamps: dict[int, frozenset[str]]
    _acceptor: dict[int, tuple[bool, tuple[int, ...], bool]]
    _tower: str
    display_showing: bool
    station_displays: dict[int, bool]
    _dark_since_ms: dict[int, int]
    _drawn: set[int]
    program_id: str
    program_digest: str
    program_status: str
    secret: str
    firmware: dict[tuple[int, str], str]

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

    def _st(self, seat: int) -> StationState:
        return present(self.station(seat), f"station {seat}")

    def _cashing_out(self, st: StationState) -> bool:
        """Station ``st``'s cash-out is under way: its voucher prints on its own printer,
        waits for the casino host's validation number, or an unknown print of a
        host-numbered ticket waits for the host's word before any handpay."""
        return st.printing is not None or st.host.pending_cashout is not None or bool(self._print_checks(st))

    def _prints(self) -> list[PrintingState]:
        """Every voucher sent to a printer whose verdict has not come back."""
        held = [self.s.printing] if self.s.printing is not None else []
        return held + [st.printing for st in self.s.stations if st.printing is not None]

    def _in_service(self, st: StationState) -> bool:
        """Station ``st`` may be dealt in: none of its devices failed and a screen draws it."""
        return not st.faults and self.display_shows(st.station)

    def display_shows(self, n: int) -> bool:
        """A screen draws station ``n``: the table's screen, or the station's own."""
        return self.display_showing or self.station_displays.get(n, False)

    # -- defined by a section mixin or by ``Cabinet`` (called across sections) --

    @property
    def mode(self) -> Mode:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _betting_legal(self, st: StationState) -> frozenset[str]:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _bets_valid(self, st: StationState) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _can_cash_out(self, st: StationState) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _clear_finished_round(self) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _bet_action(self, st: StationState, ev: IntentReceived, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _maybe_start_bet_timer(self) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _press_deal(self, st: StationState, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _self_audit(self, out: list[Effect]) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _start_round(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _decide(self, action: str, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _arm_decision_timer(self) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _void_round(self, reason: str, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _cash_out(self, st: StationState, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _lock_handpay(
        self, station: int, amount: int, reason: str, vn: str, out: list[Effect], kind: str = "cancelled_credits"
    ) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _on_print(self, ev: PrintFinished, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _reset_handpay(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _accepting(self) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _display_tick(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _resolve_review(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _remember_return(self, station: int, txn: str, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _enter_maintenance_if_keyed(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def host_bills_minor(self, station: int, enabled: tuple[int, ...]) -> tuple[int, ...]:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    # -- money in (money_in) and tickets through the host (tito) --------------------------

    def _refuse_money_in(self, st: StationState | None, amount: int) -> str | None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def tell_refusal(self, st: StationState | None, what: str, reason: str, amount_minor: int = 0) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _seen_txn(self, txn: str) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _drop_review(self, txn: str) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _request_validation(self, st: StationState, amount: int, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _system_validation(self, st: StationState) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _hold_ticket(self, ev: VoucherEscrowed, out: list[Effect]) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _host_ticket_stacked(self, ev: VoucherStacked, out: list[Effect]) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _host_ticket_returned(self, station: int, txn: str, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _host_ticket_uncredited(self, ev: NoteUncredited, out: list[Effect]) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _on_validation_number(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _on_redeem(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _on_ticket_data(self, st: StationState, ev: HostCommanded) -> dict[str, object]:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _tito_tick(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _tito_link_down(self, st: StationState, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _tito_power_up(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    # -- tickets settled with the host without an escrow (tito_claims) -------------------

    def _expired(self, rec: VoucherRecord) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _print_checks(self, st: StationState) -> list[TicketIn]:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _start_claims(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _claim_again(
        self, st: StationState, result: str, reason: str, out: list[Effect], code: int = -1, delay_ms: int = 5_000
    ) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _claim_answer(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _check_print_with_host(self, st: StationState, p: PrintingState, out: list[Effect]) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _ticket_in_box(self, r: NoteReview, out: list[Effect]) -> bool:
        raise NotImplementedError  # a section mixin or Cabinet defines it

    def _claims_power_up(self, out: list[Effect]) -> None:
        raise NotImplementedError  # a section mixin or Cabinet defines it

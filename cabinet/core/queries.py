"""What a machine of the cabinet reads of the cabinet and calls of the others.

Owns: ``CabinetQueries``, the interface each machine of ``cabinet.core.machine.Cabinet``
holds (its ``cab``): the shared critical state ``s`` (one journaled record, the
journal format of ``cabinet.core.state``), the in-memory facts the shell sets, the
derived queries (``mode``, ``station``, ``cashing_out`` ...), and one port per
machine listing what the others call of it. The machines, by owner:

- ledger: ``cabinet.core.cashout.Ledger`` (cash-out, vouchers out, handpays);
- table: ``cabinet.core.betting.Betting`` (bets) and ``cabinet.core.play.Table``
  (rounds, dealing, settlement, credits and meters of play);
- acceptance: ``cabinet.core.money_in.Acceptance`` (notes and vouchers in, escrows,
  reviews of uncredited notes);
- host: ``cabinet.core.host.HostLink`` (the event queue, host commands),
  ``cabinet.core.tito.Tito`` (tickets validated and redeemed by the host) and
  ``cabinet.core.tito_claims.TicketClaims`` (tickets settled with the host without
  an escrow);
- service: ``cabinet.core.doors.Service`` (doors, key, faults, time, the menu's
  entry) and ``cabinet.core.displays.Displays`` (which screens draw which station).

A machine changes the part of ``s`` it owns (its module says which) and reads
the rest through these queries; it never calls another machine's private
method. Pure: types only (the ports keep the import graph acyclic: the
machines import this module, never each other).
"""

from __future__ import annotations

from typing import Protocol

from cabinet.core.context import RandomSource
from cabinet.core.effects import Effect
from cabinet.core.events import (
    HistoryLoaded,
    HostCommanded,
    NoteUncredited,
    PrintFinished,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.modes import Mode
from cabinet.core.records import VoucherRecord
from cabinet.core.state import CabinetState, NoteReview, PrintingState, StationState
from cabinet.game import Round, RuleSet


class LedgerPort(Protocol):
    """What the other machines call of the ledger's (``cabinet.core.cashout.Ledger``)."""

    def lock_handpay(
        self, station: int, amount: int, reason: str, vn: str, out: list[Effect], kind: str = "cancelled_credits"
    ) -> None: ...

    def on_print(self, ev: PrintFinished, out: list[Effect]) -> None: ...

    def reset_handpay(self, out: list[Effect]) -> None: ...


class BettingPort(Protocol):
    """What the other machines call of the bets' (``cabinet.core.betting.Betting``)."""

    def bets_valid(self, st: StationState) -> bool: ...

    def clear_finished_round(self) -> None: ...


class TablePort(Protocol):
    """What the other machines call of the table's (``cabinet.core.play.Table``)."""

    def maybe_start_bet_timer(self) -> None: ...

    def self_audit(self, out: list[Effect]) -> bool: ...

    def start_round(self, out: list[Effect]) -> None: ...

    def decide(self, action: str, out: list[Effect]) -> None: ...

    def arm_decision_timer(self) -> None: ...

    def void_round(self, reason: str, out: list[Effect]) -> None: ...


class AcceptancePort(Protocol):
    """What the other machines call of money in's (``cabinet.core.money_in.Acceptance``)."""

    def tell_refusal(self, st: StationState | None, what: str, reason: str, amount_minor: int = 0) -> None: ...

    def refuse_money_in(self, st: StationState | None, amount: int) -> str | None: ...

    def seen_txn(self, txn: str) -> bool: ...

    def drop_review(self, txn: str) -> None: ...

    def resolve_review(self, out: list[Effect]) -> None: ...

    def expired(self, rec: VoucherRecord) -> bool: ...


class HostLinkPort(Protocol):
    """What the other machines call of the host link's (``cabinet.core.host.HostLink``)."""

    def host_bills_minor(self, station: int, enabled: tuple[int, ...]) -> tuple[int, ...]: ...


class TitoPort(Protocol):
    """What the other machines call of tickets through the host (``cabinet.core.tito.Tito``)."""

    def system_validation(self, st: StationState) -> bool: ...

    def request_validation(self, st: StationState, amount: int, out: list[Effect]) -> None: ...

    def on_validation_number(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str: ...

    def on_ticket_data(self, st: StationState, ev: HostCommanded) -> dict[str, object]: ...

    def hold_ticket(self, ev: VoucherEscrowed, out: list[Effect]) -> bool: ...

    def on_redeem(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str: ...

    def host_ticket_stacked(self, ev: VoucherStacked, out: list[Effect]) -> bool: ...

    def host_ticket_returned(self, station: int, txn: str, out: list[Effect]) -> None: ...

    def host_ticket_uncredited(self, ev: NoteUncredited, out: list[Effect]) -> bool: ...

    def tito_tick(self, out: list[Effect]) -> None: ...

    def tito_link_down(self, st: StationState, out: list[Effect]) -> None: ...

    def tito_power_up(self, out: list[Effect]) -> None: ...


class TicketClaimsPort(Protocol):
    """What the other machines call of claims with the host (``cabinet.core.tito_claims.TicketClaims``)."""

    def start_claims(self, out: list[Effect]) -> None: ...

    def claim_again(
        self, st: StationState, result: str, reason: str, out: list[Effect], code: int = -1, delay_ms: int = ...
    ) -> None: ...

    def claim_answer(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str: ...

    def check_print_with_host(self, st: StationState, p: PrintingState, out: list[Effect]) -> bool: ...

    def needs_own_record(self, r: NoteReview) -> bool: ...

    def ticket_in_box(self, r: NoteReview, out: list[Effect]) -> bool: ...

    def claims_power_up(self, out: list[Effect]) -> None: ...


class DisplaysPort(Protocol):
    """What the other machines call of the displays' (``cabinet.core.displays.Displays``)."""

    def display_tick(self, out: list[Effect]) -> None: ...


class CabinetQueries(Protocol):
    """The cabinet as its machines see it (``cabinet.core.machine.Cabinet`` is one).

    Attributes:
        s: the critical state (replaced whole by a RAM clear: read it here, never keep it).
        rng: the shell's random source.
        handed: the journal rows the shell read for the event being handled
            (``cabinet.core.context.rows_for``), ``None`` once another was handled.
        rules: the rules in force (``s.settings.validate()``).
        round: the open or last round, ``None`` before the first.
        round_unrestorable: the journaled round could not be restored: it is voided
            at the next ``PowerUp``.
        display_showing, station_displays: a screen draws the table; station -> its
            own screen draws it (``cabinet.core.displays``).
        secret: the digits of a PIN being typed (memory only).
        firmware: (station, device) -> the version it reported (memory only).
    """

    s: CabinetState
    rng: RandomSource
    handed: HistoryLoaded | None
    rules: RuleSet
    round: Round | None
    round_unrestorable: bool
    display_showing: bool
    station_displays: dict[int, bool]
    secret: str
    firmware: dict[tuple[int, str], str]

    @property
    def mode(self) -> Mode: ...

    @property
    def uses_chips(self) -> bool: ...

    def station(self, n: int) -> StationState | None: ...

    def station_of(self, seat: int) -> StationState: ...

    def seats_in_play(self) -> list[int]: ...

    def cashing_out(self, st: StationState) -> bool: ...

    def prints(self) -> list[PrintingState]: ...

    def in_service(self, st: StationState) -> bool: ...

    def display_shows(self, n: int) -> bool: ...

    def accepting(self) -> bool: ...

    # -- the machines (what each calls of another) --

    @property
    def ledger(self) -> LedgerPort: ...

    @property
    def bets(self) -> BettingPort: ...

    @property
    def table(self) -> TablePort: ...

    @property
    def acceptance(self) -> AcceptancePort: ...

    @property
    def host_link(self) -> HostLinkPort: ...

    @property
    def tito(self) -> TitoPort: ...

    @property
    def ticket_claims(self) -> TicketClaimsPort: ...

    @property
    def displays(self) -> DisplaysPort: ...


class Machine:
    """What every machine of the cabinet holds: the cabinet, read through
    ``CabinetQueries``, and ``s``, its critical state (read through the cabinet each
    time: a RAM clear replaces it, so a machine never keeps its own reference)."""

    def __init__(self, cab: CabinetQueries) -> None:
        self.cab = cab

    @property
    def s(self) -> CabinetState:
        """The critical state (the cabinet's: a RAM clear replaces it)."""
        return self.cab.s

"""Effects: what the cabinet core asks the shell to do, in order.

Owns: the effect types ``Cabinet.handle`` returns (imperative names, STYLE.md
5.23). Journal effects (``Journal``, ``SaveVoucher``, ``SaveRecall``) are
written in the same transaction as the new state, before any device effect
runs (DESIGN.md "Money moves exactly once").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cabinet.core.records import RecallEntry, VoucherRecord


@dataclass(frozen=True, slots=True)
class Effect:
    """Base of every effect."""


@dataclass(frozen=True, slots=True)
class Journal(Effect):
    """Append to the event log: ``kind`` (``bill_stacked``, ``door_open``...),
    the station (0 for the cabinet), an amount in minor units, and details."""

    kind: str
    station: int = 0
    amount_minor: int = 0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SaveVoucher(Effect):
    """Insert or update a voucher record (same transaction as the state)."""

    record: VoucherRecord


@dataclass(frozen=True, slots=True)
class SetVoucherStatus(Effect):
    """Change a voucher's status (``issued``, ``handpay``, ``handpaid``, ``redeemed``)."""

    validation_number: str
    status: str
    wall_s: float


@dataclass(frozen=True, slots=True)
class ClearJournal(Effect):
    """RAM clear: wipe the event log, vouchers and recall (the state is reset too).

    Kept: the records of outstanding vouchers (status
    ``issued``), so a voucher printed before the clear is still redeemed,
    once. The clear's own ``ram_clear`` event is journaled after the wipe."""


@dataclass(frozen=True, slots=True)
class SaveRecall(Effect):
    """Keep a finished (or voided) round for game recall."""

    entry: RecallEntry


@dataclass(frozen=True, slots=True)
class StackNote(Effect):
    """Answer an escrow: stack the bill or voucher (``txn``: the escrow's id, so a
    late answer is never taken for a newer escrow's; not part of equality)."""

    station: int
    txn: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class ReturnNote(Effect):
    """Answer an escrow: hand the bill or voucher back. ``reason`` for the log."""

    station: int
    reason: str


@dataclass(frozen=True, slots=True)
class HoldNote(Effect):
    """Answer an escrow: keep the voucher in escrow (ID-003 HOLD, refreshed by the
    driver) until a ``StackNote`` or ``ReturnNote`` for it comes (the casino
    host decides a ticket)."""

    station: int
    txn: str = ""


@dataclass(frozen=True, slots=True)
class SetAcceptor(Effect):
    """Enable or inhibit a station's acceptor; ``denominations_minor`` enabled.
    ``test``: enabled for the bill test only, where every note must pass
    through escrow: an acceptor without escrow (pulse) stays inhibited."""

    station: int
    enabled: bool
    denominations_minor: tuple[int, ...] = ()
    test: bool = False


@dataclass(frozen=True, slots=True)
class PrintVoucher(Effect):
    """Print this voucher (already journaled as ``printing``)."""

    record: VoucherRecord


@dataclass(frozen=True, slots=True)
class SetLamps(Effect):
    """Light exactly these actions' button lamps on a station."""

    station: int
    actions: frozenset[str]


@dataclass(frozen=True, slots=True)
class SetTowerLight(Effect):
    """Tower light: ``off``, ``service`` (door/maintenance), ``tilt``, ``handpay``."""

    state: str


@dataclass(frozen=True, slots=True)
class PollDevices(Effect):
    """Ask every device to report its real state now, changed or not (the
    Faults page: a stale device fault clears when its device says healthy)."""


@dataclass(frozen=True, slots=True)
class SendCue(Effect):
    """A cue for animation and sound (``card_dealt``, ``bill_stacked``...)."""

    name: str
    station: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rejected(Effect):
    """An input that was not accepted now, and why (logged, never raised)."""

    what: str
    reason: str


@dataclass(frozen=True, slots=True)
class ExportAudit(Effect):
    """Write the audit report: ``rows`` as CSV to a USB stick when one is
    mounted, else the export folder, as ``name`` (``cabinet.shell.audit_export``);
    the shell answers with ``AuditExported``."""

    name: str
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class PrintTestTicket(Effect):
    """Print a test ticket at ``station``'s printer, marked VOID / TEST:
    no amount, no validation number, no barcode; no voucher record, no meter.
    ``lines``: what else it prints (the program ID)."""

    station: int
    venue: str
    machine_number: str
    lines: tuple[str, ...] = ()

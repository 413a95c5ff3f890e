"""Input events of the cabinet core: what happened, as past-tense facts.

Owns: every event ``Cabinet.handle`` accepts (STYLE.md 5.23-5.24). The
runtime turns device callbacks, UI intents and clock ticks into these.
Frozen values; money in minor units; times in ms (monotonic) or s (wall).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cabinet.core.records import RecallEntry, TicketData, VoucherRecord


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every cabinet event."""


@dataclass(frozen=True, slots=True)
class PowerUp(Event):
    """The engine started (after restoring the journal)."""

    now_ms: int
    wall_s: float


@dataclass(frozen=True, slots=True)
class Tick(Event):
    """Time passed: ``now_ms`` from a monotonic clock, ``wall_s`` Unix time."""

    now_ms: int
    wall_s: float


@dataclass(frozen=True, slots=True)
class IntentReceived(Event):
    """A button pressed on the panel or touched on screen (one and the same).

    Attributes:
        station: 1-3.
        action: one of ``cabinet.protocol.ipc.ACTIONS``.
        value: chip (minor units) for ``chip``, spot for ``place``.

    A cash-out's validation number is the core's own draw from the random source
    the shell hands in (``cabinet.core.cashout``), not part of the intent.
    """

    station: int
    action: str
    value: int | None = None


@dataclass(frozen=True, slots=True)
class NoteEscrowed(Event):
    """A bill of ``denomination_minor`` is held in escrow; answer stack or return.

    ``txn`` is the acceptor driver's id for this note (journaled with the
    decision, so a restart can attribute a pending vend valid to it)."""

    station: int
    denomination_minor: int
    txn: str = ""


@dataclass(frozen=True, slots=True)
class NoteStacked(Event):
    """The acceptor reports the bill irrevocably stacked (ID-003 vend valid).

    ``txn`` identifies this note's transaction; a repeat with the same
    ``txn`` credits nothing.
    """

    station: int
    denomination_minor: int
    txn: str


@dataclass(frozen=True, slots=True)
class NoteReturned(Event):
    """A bill in escrow was handed back to the player."""

    station: int
    txn: str = ""


@dataclass(frozen=True, slots=True)
class NoteUncredited(Event):
    """The acceptor took an item it never reported stacked.

    ``kind``: ``in_stacker`` (power-up, ID-003 0x42: the item is in the cash box)
    or ``in_path`` (STACKed, jammed, cleared: it may be in the cash box).
    ``txn``, ``denomination_minor``, ``validation_number``: the transaction it
    belongs to ("" / 0 when the driver does not know it).
    """

    station: int
    kind: str
    txn: str = ""
    denomination_minor: int = 0
    validation_number: str = ""


@dataclass(frozen=True, slots=True)
class VoucherEscrowed(Event):
    """A voucher is held in escrow. ``record`` is the journal's record of that
    validation number, or ``None`` if this cabinet never issued it."""

    station: int
    validation_number: str
    record: VoucherRecord | None
    txn: str = ""


@dataclass(frozen=True, slots=True)
class VoucherStacked(Event):
    """A voucher went into the stacker; redeem it once."""

    station: int
    validation_number: str
    txn: str
    record: VoucherRecord | None


@dataclass(frozen=True, slots=True)
class PrintFinished(Event):
    """The printer's verdict on a voucher: ``done``, ``failed`` or ``unknown``."""

    station: int
    validation_number: str
    result: str


@dataclass(frozen=True, slots=True)
class DoorChanged(Event):
    """A door switch changed: ``door`` is ``main``, ``cashbox`` or ``logic``."""

    door: str
    open: bool


@dataclass(frozen=True, slots=True)
class DoorOpenedWhileOff(Event):
    """At boot a door's latch held an opening from while the cabinet was off
    (research/cabinet-features.md test 9; SAS exceptions 0x98-0x9B). ``door`` as
    in ``DoorChanged``."""

    door: str


@dataclass(frozen=True, slots=True)
class KeyChanged(Event):
    """The operator key switch turned on or off."""

    on: bool


@dataclass(frozen=True, slots=True)
class DeviceFaulted(Event):
    """A device reports a fault; ``code`` is a key of ``cabinet.core.errors.FAULTS``.

    ``station``: the station whose own device (bill acceptor, printer) failed,
    or 0 for a shared device; a station's fault stops that station only on a
    table of several stations.
    """

    device: str
    code: str
    text: str = ""
    station: int = 0


@dataclass(frozen=True, slots=True)
class DeviceCleared(Event):
    """A device is healthy again: every fault of ``device`` clears, at
    ``station`` only, or everywhere for station 0. ``firmware``: the version the
    device reported at its start-up, ``""`` if none (Diagnostics)."""

    device: str
    station: int = 0
    firmware: str = ""


@dataclass(frozen=True, slots=True)
class DisplayChanged(Event):
    """A screen started (``showing=True``: it reports drawn frames) or stopped
    drawing (no UI, or no frame for a few seconds). ``station``: 0 for a screen that
    draws the whole table (every station), n for station n's own screen. A station no
    screen draws takes no money and no presses, and after a few seconds is out of
    service (``cabinet.core.displays``)."""

    showing: bool
    station: int = 0


# -- the casino host link ---------------------------------------------------------

#: The host commands ``HostCommanded.name`` may carry (SAS long polls 0x01, 0x02, 0x06,
#: 0x07, 0x08, 0x0A, 0x0B, 0x7F, 0x94; drivers/sas/egm_view.py ``HostCommand``), and the
#: ticket ones: ``validation_number`` (0x58), ``redeem_ticket`` (0x71),
#: ``set_ticket_data`` (0x7C/0x7D), ``set_extended_validation_status`` (0x7B),
#: ``handpay_reset_to_credit_meter`` (0xA8, refused: the operator allows no such reset).
HOST_COMMANDS = frozenset(
    {
        "shut_down",
        "start_up",
        "enable_bill_acceptor",
        "disable_bill_acceptor",
        "configure_bill_denominations",
        "enter_maintenance_mode",
        "exit_maintenance_mode",
        "set_clock",
        "remote_handpay_reset",
        "validation_number",
        "redeem_ticket",
        "set_ticket_data",
        "set_extended_validation_status",
        "handpay_reset_to_credit_meter",
    }
)


@dataclass(frozen=True, slots=True)
class HostCommanded(Event):
    """The casino host asked station ``station``'s EGM to do something.

    Attributes:
        name: one of ``HOST_COMMANDS``.
        bills_minor: ``configure_bill_denominations``: the bill values enabled.
        host_wall_s: ``set_clock``: the host's date and time as Unix seconds.
        validation_number: ``validation_number``: the number the host issued (``""``:
            denied); ``redeem_ticket``: the ticket's number as the host read it.
        amount_minor: ``redeem_ticket``: the amount to credit (minor units).
        transfer_code: ``redeem_ticket``: SAS 0x71 transfer code (0x00 cashable,
            0x01 restricted / 0x02 non-restricted promotional, 0x80-0x8F rejected
            with a reason).
        ticket_data: ``set_ticket_data``: what to print on tickets.
        ref_id: ``validation_number``: the cash-out it answers (``cashout_id``);
            ``redeem_ticket``: the ticket (``ticket_id``); 0: not given.
        control: ``set_extended_validation_status``: ``(control_mask, status_bits,
            cashable_expiration_days, restricted_expiration_days)`` as sent (0x7B).
    """

    station: int
    name: str
    bills_minor: tuple[int, ...] = ()
    host_wall_s: float | None = None
    validation_number: str = ""
    amount_minor: int = 0
    transfer_code: int = -1
    ticket_data: TicketData | None = None
    ref_id: int = 0
    control: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class HostEventAcked(Event):
    """The host acknowledged station ``station``'s queued host event ``event_id``
    (and so every older one: the queue is reported oldest first)."""

    station: int
    event_id: int


@dataclass(frozen=True, slots=True)
class HostLinkChanged(Event):
    """Station ``station``'s host link came up (``up``) or went down (no poll for 5 s);
    its address and port come with ``HostLinkConfigured``."""

    station: int
    up: bool


@dataclass(frozen=True, slots=True)
class HostLinkConfigured(Event):
    """At start, before ``PowerUp``: station ``station`` has a host link at SAS
    ``address`` on ``port`` (``address`` 0: none; its queue is dropped, nothing is
    queued for a host that is not there). ``wall_s``: now (Unix seconds).
    ``validation``: ``"none"`` or ``"system"`` (config ``[sas] validation``);
    ``validation_timeout_s``: how long a ticket waits for the host (seconds).
    ``denomination_minor``: minor units per SAS credit (``[sas]
    accounting_denomination_minor``): the host counts ticket amounts in these."""

    station: int
    address: int
    port: str
    wall_s: float
    validation: str = "none"
    validation_timeout_s: float = 10.0
    denomination_minor: int = 1


@dataclass(frozen=True, slots=True)
class AuditExported(Event):
    """The audit report of an ``ExportAudit`` was written to ``path`` (``error``
    ``""``), or could not be (``error`` says why). ``wall_s``: when (Unix seconds)."""

    path: str
    error: str
    wall_s: float


@dataclass(frozen=True, slots=True)
class ProgramInstalled(Event):
    """The installer put a release on this cabinet (``cabinet install``), told at the
    engine's next start: ``action`` (``install``, ``update``, ``rollback``,
    ``repair``), the release's ``program_id`` and ``digest`` (SHA-256 of its signed
    manifest), ``previous`` (the release before, ``""`` at a first install), the
    installer's ``seq`` (its history line) and ``wall_s`` (Unix seconds, when)."""

    action: str
    program_id: str
    digest: str
    previous: str
    seq: int
    wall_s: float


# -- what the shell reads for the core: data, loaded outside it ------------------------
#
# The core never reads the journal or a link: the shell loads what an open page
# shows, and what an event decides on right before it, and hands it in as one of
# these events (handlers: ``cabinet.core.shell_inputs``).


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """What the open menu page shows of the journal, or what an event decides on
    (``shell_inputs.history_query``, ``shell_inputs.event_query``): the newest
    ``recall_limit`` game recall rows of ``recall_station`` (0: every station), the newest
    ``events_limit`` events (of ``event_kinds``; ``None``: of every kind), the
    newest ``vouchers_limit`` vouchers (0 reads none) and, if ``outstanding``, the
    vouchers not yet redeemed."""

    recall_limit: int = 0
    recall_station: int = 0
    events_limit: int = 0
    event_kinds: frozenset[str] | None = None
    vouchers_limit: int = 0
    outstanding: bool = False


@dataclass(frozen=True, slots=True)
class HistoryLoaded(Event):
    """The journal rows ``query`` asked for, as the shell read them (each newest
    first): the open page shows these until the next load, and the next event
    decides on them (``context.rows_for``). ``events``: rows of the
    event log (``id``, ``seq``, ``wall_s``, ``kind``, ``station``, ``amount_minor``,
    ``data``); ``outstanding``: the vouchers not yet redeemed."""

    query: HistoryQuery
    recall: tuple[RecallEntry, ...] = ()
    events: tuple[dict[str, Any], ...] = ()
    vouchers: tuple[VoucherRecord, ...] = ()
    outstanding: tuple[VoucherRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class ProgramChecked(Event):
    """This start's program check (``cabinet.shell.program_check``): ``program_id``
    (``""``: unknown), ``digest`` (SHA-256 hex of the signed manifest, ``""``: none)
    and ``status`` (``verified``, ``development`` or ``mismatch``; a mismatch also
    comes as a ``program_mismatch`` fault)."""

    program_id: str
    digest: str
    status: str


@dataclass(frozen=True, slots=True)
class HostPollsRead(Event):
    """The casino host links' live status, read by the shell for the Host page (not
    journaled): station -> (polls seen, Unix time of the last poll or ``None``, port
    open, polls for other addresses, line errors by kind)."""

    polls: tuple[tuple[int, tuple[Any, ...]], ...]


@dataclass(frozen=True, slots=True)
class StorageFailed(Event):
    """The journal cannot be written: the storage tilt (``reason``, one line). Play
    stops until a restart or the operator's clear finds storage working again."""

    reason: str

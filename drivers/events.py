"""Events that drivers report to the engine: immutable, past-tense facts.

Owns: the driver-side event vocabulary (frozen, slotted dataclasses, comparable with
``==`` so tests assert whole lists), the ``Action``/``Door``/``Device`` names and the
``EscrowDecision`` the engine returns at escrow time.
Must not import: cabinet.*, gpiozero, serial.  The engine maps these onto its own events.

Money is integer minor units (cents) in fields ending ``_minor``.

One name per moment, across the layers. A note is *stacked* at one moment only:
when the acceptor irrevocably takes it, the credit point. ID-003 calls that
moment VEND VALID and uses its own word STACKED for a later one (the item is in
the cash box), so the driver events follow the cabinet's meaning, not the
protocol's status names (protocols.md 1.8):

======================  ==========================  ===============================
ID-003 status           driver event (this module)  core event (cabinet.core.events)
======================  ==========================  ===============================
ESCROW 0x13             ``BillEscrowed``            ``NoteEscrowed``
ESCROW 0x13, barcode    ``VoucherEscrowed``         ``VoucherEscrowed``
VEND VALID 0x15         ``NoteStacked``             ``NoteStacked`` (credited)
VEND VALID 0x15, ticket ``VoucherStacked``          ``VoucherStacked`` (redeemed)
STACKED 0x16            ``TransactionClosed``       none (nothing owed; logged)
RETURNING / REJECTING   ``BillReturned``            ``NoteReturned``
POWER UP 0x42           ``BillFoundInStacker``      ``NoteUncredited`` (in_stacker)
jam after STACK         ``BillPossiblyInPath``      ``NoteUncredited`` (in_path)
======================  ==========================  ===============================

A pulse acceptor has no escrow: its ``PulseTrainCounted`` is its stacked moment
(core ``NoteStacked``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Action(enum.StrEnum):
    """A player button on the panel (also the name of its lamp)."""

    DEAL = "deal"
    HIT = "hit"
    STAND = "stand"
    SPLIT = "split"
    DOUBLE = "double"
    INSURE = "insure"
    BET_UP = "bet_up"
    BET_DOWN = "bet_down"
    CASH_OUT = "cash_out"
    CHIP_1 = "chip_1"
    CHIP_5 = "chip_5"
    CHIP_25 = "chip_25"
    CHIP_100 = "chip_100"
    SPOT_1 = "spot_1"
    SPOT_2 = "spot_2"
    SPOT_3 = "spot_3"


class Door(enum.StrEnum):
    """A door switch watched by the panel."""

    MAIN = "main"
    CASH_BOX = "cash_box"
    LOGIC = "logic"


class Device(enum.StrEnum):
    """Which device an online/offline/fault event is about."""

    PANEL = "panel"
    BILL_ACCEPTOR = "bill_acceptor"
    PULSE_ACCEPTOR = "pulse_acceptor"
    PRINTER = "printer"


class EscrowDecision(enum.Enum):
    """What the engine wants done with the item in escrow."""

    STACK = "stack"
    RETURN = "return"
    #: Keep it in escrow and ask again (a ticket the casino host decides).
    #: The ID-003 driver sends HOLD (0x44, protocols.md 1.3: refreshed < ~10 s) and
    #: asks again after one poll interval; other drivers return the item.
    HOLD = "hold"


# --- panel -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """One debounced, refire-guarded press of a player button (one intent).

    Attributes:
        action: which button.
        at_s: monotonic time of the press's first edge, in seconds (driver clock).
    """

    action: Action
    at_s: float


@dataclass(frozen=True, slots=True)
class DoorOpened:
    """A door switch settled in the open position."""

    door: Door
    at_s: float


@dataclass(frozen=True, slots=True)
class DoorClosed:
    """A door switch settled in the closed position."""

    door: Door
    at_s: float


@dataclass(frozen=True, slots=True)
class DoorOpenedWhileOff:
    """At start-up the door's latch held an opening from while the Pi was off.

    Reported once by ``ButtonPanel.start``; the engine journals it and then calls
    ``ButtonPanel.clear_door_latch`` (wiring ``[door_latch]``).
    """

    door: Door
    at_s: float


@dataclass(frozen=True, slots=True)
class KeySwitchTurned:
    """The operator key switch settled on (``on=True``) or off."""

    on: bool
    at_s: float


# --- bill acceptor (ID-003 and pulse) ---------------------------------------------


@dataclass(frozen=True, slots=True)
class BillEscrowed:
    """A bill sits in escrow; passed to the engine's decision callback.

    Attributes:
        transaction_id: unique id of this note, stable across reconnects of the same
            driver; the engine journals it before answering STACK (protocols.md 1.8 step 3).
        sequence: per-driver-session counter (1, 2, ...), for logs.
        denomination_minor: value of the note in minor units.
        escrow_code: the raw ID-003 escrow code (0x61...).
    """

    transaction_id: str
    sequence: int
    denomination_minor: int
    escrow_code: int


@dataclass(frozen=True, slots=True)
class VoucherEscrowed:
    """A voucher (TITO ticket) sits in escrow; passed to the decision callback.

    Attributes:
        transaction_id: as in ``BillEscrowed``.
        sequence: per-session counter.
        validation_number: the barcode digits read by the acceptor (usually 18).
    """

    transaction_id: str
    sequence: int
    validation_number: str


@dataclass(frozen=True, slots=True)
class NoteStacked:
    """The bill is stacked: ID-003 VEND VALID, the one credit point (protocols.md
    1.8 step 6; the core's ``NoteStacked``).

    Passed to the engine's ``credit`` callback, never to the plain event sink.  The
    driver sends ACK only after ``credit`` returned.

    Attributes:
        transaction_id: the id given in ``BillEscrowed`` (or, when ``recovered``, the id
            of the open transaction the engine handed to the driver at start).
        denomination_minor: value in minor units.
        recovered: True when the driver did not see this note's escrow in this session
            (restart after a crash): the engine must check its journal; a transaction
            already credited is a duplicate and must not be credited again.
    """

    transaction_id: str
    denomination_minor: int
    recovered: bool = False


@dataclass(frozen=True, slots=True)
class VoucherStacked:
    """The voucher is stacked: ID-003 VEND VALID for a ticket, redeem it now (same
    contract as ``NoteStacked``; the core's ``VoucherStacked``)."""

    transaction_id: str
    validation_number: str
    recovered: bool = False


@dataclass(frozen=True, slots=True)
class VendValidRepeated:
    """The acceptor repeated VEND VALID for a note already passed to ``credit``.

    Informational: the driver re-sent ACK and did not call ``credit`` again.
    """

    transaction_id: str
    repeats: int


@dataclass(frozen=True, slots=True)
class TransactionClosed:
    """A stacked (credited) note or voucher's transaction is closed: ID-003 STACKED
    0x16 (it reached the cash box), or a restart found the credited transaction
    settled.  Nothing is owed; never a credit."""

    transaction_id: str


@dataclass(frozen=True, slots=True)
class BillReturned:
    """The note or voucher in escrow went back to the customer; never credit it.

    Attributes:
        transaction_id: the escrowed item's id.
        reason: short text ("engine decision", "escrow timeout", "power up with bill
            in acceptor", a reject reason...).
    """

    transaction_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class BillRejected:
    """The acceptor refused an inserted item before escrow (no transaction).

    Attributes:
        reason_code: ID-003 reject reason byte (protocols.md 1.5), 0 if unknown.
        reason: readable text.
    """

    reason_code: int
    reason: str


@dataclass(frozen=True, slots=True)
class BillFoundInStacker:
    """At power-up the acceptor reported a bill in the stacker (status 0x42).

    The note ends in the cash box.  If the engine's journal says the transaction
    was not yet credited, this is an attendant/hand-pay review (protocols.md 1.9).

    Attributes:
        transaction_id: the open transaction it most likely belongs to, or None.
        denomination_minor: that transaction's bill value (minor units), 0 if unknown
            or a voucher.
        validation_number: that transaction's voucher number, or None.
    """

    transaction_id: str | None
    denomination_minor: int = 0
    validation_number: str | None = None


@dataclass(frozen=True, slots=True)
class BillPossiblyInPath:
    """A STACKed item left the acceptor without VEND VALID or a return
    (a jam after STACK, then cleared): it may be in the cash box, in the path, or
    taken out by whoever cleared the jam.  Never credit it automatically; the engine
    leaves an unresolved record for the attendant.  Also sent for an item credited
    at VEND VALID that jammed before STACKED (its transaction was credited: the
    record is for the cash box count, no second credit).

    Attributes:
        transaction_id: the item's transaction.
        denomination_minor: the bill value (minor units), 0 for a voucher.
        validation_number: the voucher number, or None for a bill.
    """

    transaction_id: str
    denomination_minor: int = 0
    validation_number: str | None = None


@dataclass(frozen=True, slots=True)
class PulseTrainCounted:
    """A pulse-mode acceptor finished a pulse train; passed to ``credit``.

    Attributes:
        transaction_id: unique id of this train.
        pulses: number of accepted pulses.
        amount_minor: pulses x value per pulse.
        known_count: False if ``pulses`` is not in the configured table (the money was
            taken anyway; the engine decides the policy).
    """

    transaction_id: str
    pulses: int
    amount_minor: int
    known_count: bool


# --- any device --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceOnline:
    """The device finished its start-up sequence and is usable; ``firmware``: the
    version it reported (``""``: not read)."""

    device: Device
    detail: str = ""
    firmware: str = ""


@dataclass(frozen=True, slots=True)
class DeviceOffline:
    """The device's port vanished or it stopped answering; the driver retries."""

    device: Device
    reason: str


@dataclass(frozen=True, slots=True)
class DeviceFault:
    """The device reports a fault (jam, stacker full/open, cheat, failure, ...).

    Attributes:
        device: which device.
        code: stable short name ("jam_in_acceptor", "stacker_full", "paper_out", ...).
        text: readable detail (may include the raw byte).
    """

    device: Device
    code: str
    text: str


@dataclass(frozen=True, slots=True)
class DeviceFaultCleared:
    """A previously reported fault is gone (the device is back to a normal state)."""

    device: Device
    code: str


PanelEvent = ButtonPressed | DoorOpened | DoorClosed | DoorOpenedWhileOff | KeySwitchTurned
EscrowEvent = BillEscrowed | VoucherEscrowed
CreditEvent = NoteStacked | VoucherStacked | PulseTrainCounted
DriverEvent = (
    PanelEvent
    | TransactionClosed
    | BillReturned
    | BillRejected
    | BillFoundInStacker
    | BillPossiblyInPath
    | VendValidRepeated
    | DeviceOnline
    | DeviceOffline
    | DeviceFault
    | DeviceFaultCleared
)

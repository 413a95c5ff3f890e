"""Driver contracts: one interface per kind of device (STYLE.md 5, rules 10-17).

Owns: ``ButtonPanel``, ``LampBank``, ``BillAcceptor``, ``TicketPrinter``,
``MonotonicCounter``, the callback
types the engine supplies, and the small value types crossing the boundary
(``OpenTransaction``, ``PrinterStatus``, ``PrintResult``).
Must not import: cabinet.*, gpiozero, serial.  The engine depends on this module only.

Threading contract shared by all drivers: every callback the engine hands in (event
sink, ``decide``, ``credit``) is called on a *driver* thread (the serial poll thread
or the thread that calls ``ButtonPanel.poll``).  The engine makes them thread-safe,
e.g. ``sink = lambda ev: loop.call_soon_threadsafe(handle, ev)`` and, for the blocking
ones, ``asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)``.
"""

from __future__ import annotations

import abc
import asyncio
import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType

from drivers.events import (
    Action,
    CreditEvent,
    DriverEvent,
    EscrowDecision,
    EscrowEvent,
)
from drivers.voucher import Voucher

EventSink = Callable[[DriverEvent], None]
"""Receives every non-money event.  Must not block; called on a driver thread."""

DecideCallback = Callable[[EscrowEvent], EscrowDecision]
"""Called at escrow.  Must journal the escrow (transaction id, value) *before*
returning STACK and must return within ~2 s (the acceptor returns the note after
~10 s).  Raising counts as RETURN."""

CreditCallback = Callable[[CreditEvent], None]
"""Called at the credit point (ID-003 VEND VALID, a finished pulse train).  Must
return only after the credit is durably journaled, keyed by ``transaction_id``; a
transaction id already credited must be ignored (not credited twice).  Raising means
"not journaled": the driver does not ACK and will offer the same event again."""


class _Closeable(abc.ABC):
    """Explicit open/close and context-manager support (STYLE.md rule 14)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release pins/ports and stop threads.  Idempotent.  Must override."""

    def __enter__(self) -> _Closeable:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class ButtonPanel(_Closeable):
    """Player buttons, door switches and the operator key switch.

    Implementations **must** override ``start``, ``poll`` and ``close``, and may
    override ``clear_door_latch``.  Presses are debounced and refire-guarded by the panel:
    one physical press gives exactly one ``ButtonPressed`` (see ``drivers.debounce``).
    """

    @abc.abstractmethod
    def start(self, sink: EventSink, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Begin delivering ``PanelEvent``\\ s to ``sink``.

        Args:
            sink: receives events, always on the consumer side: on ``loop`` if given,
                else on whichever thread calls ``poll``.
            loop: when given, the panel schedules its own processing on this loop with
                ``call_soon_threadsafe``/``call_later``; ``poll`` is then not needed.
        """

    @abc.abstractmethod
    def poll(self) -> None:
        """Process pending edges and settle timers now, delivering due events.

        Safe to call at any rate from the consumer thread (e.g. from the engine tick).
        """

    def clear_door_latch(self) -> None:
        """Reset the door latches (wiring ``[door_latch]``) once the engine journaled
        the ``DoorOpenedWhileOff`` that ``start`` reported.  Thread-safe; returns at
        once.  The default does nothing (no latch wired)."""


class LampBank(_Closeable):
    """Button lamps and the tower light.

    Implementations **must** override ``set_lamps``, ``set_tower_light``, ``close``
    and may override ``lamps_lit``.
    """

    @abc.abstractmethod
    def set_lamps(self, legal_actions: Iterable[Action]) -> None:
        """Light exactly the lamps of ``legal_actions``; every other lamp goes dark.

        Actions without a wired lamp are ignored.
        """

    @abc.abstractmethod
    def set_tower_light(self, lit: Iterable[str]) -> None:
        """Light exactly the named tower-light segments (e.g. {"red"}); others go dark.

        Raises:
            ConfigError: a name that is not wired.
        """

    def lamps_lit(self) -> frozenset[Action]:
        """Actions whose lamp is currently lit (for service-mode lamp tests)."""
        raise NotImplementedError


class BillAcceptor(_Closeable):
    """A note/voucher acceptor (ID-003 serial or pulse mode).

    The engine supplies ``decide``, ``credit`` and an ``EventSink`` at construction.
    Implementations **must** override ``start``, ``set_accepting`` and ``close``.

    Money rules every implementation keeps (protocols.md 1.8):
      * ``credit`` is called only at the device's credit point, at most once per
        ``transaction_id`` in one driver instance; repeats are reported as
        ``VendValidRepeated``.
      * the device is acknowledged only after ``credit`` returned.
      * connection loss, reconnection and start-up never call ``credit`` by
        themselves except for a VEND VALID still pending in the device.
    """

    @abc.abstractmethod
    def start(self) -> None:
        """Open the device and start the background poll thread (returns at once)."""

    @abc.abstractmethod
    def set_accepting(self, accepting: bool) -> None:
        """Ask the device to accept (True) or inhibit (False) new items.

        Thread-safe; applied by the poll thread at the next idle moment.  The device
        starts inhibited.
        """

    def report_state(self) -> None:
        """Send the device's current state to the sink now, changed or not.

        ``DeviceOffline`` while offline, ``DeviceFault`` for a fault in force, else
        ``DeviceOnline`` (so a stale fault held by the engine clears).  Thread-safe;
        never raises.  The default sends nothing (a device with no such state).
        """


class PrinterState(enum.Enum):
    """Summary of a printer status reading."""

    READY = "ready"
    PAPER_LOW = "paper_low"  # still prints
    PAPER_OUT = "paper_out"
    COVER_OPEN = "cover_open"
    ERROR = "error"
    OFFLINE = "offline"  # no/invalid reply, port gone, or printer reports offline


@dataclass(frozen=True, slots=True)
class PrinterStatus:
    """One validated real-time status reading (protocols.md 4.2).

    Attributes:
        state: the most severe condition.
        paper_low: near-end sensor active.
        detail: readable text for logs.
    """

    state: PrinterState
    paper_low: bool = False
    detail: str = ""

    @property
    def can_print(self) -> bool:
        """True when a ticket may be sent (ready or merely paper low)."""
        return self.state in (PrinterState.READY, PrinterState.PAPER_LOW)


class PrintResult(enum.Enum):
    """Outcome of ``TicketPrinter.print_voucher``.

    DONE: the printer took and finished the job.  FAILED: nothing was printed (the
    job was not sent).  UNKNOWN: the job may be partly or wholly printed; the engine
    must not print the voucher again (handpay, protocols.md 4.4).
    """

    DONE = "done"
    FAILED = "failed"
    UNKNOWN = "unknown"


class TicketPrinter(_Closeable):
    """A voucher printer.

    Implementations **must** override ``open``, ``status``, ``print_voucher`` and
    ``close``.  All calls block the calling thread (at most ``print_timeout_s`` of
    the implementation); call them off the engine loop (``run_in_executor``).
    """

    @abc.abstractmethod
    def open(self) -> None:
        """Open the port.  Raises ``DeviceOfflineError``/``DeviceBusyError``."""

    @abc.abstractmethod
    def status(self) -> PrinterStatus:
        """Query real-time status now.  Never raises: a dead port reads OFFLINE."""

    @abc.abstractmethod
    def print_voucher(self, voucher: Voucher) -> PrintResult:
        """Print one voucher; see ``PrintResult``.  Never raises for device trouble."""

    def print_job(self, job: bytes, what: str = "job") -> PrintResult:
        """Print raw ESC/POS ``job`` bytes (the test ticket); see
        ``PrintResult``.  A printer without raw jobs answers FAILED."""
        return PrintResult.FAILED


class MonotonicCounter(_Closeable):
    """A counter that only goes up and lives off the SD card (an I2C secure element's
    monotonic counter, e.g. the ATECC608's; or its twin): the journal's commit record
    carries its value, so a journal restored from an older card image is behind it.

    Implementations **must** override ``read``, ``increment`` and ``close``. Calls
    block (an I2C transaction: milliseconds); ``DeviceOfflineError`` when the device
    does not answer, ``ProtocolError`` for a reply that breaks its protocol.
    """

    @abc.abstractmethod
    def read(self) -> int:
        """The counter's value now (0 for a new one)."""

    @abc.abstractmethod
    def increment(self) -> int:
        """Add one, durably, and return the new value. Raises ``ProtocolError`` at the
        device's limit (it never wraps)."""


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """An escrow the engine journaled but has not seen closed (stacked/returned).

    Given to a bill-acceptor driver at construction after a restart, so that a VEND
    VALID or power-up status still pending in the device is attributed to it
    (protocols.md 1.9).

    Attributes:
        transaction_id: the id from the journaled ``BillEscrowed``/``VoucherEscrowed``.
        denomination_minor: the bill value, or 0 for a voucher.
        validation_number: the voucher number, or None for a bill.
        credited: the engine already credited it (its VEND VALID ACK may not have
            reached the device): a repeated VEND VALID or a power-up "bill in
            stacker" for it owes nothing.
    """

    transaction_id: str
    denomination_minor: int = 0
    validation_number: str | None = None
    credited: bool = False

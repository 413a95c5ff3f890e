"""ID-003 bill acceptor driver: a pyserial shell around ``id003_codec``.

Owns: the host side of protocols.md 1.7 (start-up), 1.8 (credit exactly once) and 1.9
(failure handling): polling, the escrow decision hand-off, VEND VALID -> ``credit`` ->
ACK, inhibit, faults, reconnection with backoff.
Must not import: cabinet.*, gpiozero.  Transport comes from ``drivers.serial_port``.

Threading: one background poll thread per driver (``start``).  ``decide``, ``credit``
and ``sink`` are called on that thread.  ``set_accepting`` and ``close`` may be called
from any thread.
"""

from __future__ import annotations

import enum
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from drivers import id003_codec as c
from drivers.errors import DeviceOfflineError, DriverError, ProtocolError
from drivers.events import (
    BillEscrowed,
    BillFoundInStacker,
    BillPossiblyInPath,
    BillRejected,
    BillReturned,
    BillStacked,
    BillVended,
    Device,
    DeviceFault,
    DeviceFaultCleared,
    DeviceOffline,
    DeviceOnline,
    EscrowDecision,
    VendValidRepeated,
    VoucherEscrowed,
    VoucherVended,
)
from drivers.id003_codec import Status
from drivers.interfaces import (
    BillAcceptor,
    CreditCallback,
    DecideCallback,
    EventSink,
    OpenTransaction,
)
from drivers.serial_port import PORT_ERRORS, SerialLike, open_serial

log = logging.getLogger(__name__)

Opener = Callable[[str], SerialLike]


class _Phase(enum.Enum):
    ESCROWED = "escrowed"
    STACK_SENT = "stack_sent"
    RETURN_SENT = "return_sent"
    CREDITED = "credited"


@dataclass(slots=True)
class _Transaction:
    transaction_id: str
    sequence: int
    denomination_minor: int
    validation_number: str | None
    phase: _Phase
    recovered: bool = False
    repeats: int = 0


_IN_TRANSACTION = frozenset(
    {
        Status.ACCEPTING,
        Status.ESCROW,
        Status.STACKING,
        Status.VEND_VALID,
        Status.STACKED,
        Status.RETURNING,
        Status.REJECTING,
        Status.HOLDING,
    }
)


def _open_id003(url: str) -> SerialLike:
    return open_serial(url, baudrate=9600, parity="E", timeout_s=0.02)


class Id003BillAcceptor(BillAcceptor):
    """JCM ID-003 validator over a serial port (9600 8E1).

    Wiring: the validator's RS-232 (or TTL via level shifter) to a USB-serial adapter;
    configure ``url`` with a stable path (``/dev/serial/by-id/...``).

    Args:
        url: port path or pyserial URL, opened with ``exclusive=True``.
        decide: engine callback at escrow (see ``interfaces.DecideCallback``).
        credit: engine callback at VEND VALID (see ``interfaces.CreditCallback``).
        sink: receives every other event (``interfaces.EventSink``).  For
            ``BillFoundInStacker`` and ``BillPossiblyInPath`` it must return only
            once the engine journaled them and raise otherwise: the driver then
            keeps the transaction (and does not RESET) and reports it again.
        open_transaction: the engine's journaled-but-unclosed escrow after a restart,
            or None.  It is this driver's transaction from the start (issue 11.3): a
            VEND VALID or power-up status found pending is attributed to it
            (``recovered=True``); the same item still in escrow is STACKed again
            under it (never a second transaction); anything else retires it
            (``BillReturned``).  ``credited=True``: a repeated VEND VALID is only
            ACKed and a power-up "bill in stacker" owes nothing.
        escrow_table_minor: fallback escrow code -> value (minor units) if the device's
            currency assignment (0x8A) cannot be read.  Default: US table.
        enabled_denominations_minor: values the validator may accept; None = all.
            Others are refused by the validator itself (0xC0 mask).
        accept_vouchers: allow barcode tickets (0xC6/0xC7).
        poll_interval_s: time between status polls (protocols.md: ~0.2 s).
        reply_timeout_s: wait this long for a reply before counting a failure.
        offline_after_failures: consecutive unanswered polls before the device is
            declared offline (default 3: offline within ~1 s).
        backoff_s: (first, max) reconnect delay in seconds; doubles on each failure.
        opener: opens the port (tests may pass fakes); default ``open_serial`` 8E1.
        new_transaction_id: returns a fresh unique id; default 16 random hex digits.

    Events sent to ``sink``: ``BillStacked``, ``BillReturned``, ``BillRejected``,
    ``BillFoundInStacker``, ``VendValidRepeated``, ``DeviceOnline``, ``DeviceOffline``,
    ``DeviceFault`` (codes from ``id003_codec.FAULT_NAMES`` plus
    "vend_valid_unattributed", "unknown_escrow_code", "invalid_command",
    "setting_not_echoed"), ``DeviceFaultCleared``.
    """

    def __init__(
        self,
        url: str,
        *,
        decide: DecideCallback,
        credit: CreditCallback,
        sink: EventSink,
        open_transaction: OpenTransaction | None = None,
        escrow_table_minor: Mapping[int, int] | None = None,
        enabled_denominations_minor: Iterable[int] | None = None,
        accept_vouchers: bool = True,
        poll_interval_s: float = 0.2,
        reply_timeout_s: float = 0.25,
        offline_after_failures: int = 3,
        backoff_s: tuple[float, float] = (0.1, 2.0),
        opener: Opener = _open_id003,
        new_transaction_id: Callable[[], str] = lambda: secrets.token_hex(8),
    ) -> None:
        self.url = url
        self._decide = decide
        self._credit = credit
        self._sink = sink
        self._open_transaction = open_transaction
        self._recovering = open_transaction is not None
        self._fallback_table = dict(
            c.USD_ESCROW_TABLE_MINOR if escrow_table_minor is None else escrow_table_minor
        )
        self.escrow_table_minor: dict[int, int] = dict(self._fallback_table)
        self._enabled = (
            None if enabled_denominations_minor is None else frozenset(enabled_denominations_minor)
        )
        self._accept_vouchers = accept_vouchers
        self.poll_interval_s = poll_interval_s
        self.reply_timeout_s = reply_timeout_s
        self._offline_after = offline_after_failures
        self._backoff_s = backoff_s
        self._opener = opener
        self._new_id = new_transaction_id

        self._port: SerialLike | None = None
        self._decoder = c.FrameDecoder()
        self._txn: _Transaction | None = None
        if open_transaction is not None:
            ot = open_transaction
            self._txn = _Transaction(
                ot.transaction_id, 0, ot.denomination_minor, ot.validation_number,
                _Phase.CREDITED if ot.credited else _Phase.STACK_SENT, recovered=True,
            )
        self._sequence = 0
        self._failures = 0
        self._last_status: int | None = None
        self._fault: str | None = None
        self._want_accepting = False
        self._inhibit_sent: bool | None = None
        self._online = False
        self._offline_reported = False
        self._power_up_reported = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.crc_errors = 0
        #: Every unanswered poll of the current streak still received bytes (a link
        #: at the wrong baud rate or parity, not a pulled cable): issue 11.10.
        self._garbled = False
        self._bytes_seen = False

    # --- public API --------------------------------------------------------------------

    def start(self) -> None:
        """Start the poll thread; it opens the port and runs the start-up sequence."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="id003-poll", daemon=True)
        self._thread.start()

    def set_accepting(self, accepting: bool) -> None:
        """Thread-safe: enable (True) or inhibit (False) acceptance at the next idle poll."""
        with self._lock:
            self._want_accepting = accepting

    def report_state(self) -> None:
        """Send the current state now (``BillAcceptor.report_state``), from the last poll."""
        if not self._online:
            self._emit(DeviceOffline(Device.BILL_ACCEPTOR, "not connected"))
        elif self._fault is not None:
            self._emit(DeviceFault(Device.BILL_ACCEPTOR, self._fault, ""))
        else:
            self._emit(DeviceOnline(Device.BILL_ACCEPTOR, "reported again"))

    @property
    def online(self) -> bool:
        """True after a completed start-up and until the port is lost."""
        return self._online

    def close(self) -> None:
        """Stop polling and close the port.  Never touches credits.  Idempotent."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        self._close_port()

    # --- synchronous steps (also used by tests) ----------------------------------------

    def connect(self) -> None:
        """Open the port and run the start-up sequence (protocols.md 1.7).

        Raises:
            DeviceOfflineError: port missing or the validator does not answer.
            DeviceBusyError: port locked by another process.
        """
        self._close_port()
        self._port = self._opener(self.url)
        self._decoder.clear()
        self._failures = 0
        self._last_status = None
        try:
            self._port.reset_input_buffer()
            self._start_up()
        except PORT_ERRORS as exc:
            self._close_port()
            raise DeviceOfflineError(f"{self.url}: {exc}") from exc
        except DriverError:
            self._close_port()
            raise
        self._online = True
        self._offline_reported = False
        self._emit(DeviceOnline(Device.BILL_ACCEPTOR, f"escrow table {self.escrow_table_minor}"))

    def poll_once(self) -> None:
        """Poll once and act on the reply.

        Raises:
            DeviceOfflineError: port vanished or too many unanswered polls.
        """
        try:
            frame = self._poll()
            if frame is not None:
                self._handle(frame)
                self._apply_inhibit()
        except DriverError:
            raise
        except PORT_ERRORS as exc:
            raise DeviceOfflineError(f"{self.url}: {exc}") from exc

    # --- poll thread -------------------------------------------------------------------

    def _run(self) -> None:
        delay = self._backoff_s[0]
        while not self._stop.is_set():
            if self._port is None:
                try:
                    self.connect()
                    delay = self._backoff_s[0]
                except Exception as exc:  # DriverError, or a callback raising in start-up
                    self._mark_offline(str(exc))
                    self._stop.wait(delay)
                    delay = min(delay * 2, self._backoff_s[1])
                    continue
            try:
                self.poll_once()
            except DeviceOfflineError as exc:
                self._mark_offline(str(exc))
                continue
            except DriverError as exc:
                log.warning("ID-003: %s", exc)
            except Exception:  # a callback blew up: keep the money loop alive
                log.exception("ID-003 poll failed")
            self._stop.wait(self.poll_interval_s)

    def _mark_offline(self, reason: str) -> None:
        self._close_port()
        self._online = False
        if not self._offline_reported:
            self._offline_reported = True
            if self._garbled:
                # Issue 11.10: bytes arrive but never a valid frame: its own fault.
                self._emit(DeviceFault(
                    Device.BILL_ACCEPTOR, "link_garbled",
                    f"bytes arrive but no valid frame ({self.crc_errors} CRC errors so "
                    f"far): check 9600 baud, 8 data bits, even parity, 1 stop bit"))
            else:
                self._emit(DeviceOffline(Device.BILL_ACCEPTOR, reason))

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except PORT_ERRORS:
                pass

    def _emit(self, event: object) -> None:
        try:
            self._sink(event)  # type: ignore[arg-type]
        except Exception:
            log.exception("event sink raised for %r", event)

    # --- transport ---------------------------------------------------------------------

    def _send(self, frame: bytes) -> None:
        if self._port is None:
            raise DeviceOfflineError("port closed")
        self._port.write(frame)

    def _transact(self, frame: bytes, *, retries: int = 2) -> c.Frame | None:
        """Send ``frame`` and return the first valid reply, or None after retries."""
        for _ in range(retries + 1):
            self._send(frame)
            reply = self._read_frame()
            if reply is None:
                continue
            if reply.code == Status.COMMUNICATION_ERROR:
                continue  # the validator saw our frame corrupted: resend (1.9)
            return reply
        return None

    def _read_frame(self) -> c.Frame | None:
        assert self._port is not None
        deadline = time.monotonic() + self.reply_timeout_s
        while True:
            chunk = self._port.read(max(1, self._port.in_waiting))
            if chunk:
                self._bytes_seen = True
                before = self._decoder.crc_errors
                frames = self._decoder.feed(chunk)
                self.crc_errors += self._decoder.crc_errors - before
                if frames:
                    if len(frames) > 1:
                        log.debug("dropping %d extra frames", len(frames) - 1)
                    return frames[0]
            if time.monotonic() >= deadline:
                self._decoder.clear()
                return None

    def _poll(self) -> c.Frame | None:
        self._bytes_seen = False
        reply = self._transact(c.status_request(), retries=0)
        if reply is None:
            self._garbled = self._bytes_seen and (self._garbled or self._failures == 0)
            self._failures += 1
            if self._failures >= self._offline_after:
                raise DeviceOfflineError(f"no valid reply to {self._failures} polls")
            return None
        self._failures = 0
        self._garbled = False
        return reply

    def _command(self, frame: bytes, what: str) -> None:
        """Send an operation command and require ACK; raise on failure."""
        reply = self._transact(frame)
        if reply is None or reply.code != Status.ACK:
            got = "nothing" if reply is None else c.describe_status(reply)
            raise ProtocolError(f"{what}: expected ACK, got {got}")

    def _setting(self, frame: bytes) -> None:
        """Send a setting command; it must be echoed exactly (protocols.md 1.4)."""
        reply = self._transact(frame)
        if reply is None or reply.encode() != frame:
            got = "nothing" if reply is None else c.describe_status(reply)
            raise ProtocolError(f"setting {frame.hex(' ')} not echoed (got {got})")

    # --- start-up (1.7) ----------------------------------------------------------------

    def _start_up(self) -> None:
        frame = self._wait_for_reply()
        # A validator that kept power while we were away may still be mid-transaction:
        # finish it first (this is where a pending VEND VALID is credited and ACKed).
        for _ in range(100):
            if frame.code not in _IN_TRANSACTION:
                break
            self._handle(frame)
            self._stop.wait(self.poll_interval_s)
            frame = self._wait_for_reply()
        self._power_up_status(frame)
        for _ in range(3):
            try:
                self._command(c.reset(), "RESET")
                break
            except ProtocolError:
                continue
        else:
            raise DeviceOfflineError("validator does not ACK RESET")
        frame = self._wait_for_reply()
        for _ in range(50):
            if frame.code in (Status.INITIALIZE, Status.DISABLED, Status.IDLING):
                break
            self._stop.wait(self.poll_interval_s)
            frame = self._wait_for_reply()
        self._read_currency_assignment()
        self._setting(c.set_denominations(self._inhibit_mask()))
        self._setting(c.set_security(0))
        self._setting(c.set_communication_mode_polling())
        self._setting(c.set_direction(0))
        self._setting(c.set_optional_function(0))
        if self._accept_vouchers:
            self._setting(c.set_barcode_function(18))
        self._setting(c.set_bar_inhibit(False, not self._accept_vouchers))
        self._setting(c.set_inhibit(True))
        self._inhibit_sent = True
        for _ in range(50):
            if frame.code in (Status.DISABLED, Status.IDLING):
                break
            self._stop.wait(self.poll_interval_s)
            frame = self._wait_for_reply()
        self._last_status = frame.code
        self._power_up_reported = False
        self._clear_fault()

    def _wait_for_reply(self) -> c.Frame:
        frame = self._poll()
        for _ in range(self._offline_after):
            if frame is not None:
                return frame
            frame = self._poll()
        raise DeviceOfflineError("validator does not answer")

    def _power_up_status(self, frame: c.Frame) -> None:
        if frame.code not in c.POWER_UP_STATUSES or self._power_up_reported:
            if self._recovering and frame.code in (Status.IDLING, Status.DISABLED,
                                                   Status.INITIALIZE):
                self._retire_recovered("not in the acceptor after the restart")
            self._recovering = False
            return
        txn = self._txn
        credited = txn is not None and txn.phase is _Phase.CREDITED
        if txn is not None and credited:
            self._emit(BillStacked(txn.transaction_id))   # nothing owed (1.9)
        elif frame.code == Status.POWER_UP_BILL_IN_STACKER:
            # Issue 11.1: the item is in the cash box and was never credited.  The
            # sink must journal it before RESET (it raises otherwise, and the next
            # start-up sees 0x42 again): never ``_emit``, which swallows errors.
            self._sink(BillFoundInStacker(
                None if txn is None else txn.transaction_id,
                0 if txn is None else txn.denomination_minor,
                None if txn is None else txn.validation_number))
        elif txn is not None:
            why = ("power up with bill in acceptor"
                   if frame.code == Status.POWER_UP_BILL_IN_ACCEPTOR else "power up, no bill")
            self._emit(BillReturned(txn.transaction_id, why))
        self._power_up_reported = True
        self._recovering = False
        self._txn = None
        self._open_transaction = None

    def _retire_recovered(self, why: str) -> None:
        """Issue 11.3: the restart's open transaction is settled: close it here too."""
        txn = self._txn
        if txn is None or not txn.recovered:
            return
        self._txn = None
        if txn.phase is _Phase.CREDITED:
            self._emit(BillStacked(txn.transaction_id))
        else:
            self._emit(BillReturned(txn.transaction_id, why))

    def _read_currency_assignment(self) -> None:
        reply = self._transact(c.currency_assignment_request())
        if reply is not None and reply.code == c.Command.CURRENCY_ASSIGNMENT:
            try:
                table = c.parse_currency_assignment(reply.data)
            except ProtocolError:
                table = []
            if table:
                self.escrow_table_minor = {d.escrow_code: d.value_minor for d in table}
                return
        log.warning("currency assignment unreadable; using the configured table")
        self.escrow_table_minor = dict(self._fallback_table)

    def _inhibit_mask(self) -> int:
        if self._enabled is None:
            return 0
        mask = 0
        for code in range(0x61, 0x71):
            if self.escrow_table_minor.get(code) not in self._enabled:
                mask |= 1 << (code - 0x61)
        return mask

    def _apply_inhibit(self) -> None:
        with self._lock:
            want_inhibit = not self._want_accepting
        if want_inhibit == self._inhibit_sent or self._txn is not None:
            return
        if self._last_status not in (Status.IDLING, Status.DISABLED):
            return
        try:
            self._setting(c.set_inhibit(want_inhibit))
        except ProtocolError as exc:
            log.warning("%s", exc)
            return
        self._inhibit_sent = want_inhibit

    # --- status handling (1.8, 1.9) ----------------------------------------------------

    def _handle(self, frame: c.Frame) -> None:
        code = frame.code
        previous, self._last_status = self._last_status, code
        if code in c.ERROR_STATUSES:
            name = c.FAULT_NAMES.get(code, f"status_0x{code:02X}")
            if self._fault != name:
                self._fault = name
                self._emit(DeviceFault(Device.BILL_ACCEPTOR, name, c.describe_status(frame)))
            return
        if code in (Status.INVALID_COMMAND, Status.COMMUNICATION_ERROR):
            return
        if code in c.POWER_UP_STATUSES or (
            code == Status.INITIALIZE and previous not in (None, Status.INITIALIZE)
        ):
            # The validator lost power or the cash box came back: start up again
            # (its first poll sees the power-up status and settles the transaction).
            self._start_up()
            return
        self._clear_fault()
        if code == Status.ESCROW:
            self._on_escrow(frame)
        elif code == Status.VEND_VALID:
            self._on_vend_valid()
        elif code == Status.STACKED:
            self._close_stacked()
        elif code in (Status.RETURNING, Status.REJECTING):
            reason = c.describe_status(frame)
            if self._txn is not None and self._txn.phase is not _Phase.CREDITED:
                why = "engine decision" if self._txn.phase is _Phase.RETURN_SENT else reason
                self._emit(BillReturned(self._txn.transaction_id, why))
                self._txn = None
            elif code == Status.REJECTING and previous != Status.REJECTING and self._txn is None:
                rc = frame.data[0] if frame.data else 0
                self._emit(BillRejected(rc, c.REJECT_TEXTS.get(rc, reason)))
        elif code in (Status.IDLING, Status.DISABLED):
            if self._txn is not None:
                if self._txn.phase is _Phase.CREDITED:
                    self._close_stacked()
                elif self._txn.phase is _Phase.STACK_SENT:
                    # issue 11.10: STACKed, then gone without VEND VALID or a return
                    # (a jam after STACK, cleared): it may be in the cash box.
                    # Journaled before it is forgotten (the sink raises otherwise).
                    t = self._txn
                    self._sink(BillPossiblyInPath(t.transaction_id, t.denomination_minor,
                                                  t.validation_number))
                    self._txn = None
                elif self._txn.phase is not _Phase.ESCROWED:
                    self._emit(BillReturned(self._txn.transaction_id, "not stacked"))
                    self._txn = None

    def _clear_fault(self) -> None:
        if self._fault is not None:
            self._emit(DeviceFaultCleared(Device.BILL_ACCEPTOR, self._fault))
            self._fault = None

    def _close_stacked(self) -> None:
        if self._txn is not None and self._txn.phase is _Phase.CREDITED:
            self._emit(BillStacked(self._txn.transaction_id))
            self._txn = None

    def _on_escrow(self, frame: c.Frame) -> None:
        txn = self._txn
        if txn is not None and txn.phase is _Phase.CREDITED:
            self._close_stacked()  # we missed STACKED; this is a new item
            txn = None
        if txn is not None and txn.recovered and not self._same_item(txn, frame):
            self._retire_recovered("superseded: the acceptor holds another item")
            txn = None
        if txn is not None:
            # STACK or RETURN was lost: resend, never assume (1.8 step 4).  This is
            # also the escrow journaled before a restart: STACK it under its own id.
            if txn.phase is _Phase.STACK_SENT:
                self._try_command(c.stack_2(), "STACK-2")
            elif txn.phase is _Phase.RETURN_SENT:
                self._try_command(c.return_bill(), "RETURN")
            return
        self._sequence += 1
        txn_id = self._new_id()
        event: BillEscrowed | VoucherEscrowed
        if frame.data[:1] == bytes((c.BARCODE_ESCROW_CODE,)):
            try:
                number = c.parse_barcode(frame.data)
            except ProtocolError as exc:
                self._emit(DeviceFault(Device.BILL_ACCEPTOR, "bad_barcode", str(exc)))
                self._try_command(c.return_bill(), "RETURN")
                return
            event = VoucherEscrowed(txn_id, self._sequence, number)
            value, number_or_none = 0, number
        else:
            code = frame.data[0] if frame.data else -1
            value = self.escrow_table_minor.get(code, 0)
            if value <= 0:
                self._emit(
                    DeviceFault(
                        Device.BILL_ACCEPTOR, "unknown_escrow_code", c.describe_status(frame)
                    )
                )
                self._try_command(c.return_bill(), "RETURN")
                return
            event = BillEscrowed(txn_id, self._sequence, value, code)
            number_or_none = None
        try:
            decision = self._decide(event)
        except Exception:
            log.exception("decide callback raised; returning the item")
            decision = EscrowDecision.RETURN
        if decision is EscrowDecision.STACK:
            self._txn = _Transaction(
                txn_id, self._sequence, value, number_or_none, _Phase.STACK_SENT
            )
            self._try_command(c.stack_2(), "STACK-2")
        else:
            self._txn = _Transaction(
                txn_id, self._sequence, value, number_or_none, _Phase.RETURN_SENT
            )
            self._try_command(c.return_bill(), "RETURN")

    def _same_item(self, txn: _Transaction, frame: c.Frame) -> bool:
        """The escrowed item is the one ``txn`` was journaled for (value or number)."""
        if frame.data[:1] == bytes((c.BARCODE_ESCROW_CODE,)):
            try:
                return txn.validation_number == c.parse_barcode(frame.data)
            except ProtocolError:
                return False
        code = frame.data[0] if frame.data else -1
        return txn.validation_number is None and \
            self.escrow_table_minor.get(code, 0) == txn.denomination_minor

    def _try_command(self, frame: bytes, what: str) -> None:
        """Send STACK/RETURN; a refusal is logged, the next poll shows what happened."""
        try:
            self._command(frame, what)
        except ProtocolError as exc:
            log.warning("ID-003: %s", exc)

    def _on_vend_valid(self) -> None:
        txn = self._txn
        if txn is None:
            self._emit(
                DeviceFault(
                    Device.BILL_ACCEPTOR,
                    "vend_valid_unattributed",
                    "VEND VALID without a known escrow: ACKed, not credited; review the cash box",
                )
            )
            self._send(c.ack())
            return
        if txn.phase is _Phase.CREDITED:
            txn.repeats += 1
            self._emit(VendValidRepeated(txn.transaction_id, txn.repeats))
            self._send(c.ack())
            return
        credit_event: BillVended | VoucherVended
        if txn.validation_number is not None:
            credit_event = VoucherVended(txn.transaction_id, txn.validation_number, txn.recovered)
        else:
            credit_event = BillVended(txn.transaction_id, txn.denomination_minor, txn.recovered)
        # The only credit point.  If credit raises, nothing is ACKed: the validator keeps
        # reporting VEND VALID and we offer the same transaction again next poll.
        self._credit(credit_event)
        txn.phase = _Phase.CREDITED
        self._send(c.ack())

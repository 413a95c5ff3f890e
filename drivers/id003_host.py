"""Sans-I/O host side of the JCM ID-003 protocol: the logic of ``id003_acceptor``.

Owns: start-up (protocols.md 1.7: power-up status, RESET, currency assignment,
settings, inhibit), credit exactly once (1.8: escrow -> the engine's decision ->
STACK-2 or RETURN, VEND VALID -> credit -> ACK, STACKED), failure handling (1.9:
faults and their clearing, a repeated VEND VALID, the power-up-with-bill states,
the restart's open transaction), enable/inhibit, and
counting unanswered polls.  It reads no port, no clock and no thread: the driver
performs each ``Action`` it returns and hands back the result.

Must not import: serial, threading, time, cabinet.*.  Frames are built and parsed
by ``id003_codec``.

Driving it (the pyserial loop in ``id003_acceptor`` does exactly this)::

    action = host.start_up()            # or host.poll() for one status poll
    while not isinstance(action, Finished):
        ...perform action...            # may raise: then action = host.fail(exc)
        action = host.receive(frame_or_None) if it was Send(reply=True) \\
            else host.resume(result)

``Send(frame, reply=True)``: discard the input waiting (strictly request and reply,
protocols.md 1.4: it is stale), write ``frame``, feed what arrives to ``decode`` until it
returns a frame, and pass that (or ``None`` when ``reply_timeout_s`` passed) to
``receive``.  ``Send(frame, reply=False)``: discard the input likewise, write it,
``resume()``.  ``Sleep``: wait one poll interval, ``resume()``.  ``Emit(event)``: report it (an error of the
sink is the driver's to log), ``resume()``.  ``Journal(event)``: report it; the sink
must return only once it is journaled, else ``fail(exc)``.  ``Decide(event)``:
``resume(EscrowDecision)``.  ``Credit(event)``: the engine's credit point, then
``resume()``; if it raised, ``fail(exc)`` (nothing is ACKed; the exception comes
back out).  ``start_up``, ``poll``, ``receive``, ``resume`` and ``fail`` raise
``DeviceOfflineError`` (the validator stopped answering) and ``ProtocolError``
(a required ACK or echo did not come) out of the step, which then ends.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from drivers import id003_codec as c
from drivers.errors import DeviceOfflineError, ProtocolError
from drivers.events import (
    BillEscrowed,
    BillFoundInStacker,
    BillPossiblyInPath,
    BillRejected,
    BillReturned,
    Device,
    DeviceFault,
    DeviceFaultCleared,
    EscrowDecision,
    NoteStacked,
    TransactionClosed,
    VendValidRepeated,
    VoucherEscrowed,
    VoucherStacked,
)
from drivers.id003_codec import Status
from drivers.interfaces import OpenTransaction

log = logging.getLogger("drivers.id003_acceptor")


# --- what the host asks the driver to do ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Write ``frame``; with ``reply``, read one reply for ``receive``."""

    frame: bytes
    reply: bool = True


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait one poll interval (the driver's ``poll_interval_s``), then ``resume()``."""


@dataclass(frozen=True, slots=True)
class Emit:
    """Report ``event`` to the sink; an error of the sink does not reach the host."""

    event: Any


@dataclass(frozen=True, slots=True)
class Journal:
    """Report ``event`` to the sink, which returns only once the engine journaled it
    (``BillFoundInStacker``, ``BillPossiblyInPath``); if it raises, ``fail(exc)``."""

    event: Any


@dataclass(frozen=True, slots=True)
class Decide:
    """Ask the engine: ``resume(EscrowDecision)`` (``fail(exc)``: the item is returned)."""

    event: BillEscrowed | VoucherEscrowed


@dataclass(frozen=True, slots=True)
class Credit:
    """The only credit point: ``resume()`` once credited, ``fail(exc)`` if not."""

    event: NoteStacked | VoucherStacked


@dataclass(frozen=True, slots=True)
class Finished:
    """The step (start-up or poll) is over."""


Action = Send | Sleep | Emit | Journal | Decide | Credit | Finished
_Steps = Generator[Action, Any, Any]
FINISHED = Finished()


# --- the transaction in progress ------------------------------------------------------


class Phase(enum.Enum):
    ESCROWED = "escrowed"
    STACK_SENT = "stack_sent"
    RETURN_SENT = "return_sent"
    CREDITED = "credited"


@dataclass(slots=True)
class Transaction:
    """The item between escrow and its close (stacked or returned)."""

    transaction_id: str
    sequence: int
    denomination_minor: int
    validation_number: str | None
    phase: Phase
    recovered: bool = False
    repeats: int = 0
    #: a fault (a jam) after VEND VALID and before STACKED was journaled (possibly in path)
    jammed: bool = False


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


class Id003Host:
    """The host's protocol state machine for one validator (see the module doc).

    Args:
        open_transaction: the engine's journaled-but-unclosed escrow after a
            restart, or None (see ``Id003BillAcceptor``).
        escrow_table_minor: fallback escrow code -> value (minor units) if the
            device's currency assignment (0x8A) cannot be read.  Default: US table.
        enabled_denominations_minor: values the validator may accept; None = all.
        accept_vouchers: allow barcode tickets (0xC6/0xC7).
        offline_after_failures: consecutive unanswered polls before
            ``DeviceOfflineError``.
        new_transaction_id: returns a fresh unique id (the driver's default: 16
            random hex digits).

    Attributes:
        want_accepting: enable (True) or inhibit (False) at the next idle poll.
        escrow_table_minor: escrow code -> value in use (minor units).
        fault: the fault code reported and not yet cleared, or None.
        crc_errors: frames dropped for a bad CRC so far.
        late_replies: valid frames dropped because they cannot answer the command
            awaiting a reply (late replies to an earlier one, ``decode``).
        garbled: every unanswered poll of the current streak still received
            bytes (a link at the wrong baud rate or parity).
    """

    def __init__(
        self,
        *,
        open_transaction: OpenTransaction | None = None,
        escrow_table_minor: Mapping[int, int] | None = None,
        enabled_denominations_minor: Iterable[int] | None = None,
        accept_vouchers: bool = True,
        offline_after_failures: int = 3,
        new_transaction_id: Callable[[], str],
    ) -> None:
        self._open_transaction = open_transaction
        self._recovering = open_transaction is not None
        self._fallback_table = dict(c.USD_ESCROW_TABLE_MINOR if escrow_table_minor is None else escrow_table_minor)
        self.escrow_table_minor: dict[int, int] = dict(self._fallback_table)
        self._enabled = None if enabled_denominations_minor is None else frozenset(enabled_denominations_minor)
        self._accept_vouchers = accept_vouchers
        self._offline_after = offline_after_failures
        self._new_id = new_transaction_id
        self._decoder = c.FrameDecoder()
        self.txn: Transaction | None = None
        if open_transaction is not None:
            ot = open_transaction
            self.txn = Transaction(
                ot.transaction_id,
                0,
                ot.denomination_minor,
                ot.validation_number,
                Phase.CREDITED if ot.credited else Phase.STACK_SENT,
                recovered=True,
            )
        self._sequence = 0
        self._failures = 0
        self._last_status: int | None = None
        self.fault: str | None = None
        self.want_accepting = False
        self._inhibit_sent: bool | None = None
        self._power_up_reported = False
        self.crc_errors = 0
        self.late_replies = 0
        self.garbled = False
        self._bytes_seen = False
        self._frame_seen = False
        #: the frame whose reply is awaited (``Send(reply=True)``), None between steps
        self._awaiting: bytes | None = None
        self._steps: _Steps | None = None

    # --- driving ------------------------------------------------------------------------

    def link_reset(self) -> None:
        """A (re)opened port: forget any partial frame, the failure count, the last status."""
        self._decoder.clear()
        self._failures = 0
        self._last_status = None

    def start_up(self) -> Action:
        """Begin the start-up sequence (protocols.md 1.7); returns its first action."""
        return self._begin(self._start_up())

    def poll(self) -> Action:
        """Begin one status poll and what its reply calls for; returns its first action."""
        return self._begin(self._poll_step())

    def decode(self, data: bytes) -> c.Frame | None:
        """Bytes received while a reply is awaited; the first frame they complete that
        can answer the command sent (``id003_codec.reply_may_answer``), or None.

        ID-003 is strictly request and reply (protocols.md 1.4): a frame that cannot
        answer the command just sent -- say the echo of an earlier setting that missed
        its reply timeout -- is a late reply; it is dropped (``late_replies``) and the
        driver keeps reading within the same timeout.  Frames after the one returned
        are dropped; bad CRCs are counted (``crc_errors``).  A partial frame left from
        before the last ``Send`` was discarded then.
        """
        self._bytes_seen = True
        before = self._decoder.crc_errors
        frames = self._decoder.feed(data)
        self.crc_errors += self._decoder.crc_errors - before
        for i, frame in enumerate(frames):
            self._frame_seen = True
            if self._awaiting is not None and not c.reply_may_answer(self._awaiting, frame):
                self.late_replies += 1
                log.info(
                    "ID-003: dropped %s, a late reply (awaiting the reply to %s)",
                    c.describe_status(frame),
                    self._awaiting.hex(" "),
                )
                continue
            if len(frames) > i + 1:
                log.debug("dropping %d extra frames", len(frames) - i - 1)
            return frame
        return None

    def receive(self, frame: c.Frame | None) -> Action:
        """The reply to the last ``Send(reply=True)``, or None: none came in time."""
        if frame is None:
            self._decoder.clear()
        return self._advance(frame, None)

    def resume(self, value: object = None) -> Action:
        """The last ``Sleep``/``Emit``/``Journal``/``Decide``/``Credit``/``Send(reply=False)``
        was done (``value``: the ``EscrowDecision`` of a ``Decide``)."""
        return self._advance(value, None)

    def fail(self, exc: BaseException) -> Action:
        """Performing the last action raised ``exc`` (raised back out unless handled)."""
        return self._advance(None, exc)

    @property
    def busy(self) -> bool:
        """A step is under way (its last action not yet answered)."""
        return self._steps is not None

    def _begin(self, steps: _Steps) -> Action:
        self._steps = steps
        return self._advance(None, None)

    def _advance(self, value: object, exc: BaseException | None) -> Action:
        steps = self._steps
        if steps is None:
            raise RuntimeError("no ID-003 step under way")
        self._awaiting = None
        try:
            action: Action = steps.throw(exc) if exc is not None else steps.send(value)
        except StopIteration:
            self._steps = None
            return FINISHED
        except BaseException:
            self._steps = None
            raise
        if isinstance(action, Send):
            # Strictly request and reply (protocols.md 1.4): whatever arrived before
            # this send, a partial frame included, is stale.
            self._decoder.clear()
            if action.reply:
                self._awaiting = action.frame
        return action

    # --- transport ------------------------------------------------------------------------

    def _transact(self, frame: bytes, *, retries: int = 2) -> _Steps:
        """Send ``frame`` and return the first valid reply, or None after retries."""
        for _ in range(retries + 1):
            reply = yield Send(frame)
            if reply is None:
                continue
            if reply.code == Status.COMMUNICATION_ERROR:
                continue  # the validator saw our frame corrupted: resend (1.9)
            return reply
        return None

    def _poll(self) -> _Steps:
        self._bytes_seen = self._frame_seen = False
        reply = yield from self._transact(c.status_request(), retries=0)
        if reply is None:
            # a valid frame, even a late one, shows the link itself is sound
            self.garbled = self._bytes_seen and not self._frame_seen and (self.garbled or self._failures == 0)
            self._failures += 1
            if self.garbled and self._failures == 2:  # once a streak: not a lone bad CRC
                yield from self._quiesce()
            if self._failures >= self._offline_after:
                raise DeviceOfflineError(f"no valid reply to {self._failures} polls")
            return None
        self._failures = 0
        self.garbled = False
        return reply

    def _quiesce(self) -> _Steps:
        """A garbled link (protocols.md 1.9): the validator's replies cannot be read,
        but it may still read ours.  Hand back an item in escrow that no STACK was
        sent for (RETURN) and inhibit acceptance, each awaiting a reply only to
        swallow it; the replies are not trusted.  Acceptance is set again once the
        link is back (start-up inhibits, ``_apply_inhibit`` enables)."""
        txn = self.txn
        if txn is None or txn.phase is Phase.RETURN_SENT:
            yield Send(c.return_bill())
        yield Send(c.set_inhibit(True))
        self._inhibit_sent = None

    def _poll_step(self) -> _Steps:
        frame = yield from self._poll()
        if frame is not None:
            yield from self._handle(frame)
            yield from self._apply_inhibit()

    def _command(self, frame: bytes, what: str) -> _Steps:
        """Send an operation command and require ACK; raise on failure."""
        reply = yield from self._transact(frame)
        if reply is None or reply.code != Status.ACK:
            got = "nothing" if reply is None else c.describe_status(reply)
            raise ProtocolError(f"{what}: expected ACK, got {got}")

    def _setting(self, frame: bytes) -> _Steps:
        """Send a setting command; it must be echoed exactly (protocols.md 1.4)."""
        reply = yield from self._transact(frame)
        if reply is None or reply.encode() != frame:
            got = "nothing" if reply is None else c.describe_status(reply)
            raise ProtocolError(f"setting {frame.hex(' ')} not echoed (got {got})")

    # --- start-up (1.7) -------------------------------------------------------------------

    def _start_up(self) -> _Steps:
        frame = yield from self._wait_for_reply()
        # A validator that kept power while we were away may still be mid-transaction:
        # finish it first (this is where a pending VEND VALID is credited and ACKed).
        for _ in range(100):
            if frame.code not in _IN_TRANSACTION:
                break
            yield from self._handle(frame)
            yield Sleep()
            frame = yield from self._wait_for_reply()
        if frame.code in c.ERROR_STATUSES:
            yield from self._credited_fault()
        yield from self._power_up_status(frame)
        for _ in range(3):
            try:
                yield from self._command(c.reset(), "RESET")
                break
            except ProtocolError:
                continue
        else:
            raise DeviceOfflineError("validator does not ACK RESET")
        frame = yield from self._wait_for_reply()
        for _ in range(50):
            if frame.code in (Status.INITIALIZE, Status.DISABLED, Status.IDLING):
                break
            yield Sleep()
            frame = yield from self._wait_for_reply()
        yield from self._read_currency_assignment()
        yield from self._setting(c.set_denominations(self._inhibit_mask()))
        yield from self._setting(c.set_security(0))
        yield from self._setting(c.set_communication_mode_polling())
        yield from self._setting(c.set_direction(0))
        yield from self._setting(c.set_optional_function(0))
        if self._accept_vouchers:
            yield from self._setting(c.set_barcode_function(18))
        yield from self._setting(c.set_bar_inhibit(False, not self._accept_vouchers))
        yield from self._setting(c.set_inhibit(True))
        self._inhibit_sent = True
        for _ in range(50):
            if frame.code in (Status.DISABLED, Status.IDLING):
                break
            yield Sleep()
            frame = yield from self._wait_for_reply()
        self._last_status = frame.code
        self._power_up_reported = False
        yield from self._clear_fault()

    def _wait_for_reply(self) -> _Steps:
        frame = yield from self._poll()
        for _ in range(self._offline_after):
            if frame is not None:
                return frame
            frame = yield from self._poll()
        raise DeviceOfflineError("validator does not answer")

    def _power_up_status(self, frame: c.Frame) -> _Steps:
        if frame.code not in c.POWER_UP_STATUSES or self._power_up_reported:
            if self._recovering and frame.code in (Status.IDLING, Status.DISABLED, Status.INITIALIZE):
                yield from self._retire_recovered("not in the acceptor after the restart")
            self._recovering = False
            return
        txn = self.txn
        credited = txn is not None and txn.phase is Phase.CREDITED
        if txn is not None and credited:
            yield Emit(TransactionClosed(txn.transaction_id))  # nothing owed (1.9)
        elif frame.code == Status.POWER_UP_BILL_IN_STACKER:
            # the item is in the cash box and was never credited.  The
            # sink must journal it before RESET (it raises otherwise, and the next
            # start-up sees 0x42 again): a ``Journal``, never an ``Emit``.
            yield Journal(
                BillFoundInStacker(
                    None if txn is None else txn.transaction_id,
                    0 if txn is None else txn.denomination_minor,
                    None if txn is None else txn.validation_number,
                )
            )
        elif txn is not None:
            why = (
                "power up with bill in acceptor"
                if frame.code == Status.POWER_UP_BILL_IN_ACCEPTOR
                else "power up, no bill"
            )
            yield Emit(BillReturned(txn.transaction_id, why))
        self._power_up_reported = True
        self._recovering = False
        self.txn = None
        self._open_transaction = None

    def _retire_recovered(self, why: str) -> _Steps:
        """The restart's open transaction is settled: close it here too."""
        txn = self.txn
        if txn is None or not txn.recovered:
            return
        self.txn = None
        if txn.phase is Phase.CREDITED:
            yield Emit(TransactionClosed(txn.transaction_id))
        else:
            yield Emit(BillReturned(txn.transaction_id, why))

    def _read_currency_assignment(self) -> _Steps:
        reply = yield from self._transact(c.currency_assignment_request())
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

    def _apply_inhibit(self) -> _Steps:
        want_inhibit = not self.want_accepting
        if want_inhibit == self._inhibit_sent or self.txn is not None:
            return
        if self._last_status not in (Status.IDLING, Status.DISABLED):
            return
        try:
            yield from self._setting(c.set_inhibit(want_inhibit))
        except ProtocolError as exc:
            log.warning("%s", exc)
            return
        self._inhibit_sent = want_inhibit

    # --- status handling (1.8, 1.9) -------------------------------------------------------

    def _handle(self, frame: c.Frame) -> _Steps:
        code = frame.code
        previous, self._last_status = self._last_status, code
        if code in c.ERROR_STATUSES:
            yield from self._credited_fault()
            name = c.FAULT_NAMES.get(code, f"status_0x{code:02X}")
            if self.fault != name:
                self.fault = name
                yield Emit(DeviceFault(Device.BILL_ACCEPTOR, name, c.describe_status(frame)))
            return
        if code in (Status.INVALID_COMMAND, Status.COMMUNICATION_ERROR):
            return
        if code in c.POWER_UP_STATUSES or (code == Status.INITIALIZE and previous not in (None, Status.INITIALIZE)):
            # The validator lost power or the cash box came back: start up again
            # (its first poll sees the power-up status and settles the transaction).
            yield from self._start_up()
            return
        yield from self._clear_fault()
        if code == Status.ESCROW:
            yield from self._on_escrow(frame)
        elif code == Status.HOLDING:
            yield from self._on_holding()
        elif code == Status.VEND_VALID:
            yield from self._on_vend_valid()
        elif code == Status.STACKED:
            yield from self._close_stacked()
        elif code in (Status.RETURNING, Status.REJECTING):
            reason = c.describe_status(frame)
            if self.txn is not None and self.txn.phase is not Phase.CREDITED:
                why = "engine decision" if self.txn.phase is Phase.RETURN_SENT else reason
                yield Emit(BillReturned(self.txn.transaction_id, why))
                self.txn = None
            elif code == Status.REJECTING and previous != Status.REJECTING and self.txn is None:
                rc = frame.data[0] if frame.data else 0
                yield Emit(BillRejected(rc, c.REJECT_TEXTS.get(rc, reason)))
        elif code in (Status.IDLING, Status.DISABLED):
            if self.txn is not None:
                if self.txn.phase is Phase.CREDITED:
                    yield from self._close_stacked()
                elif self.txn.phase is Phase.STACK_SENT:
                    # STACKed, then gone without VEND VALID or a return
                    # (a jam after STACK, cleared): it may be in the cash box.
                    # Journaled before it is forgotten (the sink raises otherwise).
                    t = self.txn
                    yield Journal(BillPossiblyInPath(t.transaction_id, t.denomination_minor, t.validation_number))
                    self.txn = None
                elif self.txn.phase is not Phase.ESCROWED:
                    yield Emit(BillReturned(self.txn.transaction_id, "not stacked"))
                    self.txn = None

    def _clear_fault(self) -> _Steps:
        if self.fault is not None:
            yield Emit(DeviceFaultCleared(Device.BILL_ACCEPTOR, self.fault))
            self.fault = None

    def _close_stacked(self) -> _Steps:
        if self.txn is not None and self.txn.phase is Phase.CREDITED:
            yield Emit(TransactionClosed(self.txn.transaction_id))
            self.txn = None

    def _credited_fault(self) -> _Steps:
        """A fault (a stacker jam) after VEND VALID and before STACKED: the credited
        item may stay in the path, not reach the cash box.  Journaled as possibly in
        the path (still credited once) when the fault is first seen, so a restart
        before the jam is cleared loses nothing; once per transaction."""
        t = self.txn
        if t is not None and t.phase is Phase.CREDITED and not t.jammed:
            yield Journal(BillPossiblyInPath(t.transaction_id, t.denomination_minor, t.validation_number))
            t.jammed = True

    def _on_escrow(self, frame: c.Frame) -> _Steps:
        txn = self.txn
        if txn is not None and txn.phase is Phase.CREDITED:
            yield from self._close_stacked()  # we missed STACKED; this is a new item
            txn = None
        if txn is not None and txn.recovered and not self._same_item(txn, frame):
            yield from self._retire_recovered("superseded: the acceptor holds another item")
            txn = None
        if txn is not None:
            # STACK or RETURN was lost: resend, never assume (1.8 step 4).  This is
            # also the escrow journaled before a restart: STACK it under its own id.
            if txn.phase is Phase.STACK_SENT:
                yield from self._try_command(c.stack_2(), "STACK-2")
            elif txn.phase is Phase.RETURN_SENT:
                yield from self._try_command(c.return_bill(), "RETURN")
            return
        self._sequence += 1
        txn_id = self._new_id()
        event: BillEscrowed | VoucherEscrowed
        if frame.data[:1] == bytes((c.BARCODE_ESCROW_CODE,)):
            try:
                number = c.parse_barcode(frame.data)
            except ProtocolError as exc:
                yield Emit(DeviceFault(Device.BILL_ACCEPTOR, "bad_barcode", str(exc)))
                yield from self._try_command(c.return_bill(), "RETURN")
                return
            event = VoucherEscrowed(txn_id, self._sequence, number)
            value, number_or_none = 0, number
        else:
            code = frame.data[0] if frame.data else -1
            value = self.escrow_table_minor.get(code, 0)
            if value <= 0:
                yield Emit(DeviceFault(Device.BILL_ACCEPTOR, "unknown_escrow_code", c.describe_status(frame)))
                yield from self._try_command(c.return_bill(), "RETURN")
                return
            event = BillEscrowed(txn_id, self._sequence, value, code)
            number_or_none = None
        decision = yield from self._ask(event)
        while decision is EscrowDecision.HOLD:
            # the engine waits for the casino host; keep the item in escrow
            # (HOLD restarts the acceptor's escrow timer) and ask again.
            yield from self._try_command(c.hold(), "HOLD")
            yield Sleep()
            decision = yield from self._ask(event)
        if decision is EscrowDecision.STACK:
            self.txn = Transaction(txn_id, self._sequence, value, number_or_none, Phase.STACK_SENT)
            yield from self._try_command(c.stack_2(), "STACK-2")
        else:
            self.txn = Transaction(txn_id, self._sequence, value, number_or_none, Phase.RETURN_SENT)
            yield from self._try_command(c.return_bill(), "RETURN")

    def _on_holding(self) -> _Steps:
        """An item held in escrow (HOLD) seen outside ``_on_escrow``'s wait:
        the engine that held it died. STACK it if the journal decided so (the restart's
        open transaction), else hand it back; never leave it to a RESET."""
        if self.txn is not None and self.txn.phase is Phase.STACK_SENT:
            yield from self._try_command(c.stack_2(), "STACK-2")
        else:
            yield from self._try_command(c.return_bill(), "RETURN")

    def _ask(self, event: BillEscrowed | VoucherEscrowed) -> _Steps:
        """``Decide`` once; a callback that raises returns the item."""
        try:
            decision = yield Decide(event)
        except Exception:
            log.exception("decide callback raised; returning the item")
            decision = EscrowDecision.RETURN
        return decision

    def _same_item(self, txn: Transaction, frame: c.Frame) -> bool:
        """The escrowed item is the one ``txn`` was journaled for (value or number)."""
        if frame.data[:1] == bytes((c.BARCODE_ESCROW_CODE,)):
            try:
                return txn.validation_number == c.parse_barcode(frame.data)
            except ProtocolError:
                return False
        code = frame.data[0] if frame.data else -1
        return txn.validation_number is None and self.escrow_table_minor.get(code, 0) == txn.denomination_minor

    def _try_command(self, frame: bytes, what: str) -> _Steps:
        """Send STACK/RETURN; a refusal is logged, the next poll shows what happened."""
        try:
            yield from self._command(frame, what)
        except ProtocolError as exc:
            log.warning("ID-003: %s", exc)

    def _on_vend_valid(self) -> _Steps:
        txn = self.txn
        if txn is None:
            yield Emit(
                DeviceFault(
                    Device.BILL_ACCEPTOR,
                    "vend_valid_unattributed",
                    "VEND VALID without a known escrow: ACKed, not credited; review the cash box",
                )
            )
            yield Send(c.ack(), reply=False)
            return
        if txn.phase is Phase.CREDITED:
            txn.repeats += 1
            yield Emit(VendValidRepeated(txn.transaction_id, txn.repeats))
            yield Send(c.ack(), reply=False)
            return
        credit_event: NoteStacked | VoucherStacked
        if txn.validation_number is not None:
            credit_event = VoucherStacked(txn.transaction_id, txn.validation_number, txn.recovered)
        else:
            credit_event = NoteStacked(txn.transaction_id, txn.denomination_minor, txn.recovered)
        # The only credit point.  If credit raises, nothing is ACKed: the validator keeps
        # reporting VEND VALID and we offer the same transaction again next poll.
        yield Credit(credit_event)
        txn.phase = Phase.CREDITED
        yield Send(c.ack(), reply=False)

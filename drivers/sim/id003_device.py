"""A simulated JCM ID-003 bill validator on a pseudo-terminal (protocols.md 1.10).

Owns: the device-side state machine (POWER UP -> RESET -> INITIALIZE -> DISABLED <->
IDLING -> ACCEPTING -> ESCROW -> STACKING -> VEND VALID (until ACK) -> STACKED), the
scripting API used by tests and the keyboard CLI, and fault injection.
Must not import: serial, gpiozero, cabinet.*.

The simulator only answers when polled.  It advances one step per STATUS REQUEST
(ACCEPTING, STACKING, STACKED, RETURNING and REJECTING each last
``transient_polls`` polls), so tests are deterministic and need no sleeps; only the
escrow auto-return uses wall time (``escrow_timeout_s``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers import id003_codec as c
from drivers.id003_codec import Command, Status
from drivers.sim.pty_link import PtyDevice, PtyLink

_SETTING_READY = frozenset({Status.INITIALIZE, Status.DISABLED, Status.IDLING})
_BILL_IN_HEAD = frozenset({Status.ACCEPTING, Status.ESCROW, Status.HOLDING, Status.RETURNING})
_BILL_PAST_NO_RETURN = frozenset({Status.STACKING, Status.VEND_VALID})

log = logging.getLogger("drivers.sim.id003")


def _show(value: object, limit: int = 24) -> str:
    """``repr(value)`` cut to ``limit`` characters, for one-line error messages."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return f"{text[: limit - 3]}...{size}"


def check_barcode(barcode: object) -> str:
    """Return ``barcode`` if a ticket can carry it: 1 to ``MAX_BARCODE_DIGITS`` (18) ASCII digits.

    Raises:
        ValueError: not a string, empty, too long or not ASCII digits; the one-line
            message quotes at most a few characters of ``barcode``.
    """
    if not isinstance(barcode, str):
        raise ValueError(f"a ticket barcode is a string of digits, not {_show(barcode)}")
    if not (barcode.isascii() and barcode.isdigit() and len(barcode) <= c.MAX_BARCODE_DIGITS):
        raise ValueError(f"a ticket barcode is 1-{c.MAX_BARCODE_DIGITS} digits 0-9, not {_show(barcode)}")
    return barcode


@dataclass(frozen=True, slots=True)
class SimItem:
    """An item the simulated customer inserts: a bill (escrow code) or a voucher.

    Args:
        escrow_code: the bill's escrow code, a byte (0x61-0x67 in the US table; any
            other byte is a bill the validator does not know and rejects).
        barcode: a voucher's digits instead (see ``check_barcode``).

    Raises:
        ValueError: an escrow code that is not a byte or a barcode no ticket can carry,
            so a bad item is refused by whoever makes it, never later in the device thread.
    """

    escrow_code: int = 0
    barcode: str | None = None

    def __post_init__(self) -> None:
        if self.barcode is not None:
            check_barcode(self.barcode)
        elif (
            isinstance(self.escrow_code, bool)
            or not isinstance(self.escrow_code, int)
            or not 0 <= self.escrow_code <= 0xFF
        ):
            raise ValueError(f"an escrow code is a byte (0-255), not {_show(self.escrow_code)}")

    def escrow_data(self) -> bytes:
        if self.barcode is not None:
            return bytes((c.BARCODE_ESCROW_CODE,)) + self.barcode.encode("ascii")
        return bytes((self.escrow_code,))


@dataclass(slots=True)
class SimLog:
    """What happened to the items, for test assertions."""

    stacked: list[SimItem] = field(default_factory=list)
    returned: list[SimItem] = field(default_factory=list)
    rejected: list[SimItem] = field(default_factory=list)
    acks_received: int = 0
    commands: list[int] = field(default_factory=list)


DEFAULT_TABLE = [c.Denomination(code, 0x01, value) for code, value in c.USD_ESCROW_TABLE_MINOR.items()]


class SimId003Device(PtyDevice):
    """The validator twin.  Start with ``start()``; script with the public methods.

    Args:
        link: the pty (or None to create one on ``link_path``).
        link_path: stable symlink path for a new link.
        table: currency assignment reported for 0x8A.
        escrow_timeout_s: auto-return an escrowed item after this many seconds.
        transient_polls: polls each transient state lasts (>= 1).
        bad_crc_reply: "silent" (ignore a corrupt frame) or "comm_error" (answer 0x4A).
        clock: monotonic clock in seconds (injectable).

    All public methods are thread-safe.
    """

    THREAD_NAME = "sim-id003"

    def __init__(
        self,
        link: PtyLink | None = None,
        *,
        link_path: str | None = None,
        table: list[c.Denomination] | None = None,
        escrow_timeout_s: float = 10.0,
        transient_polls: int = 1,
        bad_crc_reply: str = "silent",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.link = link if link is not None else PtyLink(link_path)
        self.table = list(DEFAULT_TABLE if table is None else table)
        self.escrow_timeout_s = escrow_timeout_s
        self.transient_polls = max(1, transient_polls)
        self.bad_crc_reply = bad_crc_reply
        self._clock = clock
        self._lock = threading.RLock()
        self._decoder = c.FrameDecoder()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.log = SimLog()
        # device state
        self.state: Status = Status.POWER_UP
        self._reject_reason = 0
        self._item: SimItem | None = None
        self._queue: deque[SimItem] = deque()
        self._polls_in_state = 0
        self._escrow_since = 0.0
        self._fault_data = b""
        self._after_fault: Status = Status.INITIALIZE
        self.inhibited = True
        self.denomination_inhibit_mask = 0
        self.bar_inhibit = 0
        self.settings: dict[int, bytes] = {}
        # fault injection
        self._drop_replies = 0
        self._corrupt_replies = 0
        self._split_replies = 0
        self._lose_acks = 0
        self._extra_vend_valids = 0
        self._vend_valid_repeats_left = 0
        self._triggers: dict[Status, Callable[[], None]] = {}
        self._garbled = False
        self._jam_at_ack = False

    # --- lifecycle -------------------------------------------------------------------

    # --- customer and technician actions ---------------------------------------------

    def insert_bill(self, escrow_code: int) -> None:
        """Queue a bill (escrow code, e.g. 0x65 = $20) for insertion at the next idle poll.

        A code missing from ``table`` is a bill the validator rejects (0x79).

        Raises:
            ValueError: ``escrow_code`` is not a byte (0-255); nothing is queued.
        """
        item = SimItem(escrow_code=escrow_code)
        with self._lock:
            self._queue.append(item)

    def insert_bill_minor(self, value_minor: int) -> None:
        """Queue a bill by its value in minor units (cents), e.g. 2000 for $20.

        Raises:
            ValueError: no bill of that value in ``table``; the message lists the
                values the table has.  Nothing is queued.
        """
        if not isinstance(value_minor, bool) and isinstance(value_minor, int):
            for d in self.table:
                if d.value_minor == value_minor:
                    self.insert_bill(d.escrow_code)
                    return
        known = ", ".join(str(v) for v in sorted({d.value_minor for d in self.table}))
        raise ValueError(
            f"no bill of {_show(value_minor)} minor units in the currency table (it has {known or 'none'})"
        )

    def insert_voucher(self, barcode: str) -> None:
        """Queue a voucher (ticket) whose barcode reads ``barcode``.

        Args:
            barcode: 1-18 ASCII digits (the cabinet's validation numbers have 18).

        Raises:
            ValueError: see ``check_barcode``; nothing is queued.
        """
        item = SimItem(barcode=check_barcode(barcode))
        with self._lock:
            self._queue.append(item)

    def set_fault(self, status: Status, data: bytes = b"", *, after: Status = Status.IDLING) -> None:
        """Enter a sticky error state (jam, stacker full/open, cheated, failure...).

        The item in the head, if any, is lost in the jam (neither stacked nor returned).
        ``clear_fault`` moves to ``after`` (use INITIALIZE for stacker open).
        ``data`` is sent with FAILURE status (the failure code, e.g. ``b"\\xa2"``).

        Raises:
            ValueError: ``data`` longer than one frame carries (``MAX_DATA_LEN``).
        """
        if len(data) > c.MAX_DATA_LEN:
            raise ValueError(
                f"fault data of {len(data)} bytes is longer than {c.MAX_DATA_LEN}, the most one frame carries"
            )
        with self._lock:
            self.state = status
            self._fault_data = data
            self._after_fault = after
            self._polls_in_state = 0

    def jam(self) -> None:
        """Jam in acceptor (0x45)."""
        self.set_fault(Status.JAM_IN_ACCEPTOR)

    def fill_stacker(self) -> None:
        """Stacker full (0x43)."""
        self.set_fault(Status.STACKER_FULL)

    def open_stacker(self) -> None:
        """Cash box removed (0x44); clearing it re-initialises (protocols.md 1.9)."""
        self.set_fault(Status.STACKER_OPEN, after=Status.INITIALIZE)

    def clear_fault(self) -> None:
        """Leave the error state (jam cleared, box emptied or put back)."""
        with self._lock:
            if self.state in c.ERROR_STATUSES:
                self._item = None
                self._enter(self._after_fault if self._after_fault != Status.IDLING else self._idle())

    def power_cycle(self) -> None:
        """Lose power now and come back in POWER UP (0x40/0x41/0x42, protocols.md 1.5);
        a note already found in the stacker or the head stays there through another cut."""
        with self._lock:
            if self._item is not None and self.state in (
                Status.POWER_UP_BILL_IN_STACKER,
                Status.POWER_UP_BILL_IN_ACCEPTOR,
            ):
                pass  # cut again before any RESET: the note stays where it is
            elif self._item is not None and self.state in _BILL_PAST_NO_RETURN:
                self.state = Status.POWER_UP_BILL_IN_STACKER
            elif self._item is not None and self.state in _BILL_IN_HEAD:
                self.state = Status.POWER_UP_BILL_IN_ACCEPTOR
            else:
                self._item = None
                self.state = Status.POWER_UP
            self.inhibited = True
            self._extra_vend_valids = 0
            self._vend_valid_repeats_left = 0
            self._lose_acks = 0
            self._polls_in_state = 0

    def on_enter(self, status: Status, action: Callable[[], None]) -> None:
        """Run ``action`` (once) when the device next enters ``status``.

        E.g. ``dev.on_enter(Status.STACKING, dev.power_cycle)`` loses power between
        the STACK command and VEND VALID; ``dev.on_enter(Status.ESCROW, link.unplug)``
        pulls the USB adapter mid-escrow.
        """
        with self._lock:
            self._triggers[status] = action

    def drop_replies(self, n: int) -> None:
        """Swallow the next ``n`` replies (the driver sees a timeout)."""
        with self._lock:
            self._drop_replies += n

    def corrupt_replies(self, n: int) -> None:
        """Flip a bit in the CRC of the next ``n`` replies."""
        with self._lock:
            self._corrupt_replies += n

    def split_replies(self, n: int) -> None:
        """Write the next ``n`` replies in two chunks a few ms apart."""
        with self._lock:
            self._split_replies += n

    def garble(self) -> None:
        """A link at the wrong speed or parity on the validator's send line: every
        reply reaches the host as bytes that never make a valid frame (a bad CRC),
        until ``heal``.  The validator still reads the host's commands."""
        with self._lock:
            self._garbled = True

    def heal(self) -> None:
        """End ``garble``."""
        with self._lock:
            self._garbled = False

    def jam_at_ack(self) -> None:
        """The next ACK of a VEND VALID finds the note jammed in the stacker (0x46)
        instead of stacking it: the jam after VEND VALID, before the acknowledgement.
        The note is lost in the jam (``set_fault``)."""
        with self._lock:
            self._jam_at_ack = True

    def lose_acks(self, n: int) -> None:
        """Ignore the next ``n`` ACKs (the ACK was "lost"): VEND VALID is repeated."""
        with self._lock:
            self._lose_acks += n

    def repeat_vend_valid(self, n: int) -> None:
        """After the next ACK, keep answering VEND VALID ``n`` more polls."""
        with self._lock:
            self._extra_vend_valids += n

    # --- device thread ---------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self.link.read(0.05)
            if not data:
                if not self.link.plugged:
                    self._decoder.clear()
                continue
            for reply in self.answer(data):
                self._reply(reply)

    def answer(self, data: bytes) -> list[bytes]:
        """The device's replies to ``data``, bytes the host wrote, in order (a partial
        frame is kept for the next call).  The device thread sends each through the
        reply faults (drop, corrupt, split); in-memory ports in tests may call this
        directly, without ``start()``."""
        replies: list[bytes] = []
        errors_before = self._decoder.crc_errors
        frames = self._decoder.feed(data)
        if self._decoder.crc_errors > errors_before and self.bad_crc_reply == "comm_error":
            replies.append(c.encode_frame(Status.COMMUNICATION_ERROR))
        for frame in frames:
            try:
                with self._lock:
                    reply = self._handle(frame)
            except Exception:  # a twin bug or an on_enter action: answer nothing, live on
                log.exception("%s: handling command 0x%02X failed", self.THREAD_NAME, frame.code)
                continue
            if reply is not None:
                replies.append(reply)
        return replies

    def _reply(self, frame: bytes) -> None:
        with self._lock:
            if self._drop_replies:
                self._drop_replies -= 1
                return
            if self._corrupt_replies or self._garbled:
                self._corrupt_replies = max(0, self._corrupt_replies - 1)
                frame = frame[:-1] + bytes((frame[-1] ^ 0x01,))
            split = self._split_replies > 0
            if split:
                self._split_replies -= 1
        if split:
            self.link.write(frame[:2])
            time.sleep(0.005)
            self.link.write(frame[2:])
        else:
            self.link.write(frame)

    def _idle(self) -> Status:
        return Status.DISABLED if self.inhibited else Status.IDLING

    def _enter(self, status: Status) -> None:
        self.state = status
        self._polls_in_state = 0
        action = self._triggers.pop(status, None)
        if action is not None:
            action()

    def _status_frame(self) -> bytes:
        data = b""
        if self.state == Status.ESCROW and self._item is not None:
            data = self._item.escrow_data()
        elif self.state == Status.REJECTING:
            data = bytes((self._reject_reason,))
        elif self.state == Status.FAILURE:
            data = self._fault_data or b"\xa2"
        return c.encode_frame(self.state, data)

    def _handle(self, frame: c.Frame) -> bytes | None:
        self.log.commands.append(frame.code)
        code = frame.code
        if code == Command.STATUS_REQUEST:
            reply = self._status_frame()
            self._advance()
            return reply
        if code == Command.ACK:
            if self.state == Status.VEND_VALID:
                self.log.acks_received += 1
                if self._jam_at_ack:
                    self._jam_at_ack = False
                    self.set_fault(Status.JAM_IN_STACKER)
                elif self._vend_valid_repeats_left:
                    pass  # already ACKed once; repeating VEND VALID on purpose
                elif self._lose_acks:
                    self._lose_acks -= 1
                elif self._extra_vend_valids:
                    self._vend_valid_repeats_left = self._extra_vend_valids
                    self._extra_vend_valids = 0
                else:
                    self._finish_stack()
            return None
        if code == Command.RESET:
            self._reset()
            return c.ack()
        if code in (Command.STACK_1, Command.STACK_2):
            if self.state not in (Status.ESCROW, Status.HOLDING):
                return c.encode_frame(Status.INVALID_COMMAND)
            self._enter(Status.STACKING)
            return c.ack()
        if code == Command.RETURN:
            if self.state not in (Status.ESCROW, Status.HOLDING):
                return c.encode_frame(Status.INVALID_COMMAND)
            self._enter(Status.RETURNING)
            return c.ack()
        if code == Command.HOLD:
            if self.state not in (Status.ESCROW, Status.HOLDING):
                return c.encode_frame(Status.INVALID_COMMAND)
            self._escrow_since = self._clock()
            self._enter(Status.HOLDING)
            return c.ack()
        if code in c.SETTING_COMMANDS:
            if self.state not in _SETTING_READY:
                return c.encode_frame(Status.INVALID_COMMAND)
            self._apply_setting(frame)
            return frame.encode()
        if 0x80 <= code <= 0x87:
            return c.encode_frame(code, self.settings.get(code + 0x40, b""))
        if code == Command.VERSION_REQUEST:
            return c.encode_frame(code, b"ID003-SIM 1.0")
        if code == Command.CURRENCY_ASSIGNMENT:
            return c.encode_frame(code, c.encode_currency_assignment(self.table))
        return c.encode_frame(Status.INVALID_COMMAND)

    def _apply_setting(self, frame: c.Frame) -> None:
        self.settings[frame.code] = frame.data
        if frame.code == Command.SET_INHIBIT and frame.data:
            self.inhibited = bool(frame.data[0] & 1)
            if self.state in (Status.IDLING, Status.DISABLED):
                self.state = self._idle()
        elif frame.code == Command.SET_DENOMINATIONS and len(frame.data) == 2:
            self.denomination_inhibit_mask = int.from_bytes(frame.data, "little")
        elif frame.code == Command.SET_BAR_INHIBIT and frame.data:
            self.bar_inhibit = frame.data[0]

    def _reset(self) -> None:
        if self.state == Status.POWER_UP_BILL_IN_STACKER and self._item is not None:
            self.log.stacked.append(self._item)
        elif self._item is not None:
            self.log.returned.append(self._item)
        self._item = None
        self.inhibited = True
        self._extra_vend_valids = 0
        self._vend_valid_repeats_left = 0
        self._enter(Status.INITIALIZE)

    def _finish_stack(self) -> None:
        if self._item is not None:
            self.log.stacked.append(self._item)
        self._enter(Status.STACKED)

    def _refused(self, item: SimItem) -> bool:
        if self.inhibited:
            return True
        if item.barcode is not None:
            return bool(self.bar_inhibit & 0x02)
        if self.bar_inhibit & 0x01:
            return True
        if not any(d.escrow_code == item.escrow_code for d in self.table):
            return True
        bit = item.escrow_code - 0x61
        return 0 <= bit < 16 and bool(self.denomination_inhibit_mask >> bit & 1)

    def _advance(self) -> None:
        """One poll's worth of time passes."""
        self._polls_in_state += 1
        s = self.state
        done = self._polls_in_state >= self.transient_polls
        if s in (Status.IDLING, Status.DISABLED):
            if self._queue:
                item = self._queue.popleft()
                self._item = item
                if self._refused(item):
                    self._reject(0x79)
                else:
                    self._enter(Status.ACCEPTING)
        elif s == Status.ACCEPTING and done:
            self._escrow_since = self._clock()
            self._enter(Status.ESCROW)
        elif s in (Status.ESCROW, Status.HOLDING):
            if self._clock() - self._escrow_since >= self.escrow_timeout_s:
                self._reject(0x79)
        elif s == Status.STACKING and done:
            self._enter(Status.VEND_VALID)
        elif s == Status.VEND_VALID and self._vend_valid_repeats_left:
            self._vend_valid_repeats_left -= 1
            if not self._vend_valid_repeats_left:
                self._finish_stack()
        elif s == Status.STACKED and done:
            self._item = None
            self._enter(self._idle())
        elif s == Status.RETURNING and done:
            if self._item is not None:
                self.log.returned.append(self._item)
            self._item = None
            self._enter(self._idle())
        elif s == Status.REJECTING and done:
            if self._item is not None:
                self.log.rejected.append(self._item)
            self._item = None
            self._enter(self._idle())
        elif s == Status.INITIALIZE and done:
            self._enter(self._idle())

    def _reject(self, reason: int) -> None:
        self._reject_reason = reason
        self._enter(Status.REJECTING)

"""The EGM side of the SAS link as a pure responder: received bytes in, replies and
engine events out.

Owns: ``EgmResponder`` (what to answer to each host message from the last ``EgmView``,
the exception queue's implied ACK, 0x51 handpay re-sends, link up/down, the delayed
0x21 ROM signature) and its outputs ``ExceptionAcked``, ``LinkChanged``,
``RomSignatureRequested`` (plus ``bytes`` to write, ``HostCommand`` and, from the TITO
polls in ``egm_tito``, ``HostDataRejected``).
Must not import: serial, termios, time, threading, cabinet.*.  No clock: time comes in
as ``now_ms`` (monotonic milliseconds) and the wall clock as ``wall``.

Routing: every long poll goes where its row in ``layouts.LAYOUTS`` sends it, and nowhere
else is a poll code looked at: ``handler`` names a handler here (``host_command``: ACK and
``HostCommand(row name)``) or in ``egm_tito``; ``view_reply`` is a builder answering from
the view alone (handed the wall clock as the host set it, see 0x7E below); neither: no
reply.  ``broadcast`` rows run their handler for address 0 too (never answered);
``ignored_under_system_validation`` rows get no reply while the view validates through
the host.

Rules and their sources (research/sas.md unless named):
- General poll: the oldest queued exception of ``view.exceptions`` not yet acknowledged,
  00 when none.  Its reply is acknowledged (implied ACK) by the next *new* message:
  a different poll to us, a broadcast, or a poll to another address (nCompass
  ``SASInterface.cpp`` polls address 0 for that); then ``ExceptionAcked(id)`` is emitted
  and the id is never sent again, even while the view still lists it.  A repeat of the
  same poll gets the same reply again.  When the link goes down the unacknowledged
  reply is forgotten, so the exception is sent again (nothing is lost).
  The same table is in Aristocrat ``Sas.Client`` ``HostAcknowledgementProvider`` ("taken
  from Section 3.1": a general poll is acknowledged by "any long poll, global poll, or
  general poll to any other gaming machine address"), and nCompass's host never sends
  the same poll twice in a row unless it retries (``SASInterface::SendToSAS`` inserts a
  0x1A "so there is not two of the same polls").  So a host must put another poll
  between two general polls to the same EGM, or it hears the same exception again.
  Difference from Aristocrat, kept from ``EgmCodec``: a long poll counts as a repeat only
  when the whole message is identical (Aristocrat: address and command).
- The final NACK: the third identical poll in a row (``FINAL_NACK_ATTEMPT``) is not
  answered, the reply waiting for its implied ACK is dropped unacknowledged (its
  exception goes out again at the next general poll) and the next identical poll is a
  new one (Aristocrat ``HostAcknowledgementProvider.cs``: "SAS will repeat the same
  message 3 times (2 NACKs)", ``ImpliedNack`` -> ``ClearPendingException`` in
  ``Aristocrat.Monaco.Sas/Exceptions/SasPriorityExceptionQueue.cs``, which leaves the
  exception at the head of the queue).
- The next exception goes out only once the engine's view no longer lists the one
  the host acknowledged (the engine journaled the acknowledgement); until then a
  general poll gets 00, and past ``ACK_RESEND_MS`` the ``ExceptionAcked`` is emitted
  again.  So a restart repeats at most one exception: the one in flight (DESIGN.md
  "a restart loses none"; the one whose acknowledgement was not yet journaled).
- A repeated general poll whose reply carried nothing (00) gets a fresh answer: a host
  that missed a 00 loses nothing if it hears of a new exception instead.
- 0x51 handpay pending is re-sent every 15 s while ``view.handpay`` is set until the host
  reads long poll 0x1B; a queued ``handpay_pending`` exception counts as a send.
- 0x21 ROM signature: ACKed at once, ``RomSignatureRequested(seed)`` goes to the shell,
  which computes it in the background and calls ``rom_signature_ready``; the first
  general poll after that is answered with the 0x21 data reply instead of an exception
  byte, under the same implied ACK (Aristocrat ``Sas.Client``
  ``LP21RomSignatureVerificationParser``: "This command gets ACKed and will then send
  the following response once the calculation is complete"; its ``HandleGeneralPoll``
  sends "a pending message from a long running command (ROM Signature request for
  example)" before the exception queue).
- Busy (``address 00``) for long polls before the first view; general polls then get
  00.  View address 0 (RAM cleared): nothing is answered.  Never another address.
- TITO long polls (0x50, 0x57, 0x58, 0x70, 0x71, 0x7B-0x7D, 0xA8): ``egm_tito``.
- 0x0E real-time event reporting (``egm_events``, Aristocrat ``SasClient.cs``): while on,
  the general poll's byte becomes ``address FF event CRC`` (``FF 00`` for none) and a
  long poll to us is answered with the next event instead, when one is due; the event
  waits for its implied ACK exactly as the byte does (same queue, same journal rule).
- Unknown or unimplemented long polls: no reply.  A known long poll to our address with
  a bad CRC, bad request data, an M length below its layout's minimum (after the bytes
  it promises and the CRC) or a reply the view cannot fill: NACK (``address | 0x80``;
  Aristocrat ``SasClient.cs`` "Crc failed. NACKing long poll", each parser's
  ``NackLongPoll``); the same as a broadcast: silence.
- 0x7E right after a 0x7F: the time the 0x7F set, plus the time since, for
  ``CLOCK_SETTLE_MS``, while the engine applies it to the ``wall`` handed in.
- Link down: no poll to our address for 5 s (checked on every ``receive`` and ``tick``);
  up again on the next one.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from drivers.errors import ProtocolError
from drivers.sas import egm_events, egm_info, egm_meters, replies
from drivers.sas.codec import DropReason, EgmCodec, GeneralPoll, LongPoll, UnknownPoll
from drivers.sas.egm_replies import Wall, handpay_reply, parse_date_time
from drivers.sas.egm_requests import parse_rom_signature_request
from drivers.sas.egm_tito import HostDataRejected, TitoResponder
from drivers.sas.egm_view import EgmView, HostCommand, HostException
from drivers.sas.exception_codes import EXCEPTION_CODES
from drivers.sas.layouts import LAYOUTS

LINK_TIMEOUT_MS = 5000
HANDPAY_RESEND_MS = 15000
#: An acknowledgement the engine's view still lists after this long is emitted again.
ACK_RESEND_MS = 1000
HANDPAY_PENDING = EXCEPTION_CODES["handpay_pending"]
#: The try of an identical poll that is the host's final NACK (Monaco
#: ``HostAcknowledgementProvider.cs``: "SAS will repeat the same message 3 times (2 NACKs)").
FINAL_NACK_ATTEMPT = 3
#: After a 0x7F, 0x7E answers from the time set (plus the time since) this long, while the
#: engine applies it to the wall clock the link is handed.
CLOCK_SETTLE_MS = 5000


@dataclass(frozen=True, slots=True)
class ExceptionAcked:
    """The host acknowledged (implied ACK) the exception with this engine id."""

    exception_id: int


@dataclass(frozen=True, slots=True)
class LinkChanged:
    """The link went up (a poll to our address) or down (none for 5 s)."""

    up: bool


@dataclass(frozen=True, slots=True)
class RomSignatureRequested:
    """The host asked for the 0x21 ROM signature with this seed: compute it (for the shell)."""

    seed: int


Output = bytes | HostCommand | ExceptionAcked | LinkChanged | RomSignatureRequested | HostDataRejected

#: Complete messages to our address the codec drops that are NACKed: a bad CRC (Monaco
#: ``SasClient.cs`` "Crc failed. NACKing long poll") and an M poll whose length byte is
#: below its layout's minimum (its parser's ``NackLongPoll``, e.g.
#: ``SendSelectedMetersForGameNParserBase.cs`` ``ValidLength``, ``LP71RedeemTicketParser.cs``).
_NACKED_DROPS = frozenset({DropReason.CRC, DropReason.LENGTH})

#: A long poll handler: the view, the poll, the output list -> the reply (``replies.NO_REPLY``:
#: silence; None or ``ProtocolError``/``ValueError``: NACK).
Handler = Callable[[EgmView, LongPoll, list[Output]], "bytes | None"]


@dataclass(slots=True)
class _Pending:
    """The general poll reply waiting for its implied ACK."""

    kind: str  # "exception", "handpay" (a 0x51 re-send), "rom"
    exception_id: int = -1


class EgmResponder:
    """One EGM's SAS responder: ``receive`` the PARMRK stream, get ``Output``s.

    Never raises on input.  Not thread-safe: one thread (the link's) calls everything.

    Attributes:
        codec: the underlying ``EgmCodec`` (``codec.counts``).
        polls: polls to our address seen (general and long, repeats included).
        last_poll_ms: ``now_ms`` of the last of them, None before the first.
        counts: ``acked``, ``unmapped`` (exceptions without a SAS code, acknowledged at
            once), ``ignored`` (long polls not answered), ``bad_data`` (valid CRC, bad
            content), ``repeats``.
    """

    def __init__(
        self, address: int, *, link_timeout_ms: int = LINK_TIMEOUT_MS, handpay_resend_ms: int = HANDPAY_RESEND_MS
    ) -> None:
        """Args:
            address: the configured SAS address 1..127 (answered from until a view
                says otherwise).

        Raises:
            ValueError: address outside 1..127.
        """
        self.codec = EgmCodec(replies.check_address(address))
        self._link_timeout_ms = link_timeout_ms
        self._handpay_resend_ms = handpay_resend_ms
        self._view: EgmView | None = None
        self._acked: set[int] = set()
        #: ids the host acknowledged that the view still lists -> when last emitted (ms)
        self._unjournaled: dict[int, int] = {}
        self._pending: _Pending | None = None
        self._up = False
        self.polls = 0
        self.last_poll_ms: int | None = None
        self._handpay: object = None  # the HandpayInfo being announced
        self._handpay_read = False
        self._last_51_ms: int | None = None
        self._rom_reply: bytes | None = None
        self._rom_seed: int | None = None
        self.counts: dict[str, int] = dict(acked=0, unmapped=0, ignored=0, bad_data=0, repeats=0)
        self._tito = TitoResponder()
        self._clock_set: tuple[Wall, int] | None = None  # the last 0x7F and when (ms)
        self._now_ms = 0
        #: 0x0E: real-time event reporting on (kept in memory only, as Aristocrat does)
        self.real_time_events = False
        #: handler name (a row's ``handler`` in ``layouts.LAYOUTS``) -> handler
        self._handlers: dict[str, Handler] = {
            "host_command": self._host_command,
            "configure_bill_denominations": self._lp_08,
            "real_time_event_reporting": self._lp_0e,
            "handpay_information": self._lp_1b,
            "rom_signature": self._lp_21,
            "receive_date_and_time": self._lp_7f,
            "remote_handpay_reset": self._lp_94,
            "enabled_features": self._lp_a0,
            **self._tito.handlers,
        }
        unknown = {row.handler for row in LAYOUTS.values() if row.handler is not None} - set(self._handlers)
        if unknown:
            raise ValueError(f"layout rows name handlers the responder lacks: {sorted(unknown)}")

    # --- state from the engine -------------------------------------------------------------

    @property
    def up(self) -> bool:
        """True while the host polls us (see the module docstring)."""
        return self._up

    @property
    def view(self) -> EgmView | None:
        """The view answered from (None before the first ``update``)."""
        return self._view

    def update(self, view: EgmView) -> None:
        """Answer from ``view`` from now on.  A changed address takes effect at once
        (an unacknowledged reply is then forgotten and its exception sent again)."""
        if view.address != self.codec.address:
            self.codec.address = view.address  # raises ValueError outside 0..127
            self._pending = None
        self._view = view
        self._tito.forget_except(view)
        live = {e.exception_id for e in view.exceptions}
        self._acked &= live
        self._unjournaled = {i: t for i, t in self._unjournaled.items() if i in live}
        if view.handpay != self._handpay:
            self._handpay = view.handpay
            self._handpay_read = False
            self._last_51_ms = None

    def rom_signature_ready(self, seed: int, signature: int) -> None:
        """The shell finished the 0x21 signature for ``seed``: send it at the next general
        poll.  A result for another seed than the last requested is dropped."""
        if seed == self._rom_seed and self.codec.address:
            self._rom_reply = replies.rom_signature_reply(self.codec.address, signature)
            self._rom_seed = None

    def reset_line(self) -> None:
        """Forget partial input and the repeat memory (after the port was reopened)."""
        self.codec.clear()
        self._pending = None

    # --- time ------------------------------------------------------------------------------

    def tick(self, now_ms: int) -> list[Output]:
        """Check the link timeout; returns ``[LinkChanged(False)]`` when it just went down."""
        out: list[Output] = []
        self._check_link(now_ms, out)
        return out

    def _check_link(self, now_ms: int, out: list[Output]) -> None:
        last = self.last_poll_ms
        if self._up and last is not None and now_ms - last >= self._link_timeout_ms:
            self._up = False
            self._pending = None  # not acknowledged: sent again when the host is back
            out.append(LinkChanged(False))

    # --- receiving -------------------------------------------------------------------------

    def receive(self, data: bytes, now_ms: int, wall: Wall | None = None) -> list[Output]:
        """Feed received bytes (PARMRK stream); return what to write and tell, in order.

        Args:
            data: bytes as read from the port, split anywhere.
            now_ms: monotonic time in milliseconds.
            wall: the cabinet's local date and time (for 0x7E); None: 0x7E unanswered.
        """
        out: list[Output] = []
        self._now_ms = now_ms
        self._check_link(now_ms, out)
        codec = self.codec
        for i in range(len(data)):  # byte by byte: a poll to another address is seen in order
            other = codec.counts["other_address"]
            events = codec.feed(data[i : i + 1])
            if codec.counts["other_address"] != other:
                self._commit(out, now_ms)
            for event in events:
                if isinstance(event, (GeneralPoll, LongPoll, UnknownPoll)):
                    self._on_poll(event, now_ms, wall, out)
                elif event.reason in _NACKED_DROPS and codec.address and event.raw[0] == codec.address:
                    self._commit(out, now_ms)
                    self.counts["bad_data"] += event.reason is DropReason.LENGTH
                    out.append(replies.nack(codec.address))
        return out

    def _on_poll(
        self, event: GeneralPoll | LongPoll | UnknownPoll, now_ms: int, wall: Wall | None, out: list[Output]
    ) -> None:
        ours = event.address != 0
        if ours:
            self.polls += 1
            self.last_poll_ms = now_ms
            if not self._up:
                self._up = True
                out.append(LinkChanged(True))
        if isinstance(event, UnknownPoll):
            self._commit(out, now_ms)
            self.counts["ignored"] += ours
            return
        if event.repeat:
            self.counts["repeats"] += 1
            if event.attempt >= FINAL_NACK_ATTEMPT:
                self._pending = None  # not acknowledged: the exception goes out again
                self.codec.forget_last()
                return
            if isinstance(event, LongPoll) or self._pending is not None:
                assert event.last_reply is not None
                out.append(self.codec.answer(event, event.last_reply))
                return
        else:
            self._commit(out, now_ms)
        if not ours:
            if isinstance(event, LongPoll):
                self._broadcast(event, out)
            return
        if isinstance(event, GeneralPoll):
            out.append(self.codec.answer(event, self._general(now_ms, out) or replies.general_poll_reply(0)))
            return
        if self.real_time_events:
            pending = self._general(now_ms, out, events_only=True)
            if pending is not None:  # the event goes first (Aristocrat ProcessLongPollMessage)
                out.append(self.codec.answer(event, pending))
                return
        reply = self._long(event, wall, out)
        if reply is None:
            self.counts["ignored"] += 1
        else:
            out.append(self.codec.answer(event, reply))

    def _clock(self, wall: Wall | None) -> Wall | None:
        """The wall clock 0x7E reports: the time a 0x7F set (plus the time since) for
        ``CLOCK_SETTLE_MS`` after it, else ``wall``."""
        if self._clock_set is None:
            return wall
        set_to, at_ms = self._clock_set
        elapsed = self._now_ms - at_ms
        if not 0 <= elapsed < CLOCK_SETTLE_MS:
            self._clock_set = None
            return wall
        t = datetime.datetime(*set_to) + datetime.timedelta(milliseconds=elapsed)
        return (t.year, t.month, t.day, t.hour, t.minute, t.second)

    def _commit(self, out: list[Output], now_ms: int) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        if pending.kind == "exception":
            self._acked.add(pending.exception_id)
            self._unjournaled[pending.exception_id] = now_ms
            self.counts["acked"] += 1
            out.append(ExceptionAcked(pending.exception_id))
        elif pending.kind == "rom":
            self._rom_reply = None

    # --- general poll ----------------------------------------------------------------------

    def _code(self, exc: HostException) -> int | None:
        if exc.name == "bill_accepted":
            return egm_meters.bill_exception_code(exc.bill_minor)
        return EXCEPTION_CODES.get(exc.name)

    def _general(self, now_ms: int, out: list[Output], events_only: bool = False) -> bytes | None:
        """The general poll's reply; with ``events_only`` None instead of "nothing pending"."""
        view = self._view
        if view is None:
            return None if events_only else replies.general_poll_reply(0)
        if self._rom_reply is not None:
            self._pending = _Pending("rom")
            return self._rom_reply
        queued: list[tuple[HostException, int]] = []
        for exc in view.exceptions:
            if exc.exception_id in self._acked:
                continue
            code = self._code(exc)
            if code is None:  # no SAS code for it: nothing to tell the host, nothing to wait for
                self._acked.add(exc.exception_id)
                self.counts["unmapped"] += 1
                out.append(ExceptionAcked(exc.exception_id))
                continue
            queued.append((exc, code))
        if self._handpay_due(now_ms, queued):
            self._pending = _Pending("handpay")
            self._last_51_ms = now_ms
            return self._report(view, HostException(0, "handpay_pending"), HANDPAY_PENDING)
        if not queued or self._awaiting_journal(now_ms, out):
            if events_only:
                return None
            return (
                egm_events.event_reply(view.address, b"\x00")
                if self.real_time_events
                else replies.general_poll_reply(0)
            )
        exc, code = queued[0]
        if code == HANDPAY_PENDING:
            self._last_51_ms = now_ms
        self._pending = _Pending("exception", exc.exception_id)
        return self._report(view, exc, code)

    def _report(self, view: EgmView, exc: HostException, code: int) -> bytes:
        """The exception byte, or its real-time event while 0x0E has it on."""
        if not self.real_time_events:
            return replies.general_poll_reply(code)
        denomination = view.machine_info.denomination if view.machine_info is not None else 0
        return egm_events.event_reply(view.address, egm_events.event_bytes(exc, code, denomination))

    def _awaiting_journal(self, now_ms: int, out: list[Output]) -> bool:
        """An acknowledged exception is still in the view: hold the next one back, and
        emit the acknowledgement again when it was emitted ``ACK_RESEND_MS`` ago."""
        for exception_id, emitted_ms in sorted(self._unjournaled.items()):
            if now_ms - emitted_ms >= ACK_RESEND_MS:
                self._unjournaled[exception_id] = now_ms
                out.append(ExceptionAcked(exception_id))
        return bool(self._unjournaled)

    def _handpay_due(self, now_ms: int, queued: list[tuple[HostException, int]]) -> bool:
        if self._handpay is None or self._handpay_read:
            return False
        if any(code == HANDPAY_PENDING for _, code in queued):
            return False  # the engine's own 0x51 goes first, in queue order
        last = self._last_51_ms
        return last is None or now_ms - last >= self._handpay_resend_ms

    # --- long polls ------------------------------------------------------------------------

    def _broadcast(self, event: LongPoll, out: list[Output]) -> None:
        """A long poll to address 0: its handler runs when its row takes broadcasts; never
        answered."""
        row = event.layout
        if not row.broadcast or row.handler is None or self._view is None:
            return
        try:
            self._handlers[row.handler](self._view, event, out)
        except ProtocolError:
            self.counts["bad_data"] += 1

    def _long(self, event: LongPoll, wall: Wall | None, out: list[Output]) -> bytes | None:
        """The reply to a long poll to us, as its row in ``layouts.LAYOUTS`` routes it."""
        address = event.address
        view = self._view
        if view is None:
            return replies.busy(address)
        row = event.layout
        if row.ignored_under_system_validation and view.validation_mode != "none":
            return None
        try:
            if row.handler is not None:
                reply = self._handlers[row.handler](view, event, out)
            elif row.view_reply is not None:
                reply = row.view_reply(view, address, event.data, self._clock(wall))
            else:
                return None  # not implemented: not answered, as an unknown poll
            if reply == replies.NO_REPLY:
                return None  # the poll is deliberately ignored: silence, not a NACK
            if reply is not None:
                return reply
        except (ProtocolError, ValueError):
            pass
        self.counts["bad_data"] += 1
        return replies.nack(address)

    def _host_command(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        """An S poll that only carries a command: ACK, and ``HostCommand(row name)``."""
        out.append(HostCommand(event.layout.name, event.command))
        return replies.ack(event.address)

    def _lp_08(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        bills = egm_meters.parse_bill_mask(event.data[:4])
        out.append(HostCommand("configure_bill_denominations", 0x08, bills_minor=bills, action_flag=event.data[4]))
        return replies.ack(event.address)

    def _lp_0e(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        try:
            self.real_time_events = egm_events.parse_enable(event.data)
        except ProtocolError:
            self.counts["bad_data"] += 1
            return replies.nack(event.address)  # Aristocrat LP0ERealTimeEventReportingParser
        return replies.ack(event.address)

    def _lp_a0(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        extended = LAYOUTS.get(0x6F) is not None and LAYOUTS[0x6F].view_reply is not None
        return egm_info.features_reply(view, event.address, event.data, extended)

    def _lp_1b(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        if view.handpay is not None:
            self._handpay_read = True  # the host has it: stop the 15 s re-sends of 0x51
        return handpay_reply(view, event.address)

    def _lp_21(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        seed = parse_rom_signature_request(event.data)
        self._rom_seed = seed
        self._rom_reply = None  # a new request replaces a result not yet delivered
        out.append(RomSignatureRequested(seed))
        return replies.ack(event.address)

    def _lp_7f(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        date_time = parse_date_time(event.data)
        self._clock_set = (date_time, self._now_ms)
        out.append(HostCommand("set_clock", 0x7F, date_time=date_time, broadcast=event.broadcast))
        return replies.NO_REPLY if event.broadcast else replies.ack(event.address)

    def _lp_94(self, view: EgmView, event: LongPoll, out: list[Output]) -> bytes:
        out.append(HostCommand("remote_handpay_reset", 0x94))  # logged either way
        if view.handpay is None:
            return replies.remote_handpay_reset(event.address, replies.HANDPAY_RESET_NOT_IN_HANDPAY)
        return replies.remote_handpay_reset(event.address, replies.HANDPAY_RESET_OK)

"""Sans-I/O SAS 6.02 codec for the gaming machine (EGM, slave) side.

Owns: framing host messages out of the received PARMRK byte stream (general polls,
long polls of kinds R, S and M), CRC and length checks, address filtering, repeat
detection for the implied ACK, and the checks on what the EGM may answer.
Must not import: serial, termios, time, threading, cabinet.*.

Use: ``events = codec.feed(received_bytes)``; for each ``GeneralPoll`` or
``LongPoll`` event for our address, build the reply with ``drivers.sas.replies`` (or
resend ``event.last_reply`` when ``event.repeat``) and pass it through
``codec.answer(event, reply)``, which returns the bytes to write.  ``UnknownPoll`` and
``Dropped`` events are never answered.  Modelled on h11: bytes in, events out; no I/O,
no clock, no randomness.

Rules (research/sas.md): addresses 1-127, 0 is broadcast (parsed, never answered);
the wakeup bit marks the first byte of every host message; unknown long polls are
ignored; an M message is framed by its length byte (the bytes it promises, then the
CRC), even one below its poll's minimum; a message with a bad CRC or such a length is
dropped and counted (the responder NACKs both to our address, ``egm``); a host that repeats a poll did
not get the reply, so the EGM sends the same reply again (implied ACK).  A message
counts as a repeat only when it is identical to the message just before it on the
line: a poll to any other address (nCompass
``SASInterface.cpp`` sends "general poll to game address 0 so EGM doesn't see implied
NACK") or a different poll acknowledges the previous reply.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from drivers.sas.crc import crc_ok
from drivers.sas.layouts import LAYOUTS, Kind, Layout
from drivers.sas.wakeup import WakeupDecoder

BROADCAST = 0
MAX_ADDRESS = 127


class DropReason(enum.Enum):
    """Why bytes were dropped without an answer."""

    CRC = "crc"  # a complete S or M message whose CRC failed
    TRUNCATED = "truncated"  # the next wakeup byte came before the message was complete
    LENGTH = "length"  # a complete M message (good CRC) whose length byte is below its
    # poll's minimum: framed by its length byte, as Monaco ``SasClient.cs`` reads it
    STRAY = "stray"  # bytes without the wakeup bit outside any message (reported, as one
    # run, when the next wakeup byte arrives, so the events do not depend on chunking)


@dataclass(frozen=True, slots=True)
class GeneralPoll:
    """A general poll (``0x80 | address``): answer one exception byte.

    Attributes:
        address: 0 (broadcast: never answered) or our address.
        raw: the message byte.
        attempt: 1 for a new poll, 2, 3... for repeats of the one just answered.
        last_reply: for a repeat, the reply sent to the previous try (send it again).
    """

    address: int
    raw: bytes
    attempt: int = 1
    last_reply: bytes | None = None

    @property
    def broadcast(self) -> bool:
        """True for address 0: parsed, never answered."""
        return self.address == BROADCAST

    @property
    def repeat(self) -> bool:
        """True when the host repeats the poll just answered (it did not get the reply)."""
        return self.last_reply is not None


@dataclass(frozen=True, slots=True)
class LongPoll:
    """A complete long poll with a valid CRC (S and M) for our address or broadcast.

    Attributes:
        address: 0 (broadcast) or our address.
        command: the command byte.
        layout: its entry in ``layouts.LAYOUTS``.
        data: S: the bytes between the command and the CRC; M: the bytes after the
            length byte, without the CRC; R: empty.
        raw: the whole message as received (address to CRC).
        attempt, last_reply: as for ``GeneralPoll``.
    """

    address: int
    command: int
    layout: Layout
    data: bytes
    raw: bytes
    attempt: int = 1
    last_reply: bytes | None = None

    @property
    def broadcast(self) -> bool:
        """True for address 0: parsed, never answered."""
        return self.address == BROADCAST

    @property
    def repeat(self) -> bool:
        """True when the host repeats the poll just answered (it did not get the reply)."""
        return self.last_reply is not None


@dataclass(frozen=True, slots=True)
class UnknownPoll:
    """A long poll whose command is not in the layout table: ignored, never answered."""

    address: int
    command: int


@dataclass(frozen=True, slots=True)
class Dropped:
    """Bytes dropped without an answer (counted in ``EgmCodec.counts``)."""

    reason: DropReason
    raw: bytes


Event = GeneralPoll | LongPoll | UnknownPoll | Dropped


@dataclass(slots=True)
class _Previous:
    raw: bytes
    reply: bytes | None
    attempt: int


class EgmCodec:
    """EGM-side SAS codec: feed the received PARMRK stream, get events, answer them.

    Never raises on input: any byte sequence, split anywhere, yields events.

    Attributes:
        counts: per ``DropReason.value``, and ``"unknown"`` (unknown long polls) and
            ``"other_address"`` (messages for another EGM), how many were seen.
        wakeup: the underlying PARMRK parser (``wakeup.marker_errors``).
    """

    def __init__(self, address: int, layouts: dict[int, Layout] | None = None) -> None:
        """Args:
            address: our SAS address 1..127, or 0 while unconfigured (then only
                broadcasts are parsed and nothing is ever answered).
            layouts: the layout table (default ``layouts.LAYOUTS``).

        Raises:
            ValueError: address outside 0..127.
        """
        self._address = self._check(address)
        self._layouts = LAYOUTS if layouts is None else layouts
        self.wakeup = WakeupDecoder()
        self.counts: dict[str, int] = {r.value: 0 for r in DropReason}
        self.counts.update(unknown=0, other_address=0)
        self._msg: bytearray | None = None  # the message being received (ours or broadcast)
        self._need: int | None = None  # its whole length once known
        self._layout: Layout | None = None
        self._skipping = False  # inside a message we do not parse (other address, unknown)
        self._stray = bytearray()
        self._prev: _Previous | None = None

    @staticmethod
    def _check(address: int) -> int:
        if not 0 <= address <= MAX_ADDRESS:
            raise ValueError(f"SAS address {address!r} is outside 0..127")
        return address

    @property
    def address(self) -> int:
        """Our address (0 = unconfigured, e.g. after a RAM clear; spark-sas2 notes)."""
        return self._address

    @address.setter
    def address(self, value: int) -> None:
        self._address = self._check(value)
        self._prev = None

    def forget_last(self) -> None:
        """Forget the message just received and its reply: the next identical one is a new
        message, not a repeat (after the host's final NACK, see ``egm``)."""
        self._prev = None

    def clear(self) -> None:
        """Forget any partial message and the repeat memory (after a port reopen)."""
        self.wakeup.clear()
        self._reset()
        self._stray.clear()
        self._prev = None

    # --- receiving -------------------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        """Parse received bytes; return the events they complete, oldest first.

        The events and ``counts`` depend only on the bytes, not on how they are split.
        """
        events: list[Event] = []
        for wire in self.wakeup.feed(data):
            if wire.wakeup:
                self._flush_stray(events)
                self._start(wire.value, events)
            elif self._skipping:
                continue
            elif self._msg is None:
                self._stray.append(wire.value)
            else:
                self._msg.append(wire.value)
                self._advance(events)
        return events

    def _drop(self, reason: DropReason, raw: bytes, events: list[Event]) -> None:
        self.counts[reason.value] += 1
        events.append(Dropped(reason, raw))

    def _flush_stray(self, events: list[Event]) -> None:
        if self._stray:
            self._drop(DropReason.STRAY, bytes(self._stray), events)
            self._stray.clear()

    def _reset(self) -> None:
        self._msg = None
        self._need = None
        self._layout = None
        self._skipping = False

    def _start(self, byte: int, events: list[Event]) -> None:
        if self._msg is not None:
            self._drop(DropReason.TRUNCATED, bytes(self._msg), events)
        self._reset()
        address = byte & 0x7F
        if address not in (self._address, BROADCAST):
            self.counts["other_address"] += 1
            self._prev = None  # a poll to another address acknowledges our last reply
            self._skipping = True
            return
        if byte & 0x80:
            events.append(self._complete_general(bytes((byte,))))
            return
        self._msg = bytearray((byte,))

    def _advance(self, events: list[Event]) -> None:
        msg = self._msg
        assert msg is not None
        if len(msg) == 2:
            layout = self._layouts.get(msg[1])
            if layout is None:
                self.counts["unknown"] += 1
                self._prev = None
                events.append(UnknownPoll(msg[0], msg[1]))
                self._reset()
                self._skipping = True
                return
            self._layout = layout
            self._need = layout.request_len()
        elif len(msg) == 3 and self._need is None:
            assert self._layout is not None and self._layout.kind is Kind.M
            self._need = 3 + msg[2] + 2  # the bytes the length promises, even too few
        if self._need is not None and len(msg) >= self._need:
            self._finish(events)

    def _finish(self, events: list[Event]) -> None:
        msg, layout = self._msg, self._layout
        assert msg is not None and layout is not None
        raw = bytes(msg)
        self._reset()
        if layout.kind is Kind.R:
            data = b""
        elif not crc_ok(raw):
            self._drop(DropReason.CRC, raw, events)
            return
        elif layout.kind is Kind.M:
            if raw[2] < layout.min_len:
                self._drop(DropReason.LENGTH, raw, events)
                return
            data = raw[3:-2]
        else:
            data = raw[2:-2]
        attempt, last = self._remember(raw)
        events.append(LongPoll(raw[0], raw[1], layout, data, raw, attempt, last))

    def _complete_general(self, raw: bytes) -> GeneralPoll:
        attempt, last = self._remember(raw)
        return GeneralPoll(raw[0] & 0x7F, raw, attempt, last)

    def _remember(self, raw: bytes) -> tuple[int, bytes | None]:
        prev = self._prev
        if prev is not None and prev.raw == raw and prev.reply is not None:
            prev.attempt += 1
            return prev.attempt, prev.reply
        self._prev = _Previous(raw, None, 1)
        return 1, None

    # --- answering -------------------------------------------------------------

    def answer(self, event: GeneralPoll | LongPoll, reply: bytes) -> bytes:
        """Check and remember the reply to ``event``; return the bytes to write.

        The EGM sends with the wakeup bit clear, so the bytes go out unchanged.  The
        reply is remembered for the implied ACK: a repeat of this message carries it
        as ``last_reply``.  A busy reply (``address 00``) is not remembered: the host
        asks again and that poll gets a fresh answer.

        Raises:
            ValueError: ``event`` is broadcast or for another address than ours, the
                reply is empty, a general poll reply is neither one byte nor a data
                reply from our address with a good CRC, or a long poll
                reply does not start with our address (ACK/data/busy) or our NACK.
        """
        if event.address == BROADCAST:
            raise ValueError("a broadcast (address 0) is never answered")
        if event.address != self._address:
            raise ValueError(f"event for address {event.address} is not ours ({self._address})")
        if isinstance(event, GeneralPoll):
            # One exception byte, or the data reply of a long-running command (0x21 ROM
            # signature) sent to the first general poll once it is ready (Aristocrat
            # Sas.Client ``HandleGeneralPoll``: "if we have a pending message from a long
            # running command (ROM Signature request for example) send the message").
            delayed = len(reply) >= 4 and reply[0] == self._address and crc_ok(reply)
            if len(reply) != 1 and not delayed:
                raise ValueError(f"a general poll reply is one exception byte, not {len(reply)}")
        elif not reply or reply[0] not in (self._address, self._address | 0x80):
            raise ValueError(f"reply {reply.hex(' ')!r} does not come from address {self._address}")
        prev = self._prev
        busy = len(reply) == 2 and reply[1] == 0x00
        if prev is not None and prev.raw == event.raw and not busy:
            prev.reply = bytes(reply)
        return bytes(reply)

"""One SAS line as the host twin drives it: send a message, get its reply.

Owns: the exchange of one message with one EGM over its pty: writing the PARMRK
stream, framing the reply (``host_codec.HostCodec``), the reply timeout, the implied
NACK (the same message again, up to ``tries``), the implied ACK (a general poll to
address 0 before a message identical to the last one that got a valid reply), busy
after an ACK-shaped poll, and a general poll that may carry a late 0x21 reply.
Must not import: serial, cabinet.*.  Used by ``sas_host.SasHost``, one per machine,
from that machine's poll thread only.

Sources: research/sas.md "Timing" (20 ms reply, implied ACK, busy ``address 00``);
``drivers/sas/codec.py`` (what the EGM counts as a repeat); nCompass
``SASInterface.cpp`` (the general poll to address 0 "so EGM doesn't see implied NACK").
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable

from drivers.sas.crc import crc_ok
from drivers.sas.host_codec import Ack, BadReply, Busy, DataReply, ExceptionReply, HostCodec, Reply, to_wire
from drivers.sas.host_codec import general_poll as general_poll_message
from drivers.sim.sas_pty import HostPty

#: A general poll to address 0: never answered; tells the EGM its last reply arrived.
ACK_POLL = to_wire(general_poll_message(0))
#: How long after an ACK the line is watched for the ``00`` that makes it busy.
BUSY_SETTLE_S = 0.02
#: Quiet time that ends the draining of junk after a bad reply.
DRAIN_QUIET_S = 0.02


class HostLine:
    """The host's side of one EGM's line.

    Args:
        address: the EGM's SAS address.
        pty: its pseudo-terminal.
        stop: set when the host closes (ends any wait).
        clock: monotonic seconds.

    Attributes:
        counts: ``sent``, ``bad_replies``, ``no_replies``, ``junk_bytes``.
    """

    def __init__(self, address: int, pty: HostPty, stop: threading.Event, clock: Callable[[], float]) -> None:
        self.address, self.pty, self._stop, self._clock = address, pty, stop, clock
        self.codec = HostCodec()
        self.counts: collections.Counter[str] = collections.Counter()
        self.last_sent: bytes | None = None
        self.last_ok = False

    def _write(self, message: bytes, wire: bytes, flush: bool) -> None:
        if message == self.last_sent and self.last_ok:
            self.pty.write(ACK_POLL)  # or the EGM takes it for a repeat (implied ACK)
        if flush:
            self.pty.flush_unread()
        self.pty.write(wire)
        self.last_sent, self.last_ok = message, False
        self.counts["sent"] += 1

    def drain(self, quiet_s: float = DRAIN_QUIET_S) -> None:
        """Read and drop bytes until the line is quiet for ``quiet_s``."""
        while not self._stop.is_set():
            junk = self.pty.read(quiet_s)
            if not junk:
                return
            self.counts["junk_bytes"] += len(junk)

    def _failed(self, got: bytes) -> None:
        self.counts["bad_replies" if got else "no_replies"] += 1
        if got:
            self.drain()

    def exchange(
        self, message: bytes, tries: int, reply_timeout_s: float, flush: bool = False
    ) -> tuple[Reply | None, int, bytes]:
        """Send ``message`` until a valid reply comes, at most ``tries`` times.

        Args:
            message: a built poll (``host_codec.general_poll``/``long_poll``).
            tries: sends in all (implied NACK: the same bytes again).
            reply_timeout_s: no byte for this long after the poll or the last byte
                received ends the wait.
            flush: first discard what the EGM has not read (the link is down).

        Returns:
            ``(reply, tries used, bytes received for the last try)``; reply is None
            when no try got a valid one (``ExceptionReply``, ``Ack``, ``Nack``,
            ``Busy`` or ``DataReply``).
        """
        got = b""
        for attempt in range(1, tries + 1):
            self.drain(0.0)
            self._write(message, self.codec.send(message), flush)
            reply, got = self._await(reply_timeout_s)
            if reply is None or isinstance(reply, BadReply):
                self._failed(got)
                continue
            self.last_ok = True
            return reply, attempt, got
        return None, tries, got

    def _await(self, reply_timeout_s: float) -> tuple[Reply | None, bytes]:
        got = bytearray()
        deadline = self._clock() + reply_timeout_s
        while not self._stop.is_set():
            left = deadline - self._clock()
            if left <= 0:
                timed_out = self.codec.timeout()
                return (timed_out[0] if timed_out else None), bytes(got)
            data = self.pty.read(left)
            if not data:
                continue
            got += data
            deadline = self._clock() + reply_timeout_s
            replies = self.codec.feed(data)
            if not replies:
                continue
            reply = replies[0]
            if isinstance(reply, ExceptionReply) and len(replies) > 1:
                return BadReply("stray", bytes(got)), bytes(got)  # an exception is one byte
            if isinstance(reply, Ack):  # busy is "address 00": see host_codec's limitation
                rest = b"".join(r.raw for r in replies[1:] if isinstance(r, BadReply))
                rest = rest or self.pty.read(min(reply_timeout_s, BUSY_SETTLE_S))
                got += rest
                if rest[:1] == b"\x00":
                    reply = Busy(reply.address)
            return reply, bytes(got)
        return None, bytes(got)

    def general_poll_rom_pending(
        self, tries: int, reply_timeout_s: float, flush: bool = False
    ) -> ExceptionReply | DataReply | None:
        """A general poll while a 0x21 is pending (``exchange``'s retries and timeout).

        One byte is the exception (``ExceptionReply``); ``address 21 sig sig CRC CRC``
        with a good CRC is the late ROM signature (``DataReply`` for 0x21).  The two
        differ only after the first byte when it equals our address, so then the
        line is read until 6 bytes or ``reply_timeout_s`` of quiet.
        """
        message = general_poll_message(self.address)
        for _ in range(tries):
            self.drain(0.0)
            self.codec.timeout()  # this reply is framed here, not by the codec
            self._write(message, to_wire(message), flush)
            buf = bytearray()
            deadline = self._clock() + reply_timeout_s
            while len(buf) < 6 and (left := deadline - self._clock()) > 0 and not self._stop.is_set():
                data = self.pty.read(left)
                if data:
                    buf += data
                    deadline = self._clock() + reply_timeout_s
                if buf[:1] and buf[0] != self.address:
                    break  # an exception byte that cannot start a reply
            if len(buf) == 1:
                self.last_ok = True
                return ExceptionReply(buf[0])
            raw = bytes(buf[:6])
            if len(buf) >= 6 and raw[1] == 0x21 and crc_ok(raw):
                self.last_ok = True
                return DataReply(self.address, 0x21, raw[2:4], raw)
            self._failed(bytes(buf))
        return None

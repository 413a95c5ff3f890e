"""A minimal EGM for the host twin's tests, from the pure codec only.

It opens the host's pty slave raw, frames polls with ``drivers.sas.codec.EgmCodec``
and answers with ``drivers.sas.replies``: general polls from a list of exception codes
(the head is answered until the host acknowledges it with any other poll: the implied
ACK), 0x1C / 0x1A / 0x1F / 0x54 / 0x51 / 0x1E / 0x1B / 0x94 from fixed values, the
control polls with an ACK, 0x21 at once or late.  Faults to inject on the next
replies: ``lose`` (computed and remembered, not sent), ``garbage``, ``bad_crc``,
``busy``, and ``silent`` (answer nothing).  Not the cabinet's EGM: a test peer.
"""

from __future__ import annotations

import collections
import os
import select
import termios
import threading
import tty

from drivers.sas import bcd, replies
from drivers.sas.codec import EgmCodec, GeneralPoll, LongPoll
from drivers.sas.crc import rom_signature
from drivers.sas.messages import MachineInfo, Meters1C

INFO = MachineInfo("BJ", "001", 0x01, 25, 0, b"\x00\x00", "BJ6D01", "9950")
METERS = Meters1C(
    coin_in=12345678,
    coin_out=8765432,
    drop=500000,
    jackpot=1200,
    games_played=4321,
    games_won=1999,
    slot_door_opened=7,
    power_reset=3,
)
PROGRAM = b"cabinet program image for the test EGM"


class TestEgm:
    """The test EGM at ``address`` on the slave pty ``path``."""

    __test__ = False  # not a pytest class

    def __init__(
        self,
        path: str,
        address: int = 1,
        exceptions: tuple[int, ...] = (),
        meters: Meters1C = METERS,
        credits: int = 4321,
        rom: str = "immediate",
        bills: tuple[int, ...] = (1, 2, 3, 4, 5, 6),
        flush_on_open: bool = True,
    ) -> None:
        self.address = address
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        if flush_on_open:  # as pyserial's open() does (reset_input_buffer)
            termios.tcflush(self.fd, termios.TCIFLUSH)
        self.codec = EgmCodec(address)
        self.queue = collections.deque(exceptions)
        self.meters, self.credits, self.bills = meters, credits, bills
        self.rom = rom  # "immediate", "late" (no answer, then the reply at a general poll) or "busy_late"
        self.late: bytes | None = None
        self.awaiting_ack = False
        self.lose = self.garbage = self.bad_crc = self.busy = 0
        self.silent = False
        self.polls: list[tuple[int, bytes, int]] = []  # (command, data, attempt); 0x80 general poll
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"test-egm-{address}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.fd)

    def commands(self) -> list[int]:
        with self.lock:
            return [c for c, _, _ in self.polls]

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return
            for byte in data:  # one at a time: each poll is answered before the next is read
                for event in self.codec.feed(bytes((byte,))):
                    if isinstance(event, GeneralPoll | LongPoll) and not event.broadcast:
                        self._handle(event)

    def _handle(self, event: GeneralPoll | LongPoll) -> None:
        with self.lock:
            command = 0x80 if isinstance(event, GeneralPoll) else event.command
            data = b"" if isinstance(event, GeneralPoll) else event.data
            self.polls.append((command, data, event.attempt))
            if self.silent:
                return
            if isinstance(event, GeneralPoll) and not event.repeat:
                if self.awaiting_ack:  # any new poll means the host read our last exception
                    self.queue.popleft()
                    self.awaiting_ack = False
                if self.late is not None:  # the 0x21 reply, in place of the exception byte
                    late, self.late = self.late, None
                    os.write(self.fd, late)
                    return
            if event.repeat:
                reply = event.last_reply
                assert reply is not None
            elif isinstance(event, GeneralPoll):
                reply = replies.general_poll_reply(self.queue[0] if self.queue else 0)
                self.awaiting_ack = bool(self.queue)
            else:
                if self.busy and event.command != 0x21:
                    self.busy -= 1
                    os.write(self.fd, self.codec.answer(event, replies.busy(self.address)))
                    return
                built = self._long(event)
                if built is None:
                    return
                reply = built
            out = self.codec.answer(event, reply)
            self._emit(out)

    def _emit(self, out: bytes) -> None:
        if self.lose:
            self.lose -= 1
            return
        if self.garbage:
            self.garbage -= 1
            out = b"\x7a\x3c\x99\x01\x02"[: max(2, len(out))]
        elif self.bad_crc and len(out) > 2:
            self.bad_crc -= 1
            out = out[:-1] + bytes((out[-1] ^ 0x5A,))
        os.write(self.fd, out)

    def _long(self, event: LongPoll) -> bytes | None:
        a, c = self.address, event.command
        if c == 0x1C:
            return replies.meters_1c(a, self.meters)
        if c == 0x1A:
            return replies.current_credits(a, self.credits)
        if c == 0x1F:
            return replies.machine_info(a, INFO)
        if c == 0x54:
            return replies.sas_version(a, f"SN-{a:04d}")
        if c == 0x51:
            return replies.two_digit_count(a, 0x51, 3)
        if c == 0x1E:
            return replies.meters_block(a, 0x1E, self.bills)
        if c == 0x1B:
            return replies.long_reply(
                a, 0x1B, b"\x00\x00" + bcd.encode(150000, 5) + bcd.encode(0, 2) + b"\x00" + bytes(10)
            )
        if c == 0x94:
            return replies.long_reply(a, 0x94, b"\x00")
        if c == 0x21:
            seed = int.from_bytes(event.data, "little")
            reply = replies.rom_signature_reply(a, rom_signature(seed, PROGRAM))
            if self.rom in ("late", "busy_late"):
                self.late = reply
                return replies.busy(a) if self.rom == "busy_late" else None
            return reply
        if event.layout.reply == "ack":
            return replies.ack(a)
        return None

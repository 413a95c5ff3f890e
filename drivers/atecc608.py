"""The ATECC608 secure element's monotonic counter on Linux I2C (``/dev/i2c-N``).

Owns: the command packet (word address 0x03, count, opcode, param1, param2
little-endian, CRC-16), the CRC (polynomial 0x8005, bits taken LSB first, no
reflection of the result, as Microchip's CryptoAuthLib ``atCRC``), wake and idle,
and ``Atecc608Counter``: the Counter command (opcode 0x24; mode 0 reads, mode 1
increments; counter 0 or 1; a 4-byte little-endian value; the counters stop at
2,097,151). Source: Microchip ATECC608A data sheet (DS40001977) "I2C
Interface" (wake: SDA low for at least 60 us, then 1.5 ms; the wake reply 04 11 33 43;
word addresses 0 reset, 1 sleep, 2 idle, 3 command) and "Counter Command".
A chip that is asleep, busy or absent NACKs: retried until ``REPLY_TIMEOUT_S``,
then ``DeviceOfflineError``. Must not import: cabinet.*. I/O: the I2C device file.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from typing import Protocol

from drivers.errors import DeviceOfflineError, ProtocolError
from drivers.interfaces import MonotonicCounter

#: The chip's 7-bit I2C address as shipped (0xC0 in the data sheet's 8-bit form).
DEFAULT_ADDRESS = 0x60
OP_COUNTER = 0x24
MODE_READ, MODE_INCREMENT = 0x00, 0x01
WORD_COMMAND, WORD_IDLE = 0x03, 0x02
#: The reply to the first read after a wake: count 4, status 0x11, CRC.
WAKE_REPLY = bytes((0x04, 0x11, 0x33, 0x43))
COUNTER_MAX = 2_097_151
#: Longest the Counter command runs (the data sheet's maximum, with margin).
REPLY_TIMEOUT_S = 0.05
WAKE_DELAY_S = 0.0015
I2C_SLAVE = 0x0703  # linux/i2c-dev.h


def crc16(data: bytes) -> bytes:
    """The packet CRC: CRC-16, polynomial 0x8005, initial 0, each byte's bits LSB
    first; returned little-endian (2 bytes)."""
    crc = 0
    for byte in data:
        for bit in range(8):
            if ((byte >> bit) & 1) != (crc >> 15):
                crc = ((crc << 1) ^ 0x8005) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc.to_bytes(2, "little")


def command(opcode: int, param1: int, param2: int) -> bytes:
    """A command packet as written: word address 0x03, then count, opcode, param1,
    param2 (little-endian) and the CRC over count..param2."""
    body = bytes((7, opcode, param1)) + param2.to_bytes(2, "little")
    return bytes((WORD_COMMAND,)) + body + crc16(body)


def parse_reply(packet: bytes) -> bytes:
    """The data of a reply packet (count, data, CRC).

    Raises:
        ProtocolError: a short packet, a bad count or CRC, or a status reply
            (4 bytes: 0x0F execution error, 0xFF communication error...).
    """
    if len(packet) < 4 or packet[0] < 4 or packet[0] > len(packet):
        raise ProtocolError(f"ATECC608: bad reply {packet.hex()}")
    body = packet[: packet[0]]
    if crc16(body[:-2]) != body[-2:]:
        raise ProtocolError(f"ATECC608: reply CRC wrong: {body.hex()}")
    if body[0] == 4:
        raise ProtocolError(f"ATECC608: status 0x{body[1]:02x}")
    return body[1:-2]


class I2cBus(Protocol):
    """What the driver uses of an I2C bus (``LinuxI2c``; a fake in tests)."""

    def write(self, address: int, data: bytes) -> None: ...

    def read(self, address: int, n: int) -> bytes: ...

    def close(self) -> None: ...


class LinuxI2c:
    """An I2C bus through Linux's i2c-dev (``/dev/i2c-1`` on a Pi's header pins 3, 5).

    Raises:
        DeviceOfflineError: the device file cannot be opened.
    """

    def __init__(self, path: str) -> None:
        try:
            self.fd = os.open(path, os.O_RDWR)
        except OSError as e:
            raise DeviceOfflineError(f"I2C {path}: {e.strerror or e}") from None
        self.address = -1

    def _at(self, address: int) -> None:
        if address != self.address:
            fcntl.ioctl(self.fd, I2C_SLAVE, address)
            self.address = address

    def write(self, address: int, data: bytes) -> None:
        self._at(address)
        os.write(self.fd, data)

    def read(self, address: int, n: int) -> bytes:
        self._at(address)
        return os.read(self.fd, n)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class Atecc608Counter(MonotonicCounter):
    """Monotonic counter ``counter`` (0 or 1) of the ATECC608 at ``address`` on ``bus``."""

    def __init__(
        self,
        bus: I2cBus,
        counter: int = 0,
        address: int = DEFAULT_ADDRESS,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if counter not in (0, 1):
            raise ValueError(f"ATECC608 counter {counter}: 0 or 1")
        self.bus, self.counter, self.address = bus, counter, address
        self.sleep, self.clock = sleep, clock

    def _wake(self) -> None:
        try:
            self.bus.write(0x00, b"\x00")  # SDA held low: a NACK is expected
        except OSError:
            pass
        self.sleep(WAKE_DELAY_S)
        reply = self._read_reply(4)
        if reply != WAKE_REPLY:
            raise ProtocolError(f"ATECC608: wake reply {reply.hex()}")

    def _read_reply(self, n: int) -> bytes:
        deadline = self.clock() + REPLY_TIMEOUT_S
        while True:
            try:
                return self.bus.read(self.address, n)
            except OSError as e:  # busy or asleep: NACK
                if self.clock() >= deadline:
                    raise DeviceOfflineError(
                        f"ATECC608 at 0x{self.address:02x}: no reply ({e.strerror or e})"
                    ) from None
                self.sleep(0.001)

    def _counter(self, mode: int) -> int:
        self._wake()
        try:
            try:
                self.bus.write(self.address, command(OP_COUNTER, mode, self.counter))
            except OSError as e:
                raise DeviceOfflineError(f"ATECC608: command not taken ({e.strerror or e})") from None
            data = parse_reply(self._read_reply(7))
        finally:
            try:
                self.bus.write(self.address, bytes((WORD_IDLE,)))
            except OSError:
                pass
        if len(data) != 4:
            raise ProtocolError(f"ATECC608: counter reply of {len(data)} bytes")
        return int.from_bytes(data, "little")

    def read(self) -> int:
        return self._counter(MODE_READ)

    def increment(self) -> int:
        """One step; at ``COUNTER_MAX`` the chip refuses it (an execution error status)."""
        return self._counter(MODE_INCREMENT)

    def close(self) -> None:
        self.bus.close()

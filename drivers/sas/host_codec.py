"""Sans-I/O SAS 6.02 codec for the host side (the host twin): build polls, frame and
parse replies.

Owns: general and long poll builders (kind R, S, M from ``layouts.LAYOUTS``), their
encoding into the EGM's PARMRK stream (``to_wire``), the reply framer (ACK, NACK,
busy, data replies with CRC check) and parsers for the data of each implemented reply.
Must not import: serial, termios, time, threading, cabinet.*.

Use: ``wire = host.send(message)`` (write ``wire``), then ``host.feed(received)`` until
it returns a reply; the caller owns the clock and calls ``host.timeout()`` when the
EGM's 20 ms deadline passes (research/sas.md "Timing").  The EGM replies with the
wakeup bit clear, so received bytes are taken as they come.
Limitation: a reply to an ACK-shaped poll is complete at its address byte; a busy
``address 00`` there shows as ``Ack`` followed by ``BadReply("stray")``.
Real-time event reporting (0x0E, ``HostCodec.real_time_events``): a reply ``address FF
event CRC`` to any poll is an ``EventReply`` (the event's data length by its code,
``egm_events.EVENT_DATA_LEN``); an ACK-shaped poll's reply then ends at the caller's
timeout (an ``Ack`` when the address byte came alone), and a one-byte exception equal to
the address cannot be told from an event's first byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from drivers.errors import ProtocolError
from drivers.sas import bcd
from drivers.sas.crc import crc_ok, with_crc
from drivers.sas.egm_events import EVENT_DATA_LEN, EVENT_RESPONSE
from drivers.sas.layouts import ACK, LAYOUTS, LENGTH, Kind, Layout
from drivers.sas.messages import MACHINE_INFO_LEN, MachineInfo, Meters1C, meter_width
from drivers.sas.wakeup import encode_message


def _address(address: int, *, allow_broadcast: bool = True) -> int:
    low = 0 if allow_broadcast else 1
    if not low <= address <= 127:
        raise ValueError(f"SAS address {address!r} is outside {low}..127")
    return address


# --- building polls ------------------------------------------------------------------


def general_poll(address: int) -> bytes:
    """General poll message: ``0x80 | address`` (research/sas.md "Message kinds").

    Raises:
        ValueError: address outside 0..127.
    """
    return bytes((0x80 | _address(address),))


def long_poll(address: int, command: int, data: bytes = b"", layouts: dict[int, Layout] | None = None) -> bytes:
    """Long poll message for ``command`` laid out per its ``Layout``.

    R: ``address, command``; S: ``address, command, data, CRC``; M: ``address, command,
    len(data), data, CRC`` (CRC-16/Kermit low byte first).

    Raises:
        ValueError: unknown command, data on an R poll, S data of the wrong length,
            M data longer than 255 bytes or below the poll's minimum, bad address.
    """
    table = LAYOUTS if layouts is None else layouts
    layout = table.get(command)
    if layout is None:
        raise ValueError(f"long poll 0x{command:02X} is not in the layout table")
    head = bytes((_address(address), command))
    if layout.kind is Kind.R:
        if data:
            raise ValueError(f"long poll 0x{command:02X} is type R and carries no data")
        return head
    if layout.kind is Kind.S:
        if len(data) != layout.data_len:
            raise ValueError(f"long poll 0x{command:02X} carries {layout.data_len} data bytes, not {len(data)}")
        return with_crc(head + bytes(data))
    if not layout.min_len <= len(data) <= 0xFF:
        raise ValueError(f"long poll 0x{command:02X} data of {len(data)} bytes is out of range")
    return with_crc(head + bytes((len(data),)) + bytes(data))


def to_wire(message: bytes) -> bytes:
    """``message`` as the PARMRK stream the EGM reads (wakeup on the first byte)."""
    return encode_message(message)


def rom_signature_request(address: int, seed: int) -> bytes:
    """0x21 ROM signature verification with a 2-byte seed (low byte first: see layouts.py)."""
    if not 0 <= seed <= 0xFFFF:
        raise ValueError(f"seed {seed!r} is not 16-bit")
    return long_poll(address, 0x21, seed.to_bytes(2, "little"))


def selected_meters_request(address: int, game: int, codes: Sequence[int]) -> bytes:
    """0x2F selected meters for game N: game number 2-byte BCD, then the meter codes.

    Source: nCompass ``LongPoll2FMessage.cpp`` ``Fill``.
    """
    if any(not 0 <= c <= 0xFF for c in codes):
        raise ValueError(f"meter codes {list(codes)!r} are not all bytes")
    return long_poll(address, 0x2F, bcd.encode(game, 2) + bytes(codes))


# --- replies ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExceptionReply:
    """The exception byte answering a general poll (``exception_codes``)."""

    code: int


@dataclass(frozen=True, slots=True)
class Ack:
    """ACK: the address byte alone."""

    address: int


@dataclass(frozen=True, slots=True)
class Nack:
    """NACK: ``0x80 | address``."""

    address: int


@dataclass(frozen=True, slots=True)
class Busy:
    """Busy: ``address 00``."""

    address: int


@dataclass(frozen=True, slots=True)
class DataReply:
    """A data reply with a good CRC.

    Attributes:
        data: the bytes between the command (or, for length-byte replies, the length
            byte) and the CRC.
        raw: the whole reply.
    """

    address: int
    command: int
    data: bytes
    raw: bytes


@dataclass(frozen=True, slots=True)
class EventReply:
    """A real-time event (``address FF code data CRC``) with a good CRC; code 00: none."""

    address: int
    code: int
    data: bytes
    raw: bytes


@dataclass(frozen=True, slots=True)
class BadReply:
    """Bytes that are not the expected reply: reason ``address``, ``command``, ``crc``,
    ``stray`` (nothing expected) or ``timeout`` (incomplete when the caller timed out)."""

    reason: str
    raw: bytes


Reply = ExceptionReply | Ack | Nack | Busy | DataReply | EventReply | BadReply


class HostCodec:
    """Host-side reply framer: one outstanding poll at a time, sans-I/O."""

    def __init__(self, layouts: dict[int, Layout] | None = None) -> None:
        self._layouts = LAYOUTS if layouts is None else layouts
        self._expect: bytes | None = None
        self._buf = bytearray()
        #: the EGM reports real-time events (the host sent 0x0E 01 and it was ACKed)
        self.real_time_events = False

    @property
    def waiting(self) -> bool:
        """True while a poll awaits its reply."""
        return self._expect is not None

    def send(self, message: bytes) -> bytes:
        """Expect the reply to ``message`` (a built poll); return its wire bytes.

        A broadcast (address 0) expects no reply.

        Raises:
            ValueError: empty message, or a long poll whose reply shape is unknown.
        """
        if not message:
            raise ValueError("empty SAS message")
        self._buf.clear()
        self._expect = None
        if not message[0] & 0x80:
            if len(message) < 2:
                raise ValueError("a long poll has an address and a command byte")
            layout = self._layouts.get(message[1])
            if layout is None or layout.reply is None:
                raise ValueError(f"reply layout of long poll 0x{message[1]:02X} is not known")
        if message[0] & 0x7F:
            self._expect = bytes(message)
        return to_wire(message)

    def timeout(self) -> list[Reply]:
        """The EGM did not finish in time: drop what came (``BadReply("timeout")``)."""
        out: list[Reply] = []
        expect = self._expect
        if expect is not None and self._acked_alone(expect):
            out.append(Ack(expect[0]))
        elif expect is not None:
            out.append(BadReply("timeout", bytes(self._buf)))
        self._expect = None
        self._buf.clear()
        return out

    def feed(self, data: bytes) -> list[Reply]:
        """Add received bytes; return the replies (and bad bytes) they complete.

        Bytes that arrive when no reply is expected come back as ``BadReply("stray")``,
        one per run within this call.
        """
        out: list[Reply] = []
        for byte in data:
            if self._expect is None:
                if out and isinstance(out[-1], BadReply) and out[-1].reason == "stray":
                    out[-1] = BadReply("stray", out[-1].raw + bytes((byte,)))
                else:
                    out.append(BadReply("stray", bytes((byte,))))
                continue
            self._buf.append(byte)
            reply = self._step()
            if reply is not None:
                out.append(reply)
                self._expect = None
                self._buf.clear()
        return out

    def _acked_alone(self, expect: bytes) -> bool:
        """With events on, an ACK-shaped poll answered by its address byte alone."""
        return (
            self.real_time_events
            and not expect[0] & 0x80
            and bytes(self._buf) == expect[:1]
            and self._layouts[expect[1]].reply == ACK
        )

    def _event(self, address: int) -> Reply | None:
        buf = self._buf
        if len(buf) < 3:
            return None
        need = 3 + EVENT_DATA_LEN.get(buf[2], 0) + 2
        if len(buf) < need:
            return None
        raw = bytes(buf)
        if not crc_ok(raw):
            return BadReply("crc", raw)
        return EventReply(address, raw[2], raw[3:-2], raw)

    def _step(self) -> Reply | None:
        expect, buf = self._expect, self._buf
        assert expect is not None
        address = expect[0] & 0x7F
        if expect[0] & 0x80:
            if self.real_time_events and buf[0] == address:
                return (
                    self._event(address)
                    if len(buf) < 2 or buf[1] == EVENT_RESPONSE
                    else BadReply("command", bytes(buf))
                )
            return ExceptionReply(buf[0])
        command = expect[1]
        layout = self._layouts[command]
        if len(buf) == 1:
            if buf[0] == address | 0x80:
                return Nack(address)
            if buf[0] != address:
                return BadReply("address", bytes(buf))
            if layout.reply == ACK and not self.real_time_events:
                return Ack(address)
            return None
        if len(buf) >= 2 and buf[1] == EVENT_RESPONSE and self.real_time_events:
            return self._event(address)
        if len(buf) == 2:
            if buf[1] == 0x00:
                return Busy(address)
            if buf[1] != command:
                return BadReply("command", bytes(buf))
        if layout.reply == LENGTH:
            if len(buf) < 3:
                return None
            need = 3 + buf[2] + 2
            start = 3
        else:
            assert isinstance(layout.reply, int)
            need = 2 + layout.reply + 2
            start = 2
        if len(buf) < need:
            return None
        raw = bytes(buf)
        if not crc_ok(raw):
            return BadReply("crc", raw)
        return DataReply(address, command, raw[start:-2], raw)


# --- reply data parsers -------------------------------------------------------------


def _need(data: bytes, length: int, what: str) -> None:
    if len(data) != length:
        raise ProtocolError(f"{what} data is {length} bytes, got {len(data)}")


def parse_meter(data: bytes) -> int:
    """One 4-byte BCD meter (0x10-0x17, 0x1A). Raises ProtocolError on length or BCD."""
    _need(data, 4, "meter")
    return bcd.decode(data)


def parse_meters(data: bytes, count: int) -> list[int]:
    """``count`` 4-byte BCD meters (0x0F: 6, 0x19: 5, 0x1C: 8, 0x1E: 6). Raises ProtocolError."""
    _need(data, 4 * count, f"{count}-meter")
    return [bcd.decode(data[i : i + 4]) for i in range(0, 4 * count, 4)]


def parse_meters_1c(data: bytes) -> Meters1C:
    """0x1C's eight meters. Raises ProtocolError."""
    return Meters1C(*parse_meters(data, 8))


def parse_games_since_power_up(data: bytes) -> tuple[int, int]:
    """0x18: (games since power up, games since slot door closure). Raises ProtocolError."""
    _need(data, 4, "0x18")
    return bcd.decode(data[:2]), bcd.decode(data[2:])


def parse_two_digit_count(data: bytes) -> int:
    """0x51 / 0x55: a 2-byte BCD count. Raises ProtocolError."""
    _need(data, 2, "count")
    return bcd.decode(data)


def _text(data: bytes, what: str) -> str:
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        raise ProtocolError(f"{what} {data!r} is not ASCII") from None


def parse_machine_info(data: bytes) -> MachineInfo:
    """0x1F's 20 data bytes (layout in ``MachineInfo``). Raises ProtocolError."""
    _need(data, MACHINE_INFO_LEN, "0x1F")
    return MachineInfo(
        game_id=_text(data[0:2], "game ID"),
        additional_id=_text(data[2:5], "additional ID"),
        denomination=data[5],
        max_bet=data[6],
        progressive_group=data[7],
        game_options=bytes(data[8:10]),
        paytable_id=_text(data[10:16], "paytable ID"),
        base_percent=_text(data[16:20], "base percentage"),
    )


def parse_rom_signature(data: bytes) -> int:
    """0x21's 2-byte signature (low byte first: see layouts.py). Raises ProtocolError."""
    _need(data, 2, "0x21")
    return int.from_bytes(data, "little")


def parse_sas_version(data: bytes) -> tuple[str, str]:
    """0x54 data after the length byte: (version, serial number). Raises ProtocolError."""
    if len(data) < 3:
        raise ProtocolError(f"0x54 data of {len(data)} bytes has no 3-character version")
    return _text(data[:3], "SAS version"), _text(data[3:], "serial number")


def parse_selected_meters(data: bytes) -> tuple[int, list[tuple[int, int]]]:
    """0x2F data after the length byte: (game number, [(meter code, value), ...]).

    Raises:
        ProtocolError: truncated meter, bad BCD.
    """
    if len(data) < 2:
        raise ProtocolError("0x2F reply has no game number")
    game = bcd.decode(data[:2])
    meters: list[tuple[int, int]] = []
    i = 2
    while i < len(data):
        code = data[i]
        width = meter_width(code)
        value = data[i + 1 : i + 1 + width]
        if len(value) != width:
            raise ProtocolError(f"0x2F meter 0x{code:02X} is truncated")
        meters.append((code, bcd.decode(value)))
        i += 1 + width
    return game, meters

"""Sans-I/O codec for the JCM ID-003 bill-validator protocol.

Owns: frame layout (its CRC-16/Kermit is ``drivers.crc16``), command/status/fault codes and their texts, the
frame decoder (bytes in -> frames out, with resync), command encoders (-> bytes) and
parsers for status and currency-assignment data.  Used by both the host side
(``id003_host``, driven by ``id003_acceptor``) and the device simulator
(``sim.id003_device``).
Must not import: serial, gpiozero, threading, time, cabinet.*.

Reference: ``research/protocols.md`` section 1 (1.2 frame, 1.3 CRC, 1.4 commands,
1.5 status codes, 1.6 escrow codes).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from drivers.crc16 import crc16_kermit
from drivers.errors import ProtocolError

SYNC = 0xFC
MIN_FRAME_LEN = 5
MAX_FRAME_LEN = 255
BARCODE_ESCROW_CODE = 0x6F
#: Most DATA bytes one frame carries (LNG is one byte and counts SYNC, LNG, CMD and the CRC).
MAX_DATA_LEN = MAX_FRAME_LEN - MIN_FRAME_LEN
#: Longest ticket barcode: the host sets Interleaved 2 of 5 with 18 characters
#: (``set_barcode_function``), the length of the cabinet's validation numbers.
MAX_BARCODE_DIGITS = 18


class Command(enum.IntEnum):
    """Host -> validator command codes (protocols.md 1.4)."""

    STATUS_REQUEST = 0x11
    RESET = 0x40
    STACK_1 = 0x41
    STACK_2 = 0x42
    RETURN = 0x43
    HOLD = 0x44
    WAIT = 0x45
    ACK = 0x50
    SET_DENOMINATIONS = 0xC0
    SET_SECURITY = 0xC1
    SET_COMMUNICATION_MODE = 0xC2
    SET_INHIBIT = 0xC3
    SET_DIRECTION = 0xC4
    SET_OPTIONAL_FUNCTION = 0xC5
    SET_BARCODE_FUNCTION = 0xC6
    SET_BAR_INHIBIT = 0xC7
    VERSION_REQUEST = 0x88
    BOOT_VERSION_REQUEST = 0x89
    CURRENCY_ASSIGNMENT = 0x8A


SETTING_COMMANDS = frozenset(range(0xC0, 0xC8))
OPERATION_COMMANDS = frozenset(
    {Command.RESET, Command.STACK_1, Command.STACK_2, Command.RETURN, Command.HOLD, Command.WAIT}
)


class Status(enum.IntEnum):
    """Validator -> host status codes (protocols.md 1.5)."""

    IDLING = 0x11
    ACCEPTING = 0x12
    ESCROW = 0x13
    STACKING = 0x14
    VEND_VALID = 0x15
    STACKED = 0x16
    REJECTING = 0x17
    RETURNING = 0x18
    HOLDING = 0x19
    DISABLED = 0x1A
    INITIALIZE = 0x1B
    POWER_UP = 0x40
    POWER_UP_BILL_IN_ACCEPTOR = 0x41
    POWER_UP_BILL_IN_STACKER = 0x42
    STACKER_FULL = 0x43
    STACKER_OPEN = 0x44
    JAM_IN_ACCEPTOR = 0x45
    JAM_IN_STACKER = 0x46
    PAUSE = 0x47
    CHEATED = 0x48
    FAILURE = 0x49
    COMMUNICATION_ERROR = 0x4A
    INVALID_COMMAND = 0x4B
    ACK = 0x50


POWER_UP_STATUSES = frozenset({Status.POWER_UP, Status.POWER_UP_BILL_IN_ACCEPTOR, Status.POWER_UP_BILL_IN_STACKER})
ERROR_STATUSES = frozenset(
    {
        Status.STACKER_FULL,
        Status.STACKER_OPEN,
        Status.JAM_IN_ACCEPTOR,
        Status.JAM_IN_STACKER,
        Status.PAUSE,
        Status.CHEATED,
        Status.FAILURE,
    }
)

# Stable short names for DeviceFault.code.
FAULT_NAMES: dict[int, str] = {
    Status.STACKER_FULL: "stacker_full",
    Status.STACKER_OPEN: "stacker_open",
    Status.JAM_IN_ACCEPTOR: "jam_in_acceptor",
    Status.JAM_IN_STACKER: "jam_in_stacker",
    Status.PAUSE: "pause",
    Status.CHEATED: "cheated",
    Status.FAILURE: "failure",
    Status.COMMUNICATION_ERROR: "communication_error",
}

FAILURE_TEXTS: dict[int, str] = {
    0xA2: "stack motor",
    0xA5: "transport speed",
    0xA6: "transport motor",
    0xA7: "aligning motor",
    0xAB: "cash box not ready",
    0xAC: "optical sensor",
    0xAD: "magnetic sensor",
    0xAF: "head removed",
    0xB0: "boot ROM",
    0xB1: "external ROM",
    0xB2: "ROM",
    0xB3: "external ROM write",
}

REJECT_TEXTS: dict[int, str] = {
    0x71: "insertion",
    0x72: "magnetic pattern",
    0x73: "bill left in head",
    0x74: "data amplitude",
    0x75: "conveying",
    0x76: "denomination assessment",
    0x77: "photo pattern",
    0x78: "photo level",
    0x79: "inhibited",
    0x7B: "operation error",
    0x7C: "bill in transport at wrong time",
    0x7D: "length",
    0x7E: "colour pattern",
    0x98: "multiple items",
    0x9B: "ticket upside down",
}

# Fallback US table (protocols.md 1.6): escrow code -> value in minor units (cents).
USD_ESCROW_TABLE_MINOR: dict[int, int] = {
    0x61: 100,
    0x63: 500,
    0x64: 1000,
    0x65: 2000,
    0x66: 5000,
    0x67: 10000,
}


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded ID-003 frame: the CMD/status byte and its DATA bytes."""

    code: int
    data: bytes = b""

    def encode(self) -> bytes:
        """Return the wire bytes: SYNC, LNG, CMD, DATA, CRC low, CRC high."""
        return encode_frame(self.code, self.data)


def encode_frame(code: int, data: bytes = b"") -> bytes:
    """Build a frame (protocols.md 1.2).

    Args:
        code: command or status byte, 0..255.
        data: payload, at most ``MAX_DATA_LEN`` (250) bytes.

    Raises:
        ValueError: payload too long or code out of range.
    """
    if not 0 <= code <= 0xFF:
        raise ValueError(f"code {code!r} is not a byte")
    length = MIN_FRAME_LEN + len(data)
    if length > MAX_FRAME_LEN:
        raise ValueError(f"payload of {len(data)} bytes is too long")
    body = bytes((SYNC, length, code)) + bytes(data)
    crc = crc16_kermit(body)
    return body + bytes((crc & 0xFF, crc >> 8))


class FrameDecoder:
    """Incremental frame parser: feed any chunks of bytes, get whole valid frames.

    Hunts SYNC (0xFC), reads LNG, waits for the rest, checks the CRC; on a bad CRC or
    impossible LNG it drops one byte and resyncs (protocols.md 1.2).  Never raises.

    Attributes:
        crc_errors: frames dropped for a bad CRC.
        discarded_bytes: bytes skipped while hunting for SYNC (incl. stray 0x00).
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.crc_errors = 0
        self.discarded_bytes = 0

    def feed(self, data: bytes) -> list[Frame]:
        """Add received bytes; return the frames completed by them, oldest first."""
        self._buffer += data
        frames: list[Frame] = []
        buf = self._buffer
        while buf:
            if buf[0] != SYNC:
                start = buf.find(SYNC)
                skip = len(buf) if start < 0 else start
                del buf[:skip]
                self.discarded_bytes += skip
                continue
            if len(buf) < 2:
                break
            length = buf[1]
            if length < MIN_FRAME_LEN:
                del buf[:1]
                self.discarded_bytes += 1
                continue
            if len(buf) < length:
                break
            candidate = bytes(buf[:length])
            if crc16_kermit(candidate) != 0:
                self.crc_errors += 1
                del buf[:1]
                self.discarded_bytes += 1
                continue
            del buf[:length]
            frames.append(Frame(candidate[2], candidate[3:-2]))
        return frames

    def clear(self) -> None:
        """Forget any partial frame (call after a port reopen or a command timeout)."""
        self._buffer.clear()

    @property
    def pending(self) -> int:
        """Bytes buffered but not yet part of a complete frame."""
        return len(self._buffer)


# --- commands ----------------------------------------------------------------------


def status_request() -> bytes:
    """STATUS REQUEST (0x11): ``FC 05 11 27 56``."""
    return encode_frame(Command.STATUS_REQUEST)


def reset() -> bytes:
    """RESET (0x40): ``FC 05 40 2B 15``."""
    return encode_frame(Command.RESET)


def ack() -> bytes:
    """ACK (0x50), host after VEND VALID: ``FC 05 50 AA 05``."""
    return encode_frame(Command.ACK)


def stack_1() -> bytes:
    """STACK-1 (0x41)."""
    return encode_frame(Command.STACK_1)


def stack_2() -> bytes:
    """STACK-2 (0x42): VEND VALID only once the bill is fully in the stacker."""
    return encode_frame(Command.STACK_2)


def return_bill() -> bytes:
    """RETURN (0x43)."""
    return encode_frame(Command.RETURN)


def hold(hold_byte: int | None = None) -> bytes:
    """HOLD (0x44), optionally with one firmware-dependent data byte."""
    return encode_frame(Command.HOLD, b"" if hold_byte is None else bytes((hold_byte,)))


def set_inhibit(inhibited: bool) -> bytes:
    """SET INHIBIT (0xC3): ``True`` refuses all bills, ``False`` accepts."""
    return encode_frame(Command.SET_INHIBIT, bytes((1 if inhibited else 0,)))


def set_denominations(inhibit_mask: int) -> bytes:
    """SET ENABLE/DISABLE DENOMINATIONS (0xC0).

    Args:
        inhibit_mask: 16-bit mask, bit set = denomination refused; bit0 = escrow 0x61.
    """
    return encode_frame(Command.SET_DENOMINATIONS, inhibit_mask.to_bytes(2, "little"))


def set_security(mask: int = 0) -> bytes:
    """SET SECURITY (0xC1), 16-bit mask."""
    return encode_frame(Command.SET_SECURITY, mask.to_bytes(2, "little"))


def set_communication_mode_polling() -> bytes:
    """SET COMMUNICATION MODE (0xC2) to polling (0x00)."""
    return encode_frame(Command.SET_COMMUNICATION_MODE, b"\x00")


def set_direction(forbidden_mask: int = 0) -> bytes:
    """SET DIRECTION (0xC4): bitmask of forbidden insertion directions."""
    return encode_frame(Command.SET_DIRECTION, bytes((forbidden_mask,)))


def set_optional_function(mask: int = 0) -> bytes:
    """SET OPTIONAL FUNCTION (0xC5); keep power recovery (0x02) off (protocols.md 1.9)."""
    return encode_frame(Command.SET_OPTIONAL_FUNCTION, mask.to_bytes(2, "little"))


def set_barcode_function(length: int = MAX_BARCODE_DIGITS) -> bytes:
    """SET BARCODE FUNCTION (0xC6): Interleaved 2 of 5, ``length`` characters."""
    return encode_frame(Command.SET_BARCODE_FUNCTION, bytes((0x01, length)))


def set_bar_inhibit(refuse_bills: bool, refuse_tickets: bool) -> bytes:
    """SET BAR INHIBIT (0xC7): bit0 refuses bills, bit1 refuses tickets."""
    return encode_frame(Command.SET_BAR_INHIBIT, bytes((int(refuse_bills) | 2 * int(refuse_tickets),)))


def currency_assignment_request() -> bytes:
    """CURRENCY ASSIGNMENT request (0x8A): ``FC 05 8A 7D 7C``."""
    return encode_frame(Command.CURRENCY_ASSIGNMENT)


# --- replies -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Denomination:
    """One record of the currency assignment table (protocols.md 1.4, 0x8A).

    Attributes:
        escrow_code: 0x61..0x68.
        country_code: firmware country byte.
        value_minor: face value in minor units (base * 10**exponent * minor_per_major).
    """

    escrow_code: int
    country_code: int
    value_minor: int


def parse_currency_assignment(data: bytes, *, minor_per_major: int = 100) -> list[Denomination]:
    """Parse the DATA of a 0x8A reply: 4 bytes per denomination.

    Records with value 0 (unassigned) are skipped.

    Raises:
        ProtocolError: length not a multiple of 4.
    """
    if len(data) % 4:
        raise ProtocolError(f"currency assignment data of {len(data)} bytes is not 4-byte records")
    out: list[Denomination] = []
    for i in range(0, len(data), 4):
        code, country, base, exponent = data[i : i + 4]
        value_major = base * 10**exponent
        if value_major:
            out.append(Denomination(code, country, value_major * minor_per_major))
    return out


def encode_currency_assignment(table: list[Denomination], *, minor_per_major: int = 100) -> bytes:
    """Inverse of ``parse_currency_assignment`` (used by the simulator).

    Raises:
        ValueError: a value that is not a whole number of major units below 256e9.
    """
    out = bytearray()
    for d in table:
        major, rest = divmod(d.value_minor, minor_per_major)
        if rest or major <= 0:
            raise ValueError(f"value {d.value_minor} is not a whole number of major units")
        exponent = 0
        while major > 255:
            if major % 10:
                raise ValueError(f"value {major} cannot be base*10^exp with base < 256")
            major //= 10
            exponent += 1
        out += bytes((d.escrow_code, d.country_code, major, exponent))
    return bytes(out)


def parse_barcode(data: bytes) -> str:
    """Return the ticket digits from ESCROW data ``6F <ASCII digits>``.

    Raises:
        ProtocolError: not a barcode escrow or not ASCII digits.
    """
    if not data or data[0] != BARCODE_ESCROW_CODE:
        raise ProtocolError("not a barcode escrow")
    digits = data[1:]
    if not digits or not digits.isdigit():
        raise ProtocolError(f"barcode data {digits!r} is not ASCII digits")
    return digits.decode("ascii")


#: reply codes that answer a command other than STATUS REQUEST (protocols.md 1.4)
_NOT_A_STATUS = frozenset({Status.ACK, *SETTING_COMMANDS, *range(0x80, 0x8B)})
_ANY_COMMAND_MAY_GET = frozenset({Status.COMMUNICATION_ERROR, Status.INVALID_COMMAND})


def reply_may_answer(command: bytes, reply: Frame) -> bool:
    """Whether ``reply`` can be the validator's answer to ``command`` (a whole frame as
    sent), per protocols.md 1.4/1.5/1.9: STATUS REQUEST gets a status (never ACK, an
    echo or an inquiry's answer), an operation command ACK, a setting its exact echo,
    an inquiry (0x80-0x8A) its own code; any command may get COMMUNICATION ERROR or
    INVALID COMMAND.  ID-003 is strictly request and reply, so a frame that cannot
    answer the command just sent is a late reply to an earlier one."""
    code = command[2] if len(command) > 2 else -1
    if reply.code in _ANY_COMMAND_MAY_GET:
        return True
    if code == Command.STATUS_REQUEST:
        return reply.code not in _NOT_A_STATUS
    if code in OPERATION_COMMANDS:
        return reply.code == Status.ACK
    if code in SETTING_COMMANDS:
        return reply.encode() == command
    if 0x80 <= code <= 0x8A:
        return reply.code == code
    return True


def describe_status(frame: Frame) -> str:
    """Readable one-line description of a status frame, for logs and fault texts."""
    try:
        name = Status(frame.code).name
    except ValueError:
        name = f"UNKNOWN_0x{frame.code:02X}"
    if frame.code == Status.FAILURE and frame.data:
        return f"{name} ({FAILURE_TEXTS.get(frame.data[0], f'0x{frame.data[0]:02X}')})"
    if frame.code == Status.REJECTING and frame.data:
        return f"{name} ({REJECT_TEXTS.get(frame.data[0], f'0x{frame.data[0]:02X}')})"
    if frame.data:
        return f"{name} {frame.data.hex(' ')}"
    return name

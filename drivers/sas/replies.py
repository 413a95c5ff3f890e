"""EGM-side reply builders: one function per implemented long poll, bytes out.

Owns: the wire layout of each reply the cabinet sends (address, command, data, CRC
low byte first), plus ACK, NACK, busy and the general poll's exception byte.
Must not import: serial, time, cabinet.*.

Every builder raises ``ValueError`` on an address outside 1..127 (address 0 is
broadcast and never answered, research/sas.md) or a value that does not fit its
field.  Sources are named per builder; the table in ``layouts.py`` links them to their
long poll.
"""

from __future__ import annotations

from collections.abc import Sequence

from drivers.sas import bcd
from drivers.sas.crc import with_crc
from drivers.sas.messages import MACHINE_INFO_LEN, MachineInfo, Meters1C, meter_width

#: Most characters of a 0x54 serial number (nCompass ``LongPoll54Message.cpp``
#: ``MAXSERIALSIZE = 41`` including the trailing NUL).
MAX_SERIAL_LEN = 40
SAS_VERSION = "602"


def check_address(address: int) -> int:
    """Return ``address`` if it is one an EGM may answer from (1..127).

    Raises:
        ValueError: 0 (broadcast, never answered) or outside 0..127.
    """
    if not 1 <= address <= 127:
        raise ValueError(f"SAS address {address!r} cannot reply (1..127; 0 is broadcast)")
    return address


def general_poll_reply(code: int) -> bytes:
    """The one exception byte answering a general poll (00 = none pending).

    Source: research/sas.md "Message kinds".

    Raises:
        ValueError: ``code`` is not a byte.
    """
    if not 0 <= code <= 0xFF:
        raise ValueError(f"exception code {code!r} is not a byte")
    return bytes((code,))


def ack(address: int) -> bytes:
    """ACK of a type S long poll: the address byte alone.

    Source: nCompass ``LongPoll01Message.h`` (``LP01RECVSIZE 1``, the reply to 0x01).
    """
    return bytes((check_address(address),))


#: What a reply builder returns for a poll it deliberately does not answer (a poll the
#: layout says to ignore, e.g. 0x2D for a game other than 0000): the link sends nothing.
#: ``None`` from a builder means the view cannot fill the reply, which is NACKed.
NO_REPLY = b""


def nack(address: int) -> bytes:
    """NACK: the address with bit 7 set.

    Source: nCompass ``SASPollMessage.cpp`` ``IsNACK`` (``m_gameAddress | GAME_ADDRESS_NACK_OR_VALUE``).
    """
    return bytes((check_address(address) | 0x80,))


def busy(address: int) -> bytes:
    """Busy: ``address 00`` (research/sas.md "Timing")."""
    return bytes((check_address(address), 0x00))


def long_reply(address: int, command: int, data: bytes = b"") -> bytes:
    """A data reply: address, command, data, CRC-16/Kermit low byte first (research/sas.md).

    Raises:
        ValueError: bad address or ``command`` not a byte.
    """
    if not 0 <= command <= 0xFF:
        raise ValueError(f"long poll command {command!r} is not a byte")
    return with_crc(bytes((check_address(address), command)) + bytes(data))


def length_reply(address: int, command: int, data: bytes) -> bytes:
    """A variable-length reply: address, command, length of ``data``, data, CRC.

    The length byte counts the bytes after it, not the CRC (nCompass
    ``LongPoll2FMessage.cpp`` / ``LongPoll54Message.cpp``, "length does NOT include CRC bytes").

    Raises:
        ValueError: ``data`` longer than 255 bytes, bad address or command.
    """
    if len(data) > 0xFF:
        raise ValueError(f"reply data of {len(data)} bytes does not fit a length byte")
    return long_reply(address, command, bytes((len(data),)) + bytes(data))


def meter_reply(address: int, command: int, value: int) -> bytes:
    """Single 4-byte BCD meter reply (0x10-0x17, 0x1A).

    Source: nCompass ``LongPoll10Message.cpp`` / ``LongPoll1AMessage.cpp`` (8-byte
    response, ``Bcd2Int64(response + 2, 4)``); saspy ``sas.py`` 0x11-0x17 (``data[1:5]``).

    Raises:
        ValueError: ``value`` negative or above 99,999,999.
    """
    return long_reply(address, command, bcd.encode(value, 4))


def current_credits(address: int, credits: int) -> bytes:
    """0x1A current credits: 4-byte BCD, in credits of the accounting denomination."""
    return meter_reply(address, 0x1A, credits)


def meters_block(address: int, command: int, values: Sequence[int]) -> bytes:
    """Several 4-byte BCD meters in one reply (0x0F, 0x19, 0x1C, 0x1E)."""
    return long_reply(address, command, b"".join(bcd.encode(v, 4) for v in values))


def meters_1c(address: int, meters: Meters1C) -> bytes:
    """0x1C: eight 4-byte BCD meters (``Meters1C`` order; nCompass ``LongPoll1CMessage.cpp``)."""
    return meters_block(address, 0x1C, meters.values())


def games_since_power_up(address: int, since_power_up: int, since_door_closed: int) -> bytes:
    """0x18: games since last power up and since last slot door closure, 2-byte BCD each.

    Source: saspy ``sas.py`` ``games_powerup_door_opened`` (two 2-byte fields; 4 data
    bytes, the same length as a single 4-byte meter).
    """
    return long_reply(address, 0x18, bcd.encode(since_power_up, 2) + bcd.encode(since_door_closed, 2))


def _ascii(value: str, width: int, field: str) -> bytes:
    raw = value.encode("ascii", errors="strict") if value.isascii() else b""
    if len(raw) != width or len(value) != width:
        raise ValueError(f"{field} {value!r} must be exactly {width} ASCII characters")
    return raw


def _byte(value: int, field: str) -> bytes:
    if not 0 <= value <= 0xFF:
        raise ValueError(f"{field} {value!r} is not a byte")
    return bytes((value,))


def machine_info_data(info: MachineInfo) -> bytes:
    """The 20 data bytes of a 0x1F reply (layout in ``MachineInfo``).

    Raises:
        ValueError: a field of the wrong width or range.
    """
    if len(info.game_options) != 2:
        raise ValueError(f"game_options {info.game_options!r} must be 2 bytes")
    data = (
        _ascii(info.game_id, 2, "game_id")
        + _ascii(info.additional_id, 3, "additional_id")
        + _byte(info.denomination, "denomination")
        + _byte(info.max_bet, "max_bet")
        + _byte(info.progressive_group, "progressive_group")
        + bytes(info.game_options)
        + _ascii(info.paytable_id, 6, "paytable_id")
        + _ascii(info.base_percent, 4, "base_percent")
    )
    assert len(data) == MACHINE_INFO_LEN
    return data


def machine_info(address: int, info: MachineInfo) -> bytes:
    """0x1F gaming machine ID and information (nCompass ``LongPoll1FMessage.cpp``, 24 bytes)."""
    return long_reply(address, 0x1F, machine_info_data(info))


def rom_signature_reply(address: int, signature: int) -> bytes:
    """0x21 ROM signature: the 2-byte seeded CRC, low byte first.

    Source: research/sas.md ("a seeded CRC-16 over the program"); saspy
    ``ROM_signature_verification`` reads 2 data bytes.  Byte order: not stated by our
    sources; low byte first like every other SAS CRC (an assumption, see layouts.py).

    Raises:
        ValueError: ``signature`` not 16-bit.
    """
    if not 0 <= signature <= 0xFFFF:
        raise ValueError(f"ROM signature {signature!r} is not 16-bit")
    return long_reply(address, 0x21, signature.to_bytes(2, "little"))


def sas_version(address: int, serial: str, version: str = SAS_VERSION) -> bytes:
    """0x54: length byte, SAS version (3 ASCII, "602"), serial number (0-40 ASCII).

    Source: nCompass ``LongPoll54Message.cpp`` (version at offset 3, size 3; serial
    length = length byte - 3; at most 40).

    Raises:
        ValueError: version not 3 ASCII characters, serial not ASCII or too long.
    """
    if len(serial) > MAX_SERIAL_LEN:
        raise ValueError(f"serial number of {len(serial)} characters exceeds {MAX_SERIAL_LEN}")
    body = _ascii(version, 3, "version") + (_ascii(serial, len(serial), "serial") if serial else b"")
    return length_reply(address, 0x54, body)


def two_digit_count(address: int, command: int, value: int) -> bytes:
    """A 2-byte BCD count: 0x51 number of games implemented, 0x55 selected game number.

    Source: nCompass ``LongPoll51Message.cpp`` / ``LongPoll55Message.cpp`` (6-byte
    response, ``Bcd2Dword(response + 2, 2)``).
    """
    return long_reply(address, command, bcd.encode(value, 2))


def selected_meters(address: int, game: int, meters: Sequence[tuple[int, int]]) -> bytes:
    """0x2F selected meters for game N: length, game number (2-byte BCD), then per meter
    its code and its BCD value (``meter_width(code)`` bytes).

    Source: nCompass ``LongPoll2FMessage.cpp`` (``ResponseReceived``/``MeterReceived``).

    Args:
        game: game number 0..9999 (0 = the whole machine).
        meters: (code, value) pairs in the order the host asked for them.

    Raises:
        ValueError: a code not a byte, a value too large for its width, too long a reply.
    """
    body = bytearray(bcd.encode(game, 2))
    for code, value in meters:
        body += _byte(code, "meter code") + bcd.encode(value, meter_width(code))
    return length_reply(address, 0x2F, bytes(body))


# --- builders added for the EGM responder (drivers/sas/egm.py) ---------------------------

#: 0x1B data bytes: progressive group 1, level 1, amount 5 BCD, partial pay 2 BCD, reset
#: ID 1, session game win 5 BCD, session game pay 5 BCD (see ``handpay_information``).
HANDPAY_INFO_LEN = 20


def handpay_information(
    address: int,
    progressive_group: int = 0,
    level: int = 0,
    amount: int = 0,
    partial_pay: int = 0,
    reset_id: int = 0,
    session_win: int = 0,
    session_pay: int = 0,
) -> bytes:
    """0x1B handpay information: 24 bytes in all.

    Source: nCompass ``LongPoll1BMessage.cpp`` (response 24; ``ResponseReceived`` reads
    progressive group 1 byte, level 1 byte, amount ``Bcd2Int64(response, 5)``, partial
    amount paid 2 BCD, reset ID 1 byte: 0 standard reset, 1 credit meter reset
    available).  No handpay pending: every field 0 (nCompass ``isEmpty``).  The last 10
    bytes are the session game win amount and session game pay amount, 5 BCD each
    (Aristocrat ``Sas.Client/LPParsers/LP1BSendHandpayInfoParser.cs`` writes them; its
    ``Monaco.Sas/HandpayTransactionExtensions.cs`` fills both with the handpay's amount).

    Raises:
        ValueError: a field out of range (amount above 10 digits...).
    """
    data = (
        _byte(progressive_group, "progressive group")
        + _byte(level, "level")
        + bcd.encode(amount, 5)
        + bcd.encode(partial_pay, 2)
        + _byte(reset_id, "reset ID")
        + bcd.encode(session_win, 5)
        + bcd.encode(session_pay, 5)
    )
    assert len(data) == HANDPAY_INFO_LEN
    return long_reply(address, 0x1B, data)


def game_configuration(address: int, game: int, info: MachineInfo) -> bytes:
    """0x53 game N configuration: game number (2-byte BCD), then 0x1F's 20 bytes; 26 in all.

    Source: nCompass ``LongPoll53Message.cpp`` (X53_RESPONSESIZE 26; game ID at
    response[4], additional ID [6], denomination [9], max bet [10], progressive group
    [11], game options [12], paytable [14], base percent [20]).
    """
    return long_reply(address, 0x53, bcd.encode(game, 2) + machine_info_data(info))


#: 0x94 reply codes (nCompass ``LongPoll94Message.h`` ``ACKCodeType``).
HANDPAY_RESET_OK = 0
HANDPAY_RESET_UNABLE = 1
HANDPAY_RESET_NOT_IN_HANDPAY = 2


def remote_handpay_reset(address: int, code: int) -> bytes:
    """0x94 remote handpay reset reply: one status byte (nCompass ``LongPoll94Message.cpp``,
    response 5: address, 94, code, CRC; Aristocrat ``Sas.Client``
    ``LP94RemoteHandPayResetParser``: 0 reset, 1 unable to reset, 2 not in a handpay)."""
    return long_reply(address, 0x94, _byte(code, "0x94 code"))


def date_time(address: int, year: int, month: int, day: int, hour: int, minute: int, second: int) -> bytes:
    """0x7E current date and time: MMDDYYYY (4 BCD), HHMMSS (3 BCD); 11 bytes in all.

    Source: saspy (zacharytomlinson) ``sas.py`` ``current_date_time`` (``size=11``,
    ``data[1:8]`` parsed as ``%m%d%Y%H%M%S``); Aristocrat ``Sas.Client``
    ``LP7ESendDateTimeParser`` (EGM side: "Date 4 BCD ... MMDDYYYY, Time 3 BCD ...
    HHMMSS 24 hour"); the same fields nCompass ``LongPoll7FMessage.cpp`` sends.

    Raises:
        ValueError: a field out of its range.
    """
    for value, low, high, what in (
        (year, 0, 9999, "year"),
        (month, 1, 12, "month"),
        (day, 1, 31, "day"),
        (hour, 0, 23, "hour"),
        (minute, 0, 59, "minute"),
        (second, 0, 59, "second"),
    ):
        if not low <= value <= high:
            raise ValueError(f"{what} {value!r} is outside {low}..{high}")
    return long_reply(
        address,
        0x7E,
        bcd.encode(month * 1000000 + day * 10000 + year, 4) + bcd.encode(hour * 10000 + minute * 100 + second, 3),
    )

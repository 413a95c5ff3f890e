"""TITO long polls on the wire, both directions: EGM reply builders, EGM-side request
parsers, host-side request builders and host-side reply parsers.

Owns the byte layouts of 0x50, 0x57, 0x58, 0x70, 0x71, 0x7B, 0x7C, 0x7D and 0xA8 (the
framing of each, R/S/M and the reply shape, is in ``layouts.LAYOUTS``; the code
tables in ``tito_codes``).  Pure: no I/O, no clock.
Must not import: serial, time, threading, cabinet.*, drivers.sas.layouts (it imports us).

Conventions: amounts are credits of the accounting denomination in packed BCD, most
significant byte first (``bcd``); a validation number on the wire is 9 BCD bytes, 18
digits: a 2-digit validation system ID then 16 digits (saspy
``ticket_validation_data``, quoting the spec: "9 BCD ... 18 digit decimal validation
number.  The first two digits are a 2 digit system ID code"); 0x58 carries the system
ID as its own byte and the 16 digits as 8 BCD (saspy ``validation_number``).  Binary
multi-byte fields (0x7B asset number, control mask and status; 0x7D host ID) are low
byte first, as nCompass copies them from little-endian integers.  Every parser raises
``ProtocolError`` with the reason on bad data (wrong length, bad BCD, non-ASCII text).
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.errors import ProtocolError
from drivers.sas import bcd, tito_codes
from drivers.sas.replies import length_reply, long_reply

#: Validation data width on the wire (0x70, 0x71): 9 BCD bytes, 18 digits.
VALIDATION_DATA_LEN = 9
VALIDATION_DIGITS = 18
#: 0x7D / 0x7C text fields: at most 40 characters each (nCompass ``LongPoll7DMessage.cpp``:
#: ``MAXIMUM_LOCATION_LENGTH = 40; // SAS limit``).
MAX_TEXT = 40


def _digits(number: str, width: int, what: str) -> bytes:
    """``number`` (decimal digits, at most ``2*width``) as ``width`` BCD bytes, zero-padded left."""
    if not number.isdigit() or not number.isascii() or len(number) > 2 * width:
        raise ValueError(f"{what} {number!r} is not up to {2 * width} decimal digits")
    return bytes.fromhex(number.zfill(2 * width))


def _bcd_digits(data: bytes, what: str) -> str:
    text = bytes(data).hex()
    if not text.isdigit():
        raise ProtocolError(f"{what} {bytes(data).hex(' ')} is not BCD")
    return text


def _need(data: bytes, length: int, what: str) -> None:
    if len(data) != length:
        raise ProtocolError(f"{what} data is {length} bytes, got {len(data)}")


def _bcd(data: bytes, what: str) -> int:
    try:
        return bcd.decode(data)
    except ProtocolError:
        raise ProtocolError(f"{what} {bytes(data).hex(' ')} is not BCD") from None


# --- EGM replies ------------------------------------------------------------------------


def pending_cashout_reply(address: int, cashout_type: int, amount: int) -> bytes:
    """0x57 reply: cash-out type (1 byte), amount (5 BCD credits); 9 bytes in all.

    Source: saspy ``pending_cashout_info`` (type ``data[1:2]``, amount ``data[2:]``);
    the 5-byte width is UNVERIFIED (as the 0x70/0x71 amounts, nCompass).

    Raises:
        ValueError: type not a byte or amount above 10 digits.
    """
    if not 0 <= cashout_type <= 0xFF:
        raise ValueError(f"cash-out type {cashout_type!r} is not a byte")
    return long_reply(address, 0x57, bytes((cashout_type,)) + bcd.encode(amount, 5))


def validation_number_status(address: int, code: int) -> bytes:
    """0x58 reply: one status byte (``tito_codes.VN_*``); saspy ``rcv_validation_number``."""
    return long_reply(address, 0x58, bytes((code,)))


def _ticket_body(status: int, amount: int, validation_number: str, parsing_code: int) -> bytes:
    return (
        bytes((status,))
        + bcd.encode(amount, 5)
        + bytes((parsing_code,))
        + _digits(validation_number, VALIDATION_DATA_LEN, "validation number")
    )


def ticket_validation_data(
    address: int, status: int, amount: int = 0, validation_number: str = "", parsing_code: int = 0
) -> bytes:
    """0x70 reply: length, ticket status, amount (5 BCD), parsing code, validation data (9 BCD).

    Source: nCompass ``LongPoll70Message.cpp`` (length byte at 2; ``ResponseReceived``:
    status, ``Bcd2Dword(response, 5)``, parsing code, ``SetValidationNumber(response, 9)``).
    Amount in cents.  With no ticket (status ``NO_TICKET_IN_ESCROW``) the status byte
    alone, length 01 (Monaco ``LPParsers/LP70SendTicketValidationDataParser.cs``).

    Raises:
        ValueError: amount above 10 digits, a number of more than 18 digits.
    """
    if status == tito_codes.NO_TICKET_IN_ESCROW:
        return length_reply(address, 0x70, bytes((status,)))
    return length_reply(address, 0x70, _ticket_body(status, amount, validation_number or "0", parsing_code))


def redeem_status(
    address: int, status: int, amount: int = 0, validation_number: str = "", parsing_code: int = 0
) -> bytes:
    """0x71 reply: length, machine status, amount (5 BCD), parsing code, validation data (9 BCD).

    Source: nCompass ``LongPoll71Message.cpp`` ``ResponseReceived`` (status at 3, amount
    5 BCD, parsing code, 9 bytes of validation data when the parsing code is 0).  Amount
    in cents.  Status C0 (not compatible with the current redemption cycle) and FF (no
    validation information) go alone, length 01 (Monaco ``LPParsers/LP71RedeemTicketParser.cs``:
    "Per the SAS spec this does not sent when we respond with not compatible").

    Raises:
        ValueError: amount above 10 digits, a number of more than 18 digits.
    """
    if status in STATUS_ALONE:
        return length_reply(address, 0x71, bytes((status,)))
    return length_reply(address, 0x71, _ticket_body(status, amount, validation_number or "0", parsing_code))


#: 0x71 machine statuses sent without the other fields (see ``redeem_status``).
STATUS_ALONE = frozenset({tito_codes.STATUS_NOT_IN_CYCLE, tito_codes.STATUS_NO_INFO})


def validation_meters_reply(address: int, validation_type: int, count: int, amount: int) -> bytes:
    """0x50 reply: validation type, count (4 BCD), amount (5 BCD credits); 14 bytes in all.

    Source: nCompass ``LongPoll50Message.cpp`` (``Bcd2Dword(&response[3], 4)``,
    ``Bcd2Dword(&response[7], 5)``, X50_RESPONSE_SIZE 14).
    """
    return long_reply(address, 0x50, bytes((validation_type,)) + bcd.encode(count, 4) + bcd.encode(amount, 5))


def extended_validation_status_reply(
    address: int, asset_number: int, status_bits: int, cashable_days: int, restricted_days: int
) -> bytes:
    """0x7B reply: length (10), asset number (4 binary), status bits (2 binary), cashable
    and restricted expiration (2 BCD days each); 15 bytes in all.

    Source: nCompass ``LongPoll7BMessage.cpp`` ``ResponseReceived`` and X7B_RESPONSE_SIZE 15.

    Raises:
        ValueError: a field out of range.
    """
    return length_reply(
        address,
        0x7B,
        asset_number.to_bytes(4, "little")
        + status_bits.to_bytes(2, "little")
        + bcd.encode(cashable_days, 2)
        + bcd.encode(restricted_days, 2),
    )


#: 0x7C / 0x7D reply flag (Monaco ``LPParsers/LP7DSetTicketDataParser.cs``: "00=Flag
#: currently false, 01=Flag currently true"; ``Handlers/SetTicketDataHandler.cs`` answers
#: 01 once valid data is set, 00 for invalid data or nothing to set).
TICKET_DATA_SET = 0x01
TICKET_DATA_NOT_SET = 0x00


def ticket_data_reply(address: int, command: int, flag: int = TICKET_DATA_SET) -> bytes:
    """0x7D (and 0x7C) reply: one flag byte after the command (``TICKET_DATA_*``); 5 bytes
    in all (nCompass ``LongPoll7DMessage.cpp`` X7D_RESPONSE_SIZE 5)."""
    return long_reply(address, command, bytes((flag,)))


def reset_method_reply(address: int, code: int) -> bytes:
    """0xA8 reply: one ACK code byte (nCompass ``LongPollA8Message.cpp``: response 5,
    ``m_ACKCode`` at 2).  Codes (UNVERIFIED): 0 enabled, 1 unable, 2 not in a handpay."""
    return long_reply(address, 0xA8, bytes((code,)))


# --- EGM-side request parsers -----------------------------------------------------------


def parse_validation_number(data: bytes) -> tuple[int, str]:
    """0x58 data: (validation system ID 0..99, 16-digit validation number as a string).

    Layout (Monaco ``LPParsers/LP58ReceiveValidationNumberParser.cs``): validation
    system ID 1 BCD, validation number 8 BCD.  A system ID of 0 is a denial: the number
    is then returned as "" whatever it holds.

    Raises:
        ProtocolError: not 9 bytes, the system ID or the number not BCD.
    """
    _need(data, 9, "0x58")
    system_id = _bcd(data[0:1], "0x58 validation system ID")
    if system_id == tito_codes.VALIDATION_DENIED:
        return system_id, ""
    return system_id, _bcd_digits(data[1:], "0x58 validation number")


@dataclass(frozen=True, slots=True)
class Redeem:
    """A parsed 0x71 request (``status_query`` True for ``71 01 FF``); amount in cents."""

    transfer_code: int
    amount: int = 0
    parsing_code: int = 0
    validation_number: str = ""
    restricted_expiration: int = 0
    pool_id: int = 0
    target_id: str = ""

    @property
    def status_query(self) -> bool:
        """True for the 0xFF "current ticket status" request."""
        return self.transfer_code == tito_codes.TC_STATUS_QUERY


#: 0x71 request data: transfer code 1, amount 5 BCD cents, parsing code 1, validation
#: data 9 BCD (16 bytes), then restricted expiration 4 BCD and pool ID 2 binary (22),
#: then a target ID length and that many ASCII bytes (Monaco
#: ``LPParsers/LP71RedeemTicketParser.cs``; nCompass ``LongPoll71Message.cpp`` sends 22).
REDEEM_MIN = 16
REDEEM_WITH_POOL = 22


def parse_redeem(data: bytes) -> Redeem:
    """0x71 data (after the length byte) -> ``Redeem``.

    Raises:
        ProtocolError: ``FF`` alone is the only 1-byte form; otherwise shorter than 16
            bytes, 17-21 bytes, a target ID longer than the data, bad BCD in the amount,
            validation data or expiration, a target ID not printable ASCII.
    """
    if len(data) == 1:
        if data[0] != tito_codes.TC_STATUS_QUERY:
            raise ProtocolError(f"0x71 of one byte must be the status query FF, got {data[0]:02X}")
        return Redeem(tito_codes.TC_STATUS_QUERY)
    if len(data) != REDEEM_MIN and len(data) < REDEEM_WITH_POOL:
        raise ProtocolError(f"0x71 data is {REDEEM_MIN} or at least {REDEEM_WITH_POOL} bytes, got {len(data)}")
    amount = _bcd(data[1:6], "0x71 amount")
    number = _bcd_digits(data[7:16], "0x71 validation data")
    if len(data) == REDEEM_MIN:
        return Redeem(data[0], amount, data[6], number)
    expiration = _bcd(data[16:20], "0x71 restricted expiration")
    pool = int.from_bytes(data[20:22], "little")
    target = ""
    if len(data) > REDEEM_WITH_POOL:
        n = data[22]
        if len(data) != REDEEM_WITH_POOL + 1 + n:
            raise ProtocolError(f"0x71 target ID of {n} bytes does not fill the {len(data) - 23} left")
        target = _text(data[23:], "0x71 target ID")
    return Redeem(data[0], amount, data[6], number, expiration, pool, target)


def parse_extended_validation_status(data: bytes) -> tuple[int, int, int, int]:
    """0x7B data: (control mask, status bits, cashable days, restricted days).

    Raises:
        ProtocolError: not 8 bytes or bad BCD.
    """
    _need(data, 8, "0x7B")
    return (
        int.from_bytes(data[0:2], "little"),
        int.from_bytes(data[2:4], "little"),
        _bcd(data[4:6], "0x7B cashable expiration"),
        _bcd(data[6:8], "0x7B restricted expiration"),
    )


def _text(raw: bytes, what: str) -> str:
    if len(raw) > MAX_TEXT:
        raise ProtocolError(f"{what} of {len(raw)} characters is longer than {MAX_TEXT}")
    if not all(0x20 <= b < 0x7F for b in raw):
        raise ProtocolError(f"{what} {raw!r} is not printable ASCII")
    return raw.decode("ascii")


@dataclass(frozen=True, slots=True)
class TicketDataRequest:
    """A parsed 0x7D request: each field None when the host left it out (keep the current one)."""

    host_id: int | None = None
    expiration_days: int | None = None
    location: str | None = None
    address1: str | None = None
    address2: str | None = None

    @property
    def sets_data(self) -> bool:
        """True when it sets the expiration or a text line (the reply's flag 01)."""
        return self.expiration_days is not None or any(
            t is not None for t in (self.location, self.address1, self.address2)
        )


def parse_ticket_data(data: bytes) -> TicketDataRequest:
    """0x7D data (after the length byte) -> ``TicketDataRequest``.

    Layout (Monaco ``LPParsers/LP7DSetTicketDataParser.cs``; nCompass
    ``LongPoll7DMessage.cpp`` ``Fill`` agrees): length 00 or 02-7E; host ID 2 bytes (low
    first), expiration 1 binary byte (days, 00 = never expires), then location, address
    1, address 2, each a length byte and that many ASCII characters (at most 40).  Every
    field after the host ID may be left off; a text length of 00 means "don't change
    from existing".

    Raises:
        ProtocolError: 1 byte, a truncated field, trailing bytes, over 40 characters,
            not printable ASCII.
    """
    if len(data) == 1:
        raise ProtocolError("0x7D data of 1 byte has half a host ID")
    host_id = int.from_bytes(data[0:2], "little") if len(data) >= 2 else None
    expiration = data[2] if len(data) >= 3 else None
    fields: list[str | None] = []
    i = 3
    for what in ("location", "address 1", "address 2"):
        if i >= len(data):
            fields.append(None)
            continue
        n = data[i]
        raw = data[i + 1 : i + 1 + n]
        if len(raw) != n:
            raise ProtocolError(f"0x7D {what} is truncated ({len(raw)} of {n} bytes)")
        fields.append(_text(raw, f"0x7D {what}") if n else None)
        i += 1 + n
    if i < len(data):
        raise ProtocolError(f"0x7D has {len(data) - i} bytes after address 2")
    return TicketDataRequest(host_id, expiration, fields[0], fields[1], fields[2])


#: 0x7C data element codes -> ``TicketData`` field (Monaco
#: ``LongPollDataClasses/SetTicketData.cs`` ``ExtendTicketDataCode``: location 00,
#: address 1 01, address 2 02, restricted ticket title 10, debit ticket title 20).
EXTENDED_TICKET_FIELDS = {
    0x00: "location",
    0x01: "address1",
    0x02: "address2",
    0x10: "restricted_title",
    0x20: "debit_title",
}


def parse_extended_ticket_data(data: bytes) -> dict[str, str]:
    """0x7C data: elements of (code, length, ASCII data) -> ``TicketData`` field -> text.

    Raises:
        ProtocolError: an unknown code, a truncated element, over 40 characters, not ASCII.
    """
    out: dict[str, str] = {}
    i = 0
    while i < len(data):
        if i + 2 > len(data):
            raise ProtocolError("0x7C element is truncated")
        code, n = data[i], data[i + 1]
        name = EXTENDED_TICKET_FIELDS.get(code)
        if name is None:
            raise ProtocolError(f"0x7C data element code {code:02X} is not known")
        raw = data[i + 2 : i + 2 + n]
        if len(raw) != n:
            raise ProtocolError(f"0x7C element {code:02X} is truncated")
        out[name] = _text(raw, f"0x7C element {code:02X}")
        i += 2 + n
    return out


# --- host side: request builders and reply parsers ---------------------------------------


def validation_number_request(system_id: int, number: str) -> bytes:
    """0x58 data: system ID 1 BCD, 16 digits as 8 BCD (``system_id`` 0: denied, zeros).

    Raises:
        ValueError: ``system_id`` outside 0..99, a number not up to 16 digits.
    """
    if not 0 <= system_id <= 99:
        raise ValueError(f"validation system ID {system_id!r} is not 0..99 (1 BCD byte)")
    return bcd.encode(system_id, 1) + (bytes(8) if system_id == 0 else _digits(number, 8, "validation number"))


def redeem_request(
    transfer_code: int,
    amount: int,
    validation_number: str,
    restricted_expiration: int = 0,
    pool_id: int = 0,
    parsing_code: int = 0,
) -> bytes:
    """0x71 data (22 bytes, see ``parse_redeem``): transfer code, amount 5 BCD cents,
    parsing code, validation data 9 BCD, restricted expiration 4 BCD, pool ID 2 binary."""
    return (
        bytes((transfer_code,))
        + bcd.encode(amount, 5)
        + bytes((parsing_code,))
        + _digits(validation_number, VALIDATION_DATA_LEN, "validation number")
        + bcd.encode(restricted_expiration, 4)
        + pool_id.to_bytes(2, "little")
    )


#: 0x71 status query data: ``FF`` (nCompass ``Fill``: ``m_sendBuffer[2] = 1; [3] = 0xff``).
STATUS_QUERY = bytes((tito_codes.TC_STATUS_QUERY,))


def ticket_data_request(
    host_id: int, expiration_days: int | None = None, location: str = "", address1: str = "", address2: str = ""
) -> bytes:
    """0x7D data (see ``parse_ticket_data``): an empty text goes as length 00 (keep the
    machine's line); ``expiration_days`` None with no text: the host ID alone.

    Raises:
        ValueError: a field out of range, a text over 40 characters or not ASCII.
    """
    out = host_id.to_bytes(2, "little")
    if expiration_days is None and not (location or address1 or address2):
        return out
    out += bytes((expiration_days or 0,))
    for text in (location, address1, address2):
        raw = text.encode("ascii")
        if len(raw) > MAX_TEXT:
            raise ValueError(f"0x7D text {text!r} is longer than {MAX_TEXT} characters")
        out += bytes((len(raw),)) + raw
    return out


def extended_validation_status_request(
    control_mask: int, status_bits: int, cashable_days: int = 0, restricted_days: int = 0
) -> bytes:
    """0x7B data (8 bytes, see ``parse_extended_validation_status``)."""
    return (
        control_mask.to_bytes(2, "little")
        + status_bits.to_bytes(2, "little")
        + bcd.encode(cashable_days, 2)
        + bcd.encode(restricted_days, 2)
    )


def parse_pending_cashout(data: bytes) -> tuple[int, int]:
    """0x57 reply data: (cash-out type, amount in credits). Raises ProtocolError."""
    _need(data, 6, "0x57")
    return data[0], _bcd(data[1:], "0x57 amount")


@dataclass(frozen=True, slots=True)
class TicketReply:
    """A parsed 0x70 or 0x71 reply: status, amount (cents), parsing code, 18 digits."""

    status: int
    amount: int
    parsing_code: int
    validation_number: str


def parse_ticket_reply(data: bytes, command: int = 0x70) -> TicketReply:
    """0x70 / 0x71 reply data after the length byte -> ``TicketReply`` (a status alone:
    amount 0, number "").

    Raises:
        ProtocolError: neither 1 nor 16 bytes, bad BCD.
    """
    if len(data) == 1:
        return TicketReply(data[0], 0, 0, "")
    _need(data, 16, f"0x{command:02X}")
    return TicketReply(
        data[0],
        _bcd(data[1:6], f"0x{command:02X} amount"),
        data[6],
        _bcd_digits(data[7:16], f"0x{command:02X} validation data"),
    )


def parse_validation_meters(data: bytes) -> tuple[int, int, int]:
    """0x50 reply data: (validation type, count, amount in credits). Raises ProtocolError."""
    _need(data, 10, "0x50")
    return data[0], _bcd(data[1:5], "0x50 count"), _bcd(data[5:10], "0x50 amount")


def parse_extended_validation_status_reply(data: bytes) -> tuple[int, int, int, int]:
    """0x7B reply data: (asset number, status bits, cashable days, restricted days)."""
    _need(data, 10, "0x7B reply")
    return (
        int.from_bytes(data[0:4], "little"),
        int.from_bytes(data[4:6], "little"),
        _bcd(data[6:8], "0x7B cashable expiration"),
        _bcd(data[8:10], "0x7B restricted expiration"),
    )

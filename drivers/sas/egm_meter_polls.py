"""Meter long polls the EGM answers from its ``EgmView``: 0x20, 0x2A, 0x2B, 0x2D, 0x2E, the
bill meters 0x31-0x45 (0x3D is the cash-out ticket poll, not a meter), 0x48, 0x52, 0x56,
0x6F and 0xAF.

Owns: the view reply builders of those commands (each the ``view_reply`` of its row in
``layouts.LAYOUTS``, through which the responder dispatches), the 0x31-0x45 bill table,
the 0x48 country and bill denomination codes.
Must not import: serial, time, threading, cabinet.*.

Every layout is Aristocrat Monaco's EGM-side parser (``Protocol/SAS/Aristocrat.Sas.Client/
LPParsers/``, named per builder) with its handler in ``Protocol/SAS/Aristocrat.Monaco.Sas/
Handlers/``; units are Monaco's ``SasMeterNumberToMeterConfiguration.cs`` categories.
Each builder takes ``(view, address, data, wall)`` like ``egm_replies`` and returns the
reply bytes, or None when the poll is ignored.  Where Monaco NACKs (bad BCD in a game
number, a malformed 0x6F/0xAF, a 0x2E game delay without legacy bonusing) so does the EGM.
"""

from __future__ import annotations

from collections.abc import Callable

from drivers.errors import ProtocolError
from drivers.sas import bcd, egm_meter_codes, egm_meters, replies
from drivers.sas.denominations import BILL_DENOMINATION_CODES
from drivers.sas.egm_view import EgmView

Wall = tuple[int, int, int, int, int, int]
ViewReply = Callable[[EgmView, int, bytes, "Wall | None"], "bytes | None"]
MINOR_PER_DOLLAR = egm_meters.MINOR_PER_DOLLAR

#: Long poll -> bill in dollars whose count it reports (4 BCD, occurrences).  Source:
#: Monaco ``LP31Send1DollarBillsInParser.cs`` .. ``LP45Send250DollarBillsInParser.cs``
#: (0x31 $1, 0x32 $2, 0x33 $5, 0x34 $10, 0x35 $20, 0x36 $50, 0x37 $100, 0x38 $500,
#: 0x39 $1000, 0x3A $200, 0x3B $25, 0x3C $2000, 0x3E $2500, 0x3F $5000, 0x40 $10000,
#: 0x41 $20000, 0x42 $25000, 0x43 $50000, 0x44 $100000, 0x45 $250); a bill the acceptor
#: does not take reads 0 (Monaco ``MeterManagerExtensions.GetMeterValue``: ``?? 0L``).
BILL_POLLS_DOLLARS: dict[int, int] = {
    0x31: 1,
    0x32: 2,
    0x33: 5,
    0x34: 10,
    0x35: 20,
    0x36: 50,
    0x37: 100,
    0x38: 500,
    0x39: 1000,
    0x3A: 200,
    0x3B: 25,
    0x3C: 2000,
    0x3E: 2500,
    0x3F: 5000,
    0x40: 10000,
    0x41: 20000,
    0x42: 25000,
    0x43: 50000,
    0x44: 100000,
    0x45: 250,
}

#: 0x48 country code of a US dollar bill: Monaco ``BillAcceptorCountryCode.cs``
#: ``UnitedStates`` (37; its test ``LP48SendLastAcceptedBillInformationParserTest`` sends
#: ``Euro`` 39 as BCD 0x39).  The bill tables here are in US dollars.
COUNTRY_UNITED_STATES = 37


def _game(data: bytes) -> int:
    """The 2-byte BCD game number at the start of ``data``; ProtocolError when not BCD."""
    if len(data) < 2:
        raise ProtocolError(f"game number is 2 BCD bytes, got {len(data)}")
    return bcd.decode(data[:2])


def bill_in_dollars(view: EgmView) -> int:
    """0x20: the value of every bill accepted, whole dollars (Monaco ``TotalBillIn`` is
    ``MeterCategory.Dollars``: ``Math.Floor`` of the amount)."""
    return sum(minor * n for minor, n in view.bill_counts.items()) // MINOR_PER_DOLLAR


def total_bill_in_value(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    """Monaco ``LP20TotalBillInValueParser.cs``: 4 BCD, dollars (nCompass
    ``LongPoll20Message.cpp``, host side, agrees: it converts "from dollars to cents")."""
    return replies.meter_reply(address, 0x20, egm_meters.wrap(bill_in_dollars(view)))


def true_coin_poll(command: int) -> ViewReply:
    """The 0x2A / 0x2B builder (``command``)."""
    """0x2A true coin in / 0x2B true coin out: Monaco ``LP2ASendTrueCoinInParser.cs`` /
    ``LP2BSendTrueCoinOutParser.cs``, 4 BCD, cents of coins (``MeterCategory.Cents``).  The
    cabinet has no coin acceptor and no hopper: 0."""

    def true_coin(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
        return replies.meter_reply(address, command, 0)

    return true_coin


def hand_paid_cancelled_credits(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes | None:
    """Monaco ``LP2DSendTotalHandPaidCanceledCreditsParser.cs``: game number 2 BCD, then
    the meter 4 BCD in credits; bad BCD is NACKed; a game other than 0000 is ignored (its
    handler quotes SAS 7.6.3: a machine tracking cancelled credits only machine-wide "must
    ignore long poll 2D with a game number other than 0000")."""
    try:
        game = _game(data)
    except ProtocolError:
        return replies.nack(address)
    if game != 0:
        return replies.NO_REPLY
    meter = egm_meters.wrap(view.handpaid_cancelled_credits)
    return replies.long_reply(address, 0x2D, bytes(data[:2]) + bcd.encode(meter, 4))


def game_delay(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    """0x2E is game delay (2 bytes, units of 100 ms), not a meter: Monaco
    ``LP2EGameDelayParser.cs`` ACKs it only with legacy bonusing enabled
    (``LP2EGameDelayHandler.cs``), else NACKs (nCompass ``LongPoll2EMessage.cpp`` sends the
    same 2-byte game delay).  The cabinet has no legacy bonusing: NACK."""
    return replies.nack(address)


def bill_poll(command: int) -> ViewReply:
    """The builder of bill meter poll ``command`` (a key of ``BILL_POLLS_DOLLARS``)."""
    dollars = BILL_POLLS_DOLLARS[command]

    def bill_meter(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
        return replies.meter_reply(address, command, egm_meters.wrap(egm_meters.bill_count(view, dollars)))

    return bill_meter


def last_bill(view: EgmView) -> tuple[int, int, int]:
    """0x48 (country code, denomination code, bills of that value accepted); all 0 when no
    bill was taken or the bill has no SAS denomination code (Monaco
    ``LP48SendLastAcceptedBillInformationHandler.cs`` answers its empty response then)."""
    dollars, cents = divmod(view.last_bill_minor, MINOR_PER_DOLLAR)
    code = BILL_DENOMINATION_CODES.get(dollars) if view.last_bill_minor and not cents else None
    if code is None:
        return (0, 0, 0)
    return (COUNTRY_UNITED_STATES, code, egm_meters.bill_count(view, dollars))


def last_accepted_bill(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    """Monaco ``LP48SendLastAcceptedBillInformationParser.cs``: country 1 BCD, denomination
    code 1 BCD, count 4 BCD."""
    country, code, count = last_bill(view)
    body = bcd.encode(country, 1) + bcd.encode(code, 1) + bcd.encode(egm_meters.wrap(count), 4)
    return replies.long_reply(address, 0x48, body)


def game_n_meters(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    """Monaco ``LP52SendGameNMetersParser.cs``: game number 2 BCD, then coin in, coin out,
    jackpot, games played, 4 BCD each (credits, counts); bad BCD is NACKed; a game the
    cabinet does not have reads zeros (``LP52SendGameNMetersHandler.cs``)."""
    try:
        game = _game(data)
    except ProtocolError:
        return replies.nack(address)
    w = egm_meters.wrap
    values = (
        (w(view.coin_in), w(view.coin_out), w(view.jackpot), w(view.games_played))
        if egm_meter_codes.game_exists(view, game)
        else (0, 0, 0, 0)
    )
    return replies.long_reply(address, 0x52, bytes(data[:2]) + b"".join(bcd.encode(v, 4) for v in values))


def enabled_game_numbers(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    """Monaco ``LP56SendEnabledGameNumbersParser.cs``: length, number of games 1 byte, then
    each enabled game number 2 BCD.  A station plays its one game: game 1."""
    games = range(1, len(view.games) + 1)
    return replies.length_reply(address, 0x56, bytes((len(games),)) + b"".join(bcd.encode(g, 2) for g in games))


def extended_meters_reply(view: EgmView, address: int, command: int, data: bytes) -> bytes:
    """0x6F / 0xAF: Monaco ``LP6FSendExtendedMetersForGameNParser.cs`` /
    ``LPAFSendExtendedMetersForGameNParser.cs`` (``SendSelectedMetersForGameNParserBase.cs``).

    Request data (after the length byte): game number 2 BCD, then meter codes 2 bytes each,
    low byte first.  Reply: length, game number 2 BCD, then per answered meter its code 2
    bytes low first, its size in bytes 1, its value BCD (``egm_meter_codes.extended_width``).
    Codes the cabinet does not count are left out; as many meters as the length byte holds.
    A length below 2, an odd number of code bytes or a game number not BCD is NACKed.
    nCompass ``LongPoll6FMessage.cpp`` (host side) reads the same reply: code as a 2-byte
    word, size, BCD value; it asks for at most 12 meters and sends the same poll as 0xAF.
    """
    if len(data) < 2 or (len(data) - 2) % 2:
        return replies.nack(address)
    try:
        game = _game(data)
    except ProtocolError:
        return replies.nack(address)
    body = bytearray(data[:2])
    for i in range(2, len(data), 2):
        code = int.from_bytes(data[i : i + 2], "little")
        value = egm_meter_codes.extended_meter(view, code, game)
        if value is None and game == 0 and code in view.extra_meters:
            value = int(view.extra_meters[code])
        if value is None:
            continue
        width = egm_meter_codes.extended_width(view, code)
        if len(body) + 3 + width > 0xFF:
            break
        body += code.to_bytes(2, "little") + bytes((width,)) + bcd.encode(egm_meters.wrap(value, width), width)
    return replies.length_reply(address, command, bytes(body))


def extended_meters_poll(command: int) -> ViewReply:
    """The 0x6F / 0xAF builder (``command``)."""

    def extended_meters(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
        return extended_meters_reply(view, address, command, data)

    return extended_meters

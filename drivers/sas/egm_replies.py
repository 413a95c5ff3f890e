"""Long poll replies the EGM builds from its ``EgmView`` alone (no responder state).

Owns: the view reply builders of the read-only long polls 0x0F, 0x10-0x1A, 0x1C, 0x1E,
0x1F, 0x2F, 0x51, 0x53, 0x54, 0x55, 0x7E (each the ``view_reply`` of its row in
``layouts.LAYOUTS``, through which the responder dispatches), the 0x1B reply, and the 0x7F
date and time parser.  The stateful polls (0x1B's side effect, 0x21, host control S
polls) are handlers in ``egm``.
Must not import: serial, time, threading, cabinet.*.

Each builder takes ``(view, address, data, wall)`` (``data`` as the codec parsed it,
``wall`` the cabinet's local date and time or None) and returns the reply bytes, or
None when the poll is not answered (nothing to answer it from).  Builders raise
``ProtocolError``/``ValueError`` on bad request data or unencodable view fields; the
responder turns that into no reply.  Sources are in ``egm_meters`` and ``replies``.
"""

from __future__ import annotations

from collections.abc import Callable

from drivers.errors import ProtocolError
from drivers.sas import bcd, egm_meters, replies
from drivers.sas.egm_requests import parse_selected_meters_request
from drivers.sas.egm_view import EgmView
from drivers.sas.messages import Meters1C, meter_width

#: (year, month, day, hour, minute, second) of the cabinet's wall clock.
Wall = tuple[int, int, int, int, int, int]
ViewReply = Callable[[EgmView, int, bytes, "Wall | None"], "bytes | None"]


def parse_date_time(data: bytes) -> Wall:
    """0x7F data: MMDDYYYY (4 BCD) HHMMSS (3 BCD) -> (year, month, day, hour, minute, second).

    Source: nCompass ``LongPoll7FMessage.cpp`` ``Fill``.

    Raises:
        ProtocolError: not 7 bytes, not BCD, or not a calendar date and time.
    """
    if len(data) != 7:
        raise ProtocolError(f"0x7F date and time is 7 bytes, got {len(data)}")
    date, time_ = bcd.decode(data[:4]), bcd.decode(data[4:])
    month, day, year = date // 1000000, date // 10000 % 100, date % 10000
    hour, minute, second = time_ // 10000, time_ // 100 % 100, time_ % 100
    days = (31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not (1 <= month <= 12 and 1 <= day <= days[month - 1] and hour < 24 and minute < 60 and second < 60):
        raise ProtocolError(f"0x7F {data.hex(' ')} is not a valid date and time")
    return (year, month, day, hour, minute, second)


#: 0x1B level byte for a handpay that is not a progressive win.  Source: Aristocrat
#: ``Sas.Client`` ``LP1BSendHandpayInfoParser`` (the spec's table: "Level ... 01=highest,
#: 20=lowest progressive; 40 = non progressive win; 80 = canceled credits amount"; then
#: reset ID, and 10 unused bytes "Reserved for future use").
LEVEL_NON_PROGRESSIVE = 0x40
LEVEL_CANCELLED_CREDITS = 0x80


def handpay_level(kind: str, level: int) -> int:
    """The 0x1B level byte: a progressive level 1..0x20 as given; else 0x80 for a
    cancelled-credits handpay, 0x40 for a (non-progressive) jackpot."""
    if level:
        return level
    return LEVEL_CANCELLED_CREDITS if kind == "cancelled_credits" else LEVEL_NON_PROGRESSIVE


def handpay_reply(view: EgmView, address: int) -> bytes:
    """0x1B from ``view.handpay`` (all zero when none is pending, nCompass ``isEmpty``).

    Progressive group 00: the cabinet has no SAS progressives ("00 = stand alone, non, or
    linked progressive", Aristocrat ``LP1BSendHandpayInfoParser``); partial pay 0: no part
    of a handpay goes to the credit meter; session game win and pay: the handpay's
    amount, as Aristocrat ``HandpayTransactionExtensions.ToHandpayDataResponse`` sends.
    """
    hp = view.handpay
    if hp is None:
        return replies.handpay_information(address)
    amount = egm_meters.wrap(hp.amount_credits, 5)
    return replies.handpay_information(
        address,
        progressive_group=0,
        level=handpay_level(hp.kind, hp.level),
        amount=amount,
        reset_id=int(hp.credit_reset_allowed),
        session_win=amount,
        session_pay=amount,
    )


def _single(view: EgmView, address: int, command: int) -> bytes:
    return replies.meter_reply(address, command, egm_meters.wrap(int(getattr(view, egm_meters.SINGLE_METERS[command]))))


def meters_10_15(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.meters_block(address, 0x0F, egm_meters.field_meters(view, egm_meters.METERS_0F))


def games_since_power_up(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.games_since_power_up(
        address, egm_meters.wrap(view.games_since_power_up, 2), egm_meters.wrap(view.games_since_door_closed, 2)
    )


def meters_11_15(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.meters_block(address, 0x19, egm_meters.field_meters(view, egm_meters.METERS_19))


def current_credits(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.current_credits(address, egm_meters.wrap(view.current_credits))


def meters_1c(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    w = egm_meters.wrap
    return replies.meters_1c(
        address,
        Meters1C(
            w(view.coin_in),
            w(view.coin_out),
            w(view.drop),
            w(view.jackpot),
            w(view.games_played),
            w(view.games_won),
            w(view.slot_door_opened),
            w(view.power_reset),
        ),
    )


def bill_meters(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.meters_block(address, 0x1E, egm_meters.bills_1e(view))


def machine_info(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes | None:
    return None if view.machine_info is None else replies.machine_info(address, view.machine_info)


def selected_meters(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    game, codes = parse_selected_meters_request(data)
    body = 2  # the game number
    meters: list[tuple[int, int]] = []
    for code in codes:
        value = egm_meters.selected_meter(view, code, game)
        if value is None:
            continue
        width = meter_width(code)
        if body + 1 + width > 0xFF:
            break  # as many meters as the length byte allows (Aristocrat Sas.Client truncates too)
        body += 1 + width
        meters.append((code, egm_meters.wrap(value, width)))
    return replies.selected_meters(address, game, meters)


def games_implemented(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.two_digit_count(address, 0x51, len(view.games))


def game_configuration(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes | None:
    game = bcd.decode(data)
    if game == 0:
        info = view.machine_info
    elif game <= len(view.games):
        info = view.games[game - 1]
    else:
        return None
    return None if info is None else replies.game_configuration(address, game, info)


def sas_version(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.sas_version(address, view.serial_number[: replies.MAX_SERIAL_LEN])


def selected_game(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    return replies.two_digit_count(address, 0x55, egm_meters.wrap(view.selected_game, 2))


def date_time(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes | None:
    return None if wall is None else replies.date_time(address, *wall)


def single_meter(command: int) -> ViewReply:
    """The builder of single meter poll ``command`` (0x10-0x17, ``egm_meters.SINGLE_METERS``)."""

    def single_meter(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
        return _single(view, address, command)

    return single_meter

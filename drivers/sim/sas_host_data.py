"""What the host twin sends and reads beyond the codec: control poll data, reply records.

Owns: the data of the control polls the host twin sends (0x08 bill mask, 0x7F date
and time), the 0x1B handpay parser, turning a data reply into named meter values,
and the per-machine status record the floor view and the control socket show.
Must not import: serial, time, threading, cabinet.*.  Pure.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from drivers.errors import ProtocolError
from drivers.sas import bcd
from drivers.sas.denominations import BILL_DENOMINATIONS_DOLLARS
from drivers.sas.host_codec import parse_meters, parse_meters_1c

#: 0x08 bill denomination bits, in dollars, bit 0 first; the 4-byte mask is sent low
#: byte first.  UNVERIFIED: our sources give no table (saspy sends ``00 FF FF FF``);
#: this is the SAS convention as we remember it, to confirm against the spec.
BILL_MASK_DOLLARS = BILL_DENOMINATIONS_DOLLARS

#: Meter names of the data replies the host records, in wire order.
METER_NAMES: dict[int, tuple[str, ...]] = {
    0x1C: ("coin_in", "coin_out", "drop", "jackpot", "games_played", "games_won", "slot_door_opened", "power_reset"),
    0x1A: ("current_credits",),
    0x1E: ("bills_1", "bills_5", "bills_10", "bills_20", "bills_50", "bills_100"),
    0x0F: ("cancelled_credits", "coin_in", "coin_out", "drop", "jackpot", "games_played"),
    0x19: ("coin_in", "coin_out", "drop", "jackpot", "games_played"),
}


def bill_mask(bills_minor: Sequence[int]) -> bytes:
    """0x08's 4-byte denomination mask for these bill values (minor units, cents).

    Raises:
        ValueError: a value that is not a whole number of dollars in ``BILL_MASK_DOLLARS``.
    """
    mask = 0
    for value in bills_minor:
        dollars, cents = divmod(value, 100)
        if cents or dollars not in BILL_MASK_DOLLARS:
            raise ValueError(f"no SAS bill denomination bit for {value} minor units")
        mask |= 1 << BILL_MASK_DOLLARS.index(dollars)
    return mask.to_bytes(4, "little")


def date_time_data(when: dt.datetime) -> bytes:
    """0x7F's 7 data bytes: date MMDDYYYY (4 BCD), time HHMMSS (3 BCD), 24-hour.

    Source: nCompass ``LongPoll7FMessage.cpp`` (X7F_POLLSIZE 11: date 4 BCD, time 3
    BCD) and Aristocrat ``Aristocrat.Sas.Client`` LP 7F parser ("Date in MMDDYYYY
    format, Time in HHMMSS 24 hour format").
    """
    return bcd.encode(int(when.strftime("%m%d%Y")), 4) + bcd.encode(int(when.strftime("%H%M%S")), 3)


def parse_handpay(data: bytes) -> dict[str, int]:
    """0x1B's 20 data bytes: progressive group 1, level 1, amount 5 BCD (credits),
    partial pay 2 BCD, reset ID 1, then 10 bytes not read here.

    Source: nCompass ``LongPoll1BMessage.cpp`` (response 24).

    Raises:
        ProtocolError: not 20 bytes, or bad BCD.
    """
    if len(data) != 20:
        raise ProtocolError(f"0x1B data is 20 bytes, got {len(data)}")
    return {
        "progressive_group": data[0],
        "level": data[1],
        "amount": bcd.decode(data[2:7]),
        "partial_pay": bcd.decode(data[7:9]),
        "reset_id": data[9],
    }


def meter_values(command: int, data: bytes) -> dict[str, int]:
    """Named meters of a data reply to ``command`` (a key of ``METER_NAMES``).

    Raises:
        ProtocolError: wrong length or bad BCD.
        KeyError: a command that carries no meters.
    """
    names = METER_NAMES[command]
    if command == 0x1C:
        values: Sequence[int] = parse_meters_1c(data).values()
    else:
        values = parse_meters(data, len(names))
    return dict(zip(names, values, strict=True))


@dataclass(frozen=True, slots=True)
class SeenException:
    """One general poll exception as the host read it.

    Attributes:
        code: the exception byte.
        name: its name in ``drivers.sas.exception_codes`` (``unknown_XX`` if none).
        at: Unix time it was read.
        data: the real-time event's data after the code (0x0E on), b"" otherwise.
    """

    code: int
    name: str
    at: float
    data: bytes = b""


@dataclass(frozen=True, slots=True)
class MachineStatus:
    """One machine as the host sees it (floor view, control socket ``status``).

    Money meters are in credits of the accounting denomination, as read.
    """

    address: int
    tty: str
    path: str
    link_up: bool
    last_reply_age_s: float | None
    meters: dict[str, int] = field(default_factory=dict)
    last_exceptions: tuple[str, ...] = ()
    game_id: str = ""
    serial_number: str = ""
    sas_version: str = ""
    rom_signature: int | None = None
    counts: dict[str, int] = field(default_factory=dict)

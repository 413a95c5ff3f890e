"""Request data parsers of the EGM side: the data of a long poll (as ``codec.EgmCodec``
framed it) -> values.

Owns: the 0x21 seed and the 0x2F game number and meter codes.
Must not import: serial, time, threading, cabinet.*, ``codec``/``layouts`` (the view reply
builders that ``layouts`` rows hold use these, so they stay below the table).
"""

from __future__ import annotations

from drivers.errors import ProtocolError
from drivers.sas import bcd


def parse_rom_signature_request(data: bytes) -> int:
    """The seed of a 0x21 request (2 bytes, low byte first: an assumption, see layouts.py).

    Raises:
        ProtocolError: not 2 bytes.
    """
    if len(data) != 2:
        raise ProtocolError(f"0x21 seed is 2 bytes, got {len(data)}")
    return int.from_bytes(data, "little")


def parse_selected_meters_request(data: bytes) -> tuple[int, list[int]]:
    """Game number (2-byte BCD) and meter codes of a 0x2F request (data after the length byte).

    Source: nCompass ``LongPoll2FMessage.cpp`` ``Fill``.

    Raises:
        ProtocolError: shorter than the game number, more than 10 meter codes, or a game
            number not BCD.
    """
    if len(data) < 2:
        raise ProtocolError(f"0x2F request of {len(data)} bytes has no game number")
    if len(data) > 2 + MAX_SELECTED_METERS:
        raise ProtocolError(f"0x2F asks for {len(data) - 2} meters, at most {MAX_SELECTED_METERS}")
    return bcd.decode(data[:2]), list(data[2:])


#: 0x2F meter codes per request (Monaco ``LPParsers/LP2FSendSelectedMetersForGameNParser.cs``:
#: "10 meters maximum per command", length 03-0C).
MAX_SELECTED_METERS = 10

"""CRC-16/Kermit for SAS 6.02, plain and seeded, whole-message and incremental.

Owns: the CRC every SAS long poll and long poll reply carries (appended low byte first,
checked), and the seeded CRC of long poll 0x21 (ROM signature verification), all on
``drivers.crc16.crc16_kermit`` (the one CRC-16/Kermit of the tree, shared with ID-003).
Must not import: serial, time, threading, cabinet.*.

Source: ``research/sas.md`` "Physical and link layer": polynomial x^16+x^12+x^5+1
reflected (0x8408), seed 0, no final XOR, over the whole message from the address byte,
sent low byte first.  The seeded form (``crcval`` argument) is nCompass
``Sentinel/SASProtocol/SASPollMessage.cpp`` ``CSASPollMessage::CRC(s, len, crcval)``.
Vectors (research/sas.md): ``123456789`` -> 0x2189, ``01 21 00 00`` -> 0x455C,
``01 21 12 34`` -> 0x94DA, ``01 4C 00 00 01 00 00 00 01`` -> 0x09A3.
"""

from __future__ import annotations

# SAS and ID-003 carry the same CRC-16/Kermit (research/sas.md): one function for both.
from drivers.crc16 import crc16_kermit as _kermit


def crc16_kermit(data: bytes, seed: int = 0) -> int:
    """CRC-16/Kermit of ``data``, starting from ``seed``.

    Args:
        data: the covered bytes (a SAS message from its address byte up to the CRC).
        seed: initial register value 0..0xFFFF; 0 for message CRCs, the host's seed
            for the ROM signature (long poll 0x21).

    Returns:
        The CRC 0..0xFFFF.  Over a whole message with its CRC appended low byte first
        the result is 0 (for seed 0).

    Raises:
        ValueError: ``seed`` is not a 16-bit value.
    """
    if not 0 <= seed <= 0xFFFF:
        raise ValueError(f"CRC seed {seed!r} is not a 16-bit value")
    return _kermit(data, seed)


def crc_bytes(data: bytes) -> bytes:
    """The two CRC bytes to append to ``data``, low byte first (research/sas.md)."""
    return _kermit(data).to_bytes(2, "little")


def with_crc(data: bytes) -> bytes:
    """``data`` followed by its CRC, low byte first."""
    return bytes(data) + crc_bytes(data)


def crc_ok(message: bytes) -> bool:
    """True when the last two bytes of ``message`` are the CRC of the rest (low byte first)."""
    return len(message) >= 2 and _kermit(message[:-2]).to_bytes(2, "little") == message[-2:]


class SeededCrc:
    """Incremental seeded CRC-16/Kermit: feed the program image in chunks of any size.

    The ROM signature of long poll 0x21 may take a while over a large image; the
    caller runs ``update`` a chunk at a time between polls and answers when done
    (research/sas.md "Authentication").  Pure: no I/O, no clock.

    Attributes:
        value: the CRC of everything fed so far (equals the seed before any data).
        count: bytes fed so far.
    """

    __slots__ = ("value", "count")

    def __init__(self, seed: int = 0) -> None:
        if not 0 <= seed <= 0xFFFF:
            raise ValueError(f"CRC seed {seed!r} is not a 16-bit value")
        self.value = seed
        self.count = 0

    def update(self, chunk: bytes) -> SeededCrc:
        """Fold ``chunk`` into the CRC; returns ``self`` so calls chain."""
        self.value = _kermit(chunk, self.value)
        self.count += len(chunk)
        return self


def rom_signature(seed: int, image: bytes) -> int:
    """ROM signature for long poll 0x21: CRC-16/Kermit of ``image`` seeded with ``seed``.

    Args:
        seed: the host's 2-byte seed as an int 0..0xFFFF.
        image: the bytes that make up the program being verified.

    Raises:
        ValueError: ``seed`` out of range.
    """
    return crc16_kermit(image, seed)

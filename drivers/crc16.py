"""CRC-16/Kermit, the one CRC both serial money protocols carry: ID-003 frames and SAS
6.02 messages.

Owns: ``crc16_kermit`` (whole message or continued from a seed); the SAS framing helpers
and the ROM signature are in ``drivers.sas.crc``, the ID-003 frame layout in
``drivers.id003_codec``, both built on this.
Must not import: serial, time, threading, cabinet.*, drivers.* (a leaf both codecs and
their device twins import).

The algorithm (CRC catalogue "CRC-16/KERMIT"): polynomial x^16+x^12+x^5+1 reflected
(0x1021 reflected = 0x8408), initial value 0, input and output reflected, no final XOR;
check value ``crc16_kermit(b"123456789") == 0x2189``; sent low byte first by both
protocols (ID-003: protocols.md 1.3; SAS: research/sas.md "Physical and link layer").
No runtime dependency of the project computes it, so it is this small table-driven
function (one table lookup per byte).
"""

from __future__ import annotations


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc16_kermit(data: bytes, seed: int = 0) -> int:
    """CRC-16/Kermit of ``data``, starting from the register value ``seed``.

    Args:
        data: the covered bytes (an ID-003 frame from SYNC to the last DATA byte; a SAS
            message from its address byte up to the CRC).
        seed: initial register value 0..0xFFFF (not checked here); 0 for message CRCs.
            Since there is no final XOR, ``crc16_kermit(b, crc16_kermit(a)) ==
            crc16_kermit(a + b)``: a CRC can be continued chunk by chunk.

    Returns:
        The CRC as an int 0..0xFFFF; it goes on the wire low byte first.  Over a whole
        message with its CRC appended that way the result is 0 (for seed 0).
    """
    crc = seed
    table = _TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc

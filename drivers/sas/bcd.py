"""Packed BCD, most significant byte first, as SAS meters use it.

Source: ``research/sas.md`` "Message kinds": meters are BCD, most significant byte
first; a 4-byte meter holds 8 digits.  nCompass ``Bcd2Int64``/``Dword2Bcd``
(``Sentinel/SASProtocol/SASPollMessage.cpp``) read and write the same layout.
Must not import: serial, time, cabinet.*.
"""

from __future__ import annotations

from drivers.errors import ProtocolError


def encode(value: int, width: int) -> bytes:
    """``value`` as ``width`` bytes of packed BCD, most significant first.

    Args:
        value: 0 .. 10**(2*width) - 1.
        width: bytes, >= 1.

    Raises:
        ValueError: negative, too many digits for ``width``, or width < 1.
    """
    if width < 1:
        raise ValueError(f"BCD width {width!r} must be at least 1 byte")
    if value < 0:
        raise ValueError(f"BCD value {value!r} is negative")
    digits = str(value)
    if len(digits) > 2 * width:
        raise ValueError(f"BCD value {value} does not fit in {width} bytes ({2 * width} digits)")
    return bytes.fromhex(digits.zfill(2 * width))


def decode(data: bytes) -> int:
    """Packed BCD bytes (most significant first) -> int.

    Raises:
        ProtocolError: a nibble above 9.
    """
    text = bytes(data).hex()
    if not text.isdigit() and text:
        raise ProtocolError(f"BCD bytes {bytes(data).hex(' ')} hold a nibble above 9")
    return int(text) if text else 0


def max_value(width: int) -> int:
    """Largest value ``width`` BCD bytes hold (99999999 for 4)."""
    return int(10 ** (2 * width)) - 1

"""The SAS wakeup bit as the Linux PARMRK byte stream: incremental parser and encoder.

Owns: turning the received byte stream into ``(byte, wakeup)`` pairs, and the host
side's encoding of a message into that stream.
Must not import: serial, termios, time, cabinet.*.

Source: ``research/sas.md`` "Physical and link layer": the EGM reads with SPACE parity
and ``INPCK|PARMRK``, so a byte sent with the wakeup bit (MARK parity) is a parity error
and arrives as ``FF 00 b``; a literal ``FF`` arrives as ``FF FF``; any other byte is
itself (glibc termios manual, PARMRK).  The host sets the wakeup bit on the first byte
of every message; the EGM sends with it clear.  Our host twin writes this same encoded
stream on a pseudo-terminal, so one parser serves both.
"""

from __future__ import annotations

from dataclasses import dataclass

MARK = 0xFF
#: ``FF 00`` introduces a byte received with a parity error (here: the wakeup bit).
PARITY_ERROR = 0x00


@dataclass(frozen=True, slots=True)
class WireByte:
    """One received 8-bit byte and whether its 9th (wakeup) bit was set."""

    value: int
    wakeup: bool


class WakeupDecoder:
    """Incremental PARMRK parser: feed chunks split anywhere, get ``WireByte``s.

    ``FF 00 b`` -> ``WireByte(b, True)``; ``FF FF`` -> ``WireByte(0xFF, False)``;
    any other byte ``b`` -> ``WireByte(b, False)``.  ``FF`` followed by anything else
    breaks the convention: the ``FF`` is dropped, counted in ``marker_errors``, and the
    following byte is read afresh.  Never raises.

    Attributes:
        marker_errors: ``FF x`` pairs with x not 00/FF (the FF was dropped).
    """

    def __init__(self) -> None:
        self._state = 0  # 0: plain, 1: after FF, 2: after FF 00
        self.marker_errors = 0

    def feed(self, data: bytes) -> list[WireByte]:
        """Parse ``data``; return the complete bytes it finishes, oldest first."""
        out: list[WireByte] = []
        for byte in data:
            if self._state == 2:
                out.append(WireByte(byte, True))
                self._state = 0
            elif self._state == 1:
                if byte == PARITY_ERROR:
                    self._state = 2
                elif byte == MARK:
                    out.append(WireByte(MARK, False))
                    self._state = 0
                else:
                    self.marker_errors += 1
                    out.append(WireByte(byte, False))
                    self._state = 0
            elif byte == MARK:
                self._state = 1
            else:
                out.append(WireByte(byte, False))
        return out

    @property
    def pending(self) -> bool:
        """True while an ``FF`` or ``FF 00`` prefix waits for its next byte."""
        return self._state != 0

    def clear(self) -> None:
        """Forget a pending prefix (after a port reopen)."""
        self._state = 0


def escape(data: bytes) -> bytes:
    """Bytes sent with the wakeup bit clear, as the EGM reads them: each ``FF`` doubled."""
    return bytes(data).replace(b"\xff", b"\xff\xff")


def encode_message(message: bytes) -> bytes:
    """Host side: one SAS message as the EGM's PARMRK stream.

    The first byte (address, or ``0x80|address`` for a general poll) carries the
    wakeup bit (``FF 00 b``); the rest is ``escape``d.

    Raises:
        ValueError: empty message.
    """
    if not message:
        raise ValueError("a SAS message has at least its address byte")
    return bytes((MARK, PARITY_ERROR, message[0])) + escape(message[1:])

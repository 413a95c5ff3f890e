"""The ROM signature of long poll 0x21 over the program image, computed incrementally.

Owns: what "the program" is for the signature (the bytes of each program file, in
manifest order, one after the other with nothing between them) and the incremental
seeded CRC over it, so the link can compute it chunk by chunk in the background while
it keeps answering polls.
Must not import: serial, time, threading, cabinet.*.  Reading the files is the shell's
job (``drivers.sas_link.program_chunks``); this module only folds bytes in.

Source: research/sas.md "Authentication" (0x21: "a seeded CRC-16 over the program; the
EGM may take time and reply when done while answering other polls"); the host link's brief ("the
files of the program manifest ... in manifest order"); the CRC is ``crc.SeededCrc``
(CRC-16/Kermit seeded with the host's 2-byte seed, nCompass ``CSASPollMessage::CRC(s,
len, crcval)``).  The manifest's order is ``cabinet/shell/manifest.py``
``program_files`` (sorted POSIX paths relative to the install root); the caller passes
the list.
"""

from __future__ import annotations

from collections.abc import Iterable

from drivers.sas.crc import SeededCrc


class RomSignature:
    """Incremental 0x21 signature for one seed: ``feed`` the image in chunks, read ``value``.

    Attributes:
        seed: the host's seed 0..0xFFFF.
    """

    __slots__ = ("seed", "_crc")

    def __init__(self, seed: int) -> None:
        """Raises: ValueError: ``seed`` is not 16-bit."""
        self._crc = SeededCrc(seed)
        self.seed = seed

    def feed(self, chunk: bytes) -> RomSignature:
        """Fold the next ``chunk`` of the image in (any size); returns ``self``."""
        self._crc.update(chunk)
        return self

    @property
    def value(self) -> int:
        """The signature of everything fed so far (the seed before any byte)."""
        return self._crc.value

    @property
    def bytes_done(self) -> int:
        """Bytes fed so far."""
        return self._crc.count


def rom_signature_of(seed: int, chunks: Iterable[bytes]) -> int:
    """The 0x21 signature of the image made of ``chunks`` (in order) for ``seed``."""
    sig = RomSignature(seed)
    for chunk in chunks:
        sig.feed(chunk)
    return sig.value

"""SAS CRC-16/Kermit (plain, seeded, incremental) and BCD, byte for byte
against the vectors of research/sas.md and nCompass's unit tests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.errors import ProtocolError
from drivers.sas import bcd
from drivers.sas.crc import SeededCrc, crc16_kermit, crc_bytes, crc_ok, rom_signature, with_crc

RESEARCH_VECTORS = [
    (b"123456789", 0x2189, "89 21"),
    (bytes.fromhex("01210000"), 0x455C, "5C 45"),
    (bytes.fromhex("01211234"), 0x94DA, "DA 94"),
    (bytes.fromhex("014C000001000000 01".replace(" ", "")), 0x09A3, "A3 09"),
]


@pytest.mark.parametrize(("data", "crc", "wire"), RESEARCH_VECTORS, ids=[w for *_, w in RESEARCH_VECTORS])
def test_research_vectors(data: bytes, crc: int, wire: str) -> None:
    """Research/sas.md CRC vectors, value and low-byte-first wire order."""
    assert crc16_kermit(data) == crc
    assert crc_bytes(data) == bytes.fromhex(wire)
    assert with_crc(data) == data + bytes.fromhex(wire)
    assert crc_ok(with_crc(data))
    assert crc16_kermit(with_crc(data)) == 0  # residue of a whole message


@pytest.mark.parametrize(("address", "wire"), [(0x00, "9C 76"), (0x01, "23 F7"), (0x7F, "57 4F"), (0xFE, "0A 05")])
def test_ncompass_4c_vectors(address: int, wire: str) -> None:
    """NCompass SentinelUnitTests/SASProtocol/LongPoll4CUnitTests.cpp Fill_DefaultTest."""
    assert crc_bytes(bytes((address, 0x4C)) + bytes(6)) == bytes.fromhex(wire)


def test_crc_ok_rejects_a_flipped_bit_and_short_input() -> None:
    """A damaged message fails its CRC."""
    good = bytearray(with_crc(bytes.fromhex("01211234")))
    good[2] ^= 0x01
    assert not crc_ok(bytes(good))
    assert not crc_ok(b"\x01")


@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=8))
def test_incremental_equals_whole(data: bytes, cuts: list[int]) -> None:
    """The ROM signature can run in chunks; any split gives the same CRC."""
    crc = SeededCrc(0xBEEF)
    points = sorted({min(c, len(data)) for c in cuts})
    start = 0
    for point in [*points, len(data)]:
        crc.update(data[start:point])
        start = point
    assert crc.value == rom_signature(0xBEEF, data) == crc16_kermit(data, 0xBEEF)
    assert crc.count == len(data)


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_seed_continues_a_crc(prefix: bytes, rest: bytes) -> None:
    """Seeding with the CRC of a prefix continues the CRC (the seed is the register)."""
    assert rom_signature(crc16_kermit(prefix), rest) == crc16_kermit(prefix + rest)


def test_seeded_crc_differs_from_unseeded_and_rejects_bad_seed() -> None:
    """The host's seed changes the signature; a seed must be 16-bit."""
    assert rom_signature(0, b"123456789") == 0x2189
    assert rom_signature(0x1234, b"123456789") != 0x2189
    assert SeededCrc(0x1234).value == 0x1234
    with pytest.raises(ValueError):
        SeededCrc(0x10000)
    with pytest.raises(ValueError):
        rom_signature(-1, b"")


def test_bcd_byte_for_byte() -> None:
    """BCD meters, most significant byte first (research/sas.md)."""
    assert bcd.encode(12345678, 4) == bytes.fromhex("12345678")
    assert bcd.encode(5, 4) == bytes.fromhex("00000005")
    assert bcd.encode(123, 5) == bytes.fromhex("0000000123")
    assert bcd.encode(0, 2) == b"\x00\x00"
    assert bcd.decode(bytes.fromhex("00001234")) == 1234
    assert bcd.decode(b"") == 0
    assert bcd.max_value(4) == 99_999_999


def test_bcd_errors() -> None:
    """Values that do not fit and bytes that are not BCD raise clear errors."""
    with pytest.raises(ValueError, match="does not fit"):
        bcd.encode(100_000_000, 4)
    with pytest.raises(ValueError, match="negative"):
        bcd.encode(-1, 4)
    with pytest.raises(ValueError):
        bcd.encode(1, 0)
    with pytest.raises(ProtocolError):
        bcd.decode(bytes.fromhex("0000001A"))


@given(st.integers(1, 9).flatmap(lambda w: st.tuples(st.just(w), st.integers(0, 10 ** (2 * w) - 1))))
def test_bcd_round_trip(width_value: tuple[int, int]) -> None:
    """Encode then decode is the identity for every width up to 9 bytes."""
    width, value = width_value
    assert bcd.decode(bcd.encode(value, width)) == value
    assert len(bcd.encode(value, width)) == width


def test_one_crc16_kermit_in_the_tree() -> None:
    """drivers/crc16.py is the only CRC-16/Kermit: the SAS and ID-003 codecs, their twins
    and the benches import it, none keeps its own table or bit loop (no other code XORs
    in the reflected polynomial 0x8408)."""
    import pathlib
    import re

    from drivers import crc16, id003_codec
    from drivers.sas import crc

    root = pathlib.Path(__file__).resolve().parents[2]
    holders = sorted(
        str(p.relative_to(root))
        for folder in ("drivers", "bench", "cabinet")
        for p in (root / folder).rglob("*.py")
        if re.search(r"\^\s*0x8408", p.read_text(encoding="utf-8"))
    )
    assert holders == ["drivers/crc16.py"]
    assert id003_codec.crc16_kermit is crc16.crc16_kermit
    assert crc.crc16_kermit(b"123456789") == crc16.crc16_kermit(b"123456789") == 0x2189
    assert crc16.crc16_kermit(b"56789", crc16.crc16_kermit(b"1234")) == 0x2189

"""The 0x21 ROM signature over the program files (drivers/sas/rom_signature.py
and drivers.sas_link.program_chunks) against an independent bitwise CRC-16/Kermit."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from drivers.sas.rom_signature import RomSignature, rom_signature_of
from drivers.sas_link import program_chunks


def kermit_bitwise(seed: int, data: bytes) -> int:
    """CRC-16/Kermit written out bit by bit (reflected 0x1021 = 0x8408, no final XOR)."""
    crc = seed
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def test_independent_crc_matches_the_published_vector() -> None:
    """The test's own CRC is right: research/sas.md's 123456789 -> 0x2189."""
    assert kermit_bitwise(0, b"123456789") == 0x2189


def _program(tmp_path: Path) -> list[Path]:
    rng = random.Random(21)
    paths = []
    for name, size in (("cabinet/a.py", 5000), ("cabinet/core/b.py", 1), ("drivers/c.py", 0), ("ui/d.py", 20_001)):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(bytes(rng.randrange(256) for _ in range(size)))
        paths.append(path)
    return paths


@pytest.mark.parametrize("seed", [0x0000, 0x1234, 0xFFFF])
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_signature_equals_independent_computation(tmp_path: Path, seed: int, chunk: int) -> None:
    """The signature over the program files in manifest order equals an
    independent CRC of their concatenation, seeded the same way, whatever the chunking."""
    paths = _program(tmp_path)
    image = b"".join(p.read_bytes() for p in paths)
    expected = kermit_bitwise(seed, image)
    assert rom_signature_of(seed, program_chunks(paths, chunk)) == expected
    sig = RomSignature(seed)
    for piece in program_chunks(paths, chunk):
        assert len(piece) <= chunk
        sig.feed(piece)
    assert sig.value == expected and sig.bytes_done == len(image)


def test_signature_changes_when_one_byte_changes(tmp_path: Path) -> None:
    """One changed byte of one program file changes the signature."""
    paths = _program(tmp_path)
    before = rom_signature_of(0x4242, program_chunks(paths))
    data = bytearray(paths[3].read_bytes())
    data[15_000] ^= 0x01
    paths[3].write_bytes(bytes(data))
    after = rom_signature_of(0x4242, program_chunks(paths))
    assert after != before
    assert after == kermit_bitwise(0x4242, b"".join(p.read_bytes() for p in paths))


def test_order_matters_and_a_missing_file_is_left_out(tmp_path: Path) -> None:
    """The manifest order is part of the signature; an unreadable file is left
    out (logged), so the signature no longer matches."""
    paths = _program(tmp_path)
    good = rom_signature_of(7, program_chunks(paths))
    assert rom_signature_of(7, program_chunks(paths[::-1])) != good
    missing = [*paths[:1], tmp_path / "gone.py", *paths[1:]]
    assert rom_signature_of(7, program_chunks(missing)) == good
    assert rom_signature_of(7, program_chunks(paths[1:])) != good


def test_empty_image_is_the_seed() -> None:
    """Nothing fed: the signature is the seed (CRC register untouched)."""
    assert RomSignature(0xABCD).value == 0xABCD
    with pytest.raises(ValueError):
        RomSignature(0x10000)

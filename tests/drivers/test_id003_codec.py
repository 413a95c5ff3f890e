"""Byte-for-byte tests of the ID-003 codec against research/protocols.md 1.3 vectors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import id003_codec as c

VECTORS = [
    (c.status_request(), "FC 05 11 27 56"),
    (c.reset(), "FC 05 40 2B 15"),
    (c.ack(), "FC 05 50 AA 05"),
    (c.stack_1(), "FC 05 41 A2 04"),
    (c.stack_2(), "FC 05 42 39 36"),
    (c.return_bill(), "FC 05 43 B0 27"),
    (c.hold(0xFF), "FC 06 44 FF B8 18"),
    (c.set_inhibit(False), "FC 06 C3 00 04 D6"),
    (c.set_inhibit(True), "FC 06 C3 01 8D C7"),
    (c.currency_assignment_request(), "FC 05 8A 7D 7C"),
    (c.encode_frame(c.Status.ESCROW, b"\x65"), "FC 06 13 65 94 BD"),
    (c.encode_frame(c.Status.VEND_VALID), "FC 05 15 03 10"),
    (c.encode_frame(c.Status.STACKED), "FC 05 16 98 22"),
    (c.encode_frame(c.Status.REJECTING, b"\x79"), "FC 06 17 79 19 00"),
    (c.encode_frame(c.Status.DISABLED), "FC 05 1A F4 E8"),
]


def test_crc_check_value() -> None:
    assert c.crc16_kermit(b"123456789") == 0x2189
    assert c.crc16_kermit(bytes.fromhex("FC0511")) == 0x5627


@pytest.mark.parametrize(("frame", "wire"), VECTORS, ids=[w for _, w in VECTORS])
def test_frames_byte_for_byte(frame: bytes, wire: str) -> None:
    assert frame == bytes.fromhex(wire)
    assert c.crc16_kermit(frame) == 0  # residue of a whole valid frame


@pytest.mark.parametrize(("frame", "wire"), VECTORS, ids=[w for _, w in VECTORS])
def test_decoder_round_trip(frame: bytes, wire: str) -> None:
    decoder = c.FrameDecoder()
    (decoded,) = decoder.feed(frame)
    assert decoded.encode() == frame


def test_decoder_resyncs_after_garbage_zeros_and_bad_crc() -> None:
    good = c.encode_frame(c.Status.ESCROW, b"\x65")
    bad = bytearray(c.encode_frame(c.Status.VEND_VALID))
    bad[-1] ^= 0xFF
    decoder = c.FrameDecoder()
    frames = decoder.feed(b"\x00\x00\x13" + bytes(bad) + good)
    assert frames == [c.Frame(c.Status.ESCROW, b"\x65")]
    assert decoder.crc_errors == 1


def test_decoder_handles_a_frame_split_byte_by_byte() -> None:
    decoder = c.FrameDecoder()
    out: list[c.Frame] = []
    for byte in c.encode_frame(c.Status.STACKED):
        out += decoder.feed(bytes((byte,)))
    assert out == [c.Frame(c.Status.STACKED)]
    assert decoder.pending == 0


def test_currency_assignment_round_trip() -> None:
    table = [
        c.Denomination(0x61, 0x01, 100),
        c.Denomination(0x65, 0x01, 2000),
        c.Denomination(0x67, 0x01, 10000),
    ]
    data = c.encode_currency_assignment(table)
    assert data[:4] == bytes((0x61, 0x01, 1, 0))
    assert data[8:] == bytes((0x67, 0x01, 100, 0))
    assert c.parse_currency_assignment(data) == table
    with pytest.raises(c.ProtocolError):
        c.parse_currency_assignment(b"\x61\x01\x01")


def test_barcode_escrow_and_texts() -> None:
    assert c.parse_barcode(b"\x6f" + b"001234567890123456") == "001234567890123456"
    with pytest.raises(c.ProtocolError):
        c.parse_barcode(b"\x6f12ab")
    assert c.describe_status(c.Frame(c.Status.FAILURE, b"\xa2")) == "FAILURE (stack motor)"
    assert c.describe_status(c.Frame(c.Status.REJECTING, b"\x79")) == "REJECTING (inhibited)"
    assert c.set_denominations(0b10).hex() == c.encode_frame(0xC0, b"\x02\x00").hex()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=20))
def test_fuzz_decoder_never_raises_and_only_yields_valid_frames(chunks: list[bytes]) -> None:
    decoder = c.FrameDecoder()
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            assert c.crc16_kermit(frame.encode()) == 0


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_truncated_and_corrupted_frames_yield_nothing(data: st.DataObject) -> None:
    frame = c.encode_frame(c.Status.VEND_VALID)
    cut = data.draw(st.integers(0, len(frame) - 1))
    decoder = c.FrameDecoder()
    assert decoder.feed(frame[:cut]) == []
    flip = data.draw(st.integers(0, len(frame) - 1))
    bit = data.draw(st.integers(0, 7))
    corrupt = bytearray(frame)
    corrupt[flip] ^= 1 << bit
    assert c.Frame(c.Status.VEND_VALID) not in c.FrameDecoder().feed(bytes(corrupt))

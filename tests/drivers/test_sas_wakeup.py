"""The wakeup bit as the PARMRK byte stream (``FF 00 b`` = b with wakeup,
``FF FF`` = literal FF), parsed incrementally and split anywhere."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.sas.wakeup import WakeupDecoder, WireByte, encode_message, escape


def _flat(decoder: WakeupDecoder, chunks: list[bytes]) -> list[WireByte]:
    out: list[WireByte] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    return out


def test_three_forms() -> None:
    """FF 00 b -> b with wakeup; FF FF -> FF; others are themselves."""
    got = WakeupDecoder().feed(bytes.fromhex("FF0081 FFFF 1A FF0001 00".replace(" ", "")))
    assert got == [
        WireByte(0x81, True),
        WireByte(0xFF, False),
        WireByte(0x1A, False),
        WireByte(0x01, True),
        WireByte(0x00, False),
    ]


def test_wakeup_ff_and_wakeup_zero() -> None:
    """FF 00 FF is FF with wakeup; FF 00 00 is 00 with wakeup (broadcast address)."""
    assert WakeupDecoder().feed(bytes.fromhex("FF00FF FF0000")) == [WireByte(0xFF, True), WireByte(0x00, True)]


def test_split_between_ff_and_00() -> None:
    """Bytes may arrive split anywhere, including between FF and 00."""
    decoder = WakeupDecoder()
    assert decoder.feed(b"\xff") == []
    assert decoder.pending
    assert decoder.feed(b"\x00") == []
    assert decoder.feed(b"\x01\xff") == [WireByte(0x01, True)]
    assert decoder.feed(b"\xff") == [WireByte(0xFF, False)]
    assert not decoder.pending


def test_broken_marker_is_counted_and_dropped() -> None:
    """FF followed by neither 00 nor FF breaks PARMRK: the FF is dropped, counted."""
    decoder = WakeupDecoder()
    assert decoder.feed(b"\xff\x1a\x05") == [WireByte(0x1A, False), WireByte(0x05, False)]
    assert decoder.marker_errors == 1
    decoder.feed(b"\xff")
    decoder.clear()
    assert decoder.feed(b"\x00") == [WireByte(0x00, False)]


def test_encoder_byte_for_byte() -> None:
    """The host-side encoder marks the first byte and doubles every later FF."""
    assert encode_message(bytes.fromhex("81")) == bytes.fromhex("FF0081")
    assert encode_message(bytes.fromhex("01 7F 12 01 20 26 09 59 30 45 FF")) == bytes.fromhex(
        "FF 00 01 7F 12 01 20 26 09 59 30 45 FF FF"
    )
    assert encode_message(b"\xff\xff") == bytes.fromhex("FF 00 FF FF FF")
    assert escape(b"\x01\xff\x02") == b"\x01\xff\xff\x02"


messages = st.lists(st.binary(min_size=1, max_size=12), min_size=1, max_size=6)


@given(messages, st.data())
def test_round_trip_split_anywhere(msgs: list[bytes], data: st.DataObject) -> None:
    """Encode messages, cut the stream anywhere, decode: the same bytes, wakeup
    exactly on each message's first byte."""
    stream = b"".join(encode_message(m) for m in msgs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    decoder = WakeupDecoder()
    got = _flat(decoder, chunks)
    expected = [WireByte(b, i == 0) for m in msgs for i, b in enumerate(m)]
    assert got == expected
    assert decoder.marker_errors == 0 and not decoder.pending


@given(st.binary(max_size=200))
def test_random_bytes_never_raise(stream: bytes) -> None:
    """Any byte stream parses without raising."""
    WakeupDecoder().feed(stream)

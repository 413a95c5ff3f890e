"""The EGM-side SAS codec, byte for byte against hand-built frames, and
fuzzed: random, truncated and misaddressed bytes never raise and never lead to a reply
for another address or for address 0."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.sas import replies
from drivers.sas.codec import (
    Dropped,
    DropReason,
    EgmCodec,
    Event,
    GeneralPoll,
    LongPoll,
    UnknownPoll,
)
from drivers.sas.crc import with_crc
from drivers.sas.egm_requests import parse_rom_signature_request, parse_selected_meters_request
from drivers.sas.exception_codes import EXCEPTION_CODES, EXCEPTION_NAMES
from drivers.sas.layouts import LAYOUTS, Kind
from drivers.sas.messages import MachineInfo, Meters1C
from drivers.sas.wakeup import encode_message


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def feed(codec: EgmCodec, *messages: str) -> list[Event]:
    """Feed hand-built messages (hex), each with the wakeup bit on its first byte."""
    return codec.feed(b"".join(encode_message(h(m)) for m in messages))


# --- receiving ---------------------------------------------------------------------------


def test_general_poll_for_us() -> None:
    """0x80|address with wakeup is a general poll; its reply is one exception byte."""
    codec = EgmCodec(1)
    (event,) = codec.feed(h("FF 00 81"))
    assert event == GeneralPoll(1, h("81"))
    assert not event.repeat and not event.broadcast
    assert codec.answer(event, replies.general_poll_reply(0x00)) == h("00")


def test_general_poll_for_another_address_is_skipped() -> None:
    """A general poll for address 2 yields nothing for address 1."""
    codec = EgmCodec(1)
    assert codec.feed(h("FF 00 82")) == []
    assert codec.counts["other_address"] == 1


def test_broadcast_is_parsed_never_answered() -> None:
    """Address 0 is broadcast: parsed, never answered."""
    codec = EgmCodec(1)
    (gp,) = codec.feed(h("FF 00 80"))
    assert isinstance(gp, GeneralPoll) and gp.broadcast
    (lp,) = feed(codec, "00 7F 12 01 20 26 09 59 30 B8 B2")
    assert isinstance(lp, LongPoll) and lp.broadcast and lp.data == h("12 01 20 26 09 59 30")
    for event in (gp, lp):
        with pytest.raises(ValueError, match="broadcast"):
            codec.answer(event, h("00"))


def test_type_r_poll_and_its_reply() -> None:
    """Type R 01 1A (no CRC) -> current credits 01 1A 00 00 12 34 45 2D."""
    codec = EgmCodec(1)
    (event,) = feed(codec, "01 1A")
    assert isinstance(event, LongPoll)
    assert (event.address, event.command, event.data, event.layout.kind) == (1, 0x1A, b"", Kind.R)
    assert codec.answer(event, replies.current_credits(1, 1234)) == h("01 1A 00 00 12 34 45 2D")


def test_type_s_poll_rom_signature() -> None:
    """01 21 12 34 DA 94 (research/sas.md vector) is a valid 0x21 with its seed."""
    codec = EgmCodec(1)
    (event,) = feed(codec, "01 21 12 34 DA 94")
    assert isinstance(event, LongPoll) and event.data == h("12 34")
    assert parse_rom_signature_request(event.data) == 0x3412
    (zero,) = feed(codec, "01 21 00 00 5C 45")
    assert isinstance(zero, LongPoll) and parse_rom_signature_request(zero.data) == 0


def test_type_s_poll_without_data() -> None:
    """0x01 shut down is address, 01, CRC (nCompass LongPoll01Message.h); ACK is the address."""
    codec = EgmCodec(1)
    (event,) = feed(codec, "01 01 51 08")
    assert isinstance(event, LongPoll) and event.data == b""
    assert codec.answer(event, replies.ack(1)) == h("01")


def test_type_m_poll_selected_meters() -> None:
    """0x2F with its length byte: game 0001, meter codes 00 and 0D."""
    codec = EgmCodec(1)
    (event,) = feed(codec, "01 2F 04 00 01 00 0D 15 8B")
    assert isinstance(event, LongPoll) and event.data == h("00 01 00 0D")
    assert parse_selected_meters_request(event.data) == (1, [0x00, 0x0D])


def test_bad_crc_is_dropped_and_counted() -> None:
    """A long poll whose CRC fails is dropped with an event, never answered."""
    codec = EgmCodec(1)
    assert feed(codec, "01 21 12 34 DA 95") == [Dropped(DropReason.CRC, h("01 21 12 34 DA 95"))]
    assert codec.counts["crc"] == 1


def test_truncated_message_is_dropped_when_the_next_wakeup_comes() -> None:
    """A message cut short by the next wakeup byte is dropped (wrong length)."""
    codec = EgmCodec(1)
    events = codec.feed(h("FF 00 01 21 12") + h("FF 00 81"))
    assert events == [Dropped(DropReason.TRUNCATED, h("01 21 12")), GeneralPoll(1, h("81"))]
    assert codec.counts["truncated"] == 1


def test_too_long_message_leaves_stray_bytes() -> None:
    """Bytes after a complete message and before the next wakeup are dropped as stray."""
    codec = EgmCodec(1)
    events = codec.feed(h("FF 00 01 1A 00 00"))
    assert isinstance(events[0], LongPoll) and len(events) == 1
    assert codec.feed(h("00 FF 00 81")) == [Dropped(DropReason.STRAY, h("00 00 00")), GeneralPoll(1, h("81"))]
    assert codec.counts["stray"] == 1


def test_m_length_below_minimum_is_dropped() -> None:
    """A 0x2F with a length byte below 2 (no game number) is framed by its length byte
    (the byte it promises, then the CRC: Monaco ``SasClient.cs``) and dropped as LENGTH
    when its CRC is good (the responder NACKs it), as CRC when not."""
    codec = EgmCodec(1)
    assert feed(codec, "01 2F 01 00 9F 4C") == [Dropped(DropReason.LENGTH, h("01 2F 01 00 9F 4C"))]
    assert feed(codec, "01 2F 01 00 9F 4D") == [Dropped(DropReason.CRC, h("01 2F 01 00 9F 4D"))]
    assert codec.counts["length"] == 1 and codec.counts["crc"] == 1 and codec.counts["stray"] == 0


def test_unknown_long_poll_is_ignored() -> None:
    """An unknown long poll is parsed as unknown, no reply, its bytes skipped."""
    codec = EgmCodec(1)
    assert 0xEE not in LAYOUTS
    events = feed(codec, "01 EE 01 02 03 04", "81")
    assert events == [UnknownPoll(1, 0xEE), GeneralPoll(1, h("81"))]
    assert codec.counts["unknown"] == 1 and codec.counts["stray"] == 0


def test_message_for_another_address_is_skipped_whole() -> None:
    """A long poll for address 2 gives address 1 no event, not even stray bytes."""
    codec = EgmCodec(1)
    assert feed(codec, "02 21 12 34 00 00") == []
    assert codec.counts["other_address"] == 1 and codec.counts["stray"] == 0


def test_unconfigured_address_zero_answers_nothing() -> None:
    """With address 0 (unconfigured) only broadcasts are seen, and they are never answered."""
    codec = EgmCodec(0)
    assert feed(codec, "81", "01 1A") == []
    (event,) = feed(codec, "80")
    with pytest.raises(ValueError):
        codec.answer(event, h("00"))
    with pytest.raises(ValueError):
        EgmCodec(128)


# --- implied ACK -------------------------------------------------------------------------


def test_repeat_gets_the_same_reply_up_to_the_third_try() -> None:
    """A repeated poll is flagged with the reply sent before (implied ACK)."""
    codec = EgmCodec(1)
    (first,) = feed(codec, "81")
    sent = codec.answer(first, replies.general_poll_reply(EXCEPTION_CODES["handpay_pending"]))
    (second,) = feed(codec, "81")
    assert isinstance(second, GeneralPoll) and second.repeat and second.last_reply == sent == h("51")
    assert second.attempt == 2
    codec.answer(second, second.last_reply)
    (third,) = feed(codec, "81")
    assert third.attempt == 3 and third.last_reply == h("51")


def test_different_poll_acknowledges() -> None:
    """A different poll in between acknowledges the reply: no repeat afterwards."""
    codec = EgmCodec(1)
    (a,) = feed(codec, "01 1A")
    codec.answer(a, replies.current_credits(1, 5))
    (b,) = feed(codec, "81")
    codec.answer(b, h("00"))
    (c,) = feed(codec, "01 1A")
    assert not c.repeat and c.attempt == 1


def test_poll_to_another_address_acknowledges() -> None:
    """NCompass polls address 0 "so EGM doesn't see implied NACK": it breaks the repeat."""
    codec = EgmCodec(1)
    (a,) = feed(codec, "01 1A")
    codec.answer(a, replies.current_credits(1, 5))
    assert [e for e in feed(codec, "80") if isinstance(e, GeneralPoll)]
    (c,) = feed(codec, "01 1A")
    assert not c.repeat
    (d,) = feed(codec, "01 1A")
    assert not d.repeat  # c was never answered, so d is not a repeat of an answered poll


def test_answer_refuses_a_reply_from_another_address() -> None:
    """The codec never sends a reply carrying another address."""
    codec = EgmCodec(1)
    (event,) = feed(codec, "01 1A")
    with pytest.raises(ValueError, match="address 1"):
        codec.answer(event, replies.current_credits(2, 5))
    with pytest.raises(ValueError, match="not ours"):
        codec.answer(GeneralPoll(2, h("82")), h("00"))
    with pytest.raises(ValueError, match="one exception byte"):
        codec.answer(GeneralPoll(1, h("81")), h("00 00"))
    assert codec.answer(event, replies.nack(1)) == h("81")
    assert codec.answer(event, replies.busy(1)) == h("01 00")


# --- reply builders, byte for byte --------------------------------------------------------


def test_reply_builders_byte_for_byte() -> None:
    """Each reply builder against a hand-built frame (CRC low byte first)."""
    assert replies.meters_1c(1, Meters1C(1, 2, 3, 4, 5, 6, 7, 8)) == h(
        "01 1C 00000001 00000002 00000003 00000004 00000005 00000006 00000007 00000008 D3 8E"
    )
    info = MachineInfo("BJ", "001", 0x01, 10, 0, b"\x00\x00", "BJ0001", "9950")
    assert replies.machine_info(1, info) == h("01 1F 424A 303031 01 0A 00 0000 424A30303031 39393530 F4 06")
    assert replies.rom_signature_reply(1, 0x1234) == h("01 21 34 12 0D A7")
    assert replies.sas_version(1, "ABC123") == h("01 54 09 363032 414243313233 D7 3A")
    assert replies.meter_reply(1, 0x10, 5) == h("01 10 00000005 C6 E7")
    assert replies.games_since_power_up(1, 12, 3) == h("01 18 0012 0003 FD E8")
    assert replies.selected_meters(1, 1, [(0x00, 5), (0x0D, 123)]) == h("01 2F 0D 0001 00 00000005 0D 0000000123 24 4A")
    assert replies.two_digit_count(1, 0x51, 1) == h("01 51 0001 0D D4")
    assert replies.general_poll_reply(0x7E) == h("7E")


def test_reply_builders_refuse_bad_values() -> None:
    """Address 0, overflowing meters and wrong field widths raise ValueError."""
    with pytest.raises(ValueError, match="broadcast"):
        replies.current_credits(0, 1)
    with pytest.raises(ValueError):
        replies.current_credits(1, 100_000_000)
    with pytest.raises(ValueError):
        replies.sas_version(1, "X" * 41)
    with pytest.raises(ValueError):
        replies.sas_version(1, "é")
    with pytest.raises(ValueError):
        replies.machine_info(1, MachineInfo("B", "001", 1, 1, 0, b"\x00\x00", "BJ0001", "9950"))
    with pytest.raises(ValueError):
        replies.rom_signature_reply(1, 0x10000)
    with pytest.raises(ValueError):
        replies.general_poll_reply(256)


def test_exception_code_table() -> None:
    """The general poll codes of research/sas.md, name <-> code."""
    assert EXCEPTION_CODES["slot_door_opened"] == 0x11
    assert EXCEPTION_CODES["handpay_pending"] == 0x51
    assert EXCEPTION_CODES["exception_buffer_overflow"] == 0x70
    assert EXCEPTION_CODES["game_ended"] == 0x7F
    assert EXCEPTION_NAMES[0x3D] == "cash_out_ticket_printed"
    assert len(EXCEPTION_NAMES) == len(EXCEPTION_CODES)


def test_every_layout_names_its_source() -> None:
    """Every layout entry carries its source; the unconfirmed ones say so."""
    for command, layout in LAYOUTS.items():
        assert layout.command == command
        assert layout.source.strip()
        assert (layout.data_len is None) == (layout.kind is Kind.M)
    unverified = {c for c, layout in LAYOUTS.items() if not layout.verified}
    assert unverified == set()
    needed = {
        0x01,
        0x02,
        0x06,
        0x07,
        0x08,
        0x0A,
        0x0B,
        0x0F,
        *range(0x10, 0x1A),
        0x1A,
        0x1B,
        0x1C,
        0x1E,
        0x1F,
        0x21,
        0x2F,
        0x4C,
        0x4D,
        0x50,
        0x51,
        0x53,
        0x54,
        0x55,
        0x57,
        0x58,
        0x70,
        0x71,
        0x7B,
        0x7C,
        0x7D,
        0x7E,
        0x7F,
        0x94,
    }
    assert needed <= set(LAYOUTS)


# --- split anywhere and fuzzing ----------------------------------------------------------

STREAM = b"".join(
    encode_message(h(m))
    for m in (
        "81",
        "01 1A",
        "01 21 12 34 DA 94",
        "01 2F 04 00 01 00 0D 15 8B",
        "02 1A",
        "01 7F 12 01 20 26 09 59 30 45 FF",
        "80",
        "01 EE 05",
    )
)


@given(st.lists(st.integers(0, len(STREAM)), max_size=12))
def test_split_anywhere_gives_the_same_events(cuts: list[int]) -> None:
    """The same stream cut at any points yields the same events."""
    whole = EgmCodec(1).feed(STREAM)
    assert [type(e).__name__ for e in whole] == [
        "GeneralPoll",
        "LongPoll",
        "LongPoll",
        "LongPoll",
        "LongPoll",
        "GeneralPoll",
        "UnknownPoll",
    ]
    codec = EgmCodec(1)
    points = sorted(cuts)
    got: list[Event] = []
    for a, b in zip([0, *points], [*points, len(STREAM)], strict=True):
        got += codec.feed(STREAM[a:b])
    assert got == whole


def _respond(codec: EgmCodec, events: list[Event]) -> list[bytes]:
    """Answer every answerable event the way a cabinet would; return what was sent."""
    sent: list[bytes] = []
    for event in events:
        if isinstance(event, GeneralPoll | LongPoll):
            if event.broadcast:
                with pytest.raises(ValueError):
                    codec.answer(event, h("00"))
                continue
            if isinstance(event, GeneralPoll):
                reply = replies.general_poll_reply(0)
            elif event.layout.reply == "ack":
                reply = replies.ack(event.address)
            else:
                reply = replies.long_reply(
                    event.address,
                    event.command,
                    bytes(event.layout.reply if isinstance(event.layout.reply, int) else 1),
                )
            sent.append(codec.answer(event, event.last_reply or reply))
    return sent


def _valid_message(address: int, command: int, payload: bytes) -> bytes:
    """A well-formed message for ``command`` (per its layout) to ``address``."""
    layout = LAYOUTS[command]
    head = bytes((address, command))
    if layout.kind is Kind.R:
        return head
    if layout.kind is Kind.S:
        assert layout.data_len is not None
        return with_crc(head + (payload * 16)[: layout.data_len].ljust(layout.data_len, b"\0"))
    data = payload.ljust(layout.min_len, b"\0")
    return with_crc(head + bytes((len(data),)) + data)


#: Mostly addresses 0-3, so the codec under test (address 0-3 too) sees its own polls often.
addresses = st.integers(0, 3) | st.integers(0, 127)

valid_parts = st.builds(
    lambda a, c, p, cut: encode_message(_valid_message(a, c, p))[:cut],  # maybe truncated
    addresses,
    st.sampled_from(sorted(LAYOUTS)),
    st.binary(max_size=12),
    st.integers(1, 40),
)

message_parts = st.one_of(
    valid_parts,
    valid_parts,
    st.binary(max_size=20),  # random bytes
    st.builds(lambda b: encode_message(b), st.binary(min_size=1, max_size=20)),  # random messages
    st.builds(lambda a: encode_message(bytes((0x80 | a,))), addresses),  # general polls
)


@settings(max_examples=400, deadline=None)
@given(addresses, st.lists(message_parts, max_size=12), st.lists(st.integers(0, 400), max_size=6))
def test_fuzz_never_raises_and_never_answers_another_address(address: int, parts: list[bytes], cuts: list[int]) -> None:
    """Random, truncated and misaddressed bytes never raise; events are only for our
    address or broadcast; replies only ever carry our address; broadcasts are never answered."""
    stream = b"".join(parts)
    codec = EgmCodec(address)
    points = sorted(min(c, len(stream)) for c in cuts)
    for a, b in zip([0, *points], [*points, len(stream)], strict=True):
        events = codec.feed(stream[a:b])
        for event in events:
            if isinstance(event, GeneralPoll | LongPoll | UnknownPoll):
                assert event.address in (address, 0)
        for reply in _respond(codec, events):
            assert address != 0
            assert len(reply) == 1 or reply[0] in (address, address | 0x80)


def test_a_poll_answered_busy_is_not_a_repeat() -> None:
    """After busy (address 00) the host asks again and gets a fresh answer, not busy again."""
    codec = EgmCodec(1)
    (first,) = feed(codec, "01 1A")
    codec.answer(first, replies.busy(1))
    (second,) = feed(codec, "01 1A")
    assert not second.repeat and second.attempt == 1
    codec.answer(second, replies.current_credits(1, 7))
    (third,) = feed(codec, "01 1A")
    assert third.repeat and third.last_reply == replies.current_credits(1, 7)


@settings(max_examples=300, deadline=None)
@given(addresses, st.lists(message_parts, max_size=10), st.lists(st.integers(0, 300), max_size=8))
def test_fuzz_split_anywhere_gives_the_same_events_and_counts(
    address: int, parts: list[bytes], cuts: list[int]
) -> None:
    """For any stream (garbage included), how it is chunked changes neither the
    events nor the counts."""
    stream = b"".join(parts)
    whole = EgmCodec(address)
    expected = whole.feed(stream)
    codec = EgmCodec(address)
    points = sorted(min(c, len(stream)) for c in cuts)
    got: list[Event] = []
    for a, b in zip([0, *points], [*points, len(stream)], strict=True):
        got += codec.feed(stream[a:b])
    assert got == expected
    assert codec.counts == whole.counts

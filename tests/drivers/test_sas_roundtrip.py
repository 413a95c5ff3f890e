"""Round trip for each implemented poll: host_codec builds the poll -> PARMRK
wakeup stream -> EGM codec -> reply builder -> host_codec frames and parses the reply."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.errors import ProtocolError
from drivers.sas import egm_info, egm_meter_polls, replies, tito_wire
from drivers.sas import host_codec as host
from drivers.sas.codec import (
    EgmCodec,
    GeneralPoll,
    LongPoll,
)
from drivers.sas.crc import rom_signature
from drivers.sas.egm_requests import parse_rom_signature_request, parse_selected_meters_request
from drivers.sas.egm_view import EgmView
from drivers.sas.layouts import LAYOUTS, Kind
from drivers.sas.messages import MachineInfo, Meters1C, meter_width

ADDRESS = 7
IMAGE = bytes(range(256)) * 40  # a stand-in program image for the ROM signature
INFO = MachineInfo("BJ", "001", 0x01, 10, 3, b"\x01\x02", "BJ0001", "9950")


@dataclass(frozen=True)
class Case:
    name: str
    message: bytes
    egm: Callable[[LongPoll | GeneralPoll], bytes]  # builds the EGM's reply from the event
    parse: Callable[[host.Reply], Any]  # what the host makes of the reply
    expected: Any


def _data(reply: host.Reply) -> bytes:
    assert isinstance(reply, host.DataReply), reply
    return reply.data


def _ack_case(command: int, data: bytes = b"") -> Case:
    def egm(event: LongPoll | GeneralPoll) -> bytes:
        assert isinstance(event, LongPoll) and event.command == command and event.data == data
        return replies.ack(event.address)

    return Case(f"0x{command:02X}", host.long_poll(ADDRESS, command, data), egm, lambda r: r, host.Ack(ADDRESS))


def _meter_case(command: int, value: int) -> Case:
    return Case(
        f"0x{command:02X}",
        host.long_poll(ADDRESS, command),
        lambda e: replies.meter_reply(e.address, command, value),
        lambda r: host.parse_meter(_data(r)),
        value,
    )


def _block_case(command: int, values: list[int]) -> Case:
    return Case(
        f"0x{command:02X}",
        host.long_poll(ADDRESS, command),
        lambda e: replies.meters_block(e.address, command, values),
        lambda r: host.parse_meters(_data(r), len(values)),
        values,
    )


def _rom_signature(event: LongPoll | GeneralPoll) -> bytes:
    assert isinstance(event, LongPoll)
    return replies.rom_signature_reply(event.address, rom_signature(parse_rom_signature_request(event.data), IMAGE))


METER_VALUES = {0x00: 123456, 0x0D: 9_876_543_210, 0x10: 42}


def _selected(event: LongPoll | GeneralPoll) -> bytes:
    assert isinstance(event, LongPoll)
    game, codes = parse_selected_meters_request(event.data)
    return replies.selected_meters(event.address, game, [(c, METER_VALUES[c]) for c in codes])


CASES = [
    Case(
        "general poll",
        host.general_poll(ADDRESS),
        lambda e: replies.general_poll_reply(0x51),
        lambda r: r,
        host.ExceptionReply(0x51),
    ),
    *(_ack_case(c) for c in (0x01, 0x02, 0x06, 0x07, 0x0A, 0x0B)),
    _ack_case(0x08, bytes.fromhex("00 00 FF FF 01")),
    _ack_case(0x7F, bytes.fromhex("12 01 20 26 09 59 30")),
    _block_case(0x0F, [1, 2, 3, 4, 5, 6]),
    *(_meter_case(c, 10_000 + c) for c in range(0x10, 0x18)),
    Case(
        "0x18",
        host.long_poll(ADDRESS, 0x18),
        lambda e: replies.games_since_power_up(e.address, 12, 3),
        lambda r: host.parse_games_since_power_up(_data(r)),
        (12, 3),
    ),
    _block_case(0x19, [11, 12, 13, 14, 15]),
    Case(
        "0x1A",
        host.long_poll(ADDRESS, 0x1A),
        lambda e: replies.current_credits(e.address, 99_999_999),
        lambda r: host.parse_meter(_data(r)),
        99_999_999,
    ),
    Case(
        "0x1C",
        host.long_poll(ADDRESS, 0x1C),
        lambda e: replies.meters_1c(e.address, Meters1C(100, 90, 80, 70, 60, 50, 4, 3)),
        lambda r: host.parse_meters_1c(_data(r)),
        Meters1C(100, 90, 80, 70, 60, 50, 4, 3),
    ),
    _block_case(0x1E, [1, 5, 10, 20, 50, 100]),
    Case(
        "0x1F",
        host.long_poll(ADDRESS, 0x1F),
        lambda e: replies.machine_info(e.address, INFO),
        lambda r: host.parse_machine_info(_data(r)),
        INFO,
    ),
    Case(
        "0x21",
        host.rom_signature_request(ADDRESS, 0xA5FF),
        _rom_signature,
        lambda r: host.parse_rom_signature(_data(r)),
        rom_signature(0xA5FF, IMAGE),
    ),
    Case(
        "0x2F",
        host.selected_meters_request(ADDRESS, 12, [0x00, 0x0D, 0x10]),
        _selected,
        lambda r: host.parse_selected_meters(_data(r)),
        (12, [(0x00, 123456), (0x0D, 9_876_543_210), (0x10, 42)]),
    ),
    Case(
        "0x51",
        host.long_poll(ADDRESS, 0x51),
        lambda e: replies.two_digit_count(e.address, 0x51, 1),
        lambda r: host.parse_two_digit_count(_data(r)),
        1,
    ),
    Case(
        "0x54",
        host.long_poll(ADDRESS, 0x54),
        lambda e: replies.sas_version(e.address, "CAB-0001"),
        lambda r: host.parse_sas_version(_data(r)),
        ("602", "CAB-0001"),
    ),
    Case(
        "0x55",
        host.long_poll(ADDRESS, 0x55),
        lambda e: replies.two_digit_count(e.address, 0x55, 0),
        lambda r: host.parse_two_digit_count(_data(r)),
        0,
    ),
]

# The TITO layouts (tito_wire) and the handpay polls, host build -> EGM -> host parse.
TICKET = "011234567890123456"
CASES += [
    Case(
        "0x1B",
        host.long_poll(ADDRESS, 0x1B),
        lambda e: replies.handpay_information(e.address, level=0x80, amount=123456, reset_id=1),
        lambda r: (r.data[1], r.data[2:7].hex(), r.data[9]),
        (0x80, "0000123456", 1),
    ),
    Case(
        "0x50",
        host.long_poll(ADDRESS, 0x50, b"\x80"),
        lambda e: tito_wire.validation_meters_reply(e.address, e.data[0], 12, 34_500),  # type: ignore[union-attr]
        lambda r: tito_wire.parse_validation_meters(_data(r)),
        (0x80, 12, 34_500),
    ),
    Case(
        "0x57",
        host.long_poll(ADDRESS, 0x57),
        lambda e: tito_wire.pending_cashout_reply(e.address, 0, 9_999_999_999),
        lambda r: tito_wire.parse_pending_cashout(_data(r)),
        (0, 9_999_999_999),
    ),
    Case(
        "0x58",
        host.long_poll(ADDRESS, 0x58, tito_wire.validation_number_request(1, "1234567890123456")),
        lambda e: tito_wire.validation_number_status(e.address, 0),
        lambda r: _data(r),
        b"\x00",
    ),
    Case(
        "0x70",
        host.long_poll(ADDRESS, 0x70),
        lambda e: tito_wire.ticket_validation_data(e.address, 0, 2500, TICKET),
        lambda r: tito_wire.parse_ticket_reply(_data(r)),
        tito_wire.TicketReply(0, 2500, 0, TICKET),
    ),
    Case(
        "0x71",
        host.long_poll(ADDRESS, 0x71, tito_wire.redeem_request(0, 2500, TICKET)),
        lambda e: tito_wire.redeem_status(e.address, 0x40, 2500, TICKET),
        lambda r: tito_wire.parse_ticket_reply(_data(r), 0x71),
        tito_wire.TicketReply(0x40, 2500, 0, TICKET),
    ),
    Case(
        "0x7B",
        host.long_poll(ADDRESS, 0x7B, tito_wire.extended_validation_status_request(0x21, 0x21, 30, 7)),
        lambda e: tito_wire.extended_validation_status_reply(e.address, 4242, 0x21, 30, 7),
        lambda r: tito_wire.parse_extended_validation_status_reply(_data(r)),
        (4242, 0x21, 30, 7),
    ),
    Case(
        "0x7C",
        host.long_poll(ADDRESS, 0x7C, b"\x00\x03BAR"),
        lambda e: tito_wire.ticket_data_reply(e.address, 0x7C),
        _data,
        b"\x01",
    ),
    Case(
        "0x7D",
        host.long_poll(ADDRESS, 0x7D, tito_wire.ticket_data_request(7, 30, "Casino", "1 Main St", "Town")),
        lambda e: tito_wire.ticket_data_reply(e.address, 0x7D),
        _data,
        b"\x01",
    ),
    Case("0x94", host.long_poll(ADDRESS, 0x94), lambda e: replies.remote_handpay_reset(e.address, 2), _data, b"\x02"),
    Case(
        "0xA8",
        host.long_poll(ADDRESS, 0xA8, b"\x01"),
        lambda e: tito_wire.reset_method_reply(e.address, 0),
        _data,
        b"\x00",
    ),
]

# The meter polls of egm_meter_polls (Monaco Sas.Client LPParsers layouts), host build -> EGM -> host parse.
METER_VIEW = EgmView(
    address=ADDRESS,
    coin_in=5000,
    coin_out=4200,
    jackpot=300,
    games_played=77,
    handpaid_cancelled_credits=700,
    bill_counts={2000: 3, 10000: 1},
    last_bill_minor=2000,
    machine_info=INFO,
    games=(INFO,),
    meters_minor={"coin_in_minor": 5000, "sas_coin_in_minor": 5000},
)


def _view_case(command: int, data: bytes, parse: Callable[[host.Reply], Any], expected: Any) -> Case:
    def egm(event: LongPoll | GeneralPoll) -> bytes:
        assert isinstance(event, LongPoll) and event.command == command
        view_reply = event.layout.view_reply
        assert view_reply is not None
        reply = view_reply(METER_VIEW, event.address, event.data, None)
        assert reply is not None
        return reply

    return Case(f"0x{command:02X}", host.long_poll(ADDRESS, command, data), egm, parse, expected)


CASES += [
    _view_case(0x20, b"", lambda r: host.parse_meter(_data(r)), 160),
    _view_case(0x2A, b"", lambda r: host.parse_meter(_data(r)), 0),
    _view_case(0x2B, b"", lambda r: host.parse_meter(_data(r)), 0),
    _view_case(0x2D, b"\x00\x00", _data, bytes.fromhex("0000 00000700")),
    _view_case(0x2E, b"\x00\x0a", lambda r: r, host.Nack(ADDRESS)),
    *(
        _view_case(c, b"", lambda r: host.parse_meter(_data(r)), {0x35: 3, 0x37: 1}.get(c, 0))
        for c in egm_meter_polls.BILL_POLLS_DOLLARS
    ),
    _view_case(0x48, b"", _data, bytes.fromhex("37 04 00000003")),
    _view_case(0x52, b"\x00\x01", _data, bytes.fromhex("0001 00005000 00004200 00000300 00000077")),
    _view_case(0x56, b"", _data, bytes.fromhex("01 0001")),
    _view_case(0x6F, bytes.fromhex("0001 0000 7F00"), _data, bytes.fromhex("0001 000005 0000005000 7F0004 00009950")),
    _view_case(0xAF, bytes.fromhex("0000 0500"), _data, bytes.fromhex("0000 050005 0000000000")),
]

#: Real-time events and the information polls (Aristocrat Monaco LPParsers layouts).
EVENT_VIEW = EgmView(
    address=ADDRESS,
    games=(INFO,),
    max_bet_credits=500,
    game_name="Blackjack",
    cashout_ticket_number="123456789012345678",
    cashout_ticket_minor=2000,
)
CASES += [
    _ack_case(0x0E, b"\x01"),
    Case(
        "0x3D",
        host.long_poll(ADDRESS, 0x3D),
        lambda e: egm_info.cashout_ticket(EVENT_VIEW, e.address, b"", None),
        _data,
        bytes.fromhex("12345678 0000002000"),
    ),
    Case(
        "0xA0",
        host.long_poll(ADDRESS, 0xA0, b"\x00\x01"),
        lambda e: egm_info.features_reply(EVENT_VIEW, e.address, e.data, False),
        _data,
        bytes.fromhex("0001 00 04 00 00 0000"),
    ),
    Case(
        "0xB5",
        host.long_poll(ADDRESS, 0xB5, b"\x00\x01"),
        lambda e: egm_info.game_information(EVENT_VIEW, e.address, e.data, None),
        lambda r: _data(r)[:4],
        bytes.fromhex("0001 0500"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_round_trip(case: Case) -> None:
    """Host poll -> wakeup stream -> EGM event -> reply -> host parse, split byte by byte."""
    hc = host.HostCodec()
    egm = EgmCodec(ADDRESS)
    wire = hc.send(case.message)
    events = [e for byte in wire for e in egm.feed(bytes((byte,)))]
    (event,) = events
    assert isinstance(event, GeneralPoll | LongPoll) and event.raw == case.message
    sent = egm.answer(event, case.egm(event))
    replies_got = [r for byte in sent for r in hc.feed(bytes((byte,)))]
    assert len(replies_got) == 1 and not hc.waiting
    assert case.parse(replies_got[0]) == case.expected
    # the host repeats the poll (it "lost" the reply): the EGM sees a repeat carrying the same reply
    (again,) = egm.feed(hc.send(case.message))
    assert isinstance(again, GeneralPoll | LongPoll) and again.repeat and again.last_reply == sent


def test_every_builder_has_a_round_trip() -> None:
    """Each layout with an EGM reply builder is covered by a round trip above."""
    covered = {c.message[1] for c in CASES if not c.message[0] & 0x80}
    with_builder = {c for c, layout in LAYOUTS.items() if layout.builder is not None}
    assert with_builder <= covered


# --- host framer -------------------------------------------------------------------------


def test_host_builds_polls_byte_for_byte() -> None:
    """R has no CRC, S appends the CRC, M adds the length byte; all low byte first."""
    assert host.general_poll(1) == bytes.fromhex("81")
    assert host.long_poll(1, 0x1A) == bytes.fromhex("01 1A")
    assert host.long_poll(1, 0x01) == bytes.fromhex("01 01 51 08")
    assert host.rom_signature_request(1, 0) == bytes.fromhex("01 21 00 00 5C 45")
    # nCompass LongPoll4CUnitTests.cpp Fill_DefaultTest: 3-byte ID + 3-byte sequence number, all zero
    assert host.long_poll(1, 0x4C, bytes(6)) == bytes.fromhex("01 4C 00 00 00 00 00 00 23 F7")
    with pytest.raises(ValueError):  # research/sas.md's 0x4C CRC vector has 7 data bytes, not 6
        host.long_poll(1, 0x4C, bytes.fromhex("00 00 01 00 00 00 01"))
    assert host.selected_meters_request(1, 1, [0x00, 0x0D]) == bytes.fromhex("01 2F 04 00 01 00 0D 15 8B")
    assert host.to_wire(bytes.fromhex("01 1A")) == bytes.fromhex("FF 00 01 1A")


def test_host_refuses_malformed_polls() -> None:
    """The host builder checks data against the layout."""
    with pytest.raises(ValueError, match="type R"):
        host.long_poll(1, 0x1A, b"\x00")
    with pytest.raises(ValueError, match="2 data bytes"):
        host.long_poll(1, 0x21, b"\x00")
    with pytest.raises(ValueError, match="not in the layout"):
        host.long_poll(1, 0xEE)
    with pytest.raises(ValueError):
        host.general_poll(128)
    unknown_reply = {**LAYOUTS, 0x57: dataclasses.replace(LAYOUTS[0x57], reply=None)}  # 0x57 is known now
    with pytest.raises(ValueError, match="not known"):
        host.HostCodec(unknown_reply).send(host.long_poll(1, 0x57))


def test_host_frames_nack_busy_bad_crc_wrong_address_and_stray() -> None:
    """NACK (0x80|address), busy (address 00), bad CRC, foreign address, stray bytes."""
    hc = host.HostCodec()
    hc.send(host.long_poll(1, 0x1A))
    assert hc.feed(bytes.fromhex("81")) == [host.Nack(1)]
    hc.send(host.long_poll(1, 0x1A))
    assert hc.feed(bytes.fromhex("01 00")) == [host.Busy(1)]
    hc.send(host.long_poll(1, 0x1A))
    assert hc.feed(bytes.fromhex("01 1A 00 00 12 34 45 2E")) == [
        host.BadReply("crc", bytes.fromhex("01 1A 00 00 12 34 45 2E"))
    ]
    hc.send(host.long_poll(1, 0x1A))
    assert hc.feed(bytes.fromhex("02")) == [host.BadReply("address", b"\x02")]
    assert hc.feed(bytes.fromhex("1A 00")) == [host.BadReply("stray", bytes.fromhex("1A 00"))]
    hc.send(host.long_poll(1, 0x1A))
    assert hc.feed(bytes.fromhex("01 1A 00")) == []
    assert hc.timeout() == [host.BadReply("timeout", bytes.fromhex("01 1A 00"))]
    assert hc.send(host.general_poll(0)) == bytes.fromhex("FF 00 80") and not hc.waiting


def test_host_parsers_refuse_wrong_lengths() -> None:
    """Reply data of the wrong length or not BCD/ASCII raises ProtocolError."""
    with pytest.raises(ProtocolError):
        host.parse_meter(b"\x00\x00\x01")
    with pytest.raises(ProtocolError):
        host.parse_meter(bytes.fromhex("0000001F"))
    with pytest.raises(ProtocolError):
        host.parse_machine_info(b"\x00" * 19)
    with pytest.raises(ProtocolError):
        host.parse_sas_version(b"60")
    with pytest.raises(ProtocolError):
        host.parse_selected_meters(bytes.fromhex("0001 0D 000000"))


meter = st.integers(0, 99_999_999)


@given(st.integers(1, 127), st.builds(Meters1C, meter, meter, meter, meter, meter, meter, meter, meter))
def test_meters_1c_round_trip_any_values(address: int, meters: Meters1C) -> None:
    """Any 8-digit meters and any address 1-127 survive 0x1C end to end."""
    hc, egm = host.HostCodec(), EgmCodec(address)
    (event,) = egm.feed(hc.send(host.long_poll(address, 0x1C)))
    assert isinstance(event, LongPoll)
    (reply,) = hc.feed(egm.answer(event, replies.meters_1c(address, meters)))
    assert host.parse_meters_1c(_data(reply)) == meters


@given(st.integers(0, 9999), st.lists(st.integers(0, 0xFF), max_size=10), st.data())
def test_selected_meters_round_trip_any_codes(game: int, codes: list[int], data: st.DataObject) -> None:
    """0x2F with any meter codes (4- or 5-byte values) round-trips, FF bytes included."""
    values = [data.draw(st.integers(0, 10 ** (2 * meter_width(c)) - 1)) for c in codes]
    hc, egm = host.HostCodec(), EgmCodec(ADDRESS)
    (event,) = egm.feed(hc.send(host.selected_meters_request(ADDRESS, game, codes)))
    assert isinstance(event, LongPoll)
    assert parse_selected_meters_request(event.data) == (game, codes)
    sent = egm.answer(event, replies.selected_meters(ADDRESS, game, list(zip(codes, values, strict=True))))
    (reply,) = hc.feed(sent)
    assert host.parse_selected_meters(_data(reply)) == (game, list(zip(codes, values, strict=True)))


@given(st.sampled_from(sorted(c for c, layout in LAYOUTS.items() if layout.reply is not None)), st.binary(max_size=40))
def test_host_framer_never_raises_on_random_replies(command: int, noise: bytes) -> None:
    """Whatever the EGM sends back, the host framer returns replies, never raises."""
    layout = LAYOUTS[command]
    data = b"" if layout.kind is not Kind.S else bytes(layout.data_len or 0)
    if layout.kind is Kind.M:
        data = bytes(layout.min_len)
    hc = host.HostCodec()
    hc.send(host.long_poll(ADDRESS, command, data))
    for reply in hc.feed(noise) + hc.timeout():
        assert isinstance(
            reply, host.ExceptionReply | host.Ack | host.Nack | host.Busy | host.DataReply | host.BadReply
        )

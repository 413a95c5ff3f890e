"""The TITO long polls byte for byte (drivers/sas/tito_wire.py) and the EGM's
TITO answers from its view (drivers/sas/egm_tito.py through EgmResponder), including
hostile host data: bad BCD, wrong lengths, unknown transfer codes, a number that is not
the ticket in escrow, a second validation number."""

from __future__ import annotations

import dataclasses

import pytest

from drivers.errors import ProtocolError
from drivers.sas import tito_codes as tc
from drivers.sas import tito_wire as tw
from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder, ExceptionAcked, LinkChanged, Output
from drivers.sas.egm_tito import HostDataRejected
from drivers.sas.egm_view import (
    EgmView,
    HandpayInfo,
    HostCommand,
    PendingCashout,
    TicketData,
    TicketIn,
)
from drivers.sas.host_codec import general_poll, long_poll, to_wire
from drivers.sas.layouts import LAYOUTS


def h(text: str) -> bytes:
    return bytes.fromhex(text)


TICKET = "001234567890123456"  # 18 digits: system ID 00, then 16
VIEW = EgmView(address=1, asset_number=0x01020304, validation_mode="system")


def responder(view: EgmView) -> EgmResponder:
    r = EgmResponder(1)
    r.update(view)
    return r


def send(r: EgmResponder, command: int, data: bytes = b"") -> tuple[list[bytes], list[Output]]:
    """One long poll as the host twin sends it: after a general poll to address 0, so the
    EGM never takes it for a repeat of the one before (implied ACK)."""
    out = r.receive(to_wire(general_poll(0)) + to_wire(long_poll(1, command, data)), 0)
    return (
        [o for o in out if isinstance(o, bytes)],
        [o for o in out if not isinstance(o, bytes | LinkChanged | ExceptionAcked)],
    )


def raw_m(command: int, data: bytes) -> bytes:
    """An M poll with any data (the host builder would refuse some of these)."""
    return to_wire(with_crc(bytes((1, command, len(data))) + data))


# --- wire layouts, byte for byte --------------------------------------------------------------


def test_egm_reply_frames_byte_for_byte() -> None:
    """Each TITO reply as its source lays it out (address, command, data, CRC low first)."""
    assert tw.pending_cashout_reply(1, 0x00, 12345) == with_crc(h("01 57 00 00 00 01 23 45"))
    assert tw.validation_number_status(1, 0x80) == with_crc(h("01 58 80"))
    assert tw.ticket_validation_data(1, 0x00, 2500, TICKET) == with_crc(
        h("01 70 10 00 00 00 00 25 00 00 00 12 34 56 78 90 12 34 56")
    )
    assert tw.ticket_validation_data(1, 0xFF) == with_crc(h("01 70 01 FF"))  # Monaco LP70: status alone
    assert tw.redeem_status(1, 0xC0) == with_crc(h("01 71 01 C0"))
    assert tw.redeem_status(1, 0x40, 2500, TICKET) == with_crc(
        h("01 71 10 40 00 00 00 25 00 00 00 12 34 56 78 90 12 34 56")
    )
    assert tw.validation_meters_reply(1, 0x80, 12, 34500) == with_crc(h("01 50 80 00 00 00 12 00 00 03 45 00"))
    assert tw.extended_validation_status_reply(1, 0x01020304, 0x0021, 30, 7) == with_crc(
        h("01 7B 0A 04 03 02 01 21 00 00 30 00 07")
    )
    assert tw.ticket_data_reply(1, 0x7D) == with_crc(h("01 7D 01"))  # Monaco LP7D: 01 = flag true
    assert tw.reset_method_reply(1, 2) == with_crc(h("01 A8 02"))
    assert tw.pending_cashout_reply(1, 0, 5)[-2:] == with_crc(h("01 57 00 00 00 00 00 05"))[-2:]


def test_host_request_data_byte_for_byte() -> None:
    """What the host twin sends: 0x58 (system ID + 8 BCD; 00 = denied), 0x71
    (nCompass's 22 bytes; FF = status query), 0x7D, 0x7B."""
    assert tw.validation_number_request(1, "1234567890123456") == h("01 12 34 56 78 90 12 34 56")
    assert tw.validation_number_request(12, "1234567890123456")[:1] == h("12")  # 1 BCD (Monaco LP58)
    assert tw.validation_number_request(0, "") == bytes(9)
    assert tw.redeem_request(0, 2500, TICKET) == h("00 00 00 00 25 00 00 00 12 34 56 78 90 12 34 56 00 00 00 00 00 00")
    assert long_poll(1, 0x71, tw.STATUS_QUERY) == with_crc(h("01 71 01 FF"))
    assert tw.ticket_data_request(0x0102, 30, "AB", "", "C") == h("02 01 1E 02 41 42 00 01 43")
    assert tw.ticket_data_request(0x0102) == h("02 01")
    assert tw.extended_validation_status_request(0x0021, 0x0001, 30, 0) == h("21 00 01 00 00 30 00 00")
    with pytest.raises(ValueError):
        tw.validation_number_request(1, "12345678901234567")  # 17 digits
    with pytest.raises(ValueError):
        tw.ticket_data_request(1, 1, "x" * 41)


def test_request_parsers_take_good_data_and_name_what_is_bad() -> None:
    """EGM-side parsers return the fields, or ProtocolError saying what is wrong."""
    assert tw.parse_validation_number(h("01 12 34 56 78 90 12 34 56")) == (1, "1234567890123456")
    assert tw.parse_validation_number(h("00 FF FF FF FF FF FF FF FF")) == (0, "")  # denied: number ignored
    assert tw.parse_validation_number(h("99 12 34 56 78 90 12 34 56")) == (99, "1234567890123456")
    with pytest.raises(ProtocolError, match="system ID"):
        tw.parse_validation_number(h("1A 12 34 56 78 90 12 34 56"))
    with pytest.raises(ProtocolError, match="not BCD"):
        tw.parse_validation_number(h("01 12 34 56 78 90 12 34 5A"))
    with pytest.raises(ProtocolError, match="9 bytes"):
        tw.parse_validation_number(h("01 12"))
    r = tw.parse_redeem(tw.redeem_request(0x00, 2500, TICKET, 12312026, 42))
    assert (r.transfer_code, r.amount, r.validation_number, r.restricted_expiration, r.pool_id) == (
        0,
        2500,
        TICKET,
        12312026,
        42,
    )
    assert tw.parse_redeem(b"\xff").status_query
    assert tw.parse_redeem(tw.redeem_request(0x84, 0, TICKET)[:16]).transfer_code == 0x84  # short form
    with pytest.raises(ProtocolError, match="0x71 amount"):
        tw.parse_redeem(h("00 00 00 00 2A 00") + tw.redeem_request(0, 0, TICKET)[6:])
    with pytest.raises(ProtocolError, match="16 or at least 22"):
        tw.parse_redeem(bytes(17))
    t = tw.parse_redeem(tw.redeem_request(0, 2500, TICKET) + b"\x02AB")
    assert (t.amount, t.target_id) == (2500, "AB")
    with pytest.raises(ProtocolError, match="target ID"):
        tw.parse_redeem(tw.redeem_request(0, 2500, TICKET) + b"\x05AB")
    with pytest.raises(ProtocolError, match="status query"):
        tw.parse_redeem(b"\x00")
    assert tw.parse_ticket_data(tw.ticket_data_request(7, 30, "Casino", "1 Main St", "Town")) == tw.TicketDataRequest(
        7, 30, "Casino", "1 Main St", "Town"
    )
    assert tw.parse_ticket_data(h("07 00 1E 00 00 00")) == tw.TicketDataRequest(7, 30)
    assert tw.parse_ticket_data(b"") == tw.TicketDataRequest()
    with pytest.raises(ProtocolError, match="truncated"):
        tw.parse_ticket_data(h("07 00 1E 05 41 42"))
    with pytest.raises(ProtocolError, match="after address 2"):
        tw.parse_ticket_data(tw.ticket_data_request(7, 30, "A") + b"\x00\x00\x00")
    with pytest.raises(ProtocolError, match="printable ASCII"):
        tw.parse_ticket_data(h("07 00 1E 01 07 00 00"))
    assert tw.parse_extended_ticket_data(h("00 02 41 42 10 01 43")) == {"location": "AB", "restricted_title": "C"}
    with pytest.raises(ProtocolError, match="not known"):
        tw.parse_extended_ticket_data(h("05 01 41"))
    assert tw.parse_extended_validation_status(h("21 00 01 00 00 30 00 07")) == (0x21, 1, 30, 7)
    with pytest.raises(ProtocolError, match="not BCD"):
        tw.parse_extended_validation_status(h("21 00 01 00 00 3A 00 07"))


def test_host_reply_parsers() -> None:
    """Host-side parsers of 0x57, 0x70/0x71, 0x50, 0x7B replies; bad data raises."""
    assert tw.parse_pending_cashout(h("00 00 00 01 23 45")) == (0, 12345)
    assert tw.parse_ticket_reply(tw.ticket_validation_data(1, 0, 2500, TICKET)[3:-2]) == tw.TicketReply(
        0, 2500, 0, TICKET
    )
    assert tw.parse_validation_meters(h("80 00 00 00 12 00 00 03 45 00")) == (0x80, 12, 34500)
    with pytest.raises(ProtocolError):
        tw.parse_pending_cashout(h("00 00 00 01 23 4F"))
    with pytest.raises(ProtocolError):
        tw.parse_ticket_reply(bytes(15))
    assert tw.parse_ticket_reply(h("C0"), 0x71) == tw.TicketReply(0xC0, 0, 0, "")


def test_layouts_of_the_tito_polls() -> None:
    """The framing each TITO poll gets (kind, request and reply shape) and a
    source; the unconfirmed ones are marked UNVERIFIED."""
    expect = {
        0x1B: ("R", 0, 20),
        0x50: ("S", 1, 10),
        0x57: ("R", 0, 6),
        0x58: ("S", 9, 1),
        0x70: ("R", 0, "length"),
        0x71: ("M", None, "length"),
        0x7B: ("M", None, "length"),
        0x7C: ("M", None, 1),
        0x7D: ("M", None, 1),
        0x94: ("S", 0, 1),
        0xA8: ("S", 1, 1),
    }
    for command, (kind, data_len, reply) in expect.items():
        layout = LAYOUTS[command]
        assert (layout.kind.value, layout.data_len, layout.reply) == (kind, data_len, reply), hex(command)
        assert layout.builder is not None and layout.source
    assert all(LAYOUTS[c].verified for c in expect if c != 0x1B)
    assert "cents" in LAYOUTS[0x57].source and "LP57" in LAYOUTS[0x57].source
    assert LAYOUTS[0x4C].builder is None and LAYOUTS[0x4D].builder is None  # secure enhanced: left out


def test_apply_validation_status_keeps_unmasked_and_unsupported_bits() -> None:
    """0x7B: masked bits take the new value, the others stay; unsupported bits stay 0."""
    assert tc.apply_validation_status(0x0000, 0x0021, 0x0021) == 0x0021
    assert tc.apply_validation_status(0x0021, 0x0001, 0x0000) == 0x0020
    assert tc.apply_validation_status(0x0000, 0xFFFF, 0xFFFF) == tc.VS_SUPPORTED


# --- the EGM's answers ------------------------------------------------------------------------


def test_0x57_reports_the_pending_cashout_or_not_waiting() -> None:
    """0x57 gives the cash-out waiting for validation; none (or mode none): type 80."""
    r = responder(dataclasses.replace(VIEW, pending_cashout=PendingCashout(7, 2500)))
    assert send(r, 0x57)[0] == [tw.pending_cashout_reply(1, 0, 2500)]
    r.update(VIEW)
    assert send(r, 0x57)[0] == [tw.pending_cashout_reply(1, tc.CASHOUT_NOT_WAITING, 0)]
    r.update(dataclasses.replace(VIEW, validation_mode="none", pending_cashout=PendingCashout(8, 100)))
    assert send(r, 0x57)[0] == [tw.pending_cashout_reply(1, tc.CASHOUT_NOT_WAITING, 0)]


def test_0x58_hands_the_number_once_and_refuses_bad_or_second_numbers() -> None:
    """A good 0x58 is ACKed (00) and handed once; a denial (system ID 00) is
    handed as such; a different second number -> 81; bad BCD -> NACK; no cash-out -> 80."""
    r = responder(dataclasses.replace(VIEW, pending_cashout=PendingCashout(7, 2500)))
    good = tw.validation_number_request(1, "1234567890123456")
    w, ev = send(r, 0x58, good)
    assert w == [tw.validation_number_status(1, tc.VN_ACK)]
    assert ev == [
        HostCommand(
            "validation_number", 0x58, cashout_id=7, validation_system_id=1, validation_number="1234567890123456"
        )
    ]
    send(r, 0x1A)  # another poll between: the same 0x58 again is a new message, not a repeat
    w, ev = send(r, 0x58, good)
    assert w == [tw.validation_number_status(1, tc.VN_ACK)] and ev == []
    w, ev = send(r, 0x58, tw.validation_number_request(1, "9999999999999999"))
    assert w == [tw.validation_number_status(1, tc.VN_IMPROPER)]
    assert isinstance(ev[0], HostDataRejected) and "already" in ev[0].reason
    r.update(dataclasses.replace(VIEW, pending_cashout=PendingCashout(8, 100)))
    w, ev = send(r, 0x58, h("01 12 34 56 78 90 12 34 5F"))
    assert w == [b"\x81"] and "not BCD" in ev[0].reason  # type: ignore[union-attr]  # NACK (Monaco LP58)
    w, ev = send(r, 0x58, tw.validation_number_request(0, ""))
    assert w == [tw.validation_number_status(1, tc.VN_ACK)]
    assert ev == [HostCommand("validation_number", 0x58, cashout_id=8, validation_system_id=0)]
    r.update(VIEW)
    w, ev = send(r, 0x58, good)
    assert w == [tw.validation_number_status(1, tc.VN_NOT_IN_CASHOUT)] and isinstance(ev[0], HostDataRejected)


def test_ticket_redemption_pending_then_final_status() -> None:
    """0x70 gives the escrowed ticket; 0x71 redeem -> 40 at once and one
    redeem_ticket command; 0x71 FF -> 40 until the engine decides, then its status and
    the credited amount; 0x70 then says no ticket."""
    t = TicketIn(ticket_id=3, validation_number=TICKET, amount_cents=2500)
    r = responder(dataclasses.replace(VIEW, ticket_in=t))
    assert send(r, 0x70)[0] == [tw.ticket_validation_data(1, 0, 2500, TICKET)]
    w, ev = send(r, 0x71, tw.redeem_request(0, 2500, TICKET))
    assert w == [tw.redeem_status(1, tc.STATUS_PENDING, 2500, TICKET)]
    assert ev == [
        HostCommand(
            "redeem_ticket",
            0x71,
            ticket_id=3,
            transfer_code=0,
            amount_cents=2500,
            parsing_code=0,
            validation_number=TICKET,
        )
    ]
    assert send(r, 0x71, tw.STATUS_QUERY)[0] == [tw.redeem_status(1, tc.STATUS_PENDING, 2500, TICKET)]
    send(r, 0x1A)
    assert send(r, 0x71, tw.redeem_request(0, 2500, TICKET)) == ([tw.redeem_status(1, 0x40, 2500, TICKET)], [])
    r.update(
        dataclasses.replace(VIEW, ticket_in=dataclasses.replace(t, status=0, transfer_code=0, amount_cents_final=2500))
    )
    assert send(r, 0x71, tw.STATUS_QUERY)[0] == [tw.redeem_status(1, 0x00, 2500, TICKET)]
    assert send(r, 0x70)[0] == [tw.ticket_validation_data(1, tc.NO_TICKET_IN_ESCROW)]
    r.update(VIEW)
    assert send(r, 0x71, tw.STATUS_QUERY)[0] == [tw.redeem_status(1, tc.STATUS_NO_INFO)]


def test_0x71_hostile_data_is_refused_with_a_reason_and_no_command() -> None:
    """A number that is not the escrowed ticket's -> 81; unknown transfer code -> 82;
    non-BCD amount -> 83; wrong length -> NACK; no ticket -> C0.  Never a command."""
    t = TicketIn(ticket_id=3, validation_number=TICKET, amount_cents=0)
    r = responder(dataclasses.replace(VIEW, ticket_in=t))
    cases = [
        (tw.redeem_request(0, 2500, "009999999999999999"), tc.STATUS_NUMBER_MISMATCH),
        (tw.redeem_request(0x42, 2500, TICKET), tc.STATUS_BAD_TRANSFER_CODE),
        (tw.redeem_request(0, 2500, TICKET, parsing_code=1), tc.STATUS_BAD_TRANSFER_CODE),
        (h("00 00 00 00 2A 00") + tw.redeem_request(0, 0, TICKET)[6:], tc.STATUS_BAD_AMOUNT),
    ]
    for data, code in cases:
        out = r.receive(raw_m(0x71, data), 0)
        (reply,) = [o for o in out if isinstance(o, bytes)]
        assert reply[3] == code, (data.hex(), reply.hex())
        rejected = [o for o in out if isinstance(o, HostDataRejected)]
        assert rejected and rejected[0].reply == f"0x{code:02X}" and rejected[0].reason
        assert not any(isinstance(o, HostCommand) for o in out)
        send(r, 0x1A)
    out = r.receive(raw_m(0x71, bytes(17)), 0)
    assert [o for o in out if isinstance(o, bytes)] == [bytes((0x81,))]  # NACK
    assert [o.reply for o in out if isinstance(o, HostDataRejected)] == ["nack"]
    r.update(VIEW)
    w, ev = send(r, 0x71, tw.redeem_request(0, 2500, TICKET))
    assert w[0][3] == tc.STATUS_NOT_IN_CYCLE and isinstance(ev[0], HostDataRejected)


def test_an_amount_that_does_not_fit_is_never_wrapped() -> None:
    """A cash-out or ticket amount above 10 digits (or negative) makes 0x57 / 0x70
    a NACK (counted as bad data) instead of telling the host a wrong amount."""
    r = responder(
        dataclasses.replace(
            VIEW, pending_cashout=PendingCashout(1, 10**10), ticket_in=TicketIn(1, TICKET, amount_cents=-5)
        )
    )
    assert send(r, 0x57)[0] == [b"\x81"] and send(r, 0x70)[0] == [b"\x81"]
    assert r.counts["bad_data"] == 2


def test_a_reject_is_handed_so_the_engine_returns_the_ticket() -> None:
    """A host reject (transfer code 84 already redeemed) is handed as redeem_ticket
    with that code (the engine returns the ticket); the reply is 40 pending."""
    r = responder(dataclasses.replace(VIEW, ticket_in=TicketIn(4, TICKET)))
    w, ev = send(r, 0x71, tw.redeem_request(tc.TC_ALREADY_REDEEMED, 0, TICKET))
    assert w == [tw.redeem_status(1, tc.STATUS_PENDING, 0, TICKET)]
    assert isinstance(ev[0], HostCommand) and ev[0].transfer_code == 0x84 and ev[0].ticket_id == 4


def test_0x50_validation_meters_and_0x7b_0x7c_0x7d_settings() -> None:
    """0x50 from view.validation_meters (zeros when not kept); 0x7B applied to the
    supported bits and echoed with the asset number; 0x7D/0x7C merged onto view.ticket_data
    and handed; malformed 0x7B -> NACK, malformed 0x7D -> flag 00 (Monaco LP7D)."""
    r = responder(
        dataclasses.replace(
            VIEW,
            validation_meters={0x00: (3, 7500)},
            ticket_data=TicketData(location="Old", cashable_expiration_days=10),
        )
    )
    assert send(r, 0x50, b"\x00")[0] == [tw.validation_meters_reply(1, 0, 3, 7500)]
    assert send(r, 0x50, b"\x82")[0] == [tw.validation_meters_reply(1, 0x82, 0, 0)]
    w, ev = send(r, 0x7B, tw.extended_validation_status_request(0xFFFF, 0x0023, 0, 5))
    assert w == [tw.extended_validation_status_reply(1, 0x01020304, 0x0021, 10, 5)]
    assert ev == [HostCommand("set_extended_validation_status", 0x7B, validation_control=(0xFFFF, 0x23, 10, 5))]
    w, ev = send(r, 0x7D, tw.ticket_data_request(9, 30, "Casino", "1 Main St", "Town"))
    assert w == [tw.ticket_data_reply(1, 0x7D)]
    assert ev == [
        HostCommand(
            "set_ticket_data",
            0x7D,
            ticket_data=TicketData(
                host_id=9,
                expiration_days=30,
                location="Casino",
                address1="1 Main St",
                address2="Town",
                cashable_expiration_days=10,
            ),
        )
    ]
    w, ev = send(r, 0x7C, h("01 03 41 42 43"))
    assert ev == [
        HostCommand(
            "set_ticket_data", 0x7C, ticket_data=TicketData(location="Old", address1="ABC", cashable_expiration_days=10)
        )
    ]
    out = r.receive(raw_m(0x7D, h("09 00 1E 05 41 42")), 0)
    assert [o for o in out if isinstance(o, bytes)] == [tw.ticket_data_reply(1, 0x7D, tw.TICKET_DATA_NOT_SET)]
    assert [type(o).__name__ for o in out if not isinstance(o, bytes)] == ["HostDataRejected"]


def test_0xa8_reset_method_codes() -> None:
    """0xA8 is handed; reply 2 with no handpay, 1 when the credit meter reset is not
    allowed, 0 when it is; a method other than 00/01 is NACKed."""
    r = responder(VIEW)
    w, ev = send(r, 0xA8, b"\x01")
    assert w == [tw.reset_method_reply(1, 2)] and ev == [
        HostCommand("handpay_reset_to_credit_meter", 0xA8, reset_method=1)
    ]
    r.update(dataclasses.replace(VIEW, handpay=HandpayInfo(500)))
    assert send(r, 0xA8, b"\x01")[0] == [tw.reset_method_reply(1, 1)]
    assert send(r, 0xA8, b"\x00")[0] == [tw.reset_method_reply(1, 0)]
    r.update(dataclasses.replace(VIEW, handpay=HandpayInfo(500, credit_reset_allowed=True)))
    assert send(r, 0xA8, b"\x01")[0] == [tw.reset_method_reply(1, 0)]
    reply_1b = send(r, 0x1B)[0][0]
    assert reply_1b[11] == 1  # reset ID: credit meter reset available
    w, ev = send(r, 0xA8, b"\x05")
    assert w == [b"\x81"] and isinstance(ev[0], HostDataRejected)


def test_tito_fuzz_never_raises() -> None:
    """Random data in every TITO poll (fixed seed) never raises and never hands a
    command from data that does not parse."""
    import random

    rng = random.Random(14)
    r = responder(dataclasses.replace(VIEW, pending_cashout=PendingCashout(1, 5), ticket_in=TicketIn(1, TICKET)))
    for i in range(3000):
        command = rng.choice([0x50, 0x57, 0x58, 0x70, 0x71, 0x7B, 0x7C, 0x7D, 0xA8])
        layout = LAYOUTS[command]
        if layout.kind.value == "M":
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30)))
            msg = raw_m(command, data)
        elif layout.kind.value == "S":
            data = bytes(rng.randrange(256) for _ in range(layout.data_len or 0))
            msg = to_wire(long_poll(1, command, data))
        else:
            msg = to_wire(long_poll(1, command))
        out = r.receive(msg, i)
        for o in out:
            if isinstance(o, HostCommand) and command == 0x71:
                assert o.transfer_code in tc.TC_REDEEM | tc.TC_REJECT
        r.receive(to_wire(long_poll(1, 0x1A)), i)
        if i % 300 == 0:
            r.update(
                dataclasses.replace(VIEW, pending_cashout=PendingCashout(i + 2, 5), ticket_in=TicketIn(i + 2, TICKET))
            )

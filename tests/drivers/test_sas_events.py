"""Real-time event reporting (0x0E) and the information polls 0x3D, 0xA0, 0xB5, byte for
byte: a hand-built poll in, the reply bytes out.  Each test names the public layout it
follows (Aristocrat Monaco platform, GitHub tejvirc/Platform, ``Protocol/SAS/``)."""

from __future__ import annotations

import dataclasses

from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder, ExceptionAcked, Output
from drivers.sas.egm_view import EgmView, HandpayInfo, HostException
from drivers.sas.host_codec import Ack, EventReply, ExceptionReply, HostCodec, general_poll, long_poll, to_wire
from drivers.sas.layouts import LAYOUTS
from drivers.sas.messages import MachineInfo


def h(text: str) -> bytes:
    return bytes.fromhex(text)


INFO = MachineInfo("BJ", "000", 0x01, 25, 0, b"\x00\x00", "BJCL01", "9989")
BASE = EgmView(
    address=1,
    current_credits=500,
    machine_info=INFO,
    games=(INFO,),
    selected_game=1,
    max_bet_credits=500,
    game_name="Blackjack",
)
DOOR = HostException(7, "slot_door_opened")


def gp(address: int = 1) -> bytes:
    return to_wire(general_poll(address))


def lp(command: int, data: bytes = b"", address: int = 1) -> bytes:
    return to_wire(long_poll(address, command, data))


def writes(outs: list[Output]) -> list[bytes]:
    return [o for o in outs if isinstance(o, bytes)]


def acks(outs: list[Output]) -> list[int]:
    return [o.exception_id for o in outs if isinstance(o, ExceptionAcked)]


def responder(*excs: HostException, rte: bool = True, **kw: object) -> EgmResponder:
    r = EgmResponder(1, link_timeout_ms=10**9)
    r.update(dataclasses.replace(BASE, exceptions=excs, **kw))  # type: ignore[arg-type]
    if rte:
        assert writes(r.receive(lp(0x0E, b"\x01"), 0)) == [h("01")]
    return r


# --- 0x0E enable / disable ------------------------------------------------------------------


def test_0e_enable_acks_and_a_bad_value_is_nacked() -> None:
    """LP0ERealTimeEventReportingParser.cs: 01 enables, 00 disables (both ACKed, the
    address alone); any other value is NACKed (address | 0x80) and changes nothing."""
    r = responder(rte=False)
    assert writes(r.receive(lp(0x0E, b"\x02"), 0)) == [h("81")]
    assert r.real_time_events is False
    assert writes(r.receive(lp(0x0E, b"\x01"), 10)) == [h("01")]
    assert r.real_time_events is True
    assert writes(r.receive(lp(0x0E, b"\x00"), 20)) == [h("01")]
    assert r.real_time_events is False


def test_general_poll_with_rte_is_the_ff_event_form() -> None:
    """SasClient.cs HandleGeneralPoll; SasClientTest RunWithRealTimeExceptionTest: while
    on, a general poll gets ``address FF code CRC`` ("address, 0xFF, ACPowerApplied,
    crc, crc"); nothing pending: ``address FF 00 CRC`` (the no-exception builder's byte)."""
    r = responder(DOOR)
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 11"))]
    out = r.receive(gp(0), 110)  # implied ACK (a poll to address 0)
    assert acks(out) == [7]
    r.update(dataclasses.replace(BASE, exceptions=()))  # the engine journaled it
    assert writes(r.receive(gp(), 200)) == [with_crc(h("01 FF 00"))]


def test_disabled_rte_answers_the_one_byte_again() -> None:
    """LP0ERealTimeEventReportingParser.cs: 00 turns it off; the byte form is back."""
    r = responder(DOOR)
    assert writes(r.receive(gp(0), 5)) == []
    assert writes(r.receive(lp(0x0E, b"\x00"), 10)) == [with_crc(h("01 FF 11"))]  # the event goes first
    r.receive(gp(0), 15)  # acknowledges it
    r.update(dataclasses.replace(BASE, exceptions=()))
    assert writes(r.receive(lp(0x0E, b"\x00"), 20)) == [h("01")]
    r.update(dataclasses.replace(BASE, exceptions=(HostException(8, "slot_door_closed"),)))
    assert writes(r.receive(gp(), 30)) == [h("12")]


def test_bill_accepted_event_carries_country_denomination_and_lifetime_count() -> None:
    """BillDataExceptionBuilder.cs and BillDataExceptionBuilderTests: 4F (every bill in
    RTE mode), country 1 BCD (United States 37), denomination code 1 BCD ($20 = 04),
    lifetime count of that bill 4 BCD."""
    r = responder(HostException(3, "bill_accepted", amount_credits=2000, bill_minor=2000, count=7))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 4F 37 04 00 00 00 07"))]
    r = responder(HostException(3, "bill_accepted", amount_credits=10000, bill_minor=10000, count=1234))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 4F 37 07 00 00 12 34"))]


def test_game_started_event_carries_wager_coin_in_wager_type_and_group() -> None:
    """GameStartedExceptionBuilder.cs (+ tests): 7E, credits wagered 2 BCD, coin in 4 BCD,
    wager type (PrimaryGameStartedConsumer: 0x40 | 0x80 at max bet | denomination code),
    progressive group 00 (no SAS progressive)."""
    r = responder(HostException(4, "game_started", amount_credits=25, meter_credits=1234))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 7E 00 25 00 00 12 34 41 00"))]
    r = responder(HostException(4, "game_started", amount_credits=500, meter_credits=99999999, max_bet=True))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 7E 05 00 99 99 99 99 C1 00"))]


def test_game_ended_and_recall_events() -> None:
    """GameEndedExceptionBuilder.cs: 7F + win 4 BCD credits; GameRecallEntryDisplayed-
    ExceptionBuilder.cs: 8A + game number 2 BCD + recall entry 2 BCD."""
    r = responder(HostException(5, "game_ended", amount_credits=40))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 7F 00 00 00 40"))]
    r = responder(HostException(6, "game_recall_entry_displayed", count=3))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 8A 00 01 00 03"))]


def test_long_poll_is_answered_with_the_pending_event_then_its_own_reply() -> None:
    """SasClient.cs ProcessLongPollMessage: with RTE on and an event pending, a long poll
    to us is answered with the event (it then waits for its implied ACK; the host's
    retry of the same poll gets it again: HostAcknowledgementProvider); once it is
    acknowledged and journaled the long poll gets its own reply.  Exactly once."""
    r = responder(DOOR)
    assert writes(r.receive(lp(0x1A), 100)) == [with_crc(h("01 FF 11"))]
    assert writes(r.receive(lp(0x1A), 110)) == [with_crc(h("01 FF 11"))]  # a retry: same event
    out = r.receive(gp(0), 120)  # implied ACK
    assert acks(out) == [7]
    assert writes(r.receive(lp(0x1A), 130)) == [with_crc(h("01 1A 00 00 05 00"))]  # journal pending: own reply
    r.update(dataclasses.replace(BASE, exceptions=()))
    assert writes(r.receive(lp(0x1A), 140)) == [with_crc(h("01 1A 00 00 05 00"))]


def test_unacknowledged_event_is_sent_again_after_link_down() -> None:
    """Exactly once (DESIGN "a restart loses none"): an event whose reply was not
    acknowledged is reported again; one acknowledged is never sent twice."""
    r = EgmResponder(1, link_timeout_ms=1000)
    r.update(dataclasses.replace(BASE, exceptions=(DOOR,)))
    r.receive(lp(0x0E, b"\x01"), 0)
    assert writes(r.receive(gp(), 10)) == [with_crc(h("01 FF 11"))]
    r.tick(5000)  # link down: forgotten
    assert writes(r.receive(gp(), 5100)) == [with_crc(h("01 FF 11"))]
    assert acks(r.receive(gp(0), 5110)) == [7]
    assert writes(r.receive(gp(), 5120)) == [with_crc(h("01 FF 00"))]  # journal pending: nothing


def test_broadcast_long_poll_is_not_answered_with_an_event() -> None:
    """SasClient.cs: only a long poll to this address (not a broadcast) carries an event."""
    r = responder(DOOR)
    assert writes(r.receive(lp(0x7F, h("12 02 2026 15 30 00"), address=0), 100)) == []
    assert writes(r.receive(gp(), 110)) == [with_crc(h("01 FF 11"))]


def test_handpay_resend_is_an_event_too() -> None:
    """The 0x51 re-send (every 15 s until 0x1B) in RTE form: ``01 FF 51 CRC``."""
    r = responder(handpay=HandpayInfo(100))
    assert writes(r.receive(gp(), 100)) == [with_crc(h("01 FF 51"))]


# --- 0x3D cash-out ticket information -------------------------------------------------------


def test_3d_reports_the_last_ticket_in_cents() -> None:
    """LP3DSendCashOutTicketInformationParser.cs: validation number 4 BCD (the low 8
    digits, Utilities.ToBcd), amount 5 BCD in cents; zeros before the first ticket."""
    r = responder(rte=False, cashout_ticket_number="001234567890123456", cashout_ticket_minor=2000)
    assert writes(r.receive(lp(0x3D), 0)) == [with_crc(h("01 3D 90 12 34 56 00 00 00 20 00"))]
    r = responder(rte=False)
    assert writes(r.receive(lp(0x3D), 0)) == [with_crc(h("01 3D 00 00 00 00 00 00 00 00 00"))]


def test_3d_is_not_answered_with_system_validation() -> None:
    """LP3DSendCashOutTicketInformationHandler.cs: "Don't respond to 3D commands when
    not configured for None validation"."""
    r = responder(rte=False, validation_mode="system", cashout_ticket_number="12", cashout_ticket_minor=5)
    assert writes(r.receive(lp(0x3D), 0)) == []


# --- 0xA0 enabled features ---------------------------------------------------------------------


def test_a0_reports_what_the_cabinet_does() -> None:
    """LPA0SendEnabledFeaturesParser.cs: game number echoed, features 1-4, reserved 00 00.
    Bits (LongPollSendEnabledFeaturesResponse.cs): features 2 bit 2 tickets in total drop
    and cancelled credits (always); with system validation features 1 bits 4, 5, 7
    (validation extensions, style system, ticket redemption)."""
    ext = 0x08 if LAYOUTS.get(0x6F) is not None and LAYOUTS[0x6F].builder is not None else 0
    r = responder(rte=False)
    assert writes(r.receive(lp(0xA0, h("00 00")), 0)) == [
        with_crc(h("01 A0 00 00 00") + bytes((0x04 | ext,)) + h("00 00 00 00"))
    ]
    r = responder(rte=False, validation_mode="system")
    assert writes(r.receive(lp(0xA0, h("00 01")), 0)) == [
        with_crc(h("01 A0 00 01 B0") + bytes((0x04 | ext,)) + h("00 00 00 00"))
    ]


def test_a0_with_a_non_bcd_game_number_is_nacked() -> None:
    """LPA0SendEnabledFeaturesParser.cs: FromBcdWithValidation fails -> NackLongPoll."""
    assert writes(responder(rte=False).receive(lp(0xA0, h("00 0A")), 0)) == [h("81")]


# --- 0xB5 extended game N information ---------------------------------------------------------


def test_b5_game_1() -> None:
    """LPB5SendExtendedGameNInformationParser.cs: length, game 2 BCD, max bet 2 BCD
    credits, progressive group, levels 4, name length + ASCII, paytable length + ASCII,
    wager categories 2 BCD, denominations count + codes."""
    body = h("00 01 05 00 00 00 00 00 00") + bytes((9,)) + b"Blackjack" + bytes((6,)) + b"BJCL01" + h("00 01 01 01")
    r = responder(rte=False)
    assert writes(r.receive(lp(0xB5, h("00 01")), 0)) == [with_crc(h("01 B5") + bytes((len(body),)) + body)]


def test_b5_game_0_is_the_one_game_and_an_unknown_game_is_nacked() -> None:
    """LPB5SendExtendedGameNInformationHandler.cs CreateMachineInfoResponse: one game ->
    its fields under game number 0000; no such game / not BCD -> NackLongPoll."""
    r = responder(rte=False)
    got = writes(r.receive(lp(0xB5, h("00 00")), 0))[0]
    assert got[3:5] == h("00 00") and got[5:7] == h("05 00") and b"Blackjack" in got
    assert writes(r.receive(lp(0xB5, h("00 02")), 10)) == [h("81")]
    assert writes(r.receive(lp(0xB5, h("00 1F")), 20)) == [h("81")]


# --- the host side: framing events -------------------------------------------------------------


def test_host_codec_frames_events_by_their_code() -> None:
    """Host twin framing with 0x0E on: ``address FF code data CRC``, the data length by
    the code (egm_events.EVENT_DATA_LEN from the Monaco builders); an ACK-shaped poll's
    lone address byte is an ACK once the line is quiet; another byte is an exception."""
    host = HostCodec()
    host.real_time_events = True
    host.send(general_poll(1))
    event = with_crc(h("01 FF 4F 37 04 00 00 00 07"))
    assert [host.feed(event[i : i + 1]) for i in range(len(event) - 1)] == [[]] * (len(event) - 1)
    assert host.feed(event[-1:]) == [EventReply(1, 0x4F, h("37 04 00 00 00 07"), event)]
    host.send(general_poll(1))
    assert host.feed(h("11")) == [ExceptionReply(0x11)]
    host.send(long_poll(1, 0x01))
    assert host.feed(h("01")) == []
    assert host.timeout() == [Ack(1)]
    host.send(long_poll(1, 0x1A))
    assert host.feed(with_crc(h("01 FF 7F 00 00 00 40"))) == [
        EventReply(1, 0x7F, h("00 00 00 40"), with_crc(h("01 FF 7F 00 00 00 40")))
    ]

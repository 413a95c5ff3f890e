"""The EGM's TITO and link answers checked byte for byte against a shipping EGM's layouts:
Aristocrat's Monaco platform (github tejvirc/Platform, ``Protocol/SAS/Aristocrat.Sas.Client/``,
one parser per long poll with the layout in its doc comment; read for facts, no code copied).
Each test sends a hand-built poll and compares the reply bytes; the Monaco file that
settles the layout is named beside it (``MONACO`` + path)."""

from __future__ import annotations

import dataclasses

from drivers.sas import tito_codes as tc
from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder, ExceptionAcked, LinkChanged, Output
from drivers.sas.egm_view import (
    EgmView,
    HostCommand,
    HostException,
    MachineInfo,
    PendingCashout,
    TicketData,
    TicketIn,
)
from drivers.sas.host_codec import general_poll, to_wire

MONACO = "tejvirc/Platform Protocol/SAS/Aristocrat.Sas.Client/"
TICKET = "121234567890123456"
VIEW = EgmView(
    address=1,
    asset_number=0x01020304,
    validation_mode="system",
    ticket_data=TicketData(validation_status=tc.VS_SUPPORTED, location="Casino Royale"),
)


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def crc(text: str) -> bytes:
    """A message from hex text with its CRC appended (CRC-16/Kermit, low byte first)."""
    return with_crc(h(text))


def responder(view: EgmView = VIEW) -> EgmResponder:
    r = EgmResponder(1)
    r.update(view)
    return r


def poll(
    r: EgmResponder, message: bytes, wall: tuple[int, ...] | None = None, now_ms: int = 0
) -> tuple[list[bytes], list[Output]]:
    """A hand-built message as a host sends it: after a general poll to address 0 (so it is
    never taken for a repeat of the message before it)."""
    out = r.receive(to_wire(general_poll(0)) + to_wire(message), now_ms, wall)  # type: ignore[arg-type]
    return (
        [o for o in out if isinstance(o, bytes)],
        [o for o in out if not isinstance(o, bytes | LinkChanged | ExceptionAcked)],
    )


NACK = h("81")


# --- 1. 0x58: the validation system ID is 1 BCD byte ------------------------------------------


def test_0x58_system_id_is_bcd_and_a_non_bcd_id_is_nacked() -> None:
    """``LPParsers/LP58ReceiveValidationNumberParser.cs``: "Validation Id 1 BCD", parsed with
    ``FromBcdWithValidation`` (not BCD -> NACK); the printed number is the ID as two digits
    then the 16 (``Aristocrat.Monaco.Sas/VoucherValidation/SystemValidationHandler.cs``:
    ``{SystemId:D2}{ValidationNumber}``)."""
    r = responder(dataclasses.replace(VIEW, pending_cashout=PendingCashout(7, 2000)))
    w, ev = poll(r, crc("01 58 12 1234567890123456"))
    assert w == [crc("01 58 00")]
    assert ev == [
        HostCommand(
            "validation_number", 0x58, cashout_id=7, validation_system_id=12, validation_number="1234567890123456"
        )
    ]
    r = responder(dataclasses.replace(VIEW, pending_cashout=PendingCashout(8, 2000)))
    w, ev = poll(r, crc("01 58 1A 1234567890123456"))
    assert w == [NACK] and not any(isinstance(e, HostCommand) for e in ev)
    w, ev = poll(r, crc("01 58 99 12345678901234 5F"))
    assert w == [NACK]


# --- 2. 0x7B: a mask bit of 0 leaves the function as it is ------------------------------------


def test_0x7b_empty_mask_changes_nothing_and_reports_the_functions_set() -> None:
    """``LPParsers/LP7BExtendedValidationStatusParser.cs`` (control mask 2, status 2 binary low
    byte first; expirations 2 BCD, 0000 = do not change) and
    ``Aristocrat.Monaco.Sas/Handlers/LP7BExtendedValidationStatusHandler.cs`` (a function
    not in the mask, or not supported, is left as it is)."""
    r = responder()
    w, ev = poll(r, crc("01 7B 08 0000 0000 0000 0000"))
    # asset 04030201 low first, status 0021 (printer cash-out, redemption), days 0000 0000
    assert w == [crc("01 7B 0A 04030201 2100 0000 0000")]
    assert ev == [HostCommand("set_extended_validation_status", 0x7B, validation_control=(0, 0, 0, 0))]
    # turning redemption off touches only bit 5; bits the cabinet lacks (handpay receipts,
    # secure enhanced) stay 0 even when the host sets them
    w, _ = poll(r, crc("01 7B 08 2280 0280 0000 0000"))
    assert w == [crc("01 7B 0A 04030201 0100 0000 0000")]


def test_0x7b_reports_nothing_supported_without_system_validation() -> None:
    """``LP7BExtendedValidationStatusHandler.cs``: validation other than system or secure
    enhanced -> status ``None``; the expirations are reported as kept."""
    r = responder(dataclasses.replace(VIEW, validation_mode="none"))
    w, _ = poll(r, crc("01 7B 08 2100 2100 0030 0000"))
    assert w == [crc("01 7B 0A 04030201 0000 0030 0000")]


# --- 4. 0x7C / 0x7D: 01 = data set; empty fields keep their value ----------------------------


def test_0x7d_reply_flag_and_optional_fields() -> None:
    """``LPParsers/LP7DSetTicketDataParser.cs``: length 00 or 02-7E; each text length 00 =
    "don't change from existing"; reply status 00 = flag false, 01 = flag true; and
    ``Aristocrat.Monaco.Sas/Handlers/SetTicketDataHandler.cs`` (01 once data is set)."""
    r = responder()
    w, ev = poll(r, crc("01 7D 06 3412 1E 00 00 00"))  # host ID 1234, 30 days, no text
    assert w == [crc("01 7D 01")]
    assert isinstance(ev[0], HostCommand) and ev[0].ticket_data == dataclasses.replace(
        VIEW.ticket_data, host_id=0x1234, expiration_days=30
    )
    assert ev[0].ticket_data.location == "Casino Royale"
    w, ev = poll(r, crc("01 7D 03 3412 1E"))  # no text fields at all
    assert w == [crc("01 7D 01")] and ev[0].ticket_data.location == "Casino Royale"  # type: ignore[union-attr]
    w, ev = poll(r, crc("01 7D 00"))  # nothing to set: flag false
    assert w == [crc("01 7D 00")] and ev == []
    w, ev = poll(r, crc("01 7D 07 3412 1E 05 414243"))  # location truncated: flag false
    assert w == [crc("01 7D 00")] and not any(isinstance(e, HostCommand) for e in ev)


def test_0x7c_reply_flag() -> None:
    """``LPParsers/LP7CSetExtendedTicketDataParser.cs``: status flag 00 = false, 01 = true;
    an unknown data code makes the data invalid (flag false, not a NACK)."""
    r = responder()
    w, ev = poll(r, crc("01 7C 05 00 03 414243"))
    assert w == [crc("01 7C 01")] and ev[0].ticket_data.location == "ABC"  # type: ignore[union-attr]
    w, ev = poll(r, crc("01 7C 05 07 03 414243"))
    assert w == [crc("01 7C 00")] and not any(isinstance(e, HostCommand) for e in ev)


# --- 5. 0x70 / 0x71: the status byte alone; 0x71's target ID -----------------------------------


def test_0x70_no_ticket_is_the_status_byte_alone() -> None:
    """``LPParsers/LP70SendTicketValidationDataParser.cs``: FF = no ticket in escrow, the
    other fields only when a ticket is pending (length 01)."""
    assert poll(responder(), h("01 70"))[0] == [crc("01 70 01 FF")]


def test_0x71_not_compatible_or_no_info_is_the_status_byte_alone() -> None:
    """``LPParsers/LP71RedeemTicketParser.cs``: "Per the SAS spec this does not sent when we
    respond with not compatible with the current redemption cycle" (C0) nor with no
    validation information (FF)."""
    r = responder()
    assert poll(r, crc("01 71 01 FF"))[0] == [crc("01 71 01 FF")]
    redeem = "01 71 16 00 0000002000 00 " + TICKET + " 00000000 0000"
    assert poll(r, crc(redeem))[0] == [crc("01 71 01 C0")]


def test_0x71_with_the_target_id_fields_is_taken() -> None:
    """``LPParsers/LP71RedeemTicketParser.cs``: after the pool ID (2 bytes) a target ID
    length and that many ASCII bytes; amounts in cents."""
    r = responder(dataclasses.replace(VIEW, ticket_in=TicketIn(3, TICKET, 2000)))
    redeem = "01 71 1A 00 0000002000 00 " + TICKET + " 00000000 0000 03 414243"
    w, ev = poll(r, crc(redeem))
    assert w == [crc("01 71 10 40 0000002000 00 " + TICKET)]
    assert isinstance(ev[0], HostCommand) and ev[0].name == "redeem_ticket" and ev[0].amount_cents == 2000


# --- 6. malformed polls to this machine: NACK; broadcasts: silence ----------------------------


def test_malformed_polls_to_this_machine_are_nacked_broadcasts_stay_silent() -> None:
    """``Aristocrat.Sas.Client/SasClient.cs`` ("Crc failed. NACKing long poll"; "Ignoring
    global long poll"), and each parser's ``NackLongPoll``: ``LP7FReadDateTimeParser.cs``
    (not BCD), ``SendSelectedMetersForGameNParserBase.cs`` (length 03-0C: at most 10
    meters; game number not BCD), ``LP53SendGameNConfigurationParser.cs`` (not BCD),
    ``LP50SendValidationMetersParser.cs`` (a type not in Table 15.13c),
    ``LP7BExtendedValidationStatusParser.cs`` (a length other than 08)."""
    info = MachineInfo("BJ", "000", 1, 5, 0, b"\x00\x00", "BJCL01", "9989")
    r = responder(dataclasses.replace(VIEW, machine_info=info, games=(info,)))
    bad_crc = crc("01 7F 12 01 2026 120000")[:-1] + b"\x00"
    assert poll(r, bad_crc)[0] == [NACK]
    assert poll(r, crc("01 7F 13 01 2026 120000"))[0] == [NACK]  # month 13 is no date
    assert poll(r, crc("01 7F 1A 01 2026 120000"))[0] == [NACK]  # not BCD
    assert poll(r, crc("01 2F 03 000A 11"))[0] == [NACK]  # game number not BCD
    assert poll(r, crc("01 2F 0D 0000 " + "11" * 11))[0] == [NACK]  # 11 meters
    assert poll(r, crc("01 53 00 1A"))[0] == [NACK]
    assert poll(r, crc("01 50 05"))[0] == [NACK]  # no such validation type
    assert poll(r, crc("01 7B 07 0000 0000 0000 00"))[0] == [NACK]  # 0x7B length is 08
    broadcast = crc("00 7F 12 01 2026 120000")
    assert poll(r, broadcast[:-1] + bytes((broadcast[-1] ^ 0xFF,)))[0] == []


def test_a_reply_the_view_cannot_fill_is_a_nack_not_silence() -> None:
    """0x1F / 0x53 with a game ID or paytable ID of the wrong length in the view: the
    reply cannot be built, so the poll is NACKed (the one rule above)."""
    info = MachineInfo("BJX", "000", 1, 5, 0, b"\x00\x00", "BJCL01", "9989")
    r = responder(dataclasses.replace(VIEW, machine_info=info, games=(info,)))
    assert poll(r, h("01 1F"))[0] == [NACK]
    assert poll(r, crc("01 53 0001"))[0] == [NACK]


# --- 7. 0x7E right after 0x7F --------------------------------------------------------------


def test_0x7e_right_after_0x7f_returns_the_time_just_set() -> None:
    """``Aristocrat.Monaco.Sas/Handlers/LP7FReceiveDateAndTimeHandler.cs`` sets the clock
    before the ACK; the next 0x7E (``LP7ESendDateTimeParser.cs``: date MMDDYYYY 4 BCD,
    time HHMMSS 3 BCD) reads it."""
    r = responder()
    old = (2025, 1, 2, 3, 4, 5)
    assert poll(r, crc("01 7F 12 24 2026 235958"), old, 1000)[0] == [h("01")]
    assert poll(r, h("01 7E"), old, 1002)[0] == [crc("01 7E 12242026 235958")]
    assert poll(r, h("01 7E"), old, 3100)[0] == [crc("01 7E 12252026 000000")]


# --- 8. the final NACK -------------------------------------------------------------------


def test_the_third_identical_general_poll_is_the_final_nack() -> None:
    """``Aristocrat.Sas.Client/HostAcknowledgementProvider.cs``: "SAS will repeat the same
    message 3 times (2 NACKs)"; on the final one the poll is not answered and
    ``ImpliedNack`` runs the queue's ``ClearPendingException``
    (``Aristocrat.Monaco.Sas/Exceptions/SasPriorityExceptionQueue.cs``: the exception stays
    at the head of the queue, unsent), so the next general poll gets it again."""
    r = responder(dataclasses.replace(VIEW, exceptions=(HostException(5, "slot_door_opened"),)))
    gp = to_wire(general_poll(1))
    assert r.receive(gp, 0) == [LinkChanged(True), h("11")]
    assert r.receive(gp, 10) == [h("11")]
    assert r.receive(gp, 20) == []
    out = r.receive(to_wire(h("01 1A")), 30)  # a new poll: no ACK of the NACKed one
    assert not any(isinstance(o, ExceptionAcked) for o in out)
    assert r.receive(gp, 40) == [h("11")]
    assert ExceptionAcked(5) in r.receive(to_wire(h("01 1A")), 50)


def test_an_m_poll_shorter_than_its_layout_is_nacked_after_its_promised_bytes() -> None:
    """``Aristocrat.Sas.Client/SasClient.cs`` frames a variable-length poll by its length byte
    alone (``LongPollTable.cs``: 0x2F, 0x6F, 0x71, 0xAF ``(5, true, ...)``: address,
    command, length, the bytes it promises, CRC), checks the CRC ("Crc failed. NACKing long
    poll"), then hands it to its parser, which NACKs one too short:
    ``SendSelectedMetersForGameNParserBase.cs`` ``ValidLength`` (0x2F/0x6F/0xAF: length
    under 2 has no game number; test ``HandleInvalidLengthTooSmallTest``) and
    ``LPParsers/LP71RedeemTicketParser.cs`` ("Invalid Command Length": length 00 is
    neither the 6-byte status query nor a ticket).  Broadcasts stay silent."""
    r = responder()
    for message in ("01 2F 00", "01 2F 01 00", "01 71 00", "01 6F 00", "01 6F 01 00", "01 AF 01 00"):
        assert poll(r, crc(message))[0] == [NACK], message
    bad = crc("01 2F 01 00")
    assert poll(r, bad[:-1] + bytes((bad[-1] ^ 0xFF,)))[0] == [NACK]  # bad CRC: NACKed too
    assert poll(r, crc("00 2F 01 00"))[0] == []
    assert poll(r, h("01 1A"))[0] == [crc("01 1A 00000000")]  # the next poll as usual

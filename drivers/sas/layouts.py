"""The SAS long poll table: for each command its kind, request length, reply shape, reply
builder, how the EGM answers it (handler or view reply, flags), and the source of each
fact.

Owns: ``LAYOUTS`` (command -> ``Layout``, one row per long poll), the one table the EGM
codec frames host messages by, the EGM responder (``egm``) routes them by, and the host
codec builds polls and frames replies by.
Must not import: serial, time, cabinet.*.

Kinds (research/sas.md "Message kinds", sharpened by nCompass):
- R: ``address, command`` and nothing else (no CRC).
- S: ``address, command, data (fixed length), CRC``; nCompass sends 0x01/0x02/0x94
  as ``address, command, CRC`` (4 bytes), so an S poll may carry no data.
- M: ``address, command, length, data (length bytes), CRC``; the length byte counts
  the bytes after it, not the CRC (nCompass ``LongPoll2FMessage.cpp`` ``Fill``:
  ``m_sendBuffer[2] = meterCount + 2; // byte count not including CRC``).

Reply shapes: an int is the fixed number of data bytes between the command and the CRC;
``ACK`` is the 1-byte ACK (the address); ``LENGTH`` is a length byte after the command
(then data, CRC); ``None``: not known from our sources.

``Monaco`` is Aristocrat's shipping EGM platform (github tejvirc/Platform,
``Protocol/SAS/Aristocrat.Sas.Client/LPParsers/``: one parser per long poll, its layout
in the doc comment; read for facts only).  Entries whose ``source`` begins with
``UNVERIFIED`` are not stated by any source we trust (research/sas.md, Monaco, nCompass,
saspy): the layout given is an assumption marked as such.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from drivers.sas import egm_info, egm_meter_polls, egm_replies, replies, tito_wire
from drivers.sas import poll_answers as pa
from drivers.sas.egm_replies import ViewReply


class Kind(enum.Enum):
    """Long poll kind (research/sas.md "Message kinds")."""

    R = "R"
    S = "S"
    M = "M"


ACK: Final = "ack"
LENGTH: Final = "length"
ReplyShape = int | Literal["ack", "length"] | None


@dataclass(frozen=True, slots=True)
class Layout:
    """One long poll's row: its layout and how the EGM answers it.

    Attributes:
        command: the command byte.
        name: a short name.
        kind: R, S or M.
        data_len: request data bytes between the command and the CRC (0 for R and for S
            polls without data); None for M (the length byte says).
        reply: the reply shape (see the module docstring).
        builder: the function that lays the reply's bytes out (``replies``, ``tito_wire``;
            for the meter polls of ``egm_meter_polls`` the view reply itself); None where
            none is written.  It documents the reply and drives the host round trips; the
            EGM answers through ``handler`` or ``view_reply``.
        source: where the layout comes from.
        min_len: M only: the least valid length byte.
        view_reply: for a poll answered from the ``EgmView`` alone: its builder
            ``(view, address, data, wall) -> reply`` (``egm_replies``, ``egm_meter_polls``,
            ``egm_info``).
        handler: for a poll with a side effect or responder state: the name of its
            handler in ``egm.EgmResponder`` or ``egm_tito.TitoResponder`` (``host_command``:
            ACK, and ``HostCommand(name)`` to the engine).  Neither ``handler`` nor
            ``view_reply``: the poll is framed and never answered.
        broadcast: the handler also takes the poll sent to address 0 (answered by no one).
        ignored_under_system_validation: not answered while the view's
            ``validation_mode`` is not ``"none"``.
        answer: what the cabinet answers, for the reader (``poll_answers``; Markdown).
    """

    command: int
    name: str
    kind: Kind
    data_len: int | None
    reply: ReplyShape
    builder: Callable[..., bytes | None] | None
    source: str
    min_len: int = 0
    view_reply: ViewReply | None = None
    handler: str | None = None
    broadcast: bool = False
    ignored_under_system_validation: bool = False
    answer: str = ""

    @property
    def verified(self) -> bool:
        """False when ``source`` marks the layout as an unconfirmed assumption."""
        return not self.source.startswith("UNVERIFIED")

    def request_len(self) -> int | None:
        """Whole request length in bytes (address to CRC), None for M."""
        if self.kind is Kind.R:
            return 2
        if self.data_len is None:
            return None
        return 2 + self.data_len + 2


NC = "nCompass Sentinel/SASProtocol/"
#: Aristocrat's Monaco EGM platform (GitHub tejvirc/Platform), under
#: ``Protocol/SAS/Aristocrat.Sas.Client/``: one parser per long poll, its layout in the doc comment.
MONACO = "Monaco Protocol/SAS/Aristocrat.Sas.Client/LPParsers/"


#: Monaco's parser file of each single meter long poll 0x11-0x17.
SINGLE_METER_PARSERS = {
    0x11: "LP11SendTotalCoinInParser.cs",
    0x12: "LP12SendTotalCoinOutParser.cs",
    0x13: "LP13SendTotalDropParser.cs",
    0x14: "LP14SendTotalJackpotParser.cs",
    0x15: "LP15SendGamesPlayedParser.cs",
    0x16: "LP16SendGamesWonParser.cs",
    0x17: "LP17SendGamesLostParser.cs",
}


def _single_meters() -> dict[int, Layout]:
    names = {
        0x10: "total_cancelled_credits",
        0x11: "total_coin_in",
        0x12: "total_coin_out",
        0x13: "total_drop",
        0x14: "total_jackpot",
        0x15: "games_played",
        0x16: "games_won",
        0x17: "games_lost",
    }
    out: dict[int, Layout] = {}
    for command, name in names.items():
        source = (
            NC + "LongPoll10Message.cpp (send 2, response 8, Bcd2Int64(response + 2, 4))"
            if command == 0x10
            else MONACO + SINGLE_METER_PARSERS[command] + " (response: 4 BCD meter; "
            "SasSingleMeterLongPollParserBase.cs); saspy sas.py reads data[1:5]"
        )
        out[command] = Layout(
            command,
            name,
            Kind.R,
            0,
            4,
            replies.meter_reply,
            source,
            view_reply=egm_replies.single_meter(command),
            answer=pa.ANSWER_0F_1C,
        )
    return out


def _meter_polls() -> dict[int, Layout]:
    """The meter polls ``egm_meter_polls`` answers, each from Monaco's EGM-side parser."""
    mp = egm_meter_polls
    single: dict[int, tuple[str, str, ViewReply, str]] = {
        0x20: ("total_bill_in_value", "LP20TotalBillInValueParser.cs", mp.total_bill_in_value, pa.ANSWER_20),
        0x2A: ("true_coin_in", "LP2ASendTrueCoinInParser.cs", mp.true_coin_poll(0x2A), pa.ANSWER_2A_2B),
        0x2B: ("true_coin_out", "LP2BSendTrueCoinOutParser.cs", mp.true_coin_poll(0x2B), pa.ANSWER_2A_2B),
        **{
            c: (f"bills_in_{d}_dollars", f"LP{c:02X}Send{d}DollarBillsInParser.cs", mp.bill_poll(c), pa.ANSWER_31_45)
            for c, d in mp.BILL_POLLS_DOLLARS.items()
        },
    }
    out = {
        c: Layout(c, name, Kind.R, 0, 4, view, MONACO + f + " (4 BCD)", view_reply=view, answer=answer)
        for c, (name, f, view, answer) in single.items()
    }
    out[0x2D] = Layout(
        0x2D,
        "total_hand_paid_cancelled_credits",
        Kind.S,
        2,
        6,
        mp.hand_paid_cancelled_credits,
        MONACO + "LP2DSendTotalHandPaidCanceledCreditsParser.cs (game 2 BCD; reply game, 4 BCD)",
        view_reply=mp.hand_paid_cancelled_credits,
        answer=pa.ANSWER_2D,
    )
    out[0x2E] = Layout(
        0x2E,
        "game_delay",
        Kind.S,
        2,
        ACK,
        mp.game_delay,
        MONACO + "LP2EGameDelayParser.cs (delay 2 bytes in 100 ms; ACK or NACK)",
        view_reply=mp.game_delay,
        answer=pa.ANSWER_2E,
    )
    out[0x48] = Layout(
        0x48,
        "last_accepted_bill_information",
        Kind.R,
        0,
        6,
        mp.last_accepted_bill,
        MONACO + "LP48SendLastAcceptedBillInformationParser.cs (country 1 BCD, denomination 1 BCD, count 4 BCD)",
        view_reply=mp.last_accepted_bill,
        answer=pa.ANSWER_48,
    )
    out[0x52] = Layout(
        0x52,
        "game_n_meters",
        Kind.S,
        2,
        18,
        mp.game_n_meters,
        MONACO + "LP52SendGameNMetersParser.cs (game 2 BCD; reply game, four 4 BCD)",
        view_reply=mp.game_n_meters,
        answer=pa.ANSWER_52,
    )
    out[0x56] = Layout(
        0x56,
        "enabled_game_numbers",
        Kind.R,
        0,
        LENGTH,
        mp.enabled_game_numbers,
        MONACO + "LP56SendEnabledGameNumbersParser.cs (length, count 1, game numbers 2 BCD)",
        view_reply=mp.enabled_game_numbers,
        answer=pa.ANSWER_56,
    )
    for c in (0x6F, 0xAF):
        extended = mp.extended_meters_poll(c)
        out[c] = Layout(
            c,
            f"extended_meters_for_game_n_{c:02x}",
            Kind.M,
            None,
            LENGTH,
            extended,
            MONACO + f"LP{c:02X}SendExtendedMetersForGameNParser.cs (game 2 BCD, codes 2 bytes low "
            "first; reply game, per meter code 2, size 1, value BCD)",
            min_len=2,
            view_reply=extended,
            answer=pa.ANSWER_6F_AF,
        )
    return out


LAYOUTS: dict[int, Layout] = {
    0x01: Layout(
        0x01,
        "shut_down",
        Kind.S,
        0,
        ACK,
        replies.ack,
        NC + "LongPoll01Message.h (LP01SENDSIZE 4: address, 01, CRC; LP01RECVSIZE 1)",
        handler="host_command",
        answer=pa.ANSWER_01_02,
    ),
    0x02: Layout(
        0x02,
        "start_up",
        Kind.S,
        0,
        ACK,
        replies.ack,
        NC + "LongPoll02Message.h (LP02SENDSIZE 4; LP02RECVSIZE 1)",
        handler="host_command",
        answer=pa.ANSWER_01_02,
    ),
    0x06: Layout(
        0x06,
        "enable_bill_acceptor",
        Kind.S,
        0,
        ACK,
        replies.ack,
        MONACO + "LP06EnableBillAcceptorParser.cs (address, 06, CRC; ACK); saspy enable_bill_acceptor",
        handler="host_command",
        answer=pa.ANSWER_06_08,
    ),
    0x07: Layout(
        0x07,
        "disable_bill_acceptor",
        Kind.S,
        0,
        ACK,
        replies.ack,
        MONACO + "LP07DisableBillAcceptorParser.cs (address, 07, CRC; ACK); saspy disable_bill_acceptor",
        handler="host_command",
        answer=pa.ANSWER_06_08,
    ),
    0x08: Layout(
        0x08,
        "configure_bill_denominations",
        Kind.S,
        5,
        ACK,
        replies.ack,
        MONACO + "LP08ConfigureBillDenominationsParser.cs (bill denominations 4 bytes LSB first, "
        "action flag 1; ACK); saspy configure_bill_denom",
        handler="configure_bill_denominations",
        answer=pa.ANSWER_06_08,
    ),
    0x0A: Layout(
        0x0A,
        "enter_maintenance_mode",
        Kind.S,
        0,
        ACK,
        replies.ack,
        MONACO + "LP0AEnterMaintenanceModeParser.cs (address, 0A, CRC; ACK)",
        handler="host_command",
        answer=pa.ANSWER_0A_0B,
    ),
    0x0B: Layout(
        0x0B,
        "exit_maintenance_mode",
        Kind.S,
        0,
        ACK,
        replies.ack,
        MONACO + "LP0BExitMaintenanceModeParser.cs (address, 0B, CRC; ACK)",
        handler="host_command",
        answer=pa.ANSWER_0A_0B,
    ),
    0x0E: Layout(
        0x0E,
        "enable_disable_real_time_event_reporting",
        Kind.S,
        1,
        ACK,
        replies.ack,
        MONACO + "LP0ERealTimeEventReportingParser.cs (enable 00/01, else NACK; ACK); the event "
        "form: SasClient.cs HandleGeneralPoll (address FF event CRC)",
        handler="real_time_event_reporting",
        answer=pa.ANSWER_0E,
    ),
    0x0F: Layout(
        0x0F,
        "send_meters_10_15",
        Kind.R,
        0,
        24,
        replies.meters_block,
        MONACO + "LP0FSendMeters10Through15Parser.cs (six 4 BCD: cancelled credits, coin in, "
        "coin out, drop, jackpot, games played); saspy send_meters_10_15",
        view_reply=egm_replies.meters_10_15,
        answer=pa.ANSWER_0F_1C,
    ),
    **_single_meters(),
    0x18: Layout(
        0x18,
        "games_since_power_up_and_door_closure",
        Kind.R,
        0,
        4,
        replies.games_since_power_up,
        MONACO + "LP18SendGamesPlayedSinceLastPowerUpAndDoorCloseParser.cs (two 2 BCD: games "
        "since power up, since the last door close); saspy games_powerup_door_opened",
        view_reply=egm_replies.games_since_power_up,
        answer=pa.ANSWER_18,
    ),
    0x19: Layout(
        0x19,
        "send_meters_11_15",
        Kind.R,
        0,
        20,
        replies.meters_block,
        NC + "LongPoll19Message.cpp (response 24: five 4-byte BCD coin in, coin out, drop, jackpot, games played)",
        view_reply=egm_replies.meters_11_15,
        answer=pa.ANSWER_0F_1C,
    ),
    0x1A: Layout(
        0x1A,
        "current_credits",
        Kind.R,
        0,
        4,
        replies.current_credits,
        NC + "LongPoll1AMessage.cpp (response 8, Bcd2Int64(response + 2, 4))",
        view_reply=egm_replies.current_credits,
        answer=pa.ANSWER_1A,
    ),
    0x1B: Layout(
        0x1B,
        "handpay_information",
        Kind.R,
        0,
        20,
        replies.handpay_information,
        MONACO + "LP1BSendHandpayInfoParser.cs (progressive group 1, level 1, amount 5 BCD, "
        "partial pay 2 BCD, reset ID 1, session game win 5 BCD, session game pay 5 BCD); "
        "nCompass LongPoll1BMessage.cpp agrees on the first 10 bytes",
        handler="handpay_information",
        answer=pa.ANSWER_1B,
    ),
    0x1C: Layout(
        0x1C,
        "send_meters",
        Kind.R,
        0,
        32,
        replies.meters_1c,
        NC + "LongPoll1CMessage.cpp (response 36: eight 4-byte BCD)",
        view_reply=egm_replies.meters_1c,
        answer=pa.ANSWER_0F_1C,
    ),
    0x1E: Layout(
        0x1E,
        "bill_meters",
        Kind.R,
        0,
        24,
        replies.meters_block,
        NC + "LongPoll1EMessage.cpp (response 28: six 4-byte BCD $1 $5 $10 $20 $50 $100)",
        view_reply=egm_replies.bill_meters,
        answer=pa.ANSWER_1E,
    ),
    0x1F: Layout(
        0x1F,
        "gaming_machine_id_and_information",
        Kind.R,
        0,
        20,
        replies.machine_info,
        NC + "LongPoll1FMessage.cpp (X1F_RESPONSESIZE 24; offsets 2,4,7,8,9,10,12,18); saspy gaming_machine_ID agrees",
        view_reply=egm_replies.machine_info,
        answer=pa.ANSWER_1F_53,
    ),
    0x21: Layout(
        0x21,
        "rom_signature_verification",
        Kind.S,
        2,
        2,
        replies.rom_signature_reply,
        MONACO + "LP21RomSignatureVerificationParser.cs (seed 2 binary, FromBinary: low byte first; "
        "ACK, then the signature 2 binary low byte first, LongPollDataClasses/"
        "RomSignatureVerificationResponse.cs); saspy ROM_signature_verification; research/sas.md vectors",
        handler="rom_signature",
        answer=pa.ANSWER_21,
    ),
    0x2F: Layout(
        0x2F,
        "selected_meters_for_game",
        Kind.M,
        None,
        LENGTH,
        replies.selected_meters,
        NC + "LongPoll2FMessage.cpp (request: length = 2 + meter codes, game number 2 BCD, codes; "
        "reply: length, game number, code + 4/5-byte BCD each)",
        min_len=2,
        view_reply=egm_replies.selected_meters,
        answer=pa.ANSWER_2F,
    ),
    0x3D: Layout(
        0x3D,
        "send_cash_out_ticket_information",
        Kind.R,
        0,
        9,
        egm_info.cashout_ticket,
        MONACO + "LP3DSendCashOutTicketInformationParser.cs (validation number 4 BCD, amount 5 BCD "
        "cents); Monaco Aristocrat.Monaco.Sas/Handlers/LP3DSendCashOutTicketInformationHandler.cs (no reply "
        "unless validation type none)",
        view_reply=egm_info.cashout_ticket,
        ignored_under_system_validation=True,
        answer=pa.ANSWER_3D,
    ),
    0x4C: Layout(
        0x4C,
        "set_secure_enhanced_validation_id",
        Kind.S,
        6,
        6,
        None,
        NC + "LongPoll4CMessage.h (machine validation ID 3 + sequence number 3, binary, "
        "copied from little-endian DWORDs; "
        "research/sas.md's CRC vector 01 4C 00 00 01 00 00 00 01 has 7 data bytes, not 6; "
        "SEND/RESPONSE_BUFFER_SIZE 10): not implemented (secure enhanced validation is left out; "
        "Monaco derives its numbers in Aristocrat.Monaco.Sas/VoucherValidation/, see the README)",
        answer=pa.ANSWER_4C_4D,
    ),
    0x4D: Layout(
        0x4D,
        "send_enhanced_validation_information",
        Kind.S,
        1,
        31,
        None,
        NC + "LongPoll4DMessage.cpp (send 5: function code 00/FF; response 35): not implemented "
        "(secure enhanced validation only)",
        answer=pa.ANSWER_4C_4D,
    ),
    0x50: Layout(
        0x50,
        "validation_meters",
        Kind.S,
        1,
        10,
        tito_wire.validation_meters_reply,
        MONACO + "LP50SendValidationMetersParser.cs (validation type from Table 15.13c, any other "
        "NACKed; reply type 1, count 4 BCD, cumulative amount 5 BCD in cents); nCompass "
        "LongPoll50Message.cpp",
        handler="validation_meters",
        answer=pa.ANSWER_50,
    ),
    0x51: Layout(
        0x51,
        "number_of_games_implemented",
        Kind.R,
        0,
        2,
        replies.two_digit_count,
        NC + "LongPoll51Message.cpp (response 6, Bcd2Dword(response + 2, 2))",
        view_reply=egm_replies.games_implemented,
        answer=pa.ANSWER_51_55,
    ),
    0x53: Layout(
        0x53,
        "game_n_configuration",
        Kind.S,
        2,
        22,
        None,
        NC + "LongPoll53Message.cpp (X53_POLLSIZE 6: game number 2 BCD; X53_RESPONSESIZE 26: "
        "game number then the 0x1F fields): builder not implemented",
        view_reply=egm_replies.game_configuration,
        answer=pa.ANSWER_1F_53,
    ),
    0x54: Layout(
        0x54,
        "sas_version_and_serial",
        Kind.R,
        0,
        LENGTH,
        replies.sas_version,
        NC + "LongPoll54Message.cpp (length byte, version 3 ASCII, serial up to 40 ASCII)",
        view_reply=egm_replies.sas_version,
        answer=pa.ANSWER_54,
    ),
    0x55: Layout(
        0x55,
        "selected_game_number",
        Kind.R,
        0,
        2,
        replies.two_digit_count,
        NC + "LongPoll55Message.cpp (response 6, Bcd2Dword(response + 2, 2))",
        view_reply=egm_replies.selected_game,
        answer=pa.ANSWER_51_55,
    ),
    0x57: Layout(
        0x57,
        "pending_cashout_information",
        Kind.R,
        0,
        6,
        tito_wire.pending_cashout_reply,
        MONACO + "LP57SendPendingCashoutInformationParser.cs (cash-out type 1: 00 cashable, 01 restricted, "
        "80 not waiting; amount 5 BCD in cents); saspy pending_cashout_info",
        handler="pending_cashout",
        answer=pa.ANSWER_57_58,
    ),
    0x58: Layout(
        0x58,
        "receive_validation_number",
        Kind.S,
        9,
        1,
        tito_wire.validation_number_status,
        MONACO + "LP58ReceiveValidationNumberParser.cs (validation system ID 1 BCD, 00 = denied; "
        "validation number 8 BCD; not BCD: NACK; reply status 00 ACK, 80 not in cash-out, 81 improper "
        "validation rejected); saspy validation_number",
        handler="validation_number",
        answer=pa.ANSWER_57_58,
    ),
    0x70: Layout(
        0x70,
        "send_ticket_validation_data",
        Kind.R,
        0,
        LENGTH,
        tito_wire.ticket_validation_data,
        MONACO + "LP70SendTicketValidationDataParser.cs (length; ticket status 00 in escrow / FF none, "
        "then only with a ticket: amount 5 BCD cents, parsing code 1, validation data 9 BCD); nCompass "
        "LongPoll70Message.cpp",
        handler="ticket_validation_data",
        answer=pa.ANSWER_70_71,
    ),
    0x71: Layout(
        0x71,
        "redeem_ticket",
        Kind.M,
        None,
        LENGTH,
        tito_wire.redeem_status,
        MONACO + "LP71RedeemTicketParser.cs (length 01-2D; request: transfer code 1, amount 5 BCD cents, "
        "parsing code 1, validation data 9, restricted expiration 4 BCD, pool ID 2 binary, target ID "
        "length 1 and ASCII; status query 71 01 FF; reply: machine status 1, then, except for C0 and "
        "FF, amount 5 BCD cents, parsing code 1, validation data 9); nCompass LongPoll71Message.cpp",
        min_len=1,
        handler="redeem_ticket",
        answer=pa.ANSWER_70_71,
    ),
    0x7B: Layout(
        0x7B,
        "extended_validation_status",
        Kind.M,
        None,
        LENGTH,
        tito_wire.extended_validation_status_reply,
        MONACO + "LP7BExtendedValidationStatusParser.cs (length 08: control mask 2, control states 2 "
        "binary, cashable and restricted expiration 2 BCD each, 0000 = do not change; reply length 0A: "
        "asset number 4, status bits 2, expirations 2 BCD each; any other length NACKed); nCompass "
        "LongPoll7BMessage.h/.cpp",
        handler="extended_validation_status",
        answer=pa.ANSWER_7B_7D,
    ),
    0x7C: Layout(
        0x7C,
        "set_extended_ticket_data",
        Kind.M,
        None,
        1,
        tito_wire.ticket_data_reply,
        MONACO + "LP7CSetExtendedTicketDataParser.cs (length 00-nn; data elements of code, length, "
        "ASCII; reply one status flag 00 false / 01 true)",
        handler="set_extended_ticket_data",
        answer=pa.ANSWER_7B_7D,
    ),
    0x7D: Layout(
        0x7D,
        "set_ticket_data",
        Kind.M,
        None,
        1,
        tito_wire.ticket_data_reply,
        MONACO + "LP7DSetTicketDataParser.cs (length 00 or 02-7E: host ID 2, expiration 1, location, "
        "address 1, address 2 each a length byte (00 = don't change) and up to 40 ASCII, all optional "
        "after the host ID; reply status flag 00 false / 01 true); nCompass LongPoll7DMessage.cpp",
        handler="set_ticket_data",
        answer=pa.ANSWER_7B_7D,
    ),
    0x7E: Layout(
        0x7E,
        "send_current_date_and_time",
        Kind.R,
        0,
        7,
        None,
        MONACO + "LP7ESendDateTimeParser.cs (R; reply date MMDDYYYY 4 BCD, time HHMMSS 3 BCD)",
        view_reply=egm_replies.date_time,
        answer=pa.ANSWER_7E_7F,
    ),
    0x7F: Layout(
        0x7F,
        "receive_date_and_time",
        Kind.S,
        7,
        ACK,
        replies.ack,
        NC + "LongPoll7FMessage.cpp (X7F_POLLSIZE 11: date 4 BCD, time 3 BCD; X7F_RESPONSESIZE 1)",
        handler="receive_date_and_time",
        broadcast=True,
        answer=pa.ANSWER_7E_7F,
    ),
    0x94: Layout(
        0x94,
        "remote_handpay_reset",
        Kind.S,
        0,
        1,
        replies.remote_handpay_reset,
        NC + "LongPoll94Message.cpp (send 4: address, 94, CRC; response 5: one code byte)",
        handler="remote_handpay_reset",
        answer=pa.ANSWER_94,
    ),
    0xA0: Layout(
        0xA0,
        "send_enabled_features",
        Kind.S,
        2,
        8,
        egm_info.features_reply,
        MONACO + "LPA0SendEnabledFeaturesParser.cs (game number 2 BCD; reply game number, "
        "features 1-4, reserved 2); bits: Monaco LongPollDataClasses/LongPollSendEnabledFeaturesResponse.cs",
        handler="enabled_features",
        answer=pa.ANSWER_A0,
    ),
    0xA8: Layout(
        0xA8,
        "enable_jackpot_handpay_reset_method",
        Kind.S,
        1,
        1,
        tito_wire.reset_method_reply,
        MONACO + "LPA8EnableJackpotHandpayResetMethodParser.cs (reset method 00 standard handpay / 01 "
        "reset to the credit meter; reply ACK code 00 enabled, 01 unable, 02 not in a handpay); "
        "nCompass LongPollA8Message.cpp",
        handler="handpay_reset_method",
        answer=pa.ANSWER_A8,
    ),
    0xB5: Layout(
        0xB5,
        "send_extended_game_n_information",
        Kind.S,
        2,
        LENGTH,
        egm_info.game_information,
        MONACO + "LPB5SendExtendedGameNInformationParser.cs (game number 2 BCD; reply length, game "
        "number, max bet 2 BCD, progressive group, levels 4, game name, paytable name, wager "
        "categories 2 BCD, denominations)",
        view_reply=egm_info.game_information,
        answer=pa.ANSWER_B5,
    ),
    **_meter_polls(),
}

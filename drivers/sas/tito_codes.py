"""TITO code tables shared by the EGM responder, the engine's shell and the host twin.

Owns: the 0x57 cash-out types, the 0x58 reply codes, the 0x71 transfer codes (host ->
EGM) and machine status codes (EGM -> host), the 0x70 ticket status, the 0x7B
validation status bits and ``apply_validation_status``, and the 0x50 validation types.
Must not import: serial, time, cabinet.*.

Sources, per entry: nCompass ``Sentinel/SASProtocol/LongPoll71Message.cpp`` (transfer
codes 0x00-0x02 and 0x80-0x85 with their meanings, machine status 0x00-0x02, 0x40,
0x80-0x8B, 0xC0), ``LongPoll70Message.cpp`` (ticket status 0 = a ticket to validate),
``LongPoll7BMessage.cpp`` (status bits), ``LongPoll50Message.cpp`` (validation types
00, 01, 10, 20, 80, 81, 82); saspy ``rcv_validation_number`` docstring (0x58: system ID
00 = denied; reply 00 ACK, 80 not in cash-out, 81 improper validation rejected).
Entries marked UNVERIFIED are not stated by those sources (the names given follow
the SAS 6.02 tables as commonly summarised), for the lead to confirm against the spec.
"""

from __future__ import annotations

from typing import Final

# --- 0x57 cash-out type (EGM -> host) ------------------------------------------------------
#: saspy ``pending_cashout_info`` reads the type byte; values per the TITO brief.
CASHOUT_CASHABLE: Final = 0x00
CASHOUT_RESTRICTED: Final = 0x01
#: UNVERIFIED: "not waiting for system validation" (no cash-out pending).
CASHOUT_NOT_WAITING: Final = 0x80

# --- 0x58 reply status (EGM -> host), saspy ``rcv_validation_number`` ----------------------
VN_ACK: Final = 0x00
VN_NOT_IN_CASHOUT: Final = 0x80
VN_IMPROPER: Final = 0x81
#: 0x58 validation system ID meaning "denied" (saspy).
VALIDATION_DENIED: Final = 0x00

# --- 0x70 ticket status (EGM -> host) ------------------------------------------------------
#: nCompass ``LongPoll70Message.cpp``: 0 means a ticket waits for validation.
TICKET_IN_ESCROW: Final = 0x00
#: UNVERIFIED: no ticket in escrow (nCompass treats every non-zero status as "ticket no
#: longer in machine").
NO_TICKET_IN_ESCROW: Final = 0xFF

# --- 0x71 transfer codes (host -> EGM), nCompass ``LongPoll71Message.cpp`` ``Fill`` ---------
TC_CASHABLE: Final = 0x00
TC_RESTRICTED_PROMO: Final = 0x01
TC_NONRESTRICTED_PROMO: Final = 0x02
TC_REJECTED: Final = 0x80  # unable to validate (no reason given)
TC_INVALID_NUMBER: Final = 0x81  # not a valid validation number
TC_NOT_IN_SYSTEM: Final = 0x82  # validation number not in the system ("no match")
TC_PENDING_ELSEWHERE: Final = 0x83  # ticket marked pending in the system ("redeem in progress")
TC_ALREADY_REDEEMED: Final = 0x84
TC_EXPIRED: Final = 0x85
TC_INFO_NOT_AVAILABLE: Final = 0x86  # UNVERIFIED
TC_AMOUNT_MISMATCH: Final = 0x87  # UNVERIFIED: ticket amount does not match the system's
TC_EXCEEDS_LIMIT: Final = 0x88  # UNVERIFIED: amount exceeds the auto redemption limit
#: nCompass ``Fill``: ``71 01 FF``: a request for the current ticket status.
TC_STATUS_QUERY: Final = 0xFF

#: Transfer codes that redeem (credit) the ticket.
TC_REDEEM: Final = frozenset({TC_CASHABLE, TC_RESTRICTED_PROMO, TC_NONRESTRICTED_PROMO})
#: Transfer codes that reject it (handed to the engine, which returns the ticket).
TC_REJECT: Final = frozenset(range(0x80, 0x89))

TRANSFER_REASONS: Final[dict[int, str]] = {
    TC_CASHABLE: "cashable",
    TC_RESTRICTED_PROMO: "restricted promotional",
    TC_NONRESTRICTED_PROMO: "non-restricted promotional",
    TC_REJECTED: "rejected by the host",
    TC_INVALID_NUMBER: "not a valid validation number",
    TC_NOT_IN_SYSTEM: "unknown ticket",
    TC_PENDING_ELSEWHERE: "ticket pending elsewhere",
    TC_ALREADY_REDEEMED: "ticket already redeemed",
    TC_EXPIRED: "ticket expired",
    TC_INFO_NOT_AVAILABLE: "validation information not available",
    TC_AMOUNT_MISMATCH: "amount does not match the host's record",
    TC_EXCEEDS_LIMIT: "amount above the redemption limit",
}

# --- 0x71 machine status (EGM -> host) -----------------------------------------------------
#: nCompass ``ResponseReceived``: 0, 1, 2 redeemed (cashable, restricted, non-restricted).
STATUS_CASHABLE_REDEEMED: Final = 0x00
STATUS_RESTRICTED_REDEEMED: Final = 0x01
STATUS_NONRESTRICTED_REDEEMED: Final = 0x02
#: nCompass: 0x40 pending (research/sas.md: "status 0x40 pending").
STATUS_PENDING: Final = 0x40
#: nCompass: 0x80..0x8B and 0xC0 are rejections ("VoucherRejectedByGame"); the reason
#: of each code is UNVERIFIED (names below).
STATUS_REJECTED_BY_HOST: Final = 0x80
STATUS_NUMBER_MISMATCH: Final = 0x81  # validation number is not the ticket in escrow
STATUS_BAD_TRANSFER_CODE: Final = 0x82  # not a valid transfer function
STATUS_BAD_AMOUNT: Final = 0x83  # not a valid transfer amount (non-BCD)
STATUS_OVER_CREDIT_LIMIT: Final = 0x84
STATUS_NOT_DENOMINATION_MULTIPLE: Final = 0x85
STATUS_AMOUNT_MISMATCH: Final = 0x86  # transfer amount does not match the ticket amount
STATUS_UNABLE_NOW: Final = 0x87  # gaming machine unable to accept the transfer now
STATUS_TIMEOUT: Final = 0x88
STATUS_LINK_DOWN: Final = 0x89
STATUS_REDEMPTION_DISABLED: Final = 0x8A
STATUS_VALIDATOR_FAILURE: Final = 0x8B
STATUS_NOT_IN_CYCLE: Final = 0xC0  # not compatible with the current redemption cycle
#: UNVERIFIED: no validation information available (status query with no ticket).
STATUS_NO_INFO: Final = 0xFF

STATUS_REDEEMED: Final = frozenset(
    {STATUS_CASHABLE_REDEEMED, STATUS_RESTRICTED_REDEEMED, STATUS_NONRESTRICTED_REDEEMED}
)

# --- 0x7B validation status bits (nCompass ``LongPoll7BMessage.cpp``; low byte first) ------
VS_PRINTER_CASHOUT: Final = 1 << 0
VS_PRINTER_HANDPAY_RECEIPT: Final = 1 << 1
VS_VALIDATE_HANDPAYS: Final = 1 << 2
VS_PRINT_RESTRICTED: Final = 1 << 3
VS_FOREIGN_RESTRICTED: Final = 1 << 4
VS_TICKET_REDEMPTION: Final = 1 << 5
#: nCompass notes the SAS document puts it in byte 1 bit 7 (bit 15 here); used as documented.
VS_SECURE_ENHANCED: Final = 1 << 15
#: The bits this cabinet can have set: printer as cash-out device, ticket redemption.
VS_SUPPORTED: Final = VS_PRINTER_CASHOUT | VS_TICKET_REDEMPTION


def apply_validation_status(current: int, control_mask: int, status_bits: int, supported: int = VS_SUPPORTED) -> int:
    """The 0x7B status after a host request: the bits in ``control_mask`` take their value
    from ``status_bits``, the others keep ``current``; bits outside ``supported`` stay 0.

    Args / returns: 16-bit ints (bit 0 = the first byte's bit 0).  Source: nCompass
    ``LongPoll7BMessage.cpp`` (a setter sets the control mask bit and the status bit).
    """
    return ((current & ~control_mask) | (status_bits & control_mask)) & supported & 0xFFFF


# --- 0x50 validation types (nCompass ``LongPoll50Message.cpp``; meanings UNVERIFIED
# beyond what nCompass's meter names say) ---------------------------------------------------
VT_CASHABLE_TICKET: Final = 0x00  # cashable tickets printed (nCompass mTO / mTVal)
VT_RESTRICTED_TICKET: Final = 0x01  # restricted promotional tickets printed
VT_HANDPAY_CANCELLED_RECEIPT: Final = 0x10
VT_HANDPAY_JACKPOT_RECEIPT: Final = 0x20
VT_CASHABLE_TICKET_REDEEMED: Final = 0x80
VT_RESTRICTED_TICKET_REDEEMED: Final = 0x81
VT_NONRESTRICTED_TICKET_REDEEMED: Final = 0x82
#: Every type a 0x50 may ask for (Monaco ``Aristocrat.Sas.Client/TicketValidationType.cs``,
#: Table 15.13c): any other byte is NACKed (``LP50SendValidationMetersParser.cs``).
VALIDATION_TYPES: Final = frozenset({0x00, 0x01, 0x02, 0x03, 0x04, 0x10, 0x20, 0x40, 0x60, 0x80, 0x81, 0x82})

# --- 0xA8 (nCompass ``LongPollA8Message``) ---------------------------------------------------
RESET_STANDARD_HANDPAY: Final = 0x00
RESET_TO_CREDIT_METER: Final = 0x01

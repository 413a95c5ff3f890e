"""Records kept in the journal beside the cabinet state: vouchers and recall.

Owns: ``VoucherRecord`` and ``RecallEntry`` (msgspec structs, JSON in the
journal). Pure data.
"""

from __future__ import annotations

from typing import Any

import msgspec

#: Voucher life: printing -> issued -> redeemed; or printing -> handpay -> handpaid.
VOUCHER_STATUSES = ("printing", "issued", "handpay", "handpaid", "redeemed")


class VoucherRecord(msgspec.Struct, kw_only=True, frozen=True):
    """One cash-out voucher.

    Attributes:
        validation_number: 18 decimal digits from ``secrets``.
        sequence: this cabinet's ticket number, from 1.
        amount_minor: value.
        station: the station that cashed out.
        issued_wall_s, expires_wall_s: Unix times.
        status: one of ``VOUCHER_STATUSES``.
        venue, machine_number: printed on the ticket.
        redeemed_wall_s: when it was taken back in, if it was.
        clock_adjust_s: the cabinet's sum of journaled clock jumps at issue
            (``CabinetState.clock_adjust_s``); expiry discounts jumps since.
    """

    validation_number: str
    sequence: int
    amount_minor: int
    station: int
    issued_wall_s: float
    expires_wall_s: float
    status: str
    venue: str
    machine_number: str
    redeemed_wall_s: float | None = None
    clock_adjust_s: float = 0.0


class RecallEntry(msgspec.Struct, kw_only=True, frozen=True):
    """One round as game recall shows it (research B "Last-game recall").

    ``steps`` lists every card in dealing order and every decision, in play
    order, as short strings (``"deal AS to seat 1 spot 1"``, ``"hit"``).
    ``jackpot_handpay_minor``: the round's win locked up for the attendant
    (then ``credits_after_minor`` is without it).
    """

    round_id: int
    station: int
    variant: str
    wall_s: float
    credits_before_minor: int
    credits_after_minor: int
    wagered_minor: int
    returned_minor: int
    insurance_minor: int
    steps: list[str]
    result: dict[str, Any]
    voided: bool = False
    jackpot_handpay_minor: int = 0

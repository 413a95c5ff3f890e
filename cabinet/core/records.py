"""Records kept in the journal beside the cabinet state: vouchers and recall.

Owns: ``VoucherRecord``, ``TicketData`` and ``RecallEntry`` (msgspec structs, JSON in the
journal). Pure data.
"""

from __future__ import annotations

from typing import Any

import msgspec


class VoucherRecord(msgspec.Struct, kw_only=True, frozen=True):
    """One cash-out voucher.

    Attributes:
        validation_number: 18 decimal digits from ``secrets``.
        sequence: this cabinet's ticket number, from 1.
        amount_minor: value.
        station: the station that cashed out.
        issued_wall_s, expires_wall_s: Unix times.
        status: ``printing``, ``issued``, ``handpay``, ``handpaid`` or ``redeemed``
            (a voucher's life: printing -> issued -> redeemed; or printing ->
            handpay -> handpaid).
        venue, machine_number: printed on the ticket.
        redeemed_wall_s: when it was taken back in, if it was.
        clock_adjust_s: the cabinet's sum of journaled clock jumps at issue
            (``CabinetState.clock_adjust_s``); expiry discounts jumps since.
        address_lines: the host's address lines printed under the venue (SAS
            0x7C/0x7D ``TicketData``), ``()`` when the host set none.
        validation: ``"none"`` (the cabinet drew the number) or ``"system"`` (the
            casino host issued it, SAS 0x58: the host redeems it).
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
    address_lines: tuple[str, ...] = ()
    validation: str = "none"


class TicketData(msgspec.Struct, kw_only=True, frozen=True):
    """What the casino host set for the tickets a station prints (SAS long
    polls 0x7C set extended ticket data / 0x7D set ticket data, research/sas.md).

    Attributes:
        host_id: the host's id for this EGM (0x7D), 0 when not set.
        expiration_days: days a ticket stays good (0: the settings' own
            ``voucher_expiry_days``).
        location, address1, address2: printed on the ticket in place of the venue
            name (``""``: not set, the settings' ``venue_name`` is printed).
        restricted_title, debit_title: 0x7C ticket titles (kept, not printed: the
            cabinet prints cashable tickets only).
        validation_status: the 0x7B status bits in effect (bit 0 printer as cash-out
            device, bit 5 ticket redemption; ``drivers.sas.tito_codes``).
        cashable_expiration_days, restricted_expiration_days: 0x7B expirations (0:
            not set).
        validation_status_set: the host has sent 0x7B; until then the cabinet's
            defaults hold (printer as cash-out device and ticket redemption both on),
            after it ``validation_status`` is enforced (``cabinet.core.tito``).
    """

    host_id: int = 0
    expiration_days: int = 0
    location: str = ""
    address1: str = ""
    address2: str = ""
    restricted_title: str = ""
    debit_title: str = ""
    validation_status: int = 0
    cashable_expiration_days: int = 0
    restricted_expiration_days: int = 0
    validation_status_set: bool = False


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

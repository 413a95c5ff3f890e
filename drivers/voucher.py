"""The cash-out voucher as drivers see it (protocols.md 4.1).

Owns: ``Voucher`` and validation-number helpers.
Must not import: cabinet.*, gpiozero, serial.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from drivers.errors import ConfigError

VALIDATION_DIGITS = 18


@dataclass(frozen=True, slots=True)
class Voucher:
    """Everything printed on one ticket.

    Attributes:
        validation_number: 18 ASCII digits (2-digit system id + 16 digits).
        amount_minor: amount in minor units (cents), > 0.
        sequence: per-machine ticket sequence number, >= 1.
        issued_at: local date and time of issue.
        expires_at: expiry date/time, or None for "never expires".
        venue: site name (one line).
        machine_number: asset/EGM number.
        ticket_type: e.g. "CASHOUT TICKET", "PROMO", "TEST - VOID".
        currency: ISO 4217 code; "USD" prints dollars/cents.
        address_lines: the venue's address lines printed under its name (as
            the casino host set them, SAS 0x7C/0x7D), at most 40 characters each.

    Raises:
        ConfigError: on a malformed validation number, amount or sequence.
    """

    validation_number: str
    amount_minor: int
    sequence: int
    issued_at: datetime
    expires_at: datetime | None
    venue: str
    machine_number: str
    ticket_type: str = "CASHOUT TICKET"
    currency: str = "USD"
    address_lines: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.validation_number) != VALIDATION_DIGITS or not self.validation_number.isdigit():
            raise ConfigError("validation_number", f"must be {VALIDATION_DIGITS} digits")
        if self.amount_minor <= 0:
            raise ConfigError("amount_minor", "must be > 0")
        if self.sequence < 1:
            raise ConfigError("sequence", "must be >= 1")


def format_validation_number(number: str) -> str:
    """Group 18 digits for printing: ``00-1234-5678-9012-3456``."""
    return "-".join([number[:2]] + [number[i : i + 4] for i in range(2, len(number), 4)])

"""Accounting meters: names, ten-digit rollover, and the self-audit.

Owns: ``Meters`` (one station's counters), ``METER_MODULUS`` and
``audit_balance``. Pure. Meters only ever go up (modulo 10^10,
research/cabinet-features.md A "Meter width"); a meter is changed only
inside the transaction that moves the money it counts.
"""

from __future__ import annotations

import msgspec

#: Meters are ten decimal digits and roll over (research A: "at least 10 digits").
METER_MODULUS = 10**10


class Meters(msgspec.Struct, kw_only=True):
    """One station's meters. Money meters are minor units; the rest are counts.

    Money in: ``bills_in_minor``, ``vouchers_in_minor``. Money out:
    ``vouchers_out_minor`` (printed), ``handpay_minor`` (attendant-paid
    cancelled credits), ``jackpot_handpay_minor`` (attendant-paid jackpots:
    round wins at or above the jackpot limit, paid by hand instead of to the
    credit meter; ``coin_out_minor`` still counts them as won by play, so
    coin out / coin in stays the game's return), and ``cashout_pending_minor`` (a voucher taken off
    the credit meter whose print has not been confirmed). Play:
    ``coin_in_minor`` (every main stake: initial bets, doubles, splits),
    ``coin_out_minor`` (everything main hands return, stakes included),
    ``insurance_in_minor`` / ``insurance_out_minor``, ``void_returned_minor``
    (stakes given back when a round is voided) and ``void_reclaimed_minor``
    (what a voided round had already paid, taken back: "nothing is paid").
    """

    bills_in_minor: int = 0
    bills_in_count: int = 0
    bills_by_denom: dict[str, int] = {}
    vouchers_in_minor: int = 0
    vouchers_in_count: int = 0
    vouchers_out_minor: int = 0
    vouchers_out_count: int = 0
    handpay_minor: int = 0
    handpay_count: int = 0
    jackpot_handpay_minor: int = 0
    jackpot_handpay_count: int = 0
    coin_in_minor: int = 0
    coin_out_minor: int = 0
    insurance_in_minor: int = 0
    insurance_out_minor: int = 0
    void_returned_minor: int = 0
    void_reclaimed_minor: int = 0
    games_played: int = 0
    games_won: int = 0
    games_lost: int = 0
    games_pushed: int = 0
    blackjacks: int = 0
    doubles: int = 0
    splits: int = 0
    insurance_taken: int = 0

    def add(self, name: str, amount: int) -> None:
        """Add ``amount`` (>= 0) to meter ``name``, rolling over at 10^10.

        Raises:
            ValueError: a negative amount (meters never go down).
        """
        if amount < 0:
            raise ValueError(f"meter {name}: cannot add {amount}")
        setattr(self, name, (getattr(self, name) + amount) % METER_MODULUS)

    def count_bill(self, denom_minor: int) -> None:
        key = str(denom_minor)
        self.bills_by_denom[key] = (self.bills_by_denom.get(key, 0) + 1) % METER_MODULUS


def audit_balance(credits_minor: int, pending_out_minor: int, m: Meters) -> int:
    """What the credit meter should hold by the meters, modulo 10^10.

    credits = bills in + vouchers in - vouchers out - handpays - jackpot
    handpays - cash-out
    pending (a voucher taken off the credit meter whose print is not yet
    confirmed: ``pending_out_minor``) - coin in + coin out - insurance in + insurance out + voided
    returns (research A "Self-audit"). Returns the difference
    ``expected - credits`` modulo 10^10: 0 when the station balances.
    """
    expected = (
        m.bills_in_minor
        + m.vouchers_in_minor
        - m.vouchers_out_minor
        - m.handpay_minor
        - m.jackpot_handpay_minor
        - pending_out_minor
        - m.coin_in_minor
        + m.coin_out_minor
        - m.insurance_in_minor
        + m.insurance_out_minor
        + m.void_returned_minor
        - m.void_reclaimed_minor
    )
    return (expected - credits_minor) % METER_MODULUS

"""SAS meter codes (Table C-7) for every meter the cabinet counts, from the station's own
cabinet meters: long polls 0x6F/0xAF (extended meters for game N) and the codes 0x2F
answers beyond ``egm_meters.METER_CODES``.

Owns: ``EXTENDED_METERS`` (meter code -> ``CodeMeter``: how to read it from the view,
its unit, whether it is a per-game meter), ``extended_meter`` and ``extended_width``.
Must not import: serial, time, threading, cabinet.*.

Source of every code, its unit and its game flag: Aristocrat Monaco
``Protocol/SAS/Aristocrat.Monaco.Sas/SASMeterCollection.cs`` (meter id, the platform meter
it reads, game meter yes/no, ``MeterCategory`` Credit / Cents / Occurrence / Percentage)
with the code names of ``Protocol/SAS/Aristocrat.Sas.Client/Metering/SASMeterId.cs``.
Units: ``credits`` are credits of the accounting denomination (minor units //
``view.accounting_denomination_minor``), ``cents`` are minor units (a 2-decimal currency),
``count`` are occurrences, ``percent`` is hundredths of a percent (Monaco
``PercentageMeterClassification.Multiplier`` 10000 = 100.00 %).

The cabinet meters are ``view.meters_minor`` (``cabinet meters --json`` names: money in
minor units, counts) plus ``sas_coin_in_minor`` and ``sas_coin_out_minor`` (below).  The
cabinet has no coin acceptor, hopper, restricted or promotional
tickets, AFT, bonusing or progressives: the codes for those are not answered (Monaco
leaves out codes it has no meter for).  Insurance and voided rounds are in coin in /
coin out; pushes, blackjacks, doubles, splits and the handpay counts have no SAS meter code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drivers.sas.denominations import BILL_DENOMINATIONS_DOLLARS
from drivers.sas.egm_view import EgmView

MINOR_PER_DOLLAR = 100
#: The cabinet's meters roll over at 10**10 (``cabinet.core.meters.METER_MODULUS``).
CABINET_METER_DIGITS = 10
#: Monaco ``SasConstants.MaxMeterLength`` (18 digits): the current credits width in 0x6F/0xAF.
MAX_METER_DIGITS = 18
#: Monaco ``PercentageMeterClassification`` upper bound 99999999: 8 digits.
PERCENT_DIGITS = 8


@dataclass(frozen=True, slots=True)
class CodeMeter:
    """One SAS meter code the cabinet answers.

    Attributes:
        read: the value from the view (before any BCD wrap).
        unit: ``credits``, ``cents``, ``count`` or ``percent`` (see the module docstring).
        game_meter: answered for game N >= 1 too (Monaco's ``GameMeter`` flag).
    """

    read: Callable[[EgmView], int]
    unit: str
    game_meter: bool = False


def _raw(view: EgmView, *names: str) -> int:
    return sum(int(view.meters_minor.get(n, 0)) for n in names)


def _credits(*names: str) -> Callable[[EgmView], int]:
    return lambda view: _raw(view, *names) // max(1, view.accounting_denomination_minor)


def _cents(*names: str) -> Callable[[EgmView], int]:
    return lambda view: _raw(view, *names)  # minor units are cents (a 2-decimal currency)


def _count(name: str) -> Callable[[EgmView], int]:
    return lambda view: _raw(view, name)


def _field(name: str) -> Callable[[EgmView], int]:
    return lambda view: int(getattr(view, name))


def _bills(dollars: int) -> Callable[[EgmView], int]:
    return lambda view: int(view.bill_counts.get(dollars * MINOR_PER_DOLLAR, 0))


def weighted_payback(view: EgmView) -> int:
    """Weighted average theoretical payback in hundredths of a percent (9989 = 99.89 %).

    Monaco's meter is the theoretical payback (each wager times its game's payback) over
    the amount wagered (``Aristocrat.Monaco.Gaming.addin.xml`` ``AvgPayback`` =
    ``TheoPayback / WageredAmount``).  A station plays one game, so every wager carries
    that game's par-sheet return (``MachineInfo.base_percent``, from ``cabinet parsheet``)
    and the weighted average is that return.  0 before the first wager.
    """
    info = view.machine_info
    if info is None or not _raw(view, "coin_in_minor") or not info.base_percent.isdigit():
        return 0
    return int(info.base_percent)


#: Bill counts by code, in dollars.  Monaco ``SASMeterCollection.cs`` 0x40-0x57
#: (``TotalNumberBillsAccepted1`` .. ``1000000``) and 0x59-0x62 (``TotalNumberBillsToDrop1``
#: .. ``1000``): every bill the cabinet takes goes to the drop (no recycler).
BILLS_ACCEPTED_CODES: dict[int, int] = dict(
    zip(
        range(0x40, 0x58),
        BILL_DENOMINATIONS_DOLLARS,
        strict=True,
    )
)
BILLS_TO_DROP_CODES: dict[int, int] = dict(
    zip(range(0x59, 0x63), (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000), strict=True)
)

VOUCHERS_IN, VOUCHERS_OUT = "vouchers_in_minor", "vouchers_out_minor"
#: SAS coin in (every wager) and coin out (what play paid to the credit meter, hand-paid
#: jackpots not included: they are 0x02's), as the shell's view computes them
#: (``cabinet.shell.host_view.play_meters_minor``; Monaco 0x00 ``WageredAmount``, 0x01
#: ``TotalEgmPaidAmt``, 0x02 ``TotalHandPaidAmt``, 0x22 ``TotalPaidAmt`` = 0x01 + 0x02).
COIN_IN, COIN_OUT = "sas_coin_in_minor", "sas_coin_out_minor"

EXTENDED_METERS: dict[int, CodeMeter] = {
    0x00: CodeMeter(_credits(COIN_IN), "credits", True),  # TotalCoinIn
    0x01: CodeMeter(_credits(COIN_OUT), "credits", True),  # TotalCoinOut
    0x02: CodeMeter(_credits("jackpot_handpay_minor"), "credits", True),  # TotalJackpot
    0x03: CodeMeter(_credits("handpay_minor"), "credits"),  # TotalHandPaidCanceledCredits
    0x04: CodeMeter(_credits(VOUCHERS_OUT, "handpay_minor"), "credits"),  # TotalCanceledCredits
    0x05: CodeMeter(_count("games_played"), "count", True),
    0x06: CodeMeter(_count("games_won"), "count", True),
    0x07: CodeMeter(_count("games_lost"), "count", True),
    0x0B: CodeMeter(_credits("bills_in_minor"), "credits"),  # TotalCreditsFromBillsAccepted
    0x0C: CodeMeter(_field("current_credits"), "credits"),  # CurrentCredits
    0x0D: CodeMeter(_cents(VOUCHERS_IN), "cents"),  # TotalSasCashableTicketInCents
    0x0E: CodeMeter(_cents(VOUCHERS_OUT), "cents"),  # TotalSasCashableTicketOutCents
    0x11: CodeMeter(_count("vouchers_in_count"), "count"),  # TotalSasCashableTicketInQuantity
    0x12: CodeMeter(_count("vouchers_out_count"), "count"),  # TotalSasCashableTicketOutQuantity
    0x15: CodeMeter(_credits(VOUCHERS_IN), "credits"),  # TotalTicketIn
    0x16: CodeMeter(_credits(VOUCHERS_OUT), "credits"),  # TotalTicketOut
    0x1C: CodeMeter(_credits(COIN_OUT), "credits", True),  # TotalMachinePaidPaytableWin
    0x1F: CodeMeter(_credits("jackpot_handpay_minor"), "credits", True),  # TotalHandPaidPaytableWin
    0x22: CodeMeter(_credits(COIN_OUT, "jackpot_handpay_minor"), "credits", True),  # TotalWonCredits
    0x23: CodeMeter(_credits("handpay_minor", "jackpot_handpay_minor"), "credits"),  # TotalHandPaidCredits
    0x24: CodeMeter(_credits("bills_in_minor", VOUCHERS_IN), "credits"),  # TotalDrop
    0x25: CodeMeter(_field("games_since_power_up"), "count"),  # GamesSinceLastPowerReset
    0x26: CodeMeter(_field("games_since_door_closed"), "count"),  # GamesSinceSlotClosure
    0x28: CodeMeter(_credits(VOUCHERS_IN), "credits"),  # TotalCashableTicketIn
    0x29: CodeMeter(_credits(VOUCHERS_IN), "credits"),  # TotalRegularCashableTicketIn
    0x2C: CodeMeter(_credits(VOUCHERS_OUT), "credits"),  # TotalCashableTicketOut
    0x35: CodeMeter(_count("vouchers_in_count"), "count"),  # TotalRegularCashableTicketInQuantity
    0x38: CodeMeter(_count("vouchers_out_count"), "count"),  # TotalRegularCashableTicketOutQuantity
    **{code: CodeMeter(_bills(d), "count") for code, d in BILLS_ACCEPTED_CODES.items()},
    0x58: CodeMeter(_credits("bills_in_minor"), "credits"),  # TotalCreditsBillsToDrop
    **{code: CodeMeter(_bills(d), "count") for code, d in BILLS_TO_DROP_CODES.items()},
    0x7F: CodeMeter(weighted_payback, "percent", True),  # AverageTheoreticalPaybackPercentage
    0x80: CodeMeter(_cents(VOUCHERS_IN), "cents"),  # CashableTicketInCents
    0x81: CodeMeter(_count("vouchers_in_count"), "count"),  # CashableTicketInCount
    0x86: CodeMeter(_cents(VOUCHERS_OUT), "cents"),  # CashableTicketOutCents
    0x87: CodeMeter(_count("vouchers_out_count"), "count"),  # CashableTicketOutCount
}


def game_exists(view: EgmView, game: int) -> bool:
    """Game 0 is the whole machine; games 1..N are ``view.games`` (one game: game 1)."""
    return game == 0 or 1 <= game <= max(1, len(view.games))


def extended_meter(view: EgmView, code: int, game: int = 0) -> int | None:
    """Value of meter ``code`` for ``game`` (0: the whole machine), None when the cabinet
    does not answer it there: an unknown code, a machine-wide code for game N >= 1, or a
    game the cabinet does not have (Monaco ``SendSelectedMetersForGameNHandler``: codes
    without a meter are left out, ``x.GameMeter || data.GameNumber == 0``; an unknown game
    answers no meters).  A station plays one game: game 1's meters are the machine's."""
    meter = EXTENDED_METERS.get(code)
    if meter is None or not game_exists(view, game) or (game and not meter.game_meter):
        return None
    return max(0, meter.read(view))


def extended_width(view: EgmView, code: int) -> int:
    """0x6F/0xAF meter size in bytes: half the digits of the meter's largest value
    (Monaco ``SendSelectedMetersForGameNParserBase``: ``Math.Min(MeterLength,
    MaxMeterLength) / 2``; ``MeterClassificationExtensions.GetMeterLength``: the digits of
    the upper bound in the meter's unit).  The cabinet's meters roll over at 10**10 minor
    units or counts; current credits take the 18-digit maximum; the payback percentage 8."""
    meter = EXTENDED_METERS.get(code)
    if code == 0x0C:
        return MAX_METER_DIGITS // 2
    if meter is not None and meter.unit == "percent":
        return PERCENT_DIGITS // 2
    if meter is not None and meter.unit == "credits":
        top = (10**CABINET_METER_DIGITS - 1) // max(1, view.accounting_denomination_minor)
        return len(str(top)) // 2
    return CABINET_METER_DIGITS // 2

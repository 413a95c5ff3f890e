"""What the EGM answers from its ``EgmView``: meter lookups by long poll and by SAS
meter code (0x2F), and the bill tables (exception codes, 0x08 mask bits, meter codes).

Owns: the mapping of ``EgmView`` fields onto SAS meters, and every per-denomination
bill table the EGM side needs, each with its source.
Must not import: serial, time, threading, cabinet.*.

Money values in the view are credits of the accounting denomination; bill values are
minor units.  The bill tables are in US dollars (SAS's own tables are); a dollar is
``MINOR_PER_DOLLAR`` minor units (a 2-decimal currency is assumed).  Meters wrap modulo
their BCD width ("modulo the BCD width"); a negative value reads as 0.
"""

from __future__ import annotations

from collections.abc import Callable

from drivers.sas import egm_meter_codes
from drivers.sas.denominations import BILL_DENOMINATIONS_DOLLARS
from drivers.sas.egm_view import EgmView

MINOR_PER_DOLLAR = 100

# --- general poll exception per bill (name "bill_accepted") -----------------------------
#: bill in dollars -> exception code.  Source: nCompass ``Sentinel/SASProtocol/
#: SASGeneralPoll.h`` (GPE_1_DOLLAR_ACCEPTED 0x47 ... GPE_500_DOLLAR_ACCEPTED 0x4E,
#: GPE_BILL_ACCEPTED 0x4F, GPE_200_DOLLAR_ACCEPTED 0x50); saspy (zacharytomlinson)
#: ``models/GPoll.py`` agrees code for code ("47": "$1.00 bill accepted (non-RTE only)" ...
#: "4f": "Bill accepted", "50": "$200.00 bill accepted").
BILL_EXCEPTION_CODES_DOLLARS: dict[int, int] = {
    1: 0x47,
    5: 0x48,
    10: 0x49,
    20: 0x4A,
    50: 0x4B,
    100: 0x4C,
    2: 0x4D,
    500: 0x4E,
    200: 0x50,
}
#: A bill without a code of its own ($25, $1000...): both sources list 0x4F "Bill
#: accepted" without a denomination, so that is what it gets.
BILL_ACCEPTED_GENERIC = 0x4F


def bill_exception_code(bill_minor: int) -> int:
    """General poll code for a bill of ``bill_minor`` (see the table above)."""
    dollars, cents = divmod(bill_minor, MINOR_PER_DOLLAR)
    if cents:
        return BILL_ACCEPTED_GENERIC
    return BILL_EXCEPTION_CODES_DOLLARS.get(dollars, BILL_ACCEPTED_GENERIC)


# --- long poll 0x08 configure bill denominations ----------------------------------------
#: Bit n of the 4-byte mask (sent LSB first) enables this bill, in dollars.  Source:
#: saspy (zacharytomlinson) ``sas.py`` ``configure_bill_denom`` docstring table (LSB:
#: $1 $2 $5 $10 $20 $25 $50 $100; 2nd byte: $200 $250 $500 $1000 $2000 $2500 $5000
#: $10000; 3rd byte: $20000 ... $1000000; MSB: TBD).  Aristocrat ``Sas.Client``
#: ``LP08ConfigureBillDenominationsParser`` (EGM side) has the same table, reads the
#: 3 bytes after the command LSB first and the action flag at offset 6.  saspy's code
#: sends ``08 00`` then its 3 default bytes (MSB first), disagreeing with both tables.
BILL_MASK_DOLLARS: tuple[int, ...] = BILL_DENOMINATIONS_DOLLARS


def parse_bill_mask(mask: bytes) -> tuple[int, ...]:
    """Enabled bills in minor units, smallest first, from 0x08's 4 mask bytes (LSB first).

    Bits of the 4th (TBD) byte are ignored.

    Raises:
        ValueError: ``mask`` is not 4 bytes.
    """
    if len(mask) != 4:
        raise ValueError(f"0x08 bill mask is 4 bytes, got {len(mask)}")
    bits = int.from_bytes(mask, "little")
    return tuple(d * MINOR_PER_DOLLAR for i, d in enumerate(BILL_MASK_DOLLARS) if bits >> i & 1)


# --- bill meters ---------------------------------------------------------------------------
#: 0x1E's six counts, in dollars, in wire order.  Source: nCompass ``LongPoll1EMessage.cpp``
#: (m_one at response+2, m_five +6, m_ten +10, m_twenty +14, m_fifty +18, m_hundred +22);
#: saspy (thomas-pythonas) ``total_bill_meters`` agrees ($1 $5 $10 $20 $50 $100).
BILLS_1E_DOLLARS: tuple[int, ...] = (1, 5, 10, 20, 50, 100)

#: SAS meter code -> bill in dollars (bills accepted count).  Source: nCompass
#: ``SASPollMessage.h`` ``mainGameMeterCodeMap`` (mD1 0x40 "Ones", mD2 0x41, mD5 0x42,
#: mD10 0x43, mD20 0x44, mD50 0x46, mD100 0x47, mD200 0x48, mD500 0x4A, mD1000 0x4B).
#: 0x45 ($25), 0x49 ($250) and 0x4C-0x57 are not in that map; Monaco ``SASMeterCollection.cs``
#: lists them: ``egm_meter_codes`` answers them.
BILL_METER_CODES_DOLLARS: dict[int, int] = {
    0x40: 1,
    0x41: 2,
    0x42: 5,
    0x43: 10,
    0x44: 20,
    0x46: 50,
    0x47: 100,
    0x48: 200,
    0x4A: 500,
    0x4B: 1000,
}


def bill_count(view: EgmView, dollars: int) -> int:
    """Bills of ``dollars`` accepted, from ``view.bill_counts`` (keyed in minor units)."""
    return view.bill_counts.get(dollars * MINOR_PER_DOLLAR, 0)


def bills_1e(view: EgmView) -> list[int]:
    """0x1E's six bill counts in wire order."""
    return [wrap(bill_count(view, d)) for d in BILLS_1E_DOLLARS]


# --- meters by long poll -------------------------------------------------------------------
#: 0x10-0x17 single meters.  Source: ``layouts.LAYOUTS`` names (nCompass
#: ``LongPoll10Message.cpp``, saspy 0x11-0x17).
SINGLE_METERS: dict[int, str] = {
    0x10: "cancelled_credits",
    0x11: "coin_in",
    0x12: "coin_out",
    0x13: "drop",
    0x14: "jackpot",
    0x15: "games_played",
    0x16: "games_won",
    0x17: "games_lost",
}
#: 0x0F: saspy ``send_meters_10_15`` (cancelled credits, coin in, coin out, drop,
#: jackpot, games played).
METERS_0F: tuple[str, ...] = ("cancelled_credits", "coin_in", "coin_out", "drop", "jackpot", "games_played")
#: 0x19: nCompass ``LongPoll19Message.cpp`` (coin in, coin out, drop, jackpot, games played).
METERS_19: tuple[str, ...] = ("coin_in", "coin_out", "drop", "jackpot", "games_played")


def wrap(value: int, width: int = 4) -> int:
    """``value`` as a ``width``-byte BCD meter shows it: modulo 10**(2*width); negative -> 0."""
    return max(0, value) % int(10 ** (2 * width))


def field_meters(view: EgmView, names: tuple[str, ...]) -> list[int]:
    """The named ``EgmView`` fields, wrapped to 4-byte BCD."""
    return [wrap(int(getattr(view, n))) for n in names]


# --- 0x2F selected meters by SAS meter code (SAS Appendix C) -------------------------------
def _field(name: str) -> Callable[[EgmView], int]:
    return lambda view: int(getattr(view, name))


def _bills(dollars: int) -> Callable[[EgmView], int]:
    return lambda view: bill_count(view, dollars)


#: meter code -> value.  Source: nCompass ``SASPollMessage.h`` ``mainGameMeterCodeMap``
#: (gCI 0x00 coin in; gCO 0x1C, secondary 0x01 coin out; gJP 0x1F, secondary 0x02
#: jackpot; mHCC 0x03 hand-paid cancelled credits; gCC 0x04 cancel credit; gGS 0x05 games
#: played; gGW 0x06 games won; mBD 0x0B bill drop credits; mCrd 0x0C credits; mTotalDrop
#: 0x24 "total drop should include bill drop and ticket drop"; bills 0x40-0x4B above).
#: 0x07 games lost: the host link's brief, not in nCompass's map (UNVERIFIED against the spec).
#: 0x1C (machine paid paytable win) = coin out and 0x1F (attendant paid paytable win) =
#: jackpot: the cabinet has no progressives or external bonuses, so nCompass's primary
#: and secondary codes read the same meter.
METER_CODES: dict[int, Callable[[EgmView], int]] = {
    0x00: _field("coin_in"),
    0x01: _field("coin_out"),
    0x02: _field("jackpot"),
    0x03: _field("handpaid_cancelled_credits"),
    0x04: _field("cancelled_credits"),
    0x05: _field("games_played"),
    0x06: _field("games_won"),
    0x07: _field("games_lost"),
    0x0B: _field("bills_accepted_credits"),
    0x0C: _field("current_credits"),
    0x1C: _field("coin_out"),
    0x1F: _field("jackpot"),
    0x24: _field("drop"),
    **{code: _bills(dollars) for code, dollars in BILL_METER_CODES_DOLLARS.items()},
}


#: The codes that are per game (answered for game N >= 1).  Source: nCompass
#: ``SASPollMessage.h`` ``subGameMeterCodeMap`` (0x05 games played, 0x00 coin in, 0x1C,
#: 0x1F, 0x06 games won...), plus 0x01, 0x02 and 0x07 (coin out, jackpot, games lost:
#: per game by nature; not in that map).  Machine-wide meters (credits, bills, drop,
#: cancelled credits) are answered for game 0 only, as Aristocrat ``Sas.Client``
#: ``SendSelectedMetersForGameNHandler`` does (``x.GameMeter || data.GameNumber == 0``;
#: current credits only "gameId == 0").
GAME_METER_CODES = frozenset({0x00, 0x01, 0x02, 0x05, 0x06, 0x07, 0x1C, 0x1F})


def game_exists(view: EgmView, game: int) -> bool:
    """Game 0 is the whole machine; with one game (or none listed) game 1 is that game
    and its meters are the machine's.  Per-game meters of several games are not in the
    view: such games answer no meters."""
    return game == 0 or (game == 1 and len(view.games) <= 1)


def selected_meter(view: EgmView, code: int, game: int = 0) -> int | None:
    """Value of SAS meter ``code`` for ``game`` (0: the whole machine), or None when the
    cabinet does not count it there.  The 0x2F reply leaves such codes out: Aristocrat
    ``Sas.Client`` (EGM side) drops codes it has no meter for
    (``RequestedMeters.Select(SasMeterForCode).Where(x => x != null ...)``) and answers an
    unknown game with no meters; nCompass (host side) ``LongPoll2FMessage.cpp`` parses
    the reply code by code and leaves meters it is not sent invalid.

    ``view.extra_meters`` (game 0 only) take precedence over the built-in codes.
    """
    if not game_exists(view, game):
        return None
    if game == 0 and code in view.extra_meters:
        return int(view.extra_meters[code])
    getter = METER_CODES.get(code)
    if getter is None:  # the codes beyond nCompass's map: Monaco's table, its own game flags
        return egm_meter_codes.extended_meter(view, code, game)
    if game != 0 and code not in GAME_METER_CODES:
        return None
    return getter(view)

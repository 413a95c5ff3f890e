"""The bill denominations SAS numbers, in dollars, in the order of their codes.

Owns: ``BILL_DENOMINATIONS_DOLLARS`` (code 0 = $1 .. code 23 = $1,000,000) and
``BILL_DENOMINATION_CODES`` (dollars -> code), the one copy the bill exceptions, the
bill meter codes (0x40-0x57), the 0x08 bill mask and the host twin read.
Sources: Aristocrat Monaco ``BillDenominationCodes`` (``One`` = 0 .. ``OneMillion`` =
23) and ``Utilities.cs`` ``DenominationCodes``; saspy's meter table 0x40-0x57 (research/sas.md).
Pure; imports nothing.
"""

from __future__ import annotations

# fmt: off
BILL_DENOMINATIONS_DOLLARS: tuple[int, ...] = (
    1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000,
    25000, 50000, 100000, 200000, 250000, 500000, 1000000,
)
# fmt: on
#: Bill value in dollars -> SAS bill denomination code.
BILL_DENOMINATION_CODES: dict[int, int] = {d: i for i, d in enumerate(BILL_DENOMINATIONS_DOLLARS)}

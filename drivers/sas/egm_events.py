"""Real-time event reporting (long poll 0x0E): the event form of each exception.

Owns: ``event_bytes`` (one queued ``HostException`` -> its real-time event: the code,
then the data the layout gives that code), ``event_reply`` (the ``address FF event CRC``
frame), ``parse_enable`` (0x0E's one data byte) and ``EVENT_DATA_LEN`` (the data
length of each event code, for the host side to frame replies).
Must not import: serial, time, threading, cabinet.*.  Pure.

Sources (Aristocrat Monaco platform, ``Protocol/SAS/``; facts only):
- 0x0E ``address 0E enable CRC``, enable 00 disable / 01 enable, any other value is
  NACKed, an accepted one ACKed: ``Aristocrat.Sas.Client/LPParsers/
  LP0ERealTimeEventReportingParser.cs`` and its test ``Test/Aristocrat.SasClient.Tests/
  Parsers/LP0ERealTimeEventReportingParserTest.cs``.  The setting lives in the SAS
  client's memory only (``SasClient.IsRealTimeEventReportingActive``, not persisted):
  after a restart reporting is off until the host sends 0x0E again.
- While it is on, a general poll is answered ``address, FF, the event bytes, CRC``
  (no event: the event bytes are ``00``), and a long poll to this address (not a
  broadcast) is answered with the pending event instead of its own reply; both wait
  for the implied ACK like a general poll's exception byte:
  ``Aristocrat.Sas.Client/SasClient.cs`` ``HandleGeneralPoll`` and
  ``ProcessLongPollMessage``; ``Test/Aristocrat.SasClient.Tests/SasClientTest.cs``
  ``RunWithRealTimeExceptionTest`` ("address, 0xFF, ACPowerApplied, crc, crc").
- Event data (``Aristocrat.Monaco.Sas/Exceptions/`` and the tests beside them in
  ``Test/Aristocrat.Monaco.Sas.Tests/Exceptions/``):
  0x4F bill accepted (every bill, in place of the per-denomination 0x47-0x50: "RTE Mode
  always wants Bill Accepted"): country code 1 BCD, denomination code 1 BCD, the
  lifetime count of bills of that denomination 4 BCD (``BillDataExceptionBuilder``);
  0x7E game started: credits wagered 2 BCD, coin in meter 4 BCD (credits of the
  accounting denomination), wager type 1, progressive group 1
  (``GameStartedExceptionBuilder``; wager type = 0x40 | 0x80 when the bet is the
  maximum | the denomination code, ``Consumers/PrimaryGameStartedConsumer.cs``);
  0x7F game ended: win amount 4 BCD credits (``GameEndedExceptionBuilder``);
  0x8A game recall entry displayed: game number 2 BCD, recall entry 2 BCD
  (``GameRecallEntryDisplayedExceptionBuilder``).  Every other code has no data
  (``Aristocrat.Sas.Client/GenericExceptionBuilder.cs``).
- Country and bill denomination codes: ``Aristocrat.Sas.Client/BillAcceptorCountryCode.cs``
  (United States = 37) and ``BillDenominationCodes.cs`` with ``Utilities.cs``
  ``DenominationCodes`` ($1 = 0, $2 = 1, $5 = 2 ...; sent through ``ToBcd``).  The
  cabinet's bill acceptor takes US bills, so the country code is 37.
"""

from __future__ import annotations

from drivers.errors import ProtocolError
from drivers.sas import bcd
from drivers.sas.denominations import BILL_DENOMINATION_CODES
from drivers.sas.egm_meters import MINOR_PER_DOLLAR, wrap
from drivers.sas.egm_view import HostException
from drivers.sas.replies import long_reply

#: The event response "command" byte.
EVENT_RESPONSE = 0xFF
BILL_ACCEPTED = 0x4F
GAME_STARTED = 0x7E
GAME_ENDED = 0x7F
GAME_RECALL = 0x8A
#: Event code -> bytes of data after it (codes not listed carry none).
EVENT_DATA_LEN: dict[int, int] = {BILL_ACCEPTED: 6, GAME_STARTED: 8, GAME_ENDED: 4, GAME_RECALL: 4}
#: SAS bill acceptor country code of the United States (``BillAcceptorCountryCode``).
COUNTRY_UNITED_STATES = 37
#: 0x7E wager type bits (``PrimaryGameStartedConsumer``).
WAGER_MULTI_DENOMINATION = 0x40
WAGER_MAX_BET = 0x80


def parse_enable(data: bytes) -> bool:
    """0x0E data -> True (01, enable) or False (00, disable).

    Raises:
        ProtocolError: not one byte, or a value other than 00/01 (the EGM NACKs it).
    """
    if len(data) != 1 or data[0] > 1:
        raise ProtocolError(f"0x0E enable byte {data.hex(' ')!r} is not 00 or 01")
    return data[0] == 1


def bill_denomination_code(bill_minor: int) -> int:
    """SAS bill denomination code of a bill in minor units; 0 when it has none (Monaco
    sends a code below 0 as 0)."""
    dollars, cents = divmod(bill_minor, MINOR_PER_DOLLAR)
    return 0 if cents else BILL_DENOMINATION_CODES.get(dollars, 0)


def event_bytes(exc: HostException, code: int, denomination_code: int = 0) -> bytes:
    """The real-time event of ``exc``: ``code`` then its data (module docstring).

    Args:
        exc: the queued exception (its fields carry the values captured when it happened).
        code: its one-byte general poll code (a bill's 0x47-0x50 becomes 0x4F).
        denomination_code: the accounting denomination's SAS code (0x7E wager type).

    Values wrap modulo their BCD width, as meters do.
    """
    if exc.name == "bill_accepted":
        return (
            bytes((BILL_ACCEPTED,))
            + bcd.encode(COUNTRY_UNITED_STATES, 1)
            + bcd.encode(bill_denomination_code(exc.bill_minor), 1)
            + bcd.encode(wrap(exc.count), 4)
        )
    if code == GAME_STARTED:
        wager_type = WAGER_MULTI_DENOMINATION | (WAGER_MAX_BET if exc.max_bet else 0) | (denomination_code & 0x3F)
        return (
            bytes((GAME_STARTED,))
            + bcd.encode(wrap(exc.amount_credits, 2), 2)
            + bcd.encode(wrap(exc.meter_credits), 4)
            + bytes((wager_type, 0))
        )
    if code == GAME_ENDED:
        return bytes((GAME_ENDED,)) + bcd.encode(wrap(exc.amount_credits), 4)
    if code == GAME_RECALL:
        return bytes((GAME_RECALL,)) + bcd.encode(1, 2) + bcd.encode(wrap(exc.count, 2), 2)
    return bytes((code,))


def event_reply(address: int, event: bytes) -> bytes:
    """``address, FF, event, CRC``: a general poll's (or a long poll's) answer while
    real-time event reporting is on; ``event`` is ``b"\\x00"`` when nothing is pending."""
    return long_reply(address, EVENT_RESPONSE, event)

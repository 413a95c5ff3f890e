"""Typed contents of SAS long poll replies, shared by the EGM builders and host parsers.

Owns: the records a reply carries (``Meters1C``, ``MachineInfo``...) with their field
widths, and the meter-code widths of long poll 0x2F.
Must not import: serial, time, cabinet.*.

Meter values count units of the accounting denomination (credits), not minor units
(research/sas.md "Message kinds"); the engine converts.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Meter value width in bytes for long poll 0x2F: 4 by default, 5 for codes 0x0D-0x10
#: (SAS ticket in/out amounts).  Source: nCompass ``LongPoll2FMessage.h``
#: ``DEFAULT_METER_VALUE_SIZE = 4``, ``LONG_METER_VALUE_SIZE = 5`` and
#: ``LongPoll2FMessage.cpp`` ``MeterReceived`` (codes
#: ``smcTotalSasCashableTicketIn_IncludingNonrestricted`` 0x0D .. ``smcTotalSasRestrictedTicketOut`` 0x10,
#: ``SASPollMessage.h``).  The full width table is SAS Appendix C, not in our sources.
DEFAULT_METER_WIDTH = 4
LONG_METER_CODES = frozenset(range(0x0D, 0x11))
LONG_METER_WIDTH = 5


def meter_width(code: int) -> int:
    """BCD width in bytes of meter ``code`` in a 0x2F reply (see ``LONG_METER_CODES``)."""
    return LONG_METER_WIDTH if code in LONG_METER_CODES else DEFAULT_METER_WIDTH


@dataclass(frozen=True, slots=True)
class Meters1C:
    """Long poll 0x1C: eight 4-byte BCD meters, in this order.

    Source: nCompass ``LongPoll1CMessage.cpp`` (response offsets 2..30, 36 bytes in
    all) and research/sas.md "Long polls the cabinet needs".  saspy ``sas.py``
    ``meters()`` names the first three total bet / total win / total in: a difference
    in naming only, the layout is the same.
    """

    coin_in: int
    coin_out: int
    drop: int
    jackpot: int
    games_played: int
    games_won: int
    slot_door_opened: int
    power_reset: int

    def values(self) -> tuple[int, ...]:
        """The eight meters in wire order."""
        return (
            self.coin_in,
            self.coin_out,
            self.drop,
            self.jackpot,
            self.games_played,
            self.games_won,
            self.slot_door_opened,
            self.power_reset,
        )


@dataclass(frozen=True, slots=True)
class MachineInfo:
    """Long poll 0x1F gaming machine ID and information (20 data bytes).

    Layout (nCompass ``LongPoll1FMessage.cpp``, response offsets; saspy
    ``gaming_machine_ID`` agrees): game ID 2 ASCII, additional ID 3 ASCII,
    denomination 1 binary, max bet 1 binary, progressive group 1 binary, game
    options 2 bytes, paytable ID 6 ASCII, base percentage 4 ASCII.
    Not known from our sources: the denomination code table (SAS Table C-4), the bit
    meaning and byte order of the game options, and the base percentage format
    (nCompass copies 4 characters, e.g. ``"9750"``); they are carried as given.

    Attributes:
        game_id: exactly 2 ASCII characters.
        additional_id: exactly 3 ASCII characters.
        denomination: SAS denomination code 0..255.
        max_bet: 0..255.
        progressive_group: 0..255.
        game_options: exactly 2 raw bytes.
        paytable_id: exactly 6 ASCII characters.
        base_percent: exactly 4 ASCII characters.
    """

    game_id: str
    additional_id: str
    denomination: int
    max_bet: int
    progressive_group: int
    game_options: bytes
    paytable_id: str
    base_percent: str


#: Data bytes of a 0x1F reply (between the command byte and the CRC).
MACHINE_INFO_LEN = 20

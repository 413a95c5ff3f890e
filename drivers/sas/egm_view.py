"""What the SAS link answers from, and what it hands back to the engine.

Owns: ``EgmView`` (the in-memory copy of one EGM's last committed state the link
answers every poll from, research/sas.md "Timing": never a query in the poll path),
``HostException`` (one entry of the journaled host event queue), ``HandpayInfo`` and
the host commands the link passes to the engine (``HostCommand``).
Must not import: serial, time, threading, cabinet.*.

The engine (``cabinet/shell``) builds an ``EgmView`` per station after every commit
and hands it to that station's link, which swaps it in atomically.  Money values are
in credits of the SAS accounting denomination (research/sas.md "Message kinds":
"Money meters count units of the accounting denomination"); the shell converts from
minor units.  Counts are counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from drivers.sas.messages import MachineInfo


@dataclass(frozen=True, slots=True)
class HostException:
    """One queued host event, oldest first in ``EgmView.exceptions``.

    Attributes:
        exception_id: the engine's id for it (increasing per station); the link
            reports it back once the host has acknowledged it (implied ACK).
        name: the cabinet's protocol-neutral name (``slot_door_opened``,
            ``bill_accepted``, ``game_started``...): the link maps it to a general
            poll code with ``drivers.sas.exception_codes`` (names there).
        amount_credits: for ``bill_accepted`` the bill's value in credits (0 else).
        bill_minor: for ``bill_accepted`` the bill's value in minor units (its
            denomination picks the code 0x47-0x4E), 0 else.
    """

    exception_id: int
    name: str
    amount_credits: int = 0
    bill_minor: int = 0


@dataclass(frozen=True, slots=True)
class HandpayInfo:
    """A pending handpay, for long poll 0x1B (nCompass ``LongPoll1BMessage.cpp``).

    Attributes:
        amount_credits: the handpay's amount in credits.
        kind: ``cancelled_credits`` or ``jackpot``.
        level: SAS progressive level 1..0x20 (0 for a non-progressive handpay: the
            link then sends 0x40, or 0x80 for ``cancelled_credits``; Aristocrat
            Sas.Client ``LP1BSendHandpayInfoParser``).
        handpay_id: the engine's id for this handpay (0 when it has none): a changed
            value is a new handpay even when amount, kind and level repeat, so the
            link announces 0x51 again.
    """

    amount_credits: int
    kind: str = "cancelled_credits"
    level: int = 0
    handpay_id: int = 0


@dataclass(frozen=True, slots=True)
class EgmView:
    """One EGM (one station) as last committed, in credits of the accounting denomination.

    Attributes:
        address: the SAS address 1..127 (0: unconfigured after a RAM clear, answers nothing).
        current_credits: the credit meter (0x1A).
        coin_in, coin_out, drop, jackpot, cancelled_credits, handpaid_cancelled_credits:
            money meters (0x0F, 0x10-0x14, 0x19, 0x1C, 0x2F).  ``drop``: bills and
            tickets in; ``jackpot``: attendant-paid jackpots; ``cancelled_credits``:
            every cash-out (voucher or handpay).
        games_played, games_won, games_lost: counts (0x15-0x17, 0x1C).
        games_since_power_up, games_since_door_closed: counts (0x18).
        slot_door_opened, power_reset: counts (0x1C).
        bills_accepted_credits: credits from bills (0x2F meter 0x0B).
        bill_counts: bill value in minor units -> bills accepted (0x1E, 0x2F 0x40...).
        machine_info: game 0 (the whole machine) for 0x1F and 0x53 game 0.
        games: per game number 1..N its ``MachineInfo`` (0x51 N, 0x53 game N).
        selected_game: the game number being played (0x55), 0 when none.
        serial_number: up to 40 ASCII characters (0x54).
        asset_number: the casino's asset number.
        exceptions: queued host events, oldest first.
        handpay: the pending handpay (0x1B, 0x51 re-sent every 15 s), or None.
        playing: a round is in progress (remote actions wait for its end).
        extra_meters: further SAS Appendix C meter code -> value for 0x2F.
    """

    address: int
    current_credits: int = 0
    coin_in: int = 0
    coin_out: int = 0
    drop: int = 0
    jackpot: int = 0
    cancelled_credits: int = 0
    handpaid_cancelled_credits: int = 0
    games_played: int = 0
    games_won: int = 0
    games_lost: int = 0
    games_since_power_up: int = 0
    games_since_door_closed: int = 0
    slot_door_opened: int = 0
    power_reset: int = 0
    bills_accepted_credits: int = 0
    bill_counts: Mapping[int, int] = field(default_factory=dict)
    machine_info: MachineInfo | None = None
    games: tuple[MachineInfo, ...] = ()
    selected_game: int = 0
    serial_number: str = ""
    asset_number: int = 0
    exceptions: tuple[HostException, ...] = ()
    handpay: HandpayInfo | None = None
    playing: bool = False
    extra_meters: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HostCommand:
    """A host control long poll the link ACKed, for the engine to carry out (or refuse
    and log: a rule may forbid it now, e.g. mid-round).

    Attributes:
        name: ``shut_down`` (0x01), ``start_up`` (0x02), ``enable_bill_acceptor``
            (0x06), ``disable_bill_acceptor`` (0x07), ``configure_bill_denominations``
            (0x08), ``enter_maintenance_mode`` (0x0A), ``exit_maintenance_mode``
            (0x0B), ``set_clock`` (0x7F), ``remote_handpay_reset`` (0x94).
        command: the long poll's command byte.
        bills_minor: 0x08: the bill values in minor units the host enables.
        date_time: 0x7F: the host's local date and time as sent, ``(year, month,
            day, hour, minute, second)``; the shell turns it into a clock offset.
        action_flag: 0x08: the action flag byte as sent (bit 0: 1 = keep the bill
            acceptor enabled after each accepted bill, 0 = disable it after each bill;
            saspy ``configure_bill_denom``); None for other commands.
        broadcast: True when the host sent it to address 0 (every EGM; only 0x7F is
            taken from a broadcast).
    """

    name: str
    command: int
    bills_minor: tuple[int, ...] = ()
    date_time: tuple[int, int, int, int, int, int] | None = None
    action_flag: int | None = None
    broadcast: bool = False

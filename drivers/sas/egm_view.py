"""What the SAS link answers from, and what it hands back to the engine.

Owns: ``EgmView`` (the in-memory copy of one EGM's last committed state the link
answers every poll from, research/sas.md "Timing": never a query in the poll path),
``HostException`` (one entry of the journaled host event queue), ``HandpayInfo``, the
TITO parts of the view (``PendingCashout``, ``TicketIn``, ``TicketData``) and the host
commands the link passes to the engine (``HostCommand``).  The TITO codes (0x57 cash-out
types, 0x71 transfer codes and machine status codes, 0x7B status bits, 0x50 validation
types) are in ``drivers.sas.tito_codes``.
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
        The fields below and ``amount_credits`` of ``game_started`` (the credits
        wagered) and ``game_ended`` (the credits won) are what the real-time event
        form carries (``egm_events``), captured when the event happened:
        meter_credits: ``game_started``: the coin in meter after the bet.
        count: ``bill_accepted``: bills of that value accepted, lifetime;
            ``game_recall_entry_displayed``: the recall entry shown (0 the last game).
        max_bet: ``game_started``: the bet was the table maximum.
    """

    exception_id: int
    name: str
    amount_credits: int = 0
    bill_minor: int = 0
    meter_credits: int = 0
    count: int = 0
    max_bet: bool = False


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
        credit_reset_allowed: the operator allows this handpay to be reset to the
            credit meter (0x1B reset ID 1, nCompass ``LongPoll1BMessage.cpp``: "1 credit
            meter reset available"; 0xA8 method 01 is then accepted).
    """

    amount_credits: int
    kind: str = "cancelled_credits"
    level: int = 0
    handpay_id: int = 0
    credit_reset_allowed: bool = False


@dataclass(frozen=True, slots=True)
class PendingCashout:
    """A cash-out waiting for the host's validation number (system validation, 0x57/0x58).

    The engine sets it (and queues ``HostException`` ``system_validation_request``,
    general poll 0x57) when a cash-out to a ticket starts in ``validation_mode``
    ``"system"``; it clears it when the ticket is printed or the cash-out ends as a
    handpay (denied, no answer in time, link down).  Source: the TITO brief; saspy
    ``pending_cashout_info`` (0x57 reply: cash-out type, amount).

    Attributes:
        cashout_id: the engine's id for this cash-out (increasing per station); a changed
            id is a new request, and ``HostCommand.cashout_id`` of a 0x58 names it.
        amount_cents: the amount to print, in cents (0x57 reply, 5-byte BCD: at most
            9,999,999,999; Monaco ``LP57SendPendingCashoutInformationParser.cs``: "cashout
            amount in cents", whatever the accounting denomination).
        cashout_type: the 0x57 cash-out type byte, ``tito_codes.CASHOUT_CASHABLE`` (0x00)
            or ``tito_codes.CASHOUT_RESTRICTED`` (0x01).
    """

    cashout_id: int
    amount_cents: int
    cashout_type: int = 0


@dataclass(frozen=True, slots=True)
class TicketIn:
    """A ticket held in escrow in the bill acceptor, for the host to redeem (0x67/0x70/0x71/0x68).

    The engine sets it (and queues ``ticket_inserted``, general poll 0x67) when the
    acceptor escrows a ticket and the cabinet redeems through the host.  While
    ``status`` is None the ticket waits for the host's 0x71: 0x70 reports it and a 0x71
    redeem or reject is handed over as ``HostCommand`` ``redeem_ticket``.  When the
    engine has decided (stacked and credited, or returned), it sets ``status`` to the
    final 0x71 machine status code, keeps the ticket in the view so the host's 0x71
    status query (transfer code 0xFF) reads it, and queues ``ticket_transfer_complete``
    (0x68).  It replaces it with the next inserted ticket (or None once the host has
    read the final status; keeping it longer is harmless: 0x70 then answers "no ticket
    in escrow").  Source: the TITO brief; nCompass ``LongPoll70Message.cpp``,
    ``LongPoll71Message.cpp``.

    Attributes:
        ticket_id: the engine's id for this insertion (increasing per station); a changed
            id is a new ticket even when the number repeats.
        validation_number: the barcode's digits as read, 18 for a SAS ticket (2-digit
            validation system ID then the 16-digit validation number; saspy
            ``ticket_validation_data``: "9 BCD ... 18 digit decimal validation number.
            The first two digits are a 2 digit system ID code").  Shorter numbers are
            left-padded with zeros on the wire; more than 18 digits or a non-digit makes
            0x70 unanswerable (the engine should return such a ticket at once).
        amount_cents: the amount the cabinet read from the ticket, in cents (0 when it
            cannot know it: the host's record is the truth; Monaco
            ``LP70SendTicketValidationDataParser.cs``: "The ticket amount in cents").
        status: None while waiting for the host; then the final 0x71 machine status
            (``tito_codes.STATUS_*``: 0x00 cashable redeemed, 0x80..0x8B rejected...).
        transfer_code: the host's 0x71 transfer code the engine acted on (None before).
        amount_cents_final: the cents actually added to the credit meter (0 when
            rejected), reported in the final 0x71 status reply.
    """

    ticket_id: int
    validation_number: str
    amount_cents: int = 0
    status: int | None = None
    transfer_code: int | None = None
    amount_cents_final: int = 0


@dataclass(frozen=True, slots=True)
class TicketData:
    """What the host set for printing tickets, as the engine journaled it (0x7D, 0x7C, 0x7B).

    The voucher layout takes its venue lines and expiry from here.  Sources: nCompass
    ``LongPoll7DMessage.cpp`` (host ID 2 bytes, expiration 1 byte, then location,
    address 1, address 2 each as a length byte and up to 40 ASCII characters),
    ``LongPoll7BMessage.cpp`` (control mask, status bits, cashable and restricted
    expiration 2 BCD each); 0x7C is UNVERIFIED (see ``layouts``).

    Attributes:
        host_id: 0x7D host ID (0..65535).
        expiration_days: 0x7D expiration, days a cashable ticket stays valid (0: never
            set / does not expire per the printed text).
        location: venue name line (0x7D location / 0x7C code 00), at most 40 characters.
        address1, address2: the venue's address lines, at most 40 characters each.
        restricted_title, debit_title: 0x7C codes 10/20, ticket titles (UNVERIFIED codes).
        validation_status: the 0x7B status bits in effect (``tito_codes.VS_*``, low byte
            first on the wire).
        cashable_expiration_days, restricted_expiration_days: 0x7B expirations in days
            (0: not set).
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


@dataclass(frozen=True, slots=True)
class EgmView:
    """One EGM (one station) as last committed, in credits of the accounting denomination.

    Attributes:
        address: the SAS address 1..127 (0: unconfigured after a RAM clear, answers nothing).
        current_credits: the credit meter (0x1A).
        coin_in, coin_out, drop, jackpot, cancelled_credits, handpaid_cancelled_credits:
            money meters (0x0F, 0x10-0x14, 0x19, 0x1C, 0x2F).  ``coin_in``: every wager;
            ``coin_out``: what play paid to the credit meter (not the jackpots paid by
            hand); ``drop``: bills and
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
        validation_mode: ``"none"`` (tickets validated by the cabinet alone, 0x57 answers
            "not waiting") or ``"system"`` (system validation: 0x57/0x58).  Secure
            enhanced validation (0x4C/0x4D) is not implemented (see the README).
        pending_cashout: the cash-out waiting for a 0x58 validation number, or None.
        ticket_in: the ticket in escrow for the host (or the last one, with its final
            status), or None.
        ticket_data: what the host set with 0x7D/0x7C/0x7B.
        validation_meters: 0x50 validation type (``tito_codes.VT_*``) -> ``(count,
            amount_cents)``, cumulative (Monaco ``LP50SendValidationMetersParser.cs``:
            "Cumulative amount in cents"); a type not listed answers zeros.  The engine
            fills at least ``VT_CASHABLE_TICKET`` (0x00, tickets printed) and
            ``VT_CASHABLE_TICKET_REDEEMED`` (0x80, tickets taken in).
        meters_minor: the station's cabinet meters as ``cabinet meters --json`` names them
            (money in minor units, counts), and ``sas_coin_in_minor`` /
            ``sas_coin_out_minor`` (the minor units behind ``coin_in`` / ``coin_out``),
            for 0x6F/0xAF (``egm_meter_codes``).
        accounting_denomination_minor: minor units per SAS credit (0x6F/0xAF credits).
        last_bill_minor: the last bill accepted, minor units (0x48), 0 before the first.
        cashout_ticket_number, cashout_ticket_minor: the last cash-out ticket (or
            handpay receipt) the station issued: its validation number and its amount in
            minor units (cents: 0x3D reports cents, not credits); "" and 0 before the first.
        max_bet_credits: the table maximum in credits (0xB5, 2 BCD; 0x1F's byte caps at 255).
        game_name: the game's name (0xB5, at most 20 ASCII characters sent).
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
    validation_mode: str = "none"
    pending_cashout: PendingCashout | None = None
    ticket_in: TicketIn | None = None
    ticket_data: TicketData = field(default_factory=TicketData)
    validation_meters: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    meters_minor: Mapping[str, int] = field(default_factory=dict)
    accounting_denomination_minor: int = 1
    last_bill_minor: int = 0
    cashout_ticket_number: str = ""
    cashout_ticket_minor: int = 0
    max_bet_credits: int = 0
    game_name: str = ""


@dataclass(frozen=True, slots=True)
class HostCommand:
    """A host control long poll the link ACKed, for the engine to carry out (or refuse
    and log: a rule may forbid it now, e.g. mid-round).

    Attributes:
        name: ``shut_down`` (0x01), ``start_up`` (0x02), ``enable_bill_acceptor``
            (0x06), ``disable_bill_acceptor`` (0x07), ``configure_bill_denominations``
            (0x08), ``enter_maintenance_mode`` (0x0A), ``exit_maintenance_mode``
            (0x0B), ``set_clock`` (0x7F), ``remote_handpay_reset`` (0x94); TITO:
            ``validation_number`` (0x58), ``redeem_ticket`` (0x71, a redeem or a
            reject; never the 0xFF status query, which the link answers alone),
            ``set_ticket_data`` (0x7D and 0x7C), ``set_extended_validation_status``
            (0x7B), ``handpay_reset_to_credit_meter`` (0xA8).
        command: the long poll's command byte.
        bills_minor: 0x08: the bill values in minor units the host enables.
        date_time: 0x7F: the host's local date and time as sent, ``(year, month,
            day, hour, minute, second)``; the shell turns it into a clock offset.
        action_flag: 0x08: the action flag byte as sent (bit 0: 1 = keep the bill
            acceptor enabled after each accepted bill, 0 = disable it after each bill;
            saspy ``configure_bill_denom``); None for other commands.
        broadcast: True when the host sent it to address 0 (every EGM; only 0x7F is
            taken from a broadcast).
        cashout_id: 0x58: ``view.pending_cashout.cashout_id`` when the link took it (the
            link answers 0x80 "not in cash-out" and hands nothing when none is pending).
        validation_system_id: 0x58: the validation system ID (1 binary byte); 0 means
            system validation denied (saspy ``rcv_validation_number``: "00 = system
            validation denied"): end the cash-out as a handpay.
        validation_number: 0x58: the 16-digit validation number (8 BCD) as a string of
            16 digits ("" when denied); 0x71: the 18-digit validation data the host
            named (it matched ``view.ticket_in.validation_number``).
        ticket_id: 0x71: ``view.ticket_in.ticket_id`` the command is for.
        transfer_code: 0x71: the host's transfer code (``tito_codes.TC_*``: 0x00
            cashable, 0x01 restricted promo, 0x02 non-restricted promo, 0x80..0x88
            rejected with a reason).  The link hands only known codes.
        amount_cents: 0x71: the amount to credit, in cents (5 BCD; 0 on a reject;
            Monaco ``LP71RedeemTicketParser.cs``: "Ticket transfer amount in cents").
        parsing_code: 0x71: the parsing code (0x00 standard; the link hands only 0).
        restricted_expiration: 0x71: the restricted expiration as its 8 BCD digits read
            as a number (MMDDYYYY, or 0000NNNN days), 0 when none.
        pool_id: 0x71: the restricted pool ID (2 binary, low byte first; 0 for cashable).
        target_id: 0x71: the target ID of targeted funds ("" when not sent).
        ticket_data: 0x7D/0x7C: the fields the host set, merged onto
            ``view.ticket_data`` (0x7D sets host ID, expiration and the three lines it
            carries; 0x7C the lines it lists), for the engine to journal.
        validation_control: 0x7B: ``(control_mask, status_bits, cashable_expiration_days,
            restricted_expiration_days)``: mask and bits as sent, an expiration of 0
            (UNVERIFIED: "no change") already replaced by the view's current one; the
            engine applies ``tito_codes.apply_validation_status`` to its status bits and
            keeps the two expirations (the link's reply shows that result).
        reset_method: 0xA8: 0x00 standard handpay, 0x01 reset to the credit meter.
    """

    name: str
    command: int
    bills_minor: tuple[int, ...] = ()
    date_time: tuple[int, int, int, int, int, int] | None = None
    action_flag: int | None = None
    broadcast: bool = False
    cashout_id: int | None = None
    validation_system_id: int | None = None
    validation_number: str = ""
    ticket_id: int | None = None
    transfer_code: int | None = None
    amount_cents: int = 0
    parsing_code: int | None = None
    restricted_expiration: int = 0
    pool_id: int = 0
    target_id: str = ""
    ticket_data: TicketData | None = None
    validation_control: tuple[int, int, int, int] | None = None
    reset_method: int | None = None

"""The cabinet's critical state: everything that must survive a power cut.

Owns: ``CabinetState`` and its parts, as msgspec structs so the journal can
store them exactly. Pure data; only ``cabinet.core.machine`` changes them, inside
``Cabinet.handle``. Money is integer minor units; ``now_ms`` is the last tick
of the monotonic clock, ``wall_s`` Unix time of that tick.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cabinet.core.meters import Meters
from cabinet.core.records import TicketData
from cabinet.core.settings import GameSettings
from cabinet.protocol.said import Said

STATE_VERSION = 1


class HostEvent(msgspec.Struct, kw_only=True):
    """One queued host event (a SAS exception to report).

    ``event_id`` increases per station; ``name`` is protocol-neutral (the SAS link
    maps it to a general poll code); ``amount_minor``: a bill's value for
    ``bill_accepted``, the station's wager for ``game_started``, what the round
    returned to it for ``game_ended``, else 0.  Captured when the event happened, for
    the host's real-time event form (SAS 0x0E): ``meter_minor`` the coin in meter after
    a ``game_started`` wager; ``count`` the lifetime count of bills of that value for
    ``bill_accepted``; ``max_bet`` a ``game_started`` spot bet at the table maximum.
    """

    event_id: int
    name: str
    amount_minor: int = 0
    meter_minor: int = 0
    count: int = 0
    max_bet: bool = False


class PendingCashout(msgspec.Struct, kw_only=True):
    """A cash-out waiting for the casino host's validation number (SAS
    system validation 0x57/0x58). ``amount_minor`` is off the credit meter and in the
    station's ``pending_out_minor``; ``requested_ms``: ``now_ms`` of the request (the
    timeout counts from it); ``sequence``: the voucher sequence number it takes."""

    cashout_id: int
    amount_minor: int
    requested_ms: int
    sequence: int
    cashout_type: str = "cashable"


class TicketIn(msgspec.Struct, kw_only=True):
    """A ticket inserted for the casino host to redeem (SAS 0x67/0x70/0x71).

    Attributes:
        ticket_id: increasing per station.
        txn: the acceptor's escrow id.
        validation_number: as read from the barcode.
        amount_minor: as printed when this cabinet printed it (else 0), then the
            amount the host redeems it for.
        status: ``held`` (in escrow, waiting for the host), ``stacking`` (the host
            said redeem: stacking), or final: ``redeemed`` / ``returned``.
        since_ms: ``now_ms`` when it was held (the timeout counts from it).
        result: the final status (protocol-neutral; the link maps it to 0x71's
            status code): ``redeemed``, ``rejected_by_host``, ``number_mismatch``, ``timeout``,
            ``link_down``, ``credit_limit``, ``not_valid_function``, ``unable_now``;
            ``""`` while not final.
        transfer_code: the host's 0x71 transfer code (-1 before it answered).
        reason: why it came back, in the player's words.
        purpose: ``escrow`` (a ticket in the acceptor's escrow), ``print_check`` (a
            ticket this station printed whose print is unknown, settled with the
            host before any handpay) or ``in_box`` (a ticket found in the cash box,
            not credited: the attendant's key sends it to the host),
            ``cabinet.core.tito_claims``. A claim waiting for its turn has status
            ``waiting`` and ``since_ms`` the earliest time it may go.
    """

    ticket_id: int
    txn: str
    validation_number: str
    amount_minor: int
    status: str
    since_ms: int
    result: str = ""
    transfer_code: int = -1
    reason: str = ""
    purpose: str = "escrow"


class HostState(msgspec.Struct, kw_only=True):
    """A station's side of the casino host link (journaled with the state).

    Attributes:
        link: ``""`` no host link configured, ``"online"`` or ``"offline"``.
        queue: host events not yet acknowledged by the host, oldest first (at most
            ``HOST_QUEUE_MAX``; the last slot is kept for ``exception_buffer_overflow``).
        next_event_id: the id the next queued event gets.
        disabled: play disabled by the host (long poll 0x01 shut down, or 0x0A
            maintenance mode: ``disabled_by`` says which); cash-out still works.
        disable_pending: the host asked for a shut down mid-round: it takes effect
            when the round is over.
        bills_disabled: the host disabled the bill acceptor (0x07).
        bills_minor: the bill values the host enabled (0x08); ``None``: all that
            the settings enable.
        address, port: the link's SAS address and serial port (for the Host page).
        link_since_s: wall time of the last link change.
        validation: ``"none"`` (the cabinet validates its own tickets) or
            ``"system"`` (the casino host does: SAS system validation).
        validation_timeout_ms: how long a cash-out or an inserted ticket waits for
            the host.
        denomination_minor: minor units per SAS credit: the host counts ticket
            amounts in whole credits, so a system-validated ticket must be one.
        pending_cashout: a cash-out waiting for its validation number.
        ticket_in: the last ticket inserted for the host (kept after it is final,
            for 0x71's status query), or None.
        claims: tickets waiting to be settled with the host without a ticket in
            escrow (``TicketIn.purpose`` ``print_check`` / ``in_box``), oldest first.
        next_ticket_id: the id the next inserted ticket gets.
        next_cashout_id: the id the next system-validated cash-out gets.
        ticket_data: what the host set for printed tickets (0x7C/0x7D).
        last_ticket_number, last_ticket_minor: the station's last cash-out ticket (or
            handpay receipt): validation number and amount (SAS 0x3D).
    """

    link: str = ""
    address: int = 0
    port: str = ""
    link_since_s: float = 0.0
    queue: list[HostEvent] = []
    next_event_id: int = 1
    disabled: bool = False
    disabled_by: str = ""
    disable_pending: str = ""
    bills_disabled: bool = False
    bills_minor: list[int] | None = None
    validation: str = "none"
    validation_timeout_ms: int = 10_000
    denomination_minor: int = 1
    pending_cashout: PendingCashout | None = None
    ticket_in: TicketIn | None = None
    claims: list[TicketIn] = []
    next_ticket_id: int = 1
    next_cashout_id: int = 1
    ticket_data: TicketData = msgspec.field(default_factory=TicketData)
    last_ticket_number: str = ""
    last_ticket_minor: int = 0


class PlayerSession(msgspec.Struct, kw_only=True):
    """A player's session at a station ("reality check", ``cabinet.core.sessions``):
    ``start_wall_s`` the wall time of its first credit in (Unix seconds; wall time so a
    restart goes on counting), ``net_minor`` what its rounds paid back less their
    stakes, ``told`` the reminders given so far."""

    start_wall_s: float
    net_minor: int = 0
    told: int = 0


class PrintingState(msgspec.Struct, kw_only=True):
    """A voucher sent to the printer whose verdict has not come back."""

    station: int
    validation_number: str
    amount_minor: int
    started_ms: int
    host_number: bool = False  # the casino host issued the number (SAS 0x58)


class StationState(msgspec.Struct, kw_only=True):
    """One player station (seat).

    Attributes:
        credits_minor: the credit meter.
        pending_out_minor: a voucher's amount taken off the credit meter whose
            print is not confirmed yet (or that waits for a handpay).
        bets_minor: the bet on each spot for the next round.
        chip_log: ``[spot, chip_minor]`` in placing order (for Undo).
        selected_chip_minor: the chip chosen for placing.
        last_bets_minor: the previous round's bets (Rebet).
        ready: pressed Deal on a multi-station table.
        win_minor: what the last round returned to this station.
        last_bills_minor: the last five bills taken, newest last.
        stake_in_round_minor, returned_in_round_minor: this round's money so
            far (kept outside the round's own state so a round that cannot be
            restored can still be voided exactly).
        credits_at_round_start_minor: for recall.
        faults: fault code -> text of this station's own devices (bill
            acceptor, printer): the station is out of service.
        refusal: why the last note or voucher at this station came back, in
            the player's words (``"Note returned: credit limit $1,000.00"``);
            ``""`` once money comes in or the station presses a button.
        refusal_said: ``refusal`` as ``Said`` parts (what came back, why), for the
            screens' languages; read only while ``refusal`` is set.
        host: its casino host link.
        session: its player's session, or None.
        service_called: its player called the attendant: the tower's
            service lamp stands until a second touch or the attendant's key.
        printing: its voucher sent to its own printer, verdict not back yet: the
            station is cashing out (its buttons and acceptor off), the others play on.
    """

    station: int
    credits_minor: int = 0
    pending_out_minor: int = 0
    meters: Meters = msgspec.field(default_factory=Meters)
    bets_minor: list[int] = []
    chip_log: list[list[int]] = []
    selected_chip_minor: int | None = None
    last_bets_minor: list[int] = []
    ready: bool = False
    win_minor: int = 0
    last_bills_minor: list[int] = []
    in_round: bool = False
    stake_in_round_minor: int = 0
    returned_in_round_minor: int = 0
    credits_at_round_start_minor: int = 0
    faults: dict[str, str] = {}
    refusal: str = ""
    refusal_said: list[Said] = []
    host: HostState = msgspec.field(default_factory=HostState)
    session: PlayerSession | None = None
    service_called: bool = False
    printing: PrintingState | None = None


class HandpayState(msgspec.Struct, kw_only=True):
    """A handpay lockup waiting for the attendant's key.

    ``kind``: ``cancelled_credits`` (a cash-out the printer could not or may not
    pay: it has the voucher's ``validation_number``) or ``jackpot`` (a round's
    win at or above the jackpot limit). ``amount_minor`` is off the credit
    meter and in the station's ``pending_out_minor`` until the reset.
    """

    station: int
    amount_minor: int
    reason: str
    validation_number: str = ""
    kind: str = "cancelled_credits"


class NoteReview(msgspec.Struct, kw_only=True):
    """An item the acceptor physically took but never credited,
    waiting for the attendant's key.

    ``kind``: ``in_stacker`` (power-up with the note in the cash box: the key
    credits ``amount_minor`` once, research C "never lost") or ``in_path`` (STACKed,
    then a jam, then gone: it may be in the cash box or the path; the key records
    the attendant's review, no credit; also a note credited at VEND VALID that
    jammed before it was stacked: the meters are above the cash box by
    ``amount_minor`` until the attendant looks). ``amount_minor`` 0: value unknown.
    """

    station: int
    txn: str
    amount_minor: int
    kind: str = "in_stacker"
    validation_number: str = ""


class EntryState(msgspec.Struct, kw_only=True):
    """A value being typed in the menu with the panel buttons or by touch.

    ``kind``: ``pin`` (the technician PIN, to open ``then``), ``pin_new`` /
    ``pin_confirm`` (a new PIN, twice), ``setting`` (the value of setting ``key``).
    ``text``: what is typed so far; for a PIN it stays ``""`` here (the digits
    live only in the engine's memory, never in the journal: ``Cabinet.secret``).
    ``pin_hash_hex``, ``pin_salt_hex``: the new PIN's hash while it is confirmed.
    ``row``: the page's row selected again when the entry ends.
    ``shown``: ``text`` is still the value the entry opened with; the first character
    typed replaces it (Delete edits it instead).
    """

    kind: str
    key: str = ""
    then: str = ""
    row: int = 0
    text: str = ""
    message: str = ""
    shown: bool = False
    pin_hash_hex: str = ""
    pin_salt_hex: str = ""


class PinState(msgspec.Struct, kw_only=True):
    """The technician PIN: only a salted ``hashlib.scrypt`` hash is kept.

    ``hash_hex`` ``""``: the factory default PIN is in force (it must be changed
    at its first use). ``failures``: wrong PINs in a row; ``lockouts``: lockouts
    since the last right PIN (each one lasts longer); ``lock_left_ms``: what is
    left of the lockout, counted down a second at a time by the shell's clock ticks
    (``Tick``; ``lock_mark_ms``: the monotonic time of the last count), so it
    survives a restart (journaled; time powered off does not count) and a
    wall-clock jump.
    """

    salt_hex: str = ""
    hash_hex: str = ""
    failures: int = 0
    lockouts: int = 0
    lock_left_ms: int = 0
    lock_mark_ms: int = 0


class OperatorState(msgspec.Struct, kw_only=True):
    """What a RAM clear keeps for the operator: the PIN, the meters
    before the RAM clears (``carried``: station -> meter -> value, for the lifetime
    RTP), and the last audit export (``exported_wall_s``, ``export_base``: the
    meters then, station -> meter -> value, for the period's figures)."""

    pin: PinState = msgspec.field(default_factory=PinState)
    carried: dict[str, dict[str, int]] = {}
    ram_clears: int = 0
    last_ram_clear_wall_s: float = 0.0
    exported_wall_s: float = 0.0
    export_base: dict[str, dict[str, int]] = {}


class MaintState(msgspec.Struct, kw_only=True):
    """Where the operator is in the maintenance menu.

    ``pressed``: the buttons pressed on this visit of the Device test page
    (player-facing names, first press order); ``cash_out_ms``: when Cash Out
    was last pressed there (a second press within 1 s leaves the page).
    ``level``: ``attendant`` or ``technician`` (the PIN typed on this visit);
    ``entry``: a value being typed; ``filter``: the Event log's kind filter.
    """

    page: str = "main"
    selected: int = 0
    scroll: int = 0
    confirm: str = ""
    draft: dict[str, Any] = {}
    pressed: list[str] = []
    cash_out_ms: int | None = None
    level: str = "attendant"
    entry: EntryState | None = None
    filter: str = "all"


class BillTestState(msgspec.Struct, kw_only=True):
    """The Diagnostics page's bill acceptor test (``maintenance.bill_test``).

    A note inserted while the test is on goes to ``credits_minor`` (test credits),
    never to a real meter, and is stacked or returned as ``stack`` says.

    Attributes:
        on: the test is on (it takes notes only on its page, the menu open).
        stack: stack the test notes (True) or return them (False).
        pending: txn -> value (minor units) of each test note answered (stack or
            return) and not yet closed by the acceptor; journaled with the state, so a
            restart still knows a late VEND VALID or "bill in stacker" is a test note.
        credits_minor: test credits shown on the page (zeroed when the test starts).
        stacked_count, stacked_minor: test notes in the cash box since the last RAM
            clear (the cash box holds them beside the bill meters' notes).
        returned_count: test notes handed back.
        in_path_count: test notes lost in the note path by a jam (look for them).
    """

    on: bool = False
    stack: bool = True
    pending: dict[str, int] = {}
    credits_minor: int = 0
    stacked_count: int = 0
    stacked_minor: int = 0
    returned_count: int = 0
    in_path_count: int = 0


class CabinetState(msgspec.Struct, kw_only=True):
    """All critical state but the round's own (journaled beside it).

    The mode is derived (``Cabinet.mode``): ``in_round`` while ``round_open``,
    else ``betting`` or ``attract``; lockups (doors, faults, handpay,
    maintenance, RAM error) lie on top of it. ``needs_config``: after a RAM
    clear, play waits until settings are saved in maintenance.
    ``handpay_queue``: further handpays (two stations hitting a jackpot in
    the same round) shown one after another, each reset by its own key turn.
    ``clock_adjust_s``: the sum of the wall-clock jumps journaled as
    ``clock_jump`` (seconds; voucher expiry discounts them).
    ``printing``: a print held for the cabinet as a whole, as a journal that kept one
    print for every station has it; a print is its station's (``StationState.printing``)
    and power-up settles this one like any print in flight (a handpay, never a reprint).
    """

    version: int = STATE_VERSION
    settings: GameSettings = msgspec.field(default_factory=GameSettings)
    stations: list[StationState] = []
    round_id: int = 0
    round_open: bool = False
    voucher_seq: int = 0
    recent_txns: list[str] = []
    doors_open: list[str] = []
    door_opens: dict[str, int] = {}
    door_closed_notice: bool = False
    #: ``now_ms`` when the last door was shut (the notice shows for a few seconds).
    door_closed_ms: int = 0
    key_on: bool = False
    faults: dict[str, str] = {}
    ram_error: bool = False
    needs_config: bool = False
    audit_failed: bool = False
    handpay: HandpayState | None = None
    handpay_queue: list[HandpayState] = []
    #: The handpay the operator key reset last, said on the next handpay's screen or on
    #: the menu the key opens (then forgotten), or when the key goes off with none left.
    handpay_reset: HandpayState | None = None
    note_reviews: list[NoteReview] = []
    printing: PrintingState | None = None
    maintenance: MaintState | None = None
    power_ups: int = 0
    games_since_power_up: int = 0
    games_since_door_close: int = 0
    bet_deadline_ms: int | None = None
    decision_deadline_ms: int | None = None
    shoe: dict[str, Any] | None = None
    message: str = ""
    now_ms: int = 0
    wall_s: float = 0.0
    last_button: str = ""
    clock_adjust_s: float = 0.0
    #: The casino host's clock minus ours, in seconds, as last sent (SAS 0x7F).
    host_clock_offset_s: float = 0.0
    #: The PIN, the meters' lifetime and the last export: kept by a RAM clear.
    operator: OperatorState = msgspec.field(default_factory=OperatorState)
    #: The Diagnostics page's bill test (test credits and test notes).
    bill_test: BillTestState = msgspec.field(default_factory=BillTestState)
    #: Panel action -> ``round_id`` when it was last pressed in play (the
    #: "missing buttons" audit of the Diagnostics page).
    button_rounds: dict[str, int] = {}

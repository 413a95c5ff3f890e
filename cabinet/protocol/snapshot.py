"""``Snapshot``: everything the table UI may draw, as one immutable value.

Owns: the view model the engine sends to the UI after every change
(STYLE.md 5.18-5.20). It holds only what a player may see: no undealt card,
no face-down card (a hidden dealer card is a count in ``face_down``), no
shoe. Money is integer minor units. Pure data; shared by both processes.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from cabinet.protocol.said import Said

#: ``Snapshot.mode``: the modes on the wire, ``cabinet.core.modes.MODE_TABLE``'s ``wire``
#: names (tests/core/test_modes.py holds them equal).
ModeName = Literal["attract", "betting", "in_round", "cash_out", "handpay", "tilt", "door_open", "maintenance"]


class WireMode:
    """``ModeName``'s values by name, for the UI's comparisons
    (``snapshot.mode == WireMode.ATTRACT``): a mode is never spelled twice."""

    ATTRACT: Final = "attract"
    BETTING: Final = "betting"
    IN_ROUND: Final = "in_round"
    CASH_OUT: Final = "cash_out"
    HANDPAY: Final = "handpay"
    TILT: Final = "tilt"
    DOOR_OPEN: Final = "door_open"
    MAINTENANCE: Final = "maintenance"


class HandView(msgspec.Struct, frozen=True, kw_only=True):
    """One player hand as shown.

    Attributes:
        cards: card codes (``"AS"``, ``"TD"``) face up, in dealing order.
        stake_minor: the hand's whole stake, doubles included.
        total_text: ``"soft 17"``, ``"20"``, ``"BUST"``, ``"BLACKJACK"``.
        outcome: ``blackjack``/``win``/``push``/``lose``/``bust``, or ``None``.
        returned_minor: what the hand paid back, once settled.
        active: this is the hand being played now.
    """

    cards: list[str]
    stake_minor: int
    total_text: str
    outcome: str | None = None
    returned_minor: int | None = None
    doubled: bool = False
    from_split: bool = False
    blackjack: bool = False
    active: bool = False


class SpotView(msgspec.Struct, frozen=True, kw_only=True):
    """A betting spot: the chips on it and its hands (two after a split).

    Attributes:
        insurance_minor: the insurance staked on it this round.
        insurance_returned_minor: what that insurance paid back once it settled at
            the dealer's peek (0 lost, 3x the stake paid 2:1), ``None`` before or
            without insurance (the UI sweeps or pays it at its line).
    """

    spot: int
    bet_minor: int
    chips_minor: list[int] = []
    hands: list[HandView] = []
    insurance_minor: int = 0
    insurance_returned_minor: int | None = None


class RoundLine(msgspec.Struct, frozen=True, kw_only=True):
    """One of a station's last rounds as its player's History panel lists it.

    Attributes:
        round_id: the round's number; ``when``: its local time of day, ``"HH:MM"``.
        dealer, dealer_text: the dealer's cards as they ended and their total.
        hands: the station's hands (cards, stakes, outcomes, returns), spot by spot.
        wagered_minor, returned_minor: staked (insurance included) and paid back.
        net_minor: ``returned_minor - wagered_minor`` (0 for a voided round).
        voided: the round was voided (every stake returned).
    """

    round_id: int
    when: str
    dealer: list[str] = []
    dealer_text: str = ""
    hands: list[HandView] = []
    wagered_minor: int = 0
    returned_minor: int = 0
    net_minor: int = 0
    voided: bool = False


class RealityCheck(msgspec.Struct, frozen=True, kw_only=True):
    """A session reminder due at a station ("reality check"): how long its
    session has run (whole minutes, from the first credit in) and the session's net
    (minor units: what its rounds paid back less what they staked)."""

    elapsed_min: int
    net_minor: int


class StationView(msgspec.Struct, frozen=True, kw_only=True):
    """One player station (seat) with its meters and lit buttons.

    Attributes:
        credits_minor: the credit meter.
        bet_minor: total on the spots (this round's or the next round's).
        insurance_minor: insurance staked this round.
        win_minor: what the last settled round paid back to this station.
        lamps: intent actions that are legal now (the physical lamps show the
            same set).
        selected_chip_minor: the chip chosen for placing, on chip tables.
        ready: the station pressed Deal (multi-station tables).
        message: a message for this station only (``"Insurance? It costs
            $2.50"``, ``"Minimum bet $5.00"``).
        refusal: why this station's last note or voucher came back
            (``"Voucher refused: expired - see attendant"``), or ``""``.
        fault: this station's own device failed and it is out of service
            (``"Out of service: 300 Bill acceptor jam - call attendant"``),
            or ``""``; the other stations play on.
        host_link: its casino host link: ``""`` none configured, ``"online"``
            or ``"offline"``.
        history: the station's History panel is open (its player touched HISTORY):
            its last rounds, newest first (at most 10); ``None`` closed.
        reminder: the session reminder shown until the player touches it, or ``None``.
        service: the station's player called the attendant (SERVICE lit).
        message_said, refusal_said, fault_said: ``message``, ``refusal`` and ``fault``
            (each fault ``{num} {what_text}``) as ``Said`` parts
            (``cabinet.protocol.said``, joined by its ``SEP``), which each screen says in
            its own language; empty when the plain text is a constant.
    """

    station: int
    credits_minor: int
    bet_minor: int = 0
    insurance_minor: int = 0
    win_minor: int = 0
    spots: list[SpotView] = []
    lamps: list[str] = []
    selected_chip_minor: int | None = None
    ready: bool = False
    message: str = ""
    refusal: str = ""
    fault: str = ""
    host_link: str = ""
    history: list[RoundLine] | None = None
    reminder: RealityCheck | None = None
    service: bool = False
    message_said: list[Said] = []
    refusal_said: list[Said] = []
    fault_said: list[Said] = []


class DealerView(msgspec.Struct, frozen=True, kw_only=True):
    """The dealer's visible cards; ``face_down`` counts hidden ones (0 or 1)."""

    cards: list[str] = []
    face_down: int = 0
    total_text: str = ""


class TimerView(msgspec.Struct, frozen=True, kw_only=True):
    """A running countdown: ``kind`` is ``bet`` or ``decision``."""

    kind: str
    seconds_left: int
    station: int | None = None


class HandpayView(msgspec.Struct, frozen=True, kw_only=True):
    """A handpay lockup: the amount the attendant pays and why.

    ``kind``: ``cancelled_credits`` (a cash-out) or ``jackpot`` (a round's win
    at or above the jackpot limit); ``waiting``: further handpays queued;
    ``reason_said``: ``reason`` as ``Said`` parts when it has a template;
    ``reset_said``: the handpay the operator key just reset, confirmed (``[]``: none).
    """

    amount_minor: int
    reason: str
    validation_number: str = ""
    station: int = 0
    kind: str = "cancelled_credits"
    waiting: int = 0
    reason_said: list[Said] = []
    reset_said: list[Said] = []


class RecallView(msgspec.Struct, frozen=True, kw_only=True):
    """One recalled round drawn as the table looked ("Game recall").

    Attributes:
        round_id, station: which round, at which station.
        index, count: this is round ``index`` (1 = the newest) of the ``count`` kept.
        when: local date and time of the round, as text.
        dealer: the dealer's cards as they ended (all face up).
        table: the station as it ended: its spots, hands (cards, stakes, outcomes,
            returns) and the credit meter after the round.
        credits_before_minor, credits_after_minor, wagered_minor, returned_minor,
        insurance_minor, jackpot_handpay_minor: the round's money.
        steps: every card dealt and decision taken, in order.
        voided: the round was voided (nothing paid).
    """

    round_id: int
    station: int
    index: int
    count: int
    when: str
    dealer: DealerView
    table: StationView
    credits_before_minor: int
    credits_after_minor: int
    wagered_minor: int
    returned_minor: int
    insurance_minor: int = 0
    jackpot_handpay_minor: int = 0
    steps: list[str] = []
    voided: bool = False


class MaintenanceView(msgspec.Struct, frozen=True, kw_only=True):
    """The operator menu page: a title, body lines and a selectable list.

    ``level``: ``attendant`` or ``technician``, shown in the header.
    ``recall``: on the Game recall page, the selected round drawn as a table.
    """

    page: str
    title: str
    lines: list[str] = []
    items: list[str] = []
    selected: int = 0
    hint: str = ""
    level: str = ""
    recall: RecallView | None = None


class Snapshot(msgspec.Struct, tag="snapshot", tag_field="type", frozen=True, kw_only=True):
    """The whole table as the UI draws it, numbered by ``seq``.

    Attributes:
        seq: increases by one with every snapshot the engine sends.
        mode: ``attract``, ``betting``, ``in_round``, ``cash_out``,
            ``handpay``, ``tilt``, ``door_open``, ``maintenance`` (``ModeName``; the
            core's ``ram_error`` and ``needs_config`` show as ``tilt``,
            ``docs/reference/modes.md``).
        variant, variant_name: the game in play.
        currency_symbol: e.g. ``"$"``; amounts are minor units (1/100).
        credit_minor: value of one credit when meters also show credits;
            ``None`` for currency only.
        message: the message of the moment, for the whole table.
        overlay: ``None`` or ``door_open``, ``tilt``, ``handpay``,
            ``printing``, ``ram_error``; ``overlay_text`` says why.
        table_texts: printed on the felt ("BLACKJACK PAYS 3 TO 2"...).
        help_lines: the variant's rules in words, from its ``RuleSet``.
        volume_percent, attract_sound: the operator's sound settings.
        program_id, program_digest: the installed program and the SHA-256 of
            its signed release manifest (``cabinet.shell.program_check``); the digest
            is ``""`` in a development build (not started from a release).
        message_said, overlay_said, help_said: ``message``, ``overlay_text`` and
            ``help_lines`` as ``Said`` parts for the screens' languages (see
            ``StationView``); ``help_said`` has one entry per help line.
        double_totals: the two-card totals a hand may double on (``RuleSet.double_totals``,
            RULES.md; empty: any first two cards), for the reason a double is refused.
        screens: the cabinet's displays (``cabinet.toml`` ``[display] screens``, issue
            17): ``"shared"`` one wide screen with a panel per station (a table UI that
            is no station's own draws it, ``ui.shared_screen``), ``"per-station"`` a
            screen per station; ``""`` from an engine that does not say.
        player_desk: the stations' HISTORY and SERVICE take a touch (lit); ``False``
            in a storage tilt, where the engine refuses every press.
        round_id: the number of the last round dealt (``0`` before the first): a new
            number is a new deal, also when one Deal clears a settled round off the
            table and deals the next at once (the dealer's cards never leave it).
    """

    seq: int
    mode: ModeName
    variant: str
    variant_name: str
    currency_symbol: str = "$"
    credit_minor: int | None = None
    message: str = ""
    dealer: DealerView = DealerView()
    stations: list[StationView] = []
    timer: TimerView | None = None
    overlay: str | None = None
    overlay_text: str = ""
    handpay: HandpayView | None = None
    maintenance: MaintenanceView | None = None
    table_texts: list[str] = []
    help_lines: list[str] = []
    chip_values_minor: list[int] = []
    min_bet_minor: int = 0
    max_bet_minor: int = 0
    spots_per_station: int = 1
    program_id: str = ""
    program_digest: str = ""
    volume_percent: int = 70
    attract_sound: bool = True
    message_said: list[Said] = []
    overlay_said: list[Said] = []
    help_said: list[Said] = []
    screens: str = ""
    double_totals: list[int] = []
    player_desk: bool = True
    round_id: int = 0

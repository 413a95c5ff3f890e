"""Build the player-visible ``Snapshot`` from the cabinet core.

Owns: ``build_snapshot``: messages, meters, spots, lamps, overlays, timers.
Pure; reads the cabinet through a ``ViewContext`` and never changes it. Uses only
``Round.player_view()`` for cards, so no undealt or face-down card can leak
(STYLE.md 5.20).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cabinet.core import maintenance, player_desk
from cabinet.core.context import ViewContext
from cabinet.core.doors import handpay_reset_said
from cabinet.core.errors import FAULTS, STORAGE_FAULT, fault_text
from cabinet.core.host import DISABLED_TEXT
from cabinet.core.modes import MODE_TABLE, Mode
from cabinet.core.rules_text import TABLE_TEXTS, rules_said, rules_text
from cabinet.core.tito_claims import print_checks
from cabinet.protocol.faults import FaultCode
from cabinet.protocol.money import chip_split
from cabinet.protocol.said import N_, Said, english, english_all, said
from cabinet.protocol.snapshot import (
    DealerView,
    HandpayView,
    HandView,
    Snapshot,
    SpotView,
    StationView,
    TimerView,
)

if TYPE_CHECKING:
    from cabinet.core.state import CabinetState, StationState
    from cabinet.game.view import PlayerView, VisibleHand, VisiblePrompt, VisibleSpot

#: A spot's pile is drawn at most this many whole chips high.
_PILE_CHIPS = 12
#: the doors' names as ``doors_open`` has them, for extraction (said translated).
_DOOR_WORDS = (N_("main"), N_("cashbox"), N_("logic"))


def _total_text(h: VisibleHand) -> str:
    if h.blackjack:
        return "BLACKJACK"
    if h.total > 21:
        return "BUST"
    return h.total_text


def build_snapshot(cab: ViewContext, seq: int) -> Snapshot:
    s = cab.s
    r = cab.rules
    sym = s.settings.currency_symbol
    mode = cab.mode
    facts = MODE_TABLE[mode]
    view = cab.round.player_view() if cab.round is not None else None
    prompt = view.prompt if view else None

    stations = []
    for st in s.stations:
        stations.append(player_desk.dress(cab.desk, cab.s, _station_view(cab, st, view, prompt)))

    dealer = DealerView()
    if view is not None:
        d = view.dealer
        text = d.total_text
        if len(d.cards) == 1:  # a lone up card: "10", not "hard 10"
            text = "1 or 11" if d.cards[0][0] == "A" else str(d.total)
        if d.blackjack:
            text = "BLACKJACK"
        elif d.total > 21:
            text = "BUST"
        dealer = DealerView(cards=d.cards, face_down=d.face_down, total_text=text)

    timer = None
    if facts.timer == "bet" and s.bet_deadline_ms is not None:
        timer = TimerView(kind="bet", seconds_left=max(0, -(-(s.bet_deadline_ms - s.now_ms) // 1000)))
    elif facts.timer == "decision" and s.decision_deadline_ms is not None and prompt:
        timer = TimerView(
            kind="decision", station=prompt.seat, seconds_left=max(0, -(-(s.decision_deadline_ms - s.now_ms) // 1000))
        )

    overlay = facts.overlay
    overlay_text = ""
    # The player's texts also go as ``Said`` parts, said in each screen's language
    overlay_said: list[Said] = []
    handpay = None
    if mode is Mode.DOOR_OPEN:
        overlay_said = [said("Door open: {doors_texts}. Play is suspended.", doors_texts=", ".join(s.doors_open))]
        overlay_text = english(overlay_said[0], sym)
    elif mode is Mode.TILT:
        reasons = cab.fault_lines()
        if s.audit_failed:
            reasons.insert(0, fault_text("audit_mismatch"))
        overlay_text = "; ".join(reasons) or "Out of service"
        overlay_said = _tilt_said(cab) or [said("Out of service")]
    elif mode is Mode.NEEDS_CONFIG:
        overlay_text = N_("Configuration required: turn the operator key and save settings")
        overlay_said = [said(overlay_text)]
    elif mode is Mode.RAM_ERROR:
        overlay_text = fault_text("ram_error")
        if s.faults.get("ram_error"):  # what the journal check found
            overlay_text += ". Found: " + s.faults[FaultCode.RAM_ERROR]
    elif mode is Mode.HANDPAY and s.handpay is not None:
        hp = s.handpay
        reset = [handpay_reset_said(s.handpay_reset)] if s.handpay_reset is not None else []
        handpay = HandpayView(
            amount_minor=hp.amount_minor,
            reason=hp.reason,
            validation_number=hp.validation_number,
            station=hp.station,
            kind=hp.kind,
            waiting=len(s.handpay_queue),
            reason_said=_handpay_reason(hp.reason, s),
            reset_said=reset,
        )
        overlay_said = [
            said("Handpay {amount_minor}: call an attendant ({reason})", amount_minor=hp.amount_minor, reason=hp.reason)
        ]
        if s.handpay_queue:
            n = len(s.handpay_queue)
            overlay_said.append(said("then {n} more handpays", n=n) if n > 1 else said("then 1 more handpay"))
        overlay_said += reset
        overlay_text = "; ".join(english(part, sym) for part in overlay_said)
    elif mode is Mode.CASH_OUT:
        overlay_said = next(
            (_cash_out_said(st) for st in s.stations if _cash_out_said(st)),
            [said("Printing ticket for {amount_minor}", amount_minor=s.printing.amount_minor)]
            if s.printing is not None
            else [],
        )
        overlay_text = english_all(overlay_said, sym)

    message_said = _message(cab, mode, view, prompt)
    if s.key_on and s.maintenance is None and mode is Mode.IN_ROUND:
        # The key was turned; the menu opens when the round is over
        message_said.append(said("Maintenance after this round"))
    elif s.key_on and s.maintenance is None and mode is Mode.CASH_OUT:
        overlay_text += " · Maintenance after this ticket"  # shown over the table
        overlay_said.append(said("Maintenance after this ticket"))
    message = english_all(message_said, sym)

    return Snapshot(
        seq=seq,
        mode=facts.wire,
        variant=r.variant,
        variant_name=r.name,
        currency_symbol=sym,
        credit_minor=r.credit_minor,
        message=message,
        message_said=message_said,
        overlay_said=overlay_said,
        help_said=rules_said(r),
        dealer=dealer,
        stations=stations,
        timer=timer,
        overlay=overlay,
        overlay_text=overlay_text,
        handpay=handpay,
        maintenance=maintenance.view(cab) if mode is Mode.MAINTENANCE else None,
        table_texts=list(TABLE_TEXTS),
        help_lines=rules_text(r, sym),
        chip_values_minor=list(r.chip_values_minor),
        min_bet_minor=r.min_bet_minor,
        max_bet_minor=r.max_bet_minor,
        spots_per_station=r.max_spots_per_seat,
        program_id=cab.program_id,
        program_digest=cab.program_digest,
        volume_percent=s.settings.volume_percent,
        attract_sound=s.settings.attract_sound,
        double_totals=sorted(r.double_totals),
        player_desk=STORAGE_FAULT not in s.faults,
        round_id=s.round_id,
    )


def _station_view(
    cab: ViewContext, st: StationState, view: PlayerView | None, prompt: VisiblePrompt | None
) -> StationView:
    r = cab.rules
    sym = cab.s.settings.currency_symbol
    spots: list[SpotView] = []
    insurance = 0
    bet = 0
    message: list[Said] = []
    mine = [sp for sp in view.spots if sp.seat == st.station] if view else []
    if mine:
        for sp in mine:
            hands = []
            for i, h in enumerate(sp.hands, 1):
                active = bool(
                    prompt
                    and prompt.kind == "play"
                    and prompt.seat == st.station
                    and prompt.spot == sp.spot
                    and prompt.hand == i
                )
                hands.append(
                    HandView(
                        cards=h.cards,
                        stake_minor=h.stake_minor,
                        total_text=_total_text(h),
                        outcome=h.outcome,
                        returned_minor=h.returned_minor,
                        doubled=h.doubled,
                        from_split=h.from_split,
                        blackjack=h.blackjack,
                        active=active,
                    )
                )
            stake = sum(h.stake_minor for h in sp.hands)
            bet += stake
            insurance += sp.insurance_stake_minor
            spots.append(
                SpotView(
                    spot=sp.spot,
                    bet_minor=sp.bet_minor,
                    chips_minor=chip_split(stake, r.chip_values_minor, most=_PILE_CHIPS),
                    hands=hands,
                    insurance_minor=sp.insurance_stake_minor,
                    insurance_returned_minor=sp.insurance_returned_minor,
                )
            )
        if view is not None and prompt and prompt.seat == st.station:
            message = [
                said("Insurance? It costs {cost_minor}", cost_minor=_insurance_cost(view, prompt))
                if prompt.kind == "insurance"
                else said("Your move")
            ]
        if view is not None and view.phase == "done":
            bet = sum(st.bets_minor)  # the settled round stays shown; Bet is the next one
            if len({sp.seat for sp in view.spots}) > 1:
                message = station_outcome_said(mine, view.dealer.blackjack)
    else:
        for i in range(r.max_spots_per_seat):
            b = st.bets_minor[i] if i < len(st.bets_minor) else 0
            bet += b
            spots.append(
                SpotView(
                    spot=i + 1,
                    bet_minor=b,
                    chips_minor=chip_split(b, r.chip_values_minor, most=_PILE_CHIPS) if b else [],
                )
            )
        if st.ready:
            message = [said("Ready")]
        elif _below_minimum(cab, st):
            message = [said("Minimum bet {min_minor}", min_minor=r.min_bet_minor)]
    if st.host.disabled and not cab.s.round_open:  # after the round too
        message = [said(DISABLED_TEXT.get(st.host.disabled_by, DISABLED_TEXT["shut_down"]))]
    if len(cab.s.stations) > 1 and _cash_out_said(st):  # its own ticket, on its own screen
        message = _cash_out_said(st)
    return StationView(
        station=st.station,
        credits_minor=st.credits_minor,
        bet_minor=bet,
        insurance_minor=insurance,
        win_minor=st.win_minor,
        spots=spots,
        lamps=sorted(cab.legal_actions(st.station)),
        selected_chip_minor=st.selected_chip_minor,
        ready=st.ready,
        message=english_all(message, sym),
        message_said=message,
        refusal=st.refusal,
        refusal_said=list(st.refusal_said) if st.refusal else [],
        fault=_station_fault(cab, st),
        host_link=st.host.link,
        fault_said=[_fault_said(c) for c in st.faults] if len(cab.s.stations) > 1 else [],
    )


def _cash_out_said(st: StationState) -> list[Said]:
    """Station ``st``'s cash-out under way, in the player's words; ``[]`` for none."""
    if st.printing is not None:
        return [said("Printing ticket for {amount_minor}", amount_minor=st.printing.amount_minor)]
    if st.host.pending_cashout is not None:  # the host's number comes first
        return [
            said(
                "Ticket for {amount_minor}: validating with the casino host",
                amount_minor=st.host.pending_cashout.amount_minor,
            )
        ]
    checks = print_checks(st)
    if checks:  # an unknown print, settled with the host first
        return [
            said(
                "Ticket for {amount_minor}: print unknown, checking with the casino host",
                amount_minor=checks[0].amount_minor,
            )
        ]
    return []


def _station_fault(cab: ViewContext, st: StationState) -> str:
    """Why this station is out of service, on its own screen.

    Empty on a one-station cabinet: there the fault tilts the cabinet and the
    tilt box says it.
    """
    if not st.faults or len(cab.s.stations) == 1:
        return ""
    return "Out of service: " + "; ".join(fault_text(c) for c in st.faults) + " - call attendant"


def _fault_said(code: str) -> Said:
    """A fault as ``fault_text`` says it (``"300 Bill acceptor jam"``), as a ``Said``."""
    num, text = FAULTS.get(code, (999, code.replace("_", " ")))
    return said("{num} {what_text}", num=num, what_text=text)


def _tilt_said(cab: ViewContext) -> list[Said]:
    """The tilt's reasons (``fault_lines``, the audit first) as ``Said`` parts."""
    s = cab.s
    lines = [_fault_said("audit_mismatch")] if s.audit_failed else []
    lines += [_fault_said(c) for c in s.faults]
    many = len(s.stations) > 1
    for st in s.stations:
        for c in st.faults:
            f = _fault_said(c)
            lines.append(said("Station {n}: {num} {what_text}", n=st.station, **f.args) if many else f)
    return lines


def _handpay_reason(reason: str, s: CabinetState) -> list[Said]:
    """A handpay's reason as ``Said``, when one of the core's reasons (``Table``'s
    jackpot, ``Ledger``'s print result, ``Tito``'s "no ticket: ...") says
    exactly what the journaled ``reason`` says; ``[]`` else (the UI then looks the plain
    reason up as a msgid)."""
    hp = s.handpay
    st = next((x for x in s.stations if hp is not None and x.station == hp.station), None)
    cands = [
        said("a win of {limit_minor} or more is paid by hand", limit_minor=s.settings.jackpot_limit_minor),
        said("print failed"),
        said("print unknown"),
        said("print unknown: ticket void at the casino host"),
    ]
    cands += [said("no ticket: {why_text}", why_text=why) for why in _NO_TICKET_WHY]
    if st is not None and hp is not None:
        cands += [
            said(
                "no ticket: no validation from the casino host within {seconds} s",
                seconds=st.host.validation_timeout_ms // 1000,
            ),
            said(
                "no ticket: {amount_minor} is not a whole number of {credit_minor} host credits",
                amount_minor=hp.amount_minor,
                credit_minor=st.host.denomination_minor,
            ),
        ]
    sym = s.settings.currency_symbol
    return next(([c] for c in cands if english(c, sym) == reason), [])


#: ``Tito``'s constant reasons for a cash-out that got no ticket.
_NO_TICKET_WHY = (
    N_("host offline"),
    N_("validation denied by the casino host"),
    N_("bad validation number from the host"),
    N_("restarted while waiting for validation"),
    N_("printer not enabled for cash-out by the casino host"),
)


def _insurance_cost(view: PlayerView, prompt: VisiblePrompt) -> int:
    """Half the prompted spot's bet: what taking insurance costs (``Round`` rounds down)."""
    return next((sp.bet_minor // 2 for sp in view.spots if sp.seat == prompt.seat and sp.spot == prompt.spot), 0)


def _below_minimum(cab: ViewContext, st: StationState) -> bool:
    """A spot bet under the table minimum, or credits that cannot
    cover it, is why Deal stays dark."""
    if MODE_TABLE[cab.mode].lamps != "bets" or st.station not in cab.seats_in_play():
        return False
    low = cab.rules.min_bet_minor
    return any(0 < b < low for b in st.bets_minor) or (not any(st.bets_minor) and 0 < st.credits_minor < low)


#: How long "Door closed" stays the table's message after the last door is shut.
DOOR_CLOSED_NOTICE_MS = 5000


def _message(cab: ViewContext, mode: Mode, view: PlayerView | None, prompt: VisiblePrompt | None) -> list[Said]:
    """The table's message as ``Said`` parts; ``[]`` for none."""
    s = cab.s
    if s.message and MODE_TABLE[mode].lamps == "bets":
        return [said(s.message)]
    if mode is Mode.ATTRACT:
        return [said("Insert cash or a voucher to play")]
    if mode is Mode.IN_ROUND and prompt is not None:
        multi = len(cab.seats_in_play()) > 1 or cab.rules.max_spots_per_seat > 1
        seat = len(cab.seats_in_play()) > 1
        if prompt.kind == "insurance":
            cost = _insurance_cost(view, prompt) if view else 0
            if seat:
                return [said("Station {seat}: insurance costs {cost_minor}", seat=prompt.seat, cost_minor=cost)]
            if multi:
                return [said("Spot {spot}: insurance costs {cost_minor}", spot=prompt.spot, cost_minor=cost)]
            return [said("Insurance? It costs {cost_minor}", cost_minor=cost)]
        if seat:
            return [said("Station {seat}: hit or stand?", seat=prompt.seat)]
        return [said("Spot {spot}: hit or stand?", spot=prompt.spot)] if multi else [said("Hit or stand?")]
    if mode is Mode.BETTING:
        if view is not None and view.phase == "done":
            return _outcome_message(cab, view)
        if s.door_closed_notice and 0 <= s.now_ms - s.door_closed_ms <= DOOR_CLOSED_NOTICE_MS:
            return [said("Door closed")]
        if cab.uses_chips:
            return [said("Place your bets")]
        return [said("Press Bet + to bet, then Deal")]
    return []


def _money_back(spots: list[VisibleSpot]) -> tuple[int, int]:
    """(paid back, net won) of ``spots``: stakes and insurance included, minor units."""
    back = net = 0
    for sp in spots:
        back += sp.insurance_returned_minor or 0
        net += (sp.insurance_returned_minor or 0) - sp.insurance_stake_minor
        for h in sp.hands:
            back += h.returned_minor or 0
            net += (h.returned_minor or 0) - h.stake_minor
    return back, net


def _result(spots: list[VisibleSpot]) -> tuple[str, int]:
    """What ``spots`` (one station's, or one spot) came to: ``(kind, amount_minor)``.

    ``kind`` is ``push``, ``blackjack`` or ``win`` (amount: net won, 0 if none), ``lose``,
    or ``paid`` (amount: paid back, for a mixed result that did not win).
    """
    outcomes = [h.outcome for sp in spots for h in sp.hands]
    back, net = _money_back(spots)
    if outcomes and all(o == "push" for o in outcomes):
        return "push", 0
    if "blackjack" in outcomes:
        return "blackjack", max(net, 0)
    if net > 0 and any(o in ("win", "blackjack") for o in outcomes):
        return "win", net
    if all(o in ("lose", "bust") for o in outcomes):
        return "lose", 0
    return "paid", back


def _said(kind: str, amount: int) -> Said:
    """A result told to the player: ``"You win $5.00"``."""
    if kind == "push":
        return said("Push")
    if kind == "blackjack":
        return said("Blackjack! You win {amount_minor}", amount_minor=amount) if amount else said("Blackjack!")
    if kind == "win":
        return said("You win {amount_minor}", amount_minor=amount)
    if kind == "lose":
        return said("Dealer wins")
    return said("Paid {amount_minor}", amount_minor=amount)


#: A result told about a spot or station (``"Spot 1 wins $5.00"``), per kind: the
#: template of a spot's, the template of a station's (whole lines, so each
#: language orders its own words).
_TOLD = {
    "push": (N_("Spot {n} pushes"), N_("Station {n} pushes")),
    "blackjack": (N_("Spot {n} Blackjack, wins {amount_minor}"), N_("Station {n} Blackjack, wins {amount_minor}")),
    "blackjack0": (N_("Spot {n} Blackjack"), N_("Station {n} Blackjack")),
    "win": (N_("Spot {n} wins {amount_minor}"), N_("Station {n} wins {amount_minor}")),
    "lose": (N_("Spot {n} loses"), N_("Station {n} loses")),
    "paid": (N_("Spot {n} paid {amount_minor}"), N_("Station {n} paid {amount_minor}")),
}


def _told(n: int, kind: str, amount: int, station: bool) -> Said:
    """Spot (or station, ``station``) ``n``'s result: ``"Spot 1 wins $5.00"``."""
    if kind == "blackjack" and not amount:
        kind = "blackjack0"
    template = _TOLD.get(kind, _TOLD["paid"])[1 if station else 0]
    return said(template, n=n, amount_minor=amount) if "{amount_minor}" in template else said(template, n=n)


def station_outcome_said(spots: list[VisibleSpot], dealer_blackjack: bool) -> list[Said]:
    """One station's line after a round, from its own spots only, as ``Said`` parts.

    Args:
        spots: the station's spots of ``Round.player_view().spots``.
        dealer_blackjack: the dealer made Blackjack.

    Returns:
        ``"You win $5.00"``; with several spots each spot's own result,
        ``"Spot 1 Blackjack, wins $7.50 · Spot 2 loses"``; ``[]`` for no spots.
    """
    if not spots:
        return []
    if dealer_blackjack:
        back, _ = _money_back(spots)
        return [
            said("Dealer has Blackjack: {back_minor} back", back_minor=back) if back else said("Dealer has Blackjack")
        ]
    if len(spots) > 1:
        return [_told(sp.spot, *_result([sp]), False) for sp in spots]
    return [_said(*_result(spots))]


def _outcome_message(cab: ViewContext, view: PlayerView) -> list[Said]:
    """The table's line after a round: each station's own result.

    One station: its line (``"You win $5.00"``: net of stakes when it won,
    else what came back). Several: ``"Station 1 wins $5.00 · Station 2
    loses"``, each station's console saying its own result.
    """
    seats = sorted({sp.seat for sp in view.spots})
    dealer_bj = view.dealer.blackjack
    if len(seats) == 1:
        return station_outcome_said(view.spots, dealer_bj)
    if dealer_bj:
        return [said("Dealer has Blackjack")]
    return [_told(n, *_result([sp for sp in view.spots if sp.seat == n]), True) for n in seats]

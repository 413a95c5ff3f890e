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
from cabinet.core.errors import fault_text
from cabinet.core.host import DISABLED_TEXT
from cabinet.core.rules_text import TABLE_TEXTS, rules_text
from cabinet.protocol.money import chip_split, fmt_money
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
    from cabinet.core.state import StationState
    from cabinet.game.view import PlayerView, VisibleHand, VisiblePrompt, VisibleSpot

#: A spot's pile is drawn at most this many whole chips high.
_PILE_CHIPS = 12
_OVERLAYS = {"door_open": "door_open", "tilt": "tilt", "handpay": "handpay",
             "cash_out": "printing", "ram_error": "ram_error", "needs_config": "tilt"}


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
    view = cab.round.player_view() if cab.round is not None else None
    prompt = view.prompt if view else None

    stations = []
    for st in s.stations:
        stations.append(player_desk.dress(cab.desk, _station_view(cab, st, view, prompt)))

    dealer = DealerView()
    if view is not None:
        d = view.dealer
        text = d.total_text
        if len(d.cards) == 1:            # a lone up card: "10", not "hard 10"
            text = "1 or 11" if d.cards[0][0] == "A" else str(d.total)
        if d.blackjack:
            text = "BLACKJACK"
        elif d.total > 21:
            text = "BUST"
        dealer = DealerView(cards=d.cards, face_down=d.face_down, total_text=text)

    timer = None
    if mode in ("attract", "betting") and s.bet_deadline_ms is not None:
        timer = TimerView(kind="bet", seconds_left=max(0, -(-(s.bet_deadline_ms - s.now_ms)
                                                           // 1000)))
    elif mode == "in_round" and s.decision_deadline_ms is not None and prompt:
        timer = TimerView(kind="decision", station=prompt.seat,
                          seconds_left=max(0, -(-(s.decision_deadline_ms - s.now_ms) // 1000)))

    overlay = _OVERLAYS.get(mode)
    overlay_text = ""
    handpay = None
    if mode == "door_open":
        overlay_text = "Door open: " + ", ".join(s.doors_open) + ". Play is suspended."
    elif mode == "tilt":
        reasons = cab.fault_lines()
        if s.audit_failed:
            reasons.insert(0, fault_text("audit_mismatch"))
        overlay_text = "; ".join(reasons) or "Out of service"
    elif mode == "needs_config":
        overlay_text = "Configuration required: turn the operator key and save settings"
    elif mode == "ram_error":
        overlay_text = fault_text("ram_error")
        if s.faults.get("ram_error"):       # what the journal check found (issue 11)
            overlay_text += ". Found: " + s.faults["ram_error"]
    elif mode == "handpay" and s.handpay is not None:
        hp = s.handpay
        handpay = HandpayView(amount_minor=hp.amount_minor, reason=hp.reason,
                              validation_number=hp.validation_number, station=hp.station,
                              kind=hp.kind,
                              waiting=len(s.handpay_queue))
        overlay_text = f"Handpay {fmt_money(hp.amount_minor, sym)}: call an attendant ({hp.reason})"
        if s.handpay_queue:
            n = len(s.handpay_queue)
            overlay_text += f"; then {n} more handpay{'s' if n > 1 else ''}"
    elif mode == "cash_out" and s.printing is not None:
        overlay_text = f"Printing ticket for {fmt_money(s.printing.amount_minor, sym)}"
    elif mode == "cash_out":                     # issue 14: the host's number comes first
        waiting = [st.host.pending_cashout for st in s.stations if st.host.pending_cashout]
        if waiting:
            overlay_text = (f"Ticket for {fmt_money(waiting[0].amount_minor, sym)}: "
                            "validating with the casino host")

    message = _message(cab, mode, view, prompt)
    if s.key_on and s.maintenance is None and mode == "in_round":
        # issue 10.6: the key was turned; the menu opens when the round is over
        message = f"{message} · Maintenance after this round" if message \
            else "Maintenance after this round"
    elif s.key_on and s.maintenance is None and mode == "cash_out":
        overlay_text += " · Maintenance after this ticket"     # shown over the table

    return Snapshot(
        seq=seq, mode="tilt" if mode in ("needs_config", "ram_error") else mode,
        variant=r.variant, variant_name=r.name, currency_symbol=sym,
        credit_minor=r.credit_minor, message=message,
        dealer=dealer, stations=stations, timer=timer, overlay=overlay,
        overlay_text=overlay_text, handpay=handpay,
        maintenance=maintenance.view(cab) if mode == "maintenance" else None,
        table_texts=list(TABLE_TEXTS), help_lines=rules_text(r, sym),
        chip_values_minor=list(r.chip_values_minor), min_bet_minor=r.min_bet_minor,
        max_bet_minor=r.max_bet_minor, spots_per_station=r.max_spots_per_seat,
        program_id=cab.program_id, program_digest=cab.program_digest,
        volume_percent=s.settings.volume_percent, attract_sound=s.settings.attract_sound,
    )


def _station_view(cab: ViewContext, st: StationState, view: PlayerView | None,
                  prompt: VisiblePrompt | None) -> StationView:
    r = cab.rules
    sym = cab.s.settings.currency_symbol
    spots: list[SpotView] = []
    insurance = 0
    bet = 0
    message = ""
    mine = [sp for sp in view.spots if sp.seat == st.station] if view else []
    if mine:
        for sp in mine:
            hands = []
            for i, h in enumerate(sp.hands, 1):
                active = bool(prompt and prompt.kind == "play" and prompt.seat == st.station
                              and prompt.spot == sp.spot and prompt.hand == i)
                hands.append(HandView(
                    cards=h.cards, stake_minor=h.stake_minor, total_text=_total_text(h),
                    outcome=h.outcome, returned_minor=h.returned_minor, doubled=h.doubled,
                    from_split=h.from_split, blackjack=h.blackjack, active=active))
            stake = sum(h.stake_minor for h in sp.hands)
            bet += stake
            insurance += sp.insurance_stake_minor
            spots.append(SpotView(spot=sp.spot, bet_minor=sp.bet_minor,
                                  chips_minor=chip_split(stake, r.chip_values_minor, most=_PILE_CHIPS),
                                  hands=hands, insurance_minor=sp.insurance_stake_minor,
                                  insurance_returned_minor=sp.insurance_returned_minor))
        if view is not None and prompt and prompt.seat == st.station:
            message = f"Insurance? It costs {fmt_money(_insurance_cost(view, prompt), sym)}" \
                if prompt.kind == "insurance" else "Your move"
        if view is not None and view.phase == "done":
            bet = sum(st.bets_minor)        # the settled round stays shown; Bet is the next one
            if len({sp.seat for sp in view.spots}) > 1:
                message = station_outcome(mine, view.dealer.blackjack, sym)
    else:
        for i in range(r.max_spots_per_seat):
            b = st.bets_minor[i] if i < len(st.bets_minor) else 0
            bet += b
            spots.append(SpotView(spot=i + 1, bet_minor=b,
                                  chips_minor=chip_split(b, r.chip_values_minor, most=_PILE_CHIPS) if b else []))
        if st.ready:
            message = "Ready"
        elif _below_minimum(cab, st):
            message = f"Minimum bet {fmt_money(r.min_bet_minor, sym)}"
    if st.host.disabled and not cab.s.round_open:        # issue 13: after the round too
        message = DISABLED_TEXT.get(st.host.disabled_by, DISABLED_TEXT["shut_down"])
    return StationView(
        station=st.station, credits_minor=st.credits_minor, bet_minor=bet,
        insurance_minor=insurance, win_minor=st.win_minor, spots=spots,
        lamps=sorted(cab.legal_actions(st.station)),
        selected_chip_minor=st.selected_chip_minor, ready=st.ready, message=message,
        refusal=st.refusal, fault=_station_fault(cab, st), host_link=st.host.link)


def _station_fault(cab: ViewContext, st: StationState) -> str:
    """Issue 10.8: why this station is out of service, on its own screen.

    Empty on a one-station cabinet: there the fault tilts the cabinet and the
    tilt box says it.
    """
    if not st.faults or len(cab.s.stations) == 1:
        return ""
    return "Out of service: " + "; ".join(fault_text(c) for c in st.faults) + \
        " - call attendant"


def _insurance_cost(view: PlayerView, prompt: VisiblePrompt) -> int:
    """Half the prompted spot's bet: what taking insurance costs (``Round`` rounds down)."""
    return next((sp.bet_minor // 2 for sp in view.spots
                 if sp.seat == prompt.seat and sp.spot == prompt.spot), 0)


def _below_minimum(cab: ViewContext, st: StationState) -> bool:
    """Issue 10.8: a spot bet under the table minimum, or credits that cannot
    cover it, is why Deal stays dark."""
    if cab.mode not in ("attract", "betting") or st.station not in cab.seats_in_play():
        return False
    low = cab.rules.min_bet_minor
    return any(0 < b < low for b in st.bets_minor) or \
        (not any(st.bets_minor) and 0 < st.credits_minor < low)


#: How long "Door closed" stays the table's message after the last door is shut.
DOOR_CLOSED_NOTICE_MS = 5000


def _message(cab: ViewContext, mode: str, view: PlayerView | None,
             prompt: VisiblePrompt | None) -> str:
    s = cab.s
    sym = s.settings.currency_symbol
    if s.message and mode in ("attract", "betting"):
        return s.message
    if mode == "attract":
        return "Insert cash or a voucher to play"
    if mode == "in_round" and prompt is not None:
        multi = len(cab.seats_in_play()) > 1 or cab.rules.max_spots_per_seat > 1
        where = f"Seat {prompt.seat}" if len(cab.seats_in_play()) > 1 else \
            f"Spot {prompt.spot}" if multi else ""
        if prompt.kind == "insurance":
            cost = fmt_money(_insurance_cost(view, prompt) if view else 0, sym)
            return f"{where}: insurance costs {cost}" if where else \
                f"Insurance? It costs {cost}"
        return f"{where}: hit or stand?" if where else "Hit or stand?"
    if mode == "betting":
        if view is not None and view.phase == "done":
            return _outcome_message(cab, view, sym)
        if s.door_closed_notice and 0 <= s.now_ms - s.door_closed_ms <= DOOR_CLOSED_NOTICE_MS:
            return "Door closed"
        if cab.uses_chips:
            return "Place your bets"
        return "Press Bet + to bet, then Deal"
    return ""


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


def _said(kind: str, amount: int, sym: str) -> str:
    """A result told to the player: ``"You win $5.00"``."""
    return {"push": "Push",
            "blackjack": "Blackjack!" + (f" You win {fmt_money(amount, sym)}" if amount else ""),
            "win": f"You win {fmt_money(amount, sym)}", "lose": "Dealer wins"}.get(
        kind, f"Paid {fmt_money(amount, sym)}")


def _told(kind: str, amount: int, sym: str) -> str:
    """A result told about a spot or station: ``"wins $5.00"``."""
    return {"push": "pushes",
            "blackjack": "Blackjack" + (f", wins {fmt_money(amount, sym)}" if amount else ""),
            "win": f"wins {fmt_money(amount, sym)}", "lose": "loses"}.get(
        kind, f"paid {fmt_money(amount, sym)}")


def station_outcome(spots: list[VisibleSpot], dealer_blackjack: bool, sym: str) -> str:
    """One station's line after a round, from its own spots only (issue 10.3).

    Args:
        spots: the station's spots of ``Round.player_view().spots``.
        dealer_blackjack: the dealer made Blackjack.
        sym: currency symbol.

    Returns:
        ``"You win $5.00"``; with several spots each spot's own result,
        ``"Spot 1 Blackjack, wins $7.50 · Spot 2 loses"``; ``""`` for no spots.
    """
    if not spots:
        return ""
    if dealer_blackjack:
        back, _ = _money_back(spots)
        return "Dealer has Blackjack" + (f": {fmt_money(back, sym)} back" if back else "")
    if len(spots) > 1:
        return " · ".join(f"Spot {sp.spot} {_told(*_result([sp]), sym)}" for sp in spots)
    return _said(*_result(spots), sym)


def _outcome_message(cab: ViewContext, view: PlayerView, sym: str) -> str:
    """The table's line after a round: each station's own result (issue 10.3).

    One station: its line (``"You win $5.00"``: net of stakes when it won,
    else what came back). Several: ``"Station 1 wins $5.00 · Station 2
    loses"``, each station's console saying its own result.
    """
    seats = sorted({sp.seat for sp in view.spots})
    dealer_bj = view.dealer.blackjack
    if len(seats) == 1:
        return station_outcome(view.spots, dealer_bj, sym)
    if dealer_bj:
        return "Dealer has Blackjack"
    return " · ".join(
        f"Station {n} {_told(*_result([sp for sp in view.spots if sp.seat == n]), sym)}"
        for n in seats)

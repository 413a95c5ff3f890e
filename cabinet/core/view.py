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
from cabinet.core.errors import STORAGE_FAULT, fault_text
from cabinet.core.host import DISABLED_TEXT
from cabinet.core.modes import MODE_TABLE, Mode
from cabinet.core.rules_text import TABLE_TEXTS, rules_said, rules_text
from cabinet.core.view_said import (
    below_minimum,
    cash_out_said,
    fault_said,
    handpay_reason,
    insurance_cost,
    station_fault,
    station_outcome_said,
    table_message,
    tilt_said,
)
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
    from cabinet.core.state import StationState
    from cabinet.game.view import PlayerView, VisibleHand, VisiblePrompt

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
        overlay_said = tilt_said(cab) or [said("Out of service")]
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
            reason_said=handpay_reason(hp.reason, s),
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
            (cash_out_said(st) for st in s.stations if cash_out_said(st)),
            [said("Printing ticket for {amount_minor}", amount_minor=s.printing.amount_minor)]
            if s.printing is not None
            else [],
        )
        overlay_text = english_all(overlay_said, sym)

    message_said = table_message(cab, mode, view, prompt)
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
                said("Insurance? It costs {cost_minor}", cost_minor=insurance_cost(view, prompt))
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
        elif below_minimum(cab, st):
            message = [said("Minimum bet {min_minor}", min_minor=r.min_bet_minor)]
    if st.host.disabled and not cab.s.round_open:  # after the round too
        message = [said(DISABLED_TEXT.get(st.host.disabled_by, DISABLED_TEXT["shut_down"]))]
    if len(cab.s.stations) > 1 and cash_out_said(st):  # its own ticket, on its own screen
        message = cash_out_said(st)
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
        fault=station_fault(cab, st),
        host_link=st.host.link,
        fault_said=[fault_said(c) for c in st.faults] if len(cab.s.stations) > 1 else [],
    )

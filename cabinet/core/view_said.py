"""The words of the player-visible ``Snapshot``: the table's message line, the
cash-out, tilt, fault and handpay texts, each round's outcome told per station.

Owns: what ``cabinet.core.view.build_snapshot`` says, as ``Said`` (a message id and
its arguments, translated by the UI). Pure; reads the cabinet through a
``ViewContext`` and never changes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cabinet.core.context import ViewContext
from cabinet.core.errors import FAULTS, fault_text
from cabinet.core.modes import MODE_TABLE, Mode
from cabinet.core.tito_claims import print_checks
from cabinet.protocol.said import N_, Said, english, said

if TYPE_CHECKING:
    from cabinet.core.state import CabinetState, StationState
    from cabinet.game.view import PlayerView, VisiblePrompt, VisibleSpot


def cash_out_said(st: StationState) -> list[Said]:
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


def station_fault(cab: ViewContext, st: StationState) -> str:
    """Why this station is out of service, on its own screen.

    Empty on a one-station cabinet: there the fault tilts the cabinet and the
    tilt box says it.
    """
    if not st.faults or len(cab.s.stations) == 1:
        return ""
    return "Out of service: " + "; ".join(fault_text(c) for c in st.faults) + " - call attendant"


def fault_said(code: str) -> Said:
    """A fault as ``fault_text`` says it (``"300 Bill acceptor jam"``), as a ``Said``."""
    num, text = FAULTS.get(code, (999, code.replace("_", " ")))
    return said("{num} {what_text}", num=num, what_text=text)


def tilt_said(cab: ViewContext) -> list[Said]:
    """The tilt's reasons (``fault_lines``, the audit first) as ``Said`` parts."""
    s = cab.s
    lines = [fault_said("audit_mismatch")] if s.audit_failed else []
    lines += [fault_said(c) for c in s.faults]
    many = len(s.stations) > 1
    for st in s.stations:
        for c in st.faults:
            f = fault_said(c)
            lines.append(said("Station {n}: {num} {what_text}", n=st.station, **f.args) if many else f)
    return lines


def handpay_reason(reason: str, s: CabinetState) -> list[Said]:
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


def insurance_cost(view: PlayerView, prompt: VisiblePrompt) -> int:
    """Half the prompted spot's bet: what taking insurance costs (``Round`` rounds down)."""
    return next((sp.bet_minor // 2 for sp in view.spots if sp.seat == prompt.seat and sp.spot == prompt.spot), 0)


def below_minimum(cab: ViewContext, st: StationState) -> bool:
    """A spot bet under the table minimum, or credits that cannot
    cover it, is why Deal stays dark."""
    if MODE_TABLE[cab.mode].lamps != "bets" or st.station not in cab.seats_in_play():
        return False
    low = cab.rules.min_bet_minor
    return any(0 < b < low for b in st.bets_minor) or (not any(st.bets_minor) and 0 < st.credits_minor < low)


#: How long "Door closed" stays the table's message after the last door is shut.
DOOR_CLOSED_NOTICE_MS = 5000


def table_message(cab: ViewContext, mode: Mode, view: PlayerView | None, prompt: VisiblePrompt | None) -> list[Said]:
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
            cost = insurance_cost(view, prompt) if view else 0
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

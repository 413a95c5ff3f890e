"""What a player is told when the engine refuses a press (issue 17).

Owns: ``refusal_text``: the engine's ``refused`` cue (the action and the
core's reason, developer words) plus the snapshot the player is looking at
turned into one line in the player's words: the minimum bet, the table
maximum, the credits short, what insurance costs. Pure.
"""

from __future__ import annotations

from cabinet.protocol.money import fmt_money
from cabinet.protocol.snapshot import Snapshot, StationView

#: how long a refusal stays on the station's console, ms.
SHOW_MS = 3500


def _station(s: Snapshot, n: int) -> StationView | None:
    return next((st for st in s.stations if st.station == n), None)


def refusal_text(s: Snapshot | None, station: int, action: str, reason: str = "") -> str:
    """The line shown on ``station``'s console after its ``action`` was refused.

    Args:
        s: the latest snapshot (``None``: a generic line).
        station: the station whose press was refused, 1-3.
        action: the refused intent's action (``ipc.ACTIONS``).
        reason: the engine's reason (``Rejected.reason``), used for the table maximum.

    Returns:
        e.g. ``"Minimum bet $5.00: add chips, then Deal"``, ``"Insurance costs $2.50:
        not enough credits"``, ``"Table maximum $500.00 per spot"``.
    """
    st = _station(s, station) if s is not None else None
    if s is None or st is None:
        return "Not available now"
    sym = s.currency_symbol
    money = (lambda v: fmt_money(v, sym))  # noqa: E731
    bet = st.bet_minor
    if s.mode not in ("attract", "betting", "in_round"):
        return "Please wait: play is suspended"
    if action == "deal":
        if bet == 0:
            return f"Place a bet first: minimum {money(s.min_bet_minor)}"
        if bet < s.min_bet_minor:
            return f"Minimum bet {money(s.min_bet_minor)}: add chips, then Deal"
        return "Wait for the round to end" if s.mode == "in_round" else "Deal is not available now"
    if action in ("bet_up", "chip", "place", "rebet"):
        if s.mode == "in_round":
            return "Bets are closed until the round ends"
        if "maximum" in reason or (s.max_bet_minor and bet >= s.max_bet_minor):
            per = " per spot" if s.spots_per_station > 1 else ""
            return f"Table maximum {money(s.max_bet_minor)}{per}"
        return f"Not enough credits: {money(st.credits_minor)} left"
    if action == "insure":
        cost = sum(sp.bet_minor for sp in st.spots) // 2 or bet // 2
        if cost and st.credits_minor < cost:
            return f"Insurance costs {money(cost)}: not enough credits"
        return "Insurance is offered only when the dealer shows an Ace"
    if action in ("double", "split"):
        stake = next((h.stake_minor for sp in st.spots for h in sp.hands if h.active), bet)
        if stake and st.credits_minor < stake:
            return f"{action.capitalize()} needs {money(stake)}: not enough credits"
        return "Double on your first two cards only" if action == "double" else "Split a pair only"
    if action == "cash_out":
        return "No credits to cash out" if st.credits_minor == 0 else "Cash out after the round"
    if action in ("hit", "stand"):
        return "Not your turn yet" if s.mode == "in_round" else "Place a bet and Deal first"
    return f"{action.replace('_', ' ').capitalize()} is not available now"

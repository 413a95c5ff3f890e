"""What a player is told when the engine refuses a press.

Owns: ``refusal_text``: the engine's ``refused`` cue (the action and the
core's reason, developer words) plus the snapshot the player is looking at
turned into one line in the player's words: the minimum bet, the table
maximum, the credits short, what insurance costs; in the screen's language
(``ui.i18n``, money in its locale). Pure.
"""

from __future__ import annotations

from cabinet.protocol.snapshot import Snapshot, StationView, WireMode
from ui.i18n import N_, _, pgettext
from ui.money import fmt_money
from ui.render import ACTION_LABELS
from ui.said import say

#: how long a refusal stays on the station's console, ms.
SHOW_MS = 3500


def _station(s: Snapshot, n: int) -> StationView | None:
    return next((st for st in s.stations if st.station == n), None)


#: the buttons a catch-all refusal names, as their labels read on the table: the bet and
#: play buttons' own (``ui.render.ACTION_LABELS``) and these.
ACTION_NAMES = {
    **ACTION_LABELS,
    "place": N_("BET"),
    "help": N_("HELP"),
    "history": N_("HISTORY"),
    "service": N_("SERVICE"),
}


def _totals(totals: list[int]) -> str:
    """``[9, 10, 11]`` -> ``"9, 10 or 11"`` in the screen's language. The last number's
    spoken start picks the form where a language needs it: Spanish writes "u", not "o",
    before "ocho" and "once" (RAE), so 8, 11 and the 80s take the context
    ``"before a number said with an o sound"``."""
    words = [str(t) for t in totals]
    if len(words) == 1:
        return words[0]
    last = totals[-1]
    o_sound = last in (8, 11) or 80 <= last <= 89
    pattern = (
        pgettext("before a number said with an o sound", "{first} or {last}") if o_sound else _("{first} or {last}")
    )
    return pattern.format(first=", ".join(words[:-1]), last=words[-1])


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
        return _("Not available now")
    sym = s.currency_symbol

    def money(amount_minor: int) -> str:
        return fmt_money(amount_minor, sym)

    bet = st.bet_minor
    if s.mode not in (WireMode.ATTRACT, WireMode.BETTING, WireMode.IN_ROUND):
        return _("Please wait: play is suspended")
    if action == "deal":
        if bet == 0:
            return _("Place a bet first: minimum {amount}").format(amount=money(s.min_bet_minor))
        if bet < s.min_bet_minor:
            return _("Minimum bet {amount}: add chips, then Deal").format(amount=money(s.min_bet_minor))
        return _("Wait for the round to end") if s.mode == WireMode.IN_ROUND else _("Deal is not available now")
    if action in ("bet_up", "chip", "place", "rebet"):
        if s.mode == WireMode.IN_ROUND:
            return _("Bets are closed until the round ends")
        if "maximum" in reason or (s.max_bet_minor and bet >= s.max_bet_minor):
            if s.spots_per_station > 1:
                return _("Table maximum {amount} per spot").format(amount=money(s.max_bet_minor))
            return _("Table maximum {amount}").format(amount=money(s.max_bet_minor))
        # credits are taken at the deal: what is left to bet is the meter less the bets
        left = max(0, st.credits_minor - bet)
        return _("Not enough credits: {amount} left to bet").format(amount=money(left))
    if action in ("hit", "stand", "double", "split") and "decline" in st.lamps:
        return _("Answer the insurance question first")
    if action == "insure":
        cost = sum(sp.bet_minor for sp in st.spots) // 2 or bet // 2
        if cost and st.credits_minor < cost:
            return _("Insurance costs {amount}: not enough credits").format(amount=money(cost))
        return _("Insurance is offered only when the dealer shows an Ace")
    if action in ("double", "split"):
        stake = next((h.stake_minor for sp in st.spots for h in sp.hands if h.active), bet)
        if stake and st.credits_minor < stake:
            needs = (
                _("Double needs {amount}: not enough credits")
                if action == "double"
                else _("Split needs {amount}: not enough credits")
            )
            return needs.format(amount=money(stake))
        if action == "split":
            return _("Split a pair only")
        if s.double_totals:  # RULES.md: classic doubles on a two-card 9, 10 or 11
            return _("Double on a first two-card {totals} only").format(totals=_totals(s.double_totals))
        return _("Double on your first two cards only")
    if action == "cash_out":
        if st.credits_minor == 0:
            return _("No credits to cash out")
        if st.fault:  # the station's printer (or acceptor) is out of service
            faults = (
                "; ".join(say(f, sym) for f in st.fault_said)
                if st.fault_said
                else st.fault.removeprefix("Out of service: ").removesuffix(" - call attendant")
            )
            return _("No ticket now: {faults} - call attendant").format(faults=faults)
        return (
            _("Finish this round, then cash out") if s.mode == WireMode.IN_ROUND else _("Cash out is not available now")
        )
    if action in ("hit", "stand"):
        return _("Not your turn yet") if s.mode == WireMode.IN_ROUND else _("Place a bet and Deal first")
    name = ACTION_NAMES.get(action)
    label = _(name) if name else action.replace("_", " ").upper()
    return _("{action} is not available now").format(action=label)

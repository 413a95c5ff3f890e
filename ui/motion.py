"""The classic table motion at settlement: lost stakes swept to the dealer's rack,
wins paid beside the stake, then everything won or pushed taken to the credit meter.

Owns: which stacks move at a settlement, from where to where and when
("lost chips swept to the dealer and won chips paid beside the stake"). Pure: a
function of two snapshots and a time passed in (``now_ms``); nothing here draws or
reads a clock. ``ui.settle_draw`` turns a ``Settle`` into pixels.

The choreography, as a dealer settles a table (from the dealer's right to left,
losing bets first, then paying the winners, the picture held, then the money
given to the player):

1. ``SETTLE_DELAY_MS`` after the result, each lost stake slides to the chip rack
   (``SWEEP_MS``, ``SWEEP_STAGGER_MS`` between hands) and sinks into it.
2. Then each win is paid: the payout (3:2 blackjack, 1:1 win, 2:1 insurance) slides
   from the rack and comes to rest *beside* the stake (``PAY_MS``, staggered).
3. The picture holds ``HOLD_MS`` (stake and payout side by side, the amount under
   the payout), then stake and payout of every win, and every pushed stake, travel
   to the station's credit meter (``COLLECT_MS``) and the circle is empty.

Why to the credit meter and not left on the felt until the next bet: on an
electronic table the engine has already added the win to the credit meter when the
result shows (``StationView.credits_minor``) and the BET meter already shows the
*next* round's bet; chips left lying in the circle would count the same money twice
and look like a bet that rides. Sending them into the meter shows the money arrive
where the player can spend or cash it, as the commercial e-tables do; REBET or a
chip puts the next bet back in the circle.

A snapshot drawn without this motion (the first one after a start, the recall
scene, goldens) shows the settled table as at the end of step 2 (``rest_phase``):
lost stakes gone, payouts beside their stakes.
"""

from __future__ import annotations

from dataclasses import dataclass

from cabinet.protocol.snapshot import Snapshot, SpotView
from ui.tween import Tween

#: hand index of a spot's insurance bet in a ``HandKey``.
INSURANCE = -1
#: ``(station, spot, hand)``: 1-based station and spot, 0-based hand or ``INSURANCE``.
HandKey = tuple[int, int, int]

SETTLE_DELAY_MS = 250
SWEEP_MS = 480
SWEEP_STAGGER_MS = 90
PAY_MS = 520
PAY_STAGGER_MS = 120
HOLD_MS = 1_000
#: a push has nothing paid beside it: its stake waits this long before going home.
PUSH_HOLD_MS = 700
COLLECT_MS = 480
COLLECT_STAGGER_MS = 60

#: where a stack is: at rest in its place, flying (with a 0-1 progress), or gone.
AT_REST, HIDDEN, TO_RACK, FROM_RACK, TO_METER, GONE = "rest", "hidden", "to_rack", "from_rack", "to_meter", "gone"

_LOST = ("lose", "bust")
_WON = ("win", "blackjack")


@dataclass(frozen=True, slots=True)
class Settle:
    """How one settled bet's chips move.

    Attributes:
        key: the bet (``HandKey``; ``hand == INSURANCE`` for a spot's insurance).
        result: ``"lose"``, ``"win"`` or ``"push"`` (blackjack and bust folded in).
        stake_minor: the bet's whole stake (a doubled hand's both halves).
        payout_minor: what the dealer pays beside the stake (``returned - stake``; 0
            for a loss or a push).
        sweep: lost stake, circle -> rack; ``pay``: payout, rack -> beside the stake;
            ``collect``: stake and payout -> the credit meter. ``None`` when that step
            does not happen to this bet (a loss is never paid nor collected).
        ident: which round's bet this is (``bet_identity``), so that a next round's
            result at the same place is never taken for this one.
    """

    key: HandKey
    result: str
    stake_minor: int
    payout_minor: int
    sweep: Tween | None = None
    pay: Tween | None = None
    collect: Tween | None = None
    ident: tuple[object, ...] = ()

    def stake_phase(self, now_ms: int) -> tuple[str, float]:
        """Where the stake is at ``now_ms``: ``(AT_REST|TO_RACK|TO_METER|GONE, progress 0-1)``."""
        if self.sweep is not None:
            return _span(self.sweep, now_ms, AT_REST, TO_RACK, GONE)
        if self.collect is not None:
            return _span(self.collect, now_ms, AT_REST, TO_METER, GONE)
        return (AT_REST, 0.0)

    def payout_phase(self, now_ms: int) -> tuple[str, float]:
        """Where the payout is: ``(HIDDEN|FROM_RACK|AT_REST|TO_METER|GONE, progress 0-1)``;
        ``HIDDEN`` for a bet that is not paid."""
        if self.pay is None or self.payout_minor <= 0:
            return (HIDDEN, 0.0)
        phase, p = _span(self.pay, now_ms, HIDDEN, FROM_RACK, AT_REST)
        if phase == AT_REST and self.collect is not None:
            return _span(self.collect, now_ms, AT_REST, TO_METER, GONE)
        return (phase, p)

    def end_ms(self) -> int:
        """When this bet's last move ends."""
        return max((t.end_ms() for t in (self.sweep, self.pay, self.collect) if t is not None), default=0)


def _span(t: Tween, now_ms: int, before: str, during: str, after: str) -> tuple[str, float]:
    if now_ms < t.start_ms:
        return (before, 0.0)
    if now_ms >= t.end_ms():
        return (after, 1.0)
    return (during, t.progress(now_ms))


def rest_phase(result: str) -> tuple[tuple[str, float], tuple[str, float]]:
    """(stake, payout) phases of a settled bet drawn with no motion: a lost stake gone,
    a won one with its payout beside it, a pushed one in its place."""
    if result == "lose":
        return (GONE, 1.0), (HIDDEN, 0.0)
    if result == "win":
        return (AT_REST, 0.0), (AT_REST, 0.0)
    return (AT_REST, 0.0), (HIDDEN, 0.0)


def _result(outcome: str, stake: int, returned: int | None) -> str:
    """``lose``, ``win`` or ``push`` of a settled bet; a return not told (``None``) is
    drawn as a push unless the outcome says lost (no payout is ever guessed)."""
    if returned is None:
        return "lose" if outcome in _LOST else "push"
    if outcome in _LOST or returned <= 0:
        return "lose"
    if returned > stake:
        return "win"
    return "push"


def spot_bets(sp: SpotView) -> dict[int, tuple[str, int, int]]:
    """The settled bets of one spot: hand (or ``INSURANCE``) -> ``(result, stake_minor,
    payout_minor)``. Hands count once ``outcome`` is set; insurance once
    ``insurance_returned_minor`` is (it settles at the dealer's peek, before the hands)."""
    out: dict[int, tuple[str, int, int]] = {}
    if sp.insurance_minor > 0 and sp.insurance_returned_minor is not None:
        ret = sp.insurance_returned_minor
        out[INSURANCE] = (_result("", sp.insurance_minor, ret), sp.insurance_minor, max(0, ret - sp.insurance_minor))
    for h, hand in enumerate(sp.hands):
        if hand.outcome is not None and hand.stake_minor > 0:
            returned = hand.returned_minor
            out[h] = (
                _result(hand.outcome, hand.stake_minor, returned),
                hand.stake_minor,
                max(0, (returned or 0) - hand.stake_minor),
            )
    return out


def settled_bets(s: Snapshot) -> dict[HandKey, tuple[str, int, int]]:
    """Every settled bet of ``s``: key -> ``(result, stake_minor, payout_minor)`` (``spot_bets``)."""
    return {(st.station, sp.spot, h): v for st in s.stations for sp in st.spots for h, v in spot_bets(sp).items()}


def bet_identity(s: Snapshot) -> dict[HandKey, tuple[object, ...]]:
    """Which round each bet of ``s`` belongs to: the dealer's up card and the hand's
    cards (a spot's first hand's for its insurance). Two snapshots' settled bets at one
    place are the same bet when these match (the UI may miss the snapshots between one
    round's result and the next one's)."""
    up = tuple(s.dealer.cards[:1])
    out: dict[HandKey, tuple[object, ...]] = {}
    for st in s.stations:
        for sp in st.spots:
            for h, hand in enumerate(sp.hands):
                out[(st.station, sp.spot, h)] = (up, tuple(hand.cards))
            if sp.hands:
                out[(st.station, sp.spot, INSURANCE)] = (up, tuple(sp.hands[0].cards[:2]))
    return out


def dealer_order(key: HandKey) -> tuple[int, int, int]:
    """The order a dealer settles in: from the dealer's right to left, i.e. left to right
    on the player's screen (stations ascending, a station's spots from its highest
    number, as they are drawn, insurance before its spot's hands)."""
    st, sp, h = key
    return (st, -sp, h)


def plan(old: Snapshot, new: Snapshot, now_ms: int) -> list[Settle]:
    """The moves for the bets that settled between ``old`` and ``new``.

    Args:
        old: the snapshot drawn so far; new: the one just received.
        now_ms: the caller's monotonic clock, ms (the moves start from it).

    Returns:
        one ``Settle`` per newly settled bet, in dealer order; empty when nothing
        settled. A loss gets only a sweep, a win a pay and a collect, a push a
        collect.
    """
    before, was, now = settled_bets(old), bet_identity(old), bet_identity(new)
    fresh = sorted(
        ((k, v) for k, v in settled_bets(new).items() if k not in before or was.get(k) != now.get(k)),
        key=lambda kv: dealer_order(kv[0]),
    )
    if not fresh:
        return []
    t = now_ms + SETTLE_DELAY_MS
    losses = [k for k, (r, _, _) in fresh if r == "lose"]
    wins = [k for k, (r, _, _) in fresh if r == "win"]
    sweeps = {k: Tween(t + i * SWEEP_STAGGER_MS, SWEEP_MS) for i, k in enumerate(losses)}
    if sweeps:  # the winners are paid as the last loss reaches the rack
        t = max(tw.end_ms() for tw in sweeps.values()) - 120
    pays = {k: Tween(t + i * PAY_STAGGER_MS, PAY_MS) for i, k in enumerate(wins)}
    home = max(tw.end_ms() for tw in pays.values()) + HOLD_MS if pays else t + PUSH_HOLD_MS
    out: list[Settle] = []
    n = 0
    for k, (result, stake, payout) in fresh:
        collect = None
        if result != "lose":
            collect = Tween(home + n * COLLECT_STAGGER_MS, COLLECT_MS)
            n += 1
        out.append(Settle(k, result, stake, payout, sweeps.get(k), pays.get(k), collect, now.get(k, ())))
    return out

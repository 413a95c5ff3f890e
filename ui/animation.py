"""Motion as a pure function of time: snapshot diffs and cues become tweens.

Owns: which cards slide from the shoe, which hole card flips, which chips move
at a settlement (``ui.motion``) and which win is celebrated (``ui.celebration``),
and which sounds those moments make. Time is always passed in
(``now_ms``, a monotonic millisecond clock owned by the caller); nothing here
reads a clock. Animation never holds the game back: the renderer always draws
the latest snapshot, and a tween only moves where an item is drawn while it
runs. Imports only ``cabinet.protocol.snapshot``/``cabinet.protocol.ipc`` from the engine side.
"""

from __future__ import annotations

from cabinet.protocol.ipc import Cue
from cabinet.protocol.snapshot import HandView, Snapshot, WireMode
from ui import celebration, motion
from ui.celebration import Celebration
from ui.motion import HandKey, Settle
from ui.tween import Tween, ease_out

__all__ = ["Animator", "CardKey", "Tween", "ease_out"]

#: ``("d", index)`` for a dealer card, ``("p", station, spot, hand, index)`` for a player card.
CardKey = tuple[object, ...]

SLIDE_MS = 280
STAGGER_MS = 120
FLIP_MS = 340
#: more new cards than this in one snapshot (a reconnect, a resume) are not animated.
MAX_NEW_CARDS = 8


def _cards(s: Snapshot) -> dict[CardKey, str]:
    out: dict[CardKey, str] = {}
    for i, c in enumerate(s.dealer.cards):
        out[("d", i)] = c
    for i in range(s.dealer.face_down):
        out[("d", len(s.dealer.cards) + i)] = "back"
    for st in s.stations:
        for sp in st.spots:
            for h, hand in enumerate(sp.hands):
                for i, c in enumerate(hand.cards):
                    out[("p", st.station, sp.spot, h, i)] = c
    return out


class Animator:
    """Tweens derived from consecutive snapshots and from cues. UI thread only."""

    def __init__(self) -> None:
        self.cards: dict[CardKey, Tween] = {}
        self.flips: dict[CardKey, Tween] = {}
        #: settled bets and how their chips move (kept, once still, until the round goes)
        self.settles: dict[HandKey, Settle] = {}
        self.wins: list[Celebration] = []
        self.pulse_until_ms = 0

    def clear(self) -> None:
        """Drop every tween (e.g. after a reconnect)."""
        self.cards.clear()
        self.flips.clear()
        self.settles.clear()
        self.wins.clear()

    def on_snapshot(self, old: Snapshot | None, new: Snapshot, now_ms: int) -> list[str]:
        """Start the tweens for what changed from ``old`` to ``new``.

        Args:
            old: the snapshot drawn so far, or ``None`` (first one: nothing animates).
            new: the snapshot just received.
            now_ms: the caller's monotonic clock, in ms.

        Returns:
            names of sounds to play now (``card``, ``chip``, ``win``, ``blackjack``, ``big_win``).
        """
        self._prune(now_ms)
        if old is None or new.seq <= old.seq or new.mode in (WireMode.ATTRACT, WireMode.MAINTENANCE):
            self.clear()
            return []
        sounds: list[str] = []
        before, after = _cards(old), _cards(new)
        # hole card turned over: the face-down slot now shows a card
        for key, code in after.items():
            if before.get(key) == "back" and code != "back":
                self.flips[key] = Tween(now_ms, FLIP_MS)
                sounds.append("card")
        new_keys = [k for k, c in after.items() if k not in before and k not in self.flips]
        if 0 < len(new_keys) <= MAX_NEW_CARDS:
            start = max(now_ms, max((t.end_ms() - SLIDE_MS + STAGGER_MS for t in self.cards.values()), default=now_ms))
            start = min(start, now_ms + 600)  # never queue far behind the game
            for k in sorted(new_keys, key=_deal_order):
                self.cards[k] = Tween(start, SLIDE_MS)
                start += STAGGER_MS
            sounds.append("card")
        elif new_keys:
            for k in new_keys:
                self.cards.pop(k, None)
        # bets placed
        if sum(s.bet_minor for s in new.stations) > sum(s.bet_minor for s in old.stations):
            sounds.append("chip")
        sounds += self._settle(old, new, now_ms)
        return list(dict.fromkeys(sounds))

    def _settle(self, old: Snapshot, new: Snapshot, now_ms: int) -> list[str]:
        """Sweep, pay and collect the bets that settled; celebrate the stations
        whose round finished settling; drop both once their round is gone. Returns the
        win sound: the celebration's (its tier's), else a win settled mid-round's."""
        live, ident = motion.settled_bets(new), motion.bet_identity(new)
        self.settles = {k: v for k, v in self.settles.items() if k in live and v.ident == ident.get(k)}
        done = {st.station for st in new.stations if celebration.station_result(st)[3]}
        self.wins = [c for c in self.wins if c.station in done and c.ident == celebration.identity(new, c.station)]
        # the dealer settles once the cards dealt with the result (the dealer's draw,
        # the hole card turned) have landed
        landed = max([now_ms] + [t.end_ms() for t in self.cards.values()] + [t.end_ms() for t in self.flips.values()])
        fresh = motion.plan(old, new, landed)
        for m in fresh:
            self.settles[m.key] = m

        def lands(station: int) -> int:  # the station's first payout lands
            return min(
                (m.pay.end_ms() for m in fresh if m.key[0] == station and m.pay is not None),
                default=landed + motion.SETTLE_DELAY_MS,
            )

        sounds: list[str] = []
        for c in celebration.plan(old, new, lands):
            self.wins = [w for w in self.wins if w.station != c.station] + [c]
            sounds.append(celebration.SOUND[c.tier])
        if sounds:  # the biggest tier's sound only
            order = [celebration.SOUND[t] for t in (celebration.BIG, celebration.MEDIUM, celebration.SMALL)]
            return [min(sounds, key=order.index)]
        for m in fresh:  # a blackjack paid at the peek while the round goes on
            if m.result == "win" and m.key[0] not in done:
                hand = _hand(new, m.key)
                return ["blackjack" if hand is not None and hand.outcome == "blackjack" else "win"]
        return []

    def on_cue(self, cue: Cue, now_ms: int) -> list[str]:
        """React to an engine cue; returns sounds to play (unknown cues: none)."""
        name = cue.name
        if name in ("bill_stacked", "voucher_accepted", "credits_added"):
            self.pulse_until_ms = now_ms + 700
            return ["chip"]
        if name == "sound":
            snd = cue.data.get("name")
            return [snd] if isinstance(snd, str) else []
        if name == "blackjack":
            return ["blackjack"]
        if name == "win":
            return ["win"]
        return []

    # -- queries used by the renderer ----------------------------------------

    def card(self, key: CardKey, now_ms: int) -> float | None:
        """Slide progress of a card (eased 0-1, < 0 not yet out of the shoe), or ``None`` at rest."""
        t = self.cards.get(key)
        if t is None or now_ms >= t.end_ms():
            return None
        p = t.progress(now_ms)
        return p if p < 0 else ease_out(p)

    def flip(self, key: CardKey, now_ms: int) -> float | None:
        """Flip progress of a card (0-1), or ``None`` when not flipping."""
        t = self.flips.get(key)
        if t is None or now_ms >= t.end_ms():
            return None
        return max(0.0, t.progress(now_ms))

    def settle(self, key: HandKey) -> Settle | None:
        """How a settled bet's chips move (``ui.motion``), or ``None``: draw it at rest."""
        return self.settles.get(key)

    def celebrations(self, now_ms: int) -> list[Celebration]:
        """The win celebrations running at ``now_ms``."""
        return [c for c in self.wins if c.tween.start_ms <= now_ms < c.tween.end_ms()]

    def busy(self, now_ms: int) -> bool:
        """Whether anything still moves at ``now_ms`` (the loop draws at 60 fps while true)."""
        ends = [t.end_ms() for t in self.cards.values()] + [t.end_ms() for t in self.flips.values()]
        ends += [m.end_ms() for m in self.settles.values()] + [c.tween.end_ms() for c in self.wins]
        ends.append(self.pulse_until_ms)
        return any(e > now_ms for e in ends)

    def _prune(self, now_ms: int) -> None:
        self.cards = {k: t for k, t in self.cards.items() if t.end_ms() > now_ms}
        self.flips = {k: t for k, t in self.flips.items() if t.end_ms() > now_ms}
        self.wins = [c for c in self.wins if c.tween.end_ms() > now_ms]


def _deal_order(key: CardKey) -> tuple[int, ...]:
    """Cards in the order they leave the shoe: by index, player spots before the dealer."""
    if key[0] == "d":
        return (int(key[1]), 1, 0, 0, 0)  # type: ignore[call-overload]
    _, st, sp, h, i = key
    return (int(i), 0, int(st), int(sp), int(h))  # type: ignore[call-overload]


def _hand(s: Snapshot, key: HandKey) -> HandView | None:
    st, sp, h = key
    for stv in s.stations:
        for spv in stv.spots:
            if stv.station == st and spv.spot == sp and 0 <= h < len(spv.hands):
                return spv.hands[h]
    return None

"""Motion as a pure function of time: snapshot diffs and cues become tweens.

Owns: which cards slide from the shoe, which hole card flips, which chips fly
on a payout, and which sounds those moments make. Time is always passed in
(``now_ms``, a monotonic millisecond clock owned by the caller); nothing here
reads a clock. Animation never holds the game back: the renderer always draws
the latest snapshot, and a tween only moves where an item is drawn while it
runs. Imports only ``cabinet.protocol.snapshot``/``cabinet.protocol.ipc`` from the engine side.
"""

from __future__ import annotations

from dataclasses import dataclass

from cabinet.protocol.ipc import Cue
from cabinet.protocol.snapshot import Snapshot

#: ``("d", index)`` for a dealer card, ``("p", station, spot, hand, index)`` for a player card.
CardKey = tuple[object, ...]

SLIDE_MS = 280
STAGGER_MS = 120
FLIP_MS = 340
CHIP_MS = 560
#: more new cards than this in one snapshot (a reconnect, a resume) are not animated.
MAX_NEW_CARDS = 8


@dataclass(frozen=True, slots=True)
class Tween:
    """A span of time: ``start_ms`` (may be in the future) lasting ``duration_ms``."""

    start_ms: int
    duration_ms: int

    def progress(self, now_ms: int) -> float:
        """Linear progress: < 0 before the start, 0-1 while running, 1 after."""
        if now_ms < self.start_ms:
            return -1.0
        return min(1.0, (now_ms - self.start_ms) / max(1, self.duration_ms))

    def end_ms(self) -> int:
        return self.start_ms + self.duration_ms


@dataclass(frozen=True, slots=True)
class ChipFlight:
    """Chips moving between the dealer's tray and a spot on settlement.

    Attributes:
        station, spot, hand: the hand settled (1-based station and spot, 0-based hand).
        amount_minor: value of the chips in flight.
        to_dealer: True when a lost stake is collected; False for a payout.
    """

    station: int
    spot: int
    hand: int
    amount_minor: int
    to_dealer: bool
    tween: Tween


def ease_out(p: float) -> float:
    """Cubic ease-out of a 0-1 progress."""
    p = max(0.0, min(1.0, p))
    return 1 - (1 - p) ** 3


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


def _outcomes(s: Snapshot) -> dict[tuple[int, int, int], tuple[str | None, int, int | None]]:
    return {(st.station, sp.spot, h): (hand.outcome, hand.stake_minor, hand.returned_minor)
            for st in s.stations for sp in st.spots for h, hand in enumerate(sp.hands)}


class Animator:
    """Tweens derived from consecutive snapshots and from cues. UI thread only."""

    def __init__(self) -> None:
        self.cards: dict[CardKey, Tween] = {}
        self.flips: dict[CardKey, Tween] = {}
        self.flights: list[ChipFlight] = []
        self.pulse_until_ms = 0

    def clear(self) -> None:
        """Drop every tween (e.g. after a reconnect)."""
        self.cards.clear()
        self.flips.clear()
        self.flights.clear()

    def on_snapshot(self, old: Snapshot | None, new: Snapshot, now_ms: int) -> list[str]:
        """Start the tweens for what changed from ``old`` to ``new``.

        Args:
            old: the snapshot drawn so far, or ``None`` (first one: nothing animates).
            new: the snapshot just received.
            now_ms: the caller's monotonic clock, in ms.

        Returns:
            names of sounds to play now (``card``, ``chip``, ``win``, ``blackjack``).
        """
        self._prune(now_ms)
        if old is None or new.seq <= old.seq or new.mode in ("attract", "maintenance"):
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
            start = max(now_ms, max((t.end_ms() - SLIDE_MS + STAGGER_MS for t in self.cards.values()),
                                    default=now_ms))
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
        # settlements
        was = _outcomes(old)
        for key, (outcome, stake, returned) in _outcomes(new).items():
            if outcome is None or was.get(key, (None, 0, None))[0] is not None:
                continue
            st, sp, h = key
            if outcome in ("win", "blackjack") and returned is not None and returned > stake:
                self.flights.append(ChipFlight(st, sp, h, returned - stake, False, Tween(now_ms, CHIP_MS)))
                sounds.append("blackjack" if outcome == "blackjack" else "win")
            elif outcome in ("lose", "bust") and stake > 0:
                self.flights.append(ChipFlight(st, sp, h, stake, True, Tween(now_ms, CHIP_MS)))
        return list(dict.fromkeys(sounds))

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

    def chip_flights(self, now_ms: int) -> list[tuple[ChipFlight, float]]:
        """Chip flights in progress with their eased progress."""
        return [(f, ease_out(f.tween.progress(now_ms))) for f in self.flights
                if f.tween.start_ms <= now_ms < f.tween.end_ms()]

    def busy(self, now_ms: int) -> bool:
        """Whether anything still moves at ``now_ms`` (the loop draws at 60 fps while true)."""
        ends = [t.end_ms() for t in self.cards.values()] + [t.end_ms() for t in self.flips.values()]
        ends += [f.tween.end_ms() for f in self.flights]
        ends.append(self.pulse_until_ms)
        return any(e > now_ms for e in ends)

    def _prune(self, now_ms: int) -> None:
        self.cards = {k: t for k, t in self.cards.items() if t.end_ms() > now_ms}
        self.flips = {k: t for k, t in self.flips.items() if t.end_ms() > now_ms}
        self.flights = [f for f in self.flights if f.tween.end_ms() > now_ms]


def _deal_order(key: CardKey) -> tuple[int, ...]:
    """Cards in the order they leave the shoe: by index, player spots before the dealer."""
    if key[0] == "d":
        return (int(key[1]), 1, 0, 0, 0)  # type: ignore[call-overload]
    _, st, sp, h, i = key
    return (int(i), 0, int(st), int(sp), int(h))  # type: ignore[call-overload]

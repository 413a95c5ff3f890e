"""The round: one deal of blackjack from bets to settlement, as a pure state machine.

Owns: ``Round``, ``SeatBets``, ``Prompt``, ``Phase`` (its ``player_view()`` is typed in
``cabinet.game.view``). Feed it decisions, get
events back; ask it which decisions are legal now. No clock, no randomness
(the shoe is handed in), no I/O, no logging (STYLE.md 5.1). Every rule comes
from a ``RuleSet`` field; the flow is RULES.md "Dealing order and the
dealer's second card":

1. the deal (one card per spot in play order, the dealer's up card, the
   second card per spot, the hole card where ``dealer_hole_card``);
2. insurance offers, spot by spot, when the up card is an Ace;
3. the blackjack check where the up card calls for one;
4. each hand played in order (hit, stand, double, split), with automatic
   stands (blackjack, 21, split Aces, double, card limit);
5. the dealer completes the hand while any player hand is undecided;
6. settlement in integer minor units.

A round saves to a plain dict and restores exactly (``to_dict`` /
``from_dict``); the cabinet journals it after every decision.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, format_cards, parse_card
from .errors import BetError, CardError, IllegalDecision, RuleSetError, ShoeExhausted, StateError
from .events import (
    DealerCardDealt,
    DealerCardRevealed,
    DealerChecked,
    DealerStood,
    Decision,
    Event,
    HandBusted,
    HandDoubled,
    HandSettled,
    HandSplit,
    HandStood,
    InsuranceDeclined,
    InsuranceOffered,
    InsuranceSettled,
    InsuranceTaken,
    Outcome,
    PlayerCardDealt,
    RoundEnded,
)
from .hand import describe_total, hand_total, is_natural, is_pair
from .rules import RuleSet
from .shoe import Shoe
from .view import PlayerView, VisibleDealer, VisibleHand, VisiblePrompt, VisibleSpot

STATE_VERSION = 1


class Phase(enum.Enum):
    """Where the round stands. Only these phases persist between calls."""

    NEW = "new"  # bets taken, nothing dealt: call ``start()``
    INSURANCE = "insurance"  # waiting for an insurance answer
    PLAYER = "player"  # waiting for a play decision
    DONE = "done"  # every bet settled
    ERROR = "error"  # the shoe ran out mid-round: void it


#: Decisions each waiting phase can take (STYLE.md 5.5: the machine as a table).
ACCEPTS: dict[Phase, frozenset[Decision]] = {
    Phase.NEW: frozenset(),
    Phase.INSURANCE: frozenset({Decision.INSURE, Decision.DECLINE}),
    Phase.PLAYER: frozenset({Decision.HIT, Decision.STAND, Decision.DOUBLE, Decision.SPLIT}),
    Phase.DONE: frozenset(),
    Phase.ERROR: frozenset(),
}

# The members as module globals: ``Phase.PLAYER`` is a look-up through the enum's
# metaclass, some 0.1 µs, and a round tests phases and outcomes some 20 times
# (the simulator's speed). The same objects: ``_PLAYER is Phase.PLAYER``.
_NEW, _INSURANCE, _PLAYER, _DONE, _ERROR = (Phase.NEW, Phase.INSURANCE, Phase.PLAYER, Phase.DONE, Phase.ERROR)
_BLACKJACK, _WIN, _PUSH, _LOSE, _BUST = (Outcome.BLACKJACK, Outcome.WIN, Outcome.PUSH, Outcome.LOSE, Outcome.BUST)


@dataclass(frozen=True, slots=True)
class SeatBets:
    """A seat's stake in a round.

    Attributes:
        seat: seat number, 1-3.
        bets_minor: initial bet per betting spot, in spot order; 0 leaves a
            spot out of play.
        available_minor: credits the seat holds beyond these bets, which
            doubles, splits and insurance may use (RULES.md: "offered only when
            the station's credits cover the extra stake"); ``None`` for
            unlimited (replay).
    """

    seat: int
    bets_minor: tuple[int, ...]
    available_minor: int | None = None


@dataclass(slots=True)
class Prompt:
    """The question the round is waiting on (a value: nothing mutates it; not
    ``frozen`` for the same speed reason as the events).

    Attributes:
        kind: ``"insurance"`` or ``"play"``.
        seat, spot, hand: who is asked (1-based; ``hand`` is 1 for insurance).
        legal: the decisions that are legal now.
    """

    kind: str
    seat: int
    spot: int
    hand: int
    legal: frozenset[Decision]

    @property
    def text(self) -> str:
        """In words, as SCENARIOS.md ``prompts``: ``"insurance seat 1 spot 1"``."""
        if self.kind == "insurance":
            return f"insurance seat {self.seat} spot {self.spot}"
        return f"play seat {self.seat} spot {self.spot} hand {self.hand}"


@dataclass(slots=True)
class Hand:
    """One player hand. ``returned_minor`` is ``None`` until it is settled."""

    cards: list[Card]
    stake_minor: int
    from_split: bool = False
    doubled: bool = False
    done: bool = False
    outcome: Outcome | None = None
    returned_minor: int | None = None
    #: A natural on an initial (not split) hand (RULES.md "Blackjack"); set when
    #: the deal completes the hand (a natural is fixed from then on).
    blackjack: bool = False

    @property
    def total(self) -> int:
        return hand_total(self.cards)[0]

    @property
    def settled(self) -> bool:
        return self.outcome is not None


@dataclass(slots=True)
class Spot:
    """A betting spot: its initial bet, its hands (two after a split) and insurance.

    ``insurance`` is ``none``, ``offered``, ``taken`` or ``declined``.
    """

    seat: int
    spot: int
    bet_minor: int
    hands: list[Hand] = field(default_factory=list)
    splits: int = 0
    insurance: str = "none"
    insurance_stake_minor: int = 0
    insurance_returned_minor: int | None = None


def _payout(outcome: Outcome, stake_minor: int) -> int:
    """What goes back for a settled hand, stake included (RULES.md: BJ 3:2, win 1:1)."""
    if outcome is _BLACKJACK:
        return stake_minor + stake_minor * 3 // 2
    if outcome is _WIN:
        return 2 * stake_minor
    if outcome is _PUSH:
        return stake_minor
    return 0


class Round:
    """One round of blackjack for 1-3 seats of 1-3 spots.

    Args:
        rules: the variant's ``RuleSet``.
        seats: one ``SeatBets`` per seat in play, any order (played by seat
            number).
        shoe: cards in the order they will be dealt; the round advances it.
        record: ``False`` for a round nobody journals or shows (the simulator):
            ``start`` and ``decide`` then return no events (an empty list) and
            ``history`` stays empty; every card, decision, legality and amount
            is exactly as with ``True`` (the simulator's speed).

    Raises:
        BetError: a bet outside the table limits or off the bet step, too many
            seats or spots, a seat without a bet.

    Use: ``events = round.start()``; then while ``round.prompt`` is not None,
    ``events += round.decide(...)``. ``legal_decisions()`` tells what may be
    answered now.
    """

    __slots__ = (
        "rules",
        "shoe",
        "spots",
        "dealer_cards",
        "dealer_hidden",
        "phase",
        "_ins_queue",
        "_ins_pos",
        "_cursor",
        "_available",
        "history",
        "_prompt",
        "_record",
    )

    def __init__(self, rules: RuleSet, seats: Sequence[SeatBets], shoe: Shoe, *, record: bool = True) -> None:
        self.rules = rules
        self.shoe = shoe
        self.spots: list[Spot] = []
        self.dealer_cards: list[Card] = []
        self.dealer_hidden = False
        self.phase = _NEW
        self._ins_queue: list[int] = []
        self._ins_pos = 0
        self._cursor = (0, 0)
        self._available: dict[int, int | None] = {}
        #: ``[prompt text, decision value]`` in the order answered (game recall).
        self.history: list[tuple[str, str]] = []
        self._prompt: Prompt | None = None
        self._record = record
        self._take_bets(seats)

    # -- bets ---------------------------------------------------------------

    def _take_bets(self, seats: Sequence[SeatBets]) -> None:
        r = self.rules
        if not seats:
            raise BetError("no seat has a bet")
        if len(seats) > r.max_seats:
            raise BetError(f"{len(seats)} seats bet, but {r.name} seats {r.max_seats}")
        seen: set[int] = set()
        for sb in seats if len(seats) == 1 else sorted(seats, key=lambda s: s.seat):
            if not 1 <= sb.seat <= 3 or sb.seat in seen:
                raise BetError(f"seat {sb.seat}: seat numbers are 1-3, each once")
            seen.add(sb.seat)
            if len(sb.bets_minor) > r.max_spots_per_seat:
                raise BetError(
                    f"seat {sb.seat}: {len(sb.bets_minor)} spots, but {r.name} has {r.max_spots_per_seat} per seat"
                )
            if not any(sb.bets_minor):
                raise BetError(f"seat {sb.seat}: no bet on any spot")
            for n, bet in enumerate(sb.bets_minor, 1):
                if bet == 0:
                    continue
                if not isinstance(bet, int) or isinstance(bet, bool):
                    raise BetError(f"seat {sb.seat} spot {n}: bet {bet!r} is not whole minor units")
                if not r.min_bet_minor <= bet <= r.max_bet_minor:
                    raise BetError(
                        f"seat {sb.seat} spot {n}: bet {bet} is outside the table limits "
                        f"{r.min_bet_minor}-{r.max_bet_minor}"
                    )
                if bet % r.bet_step_minor:
                    raise BetError(
                        f"seat {sb.seat} spot {n}: bet {bet} is not a multiple of the bet step {r.bet_step_minor}"
                    )
                self.spots.append(Spot(sb.seat, n, bet, [Hand([], bet)]))
            if sb.available_minor is not None and sb.available_minor < 0:
                raise BetError(f"seat {sb.seat}: available credits cannot be negative")
            self._available[sb.seat] = sb.available_minor

    # -- public queries -------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once every bet is settled."""
        return self.phase is _DONE

    @property
    def prompt(self) -> Prompt | None:
        """The open question, or ``None`` (not started, over, or in error)."""
        return self._prompt

    def _make_prompt(self) -> Prompt | None:
        if self.phase is _INSURANCE:
            s = self.spots[self._ins_queue[self._ins_pos]]
            return Prompt("insurance", s.seat, s.spot, 1, ACCEPTS[_INSURANCE])
        if self.phase is _PLAYER:
            si, hi = self._cursor
            s = self.spots[si]
            h = s.hands[hi]
            if len(h.cards) != 2:  # neither a double nor a split
                legal = _PLAY_SETS[False, False]
            else:
                legal = _PLAY_SETS[self._double_refusal(s, h, False) is None, self._split_refusal(s, h, False) is None]
            return Prompt("play", s.seat, s.spot, hi + 1, legal)
        return None

    def legal_decisions(self) -> frozenset[Decision]:
        """Decisions that ``decide`` accepts now; empty when nothing is asked."""
        if self.phase is _INSURANCE:
            return ACCEPTS[_INSURANCE]
        if self.phase is not _PLAYER:
            return frozenset()
        spot, hand = self._current()
        can_double = self._double_refusal(spot, hand, False) is None
        can_split = self._split_refusal(spot, hand, False) is None
        return _PLAY_SETS[can_double, can_split]

    def hands(self) -> Iterator[tuple[Spot, int, Hand]]:
        """Every ``(spot, hand number from 1, hand)`` in play order."""
        for s in self.spots:
            for i, h in enumerate(s.hands, 1):
                yield s, i, h

    # -- starting ---------------------------------------------------------------

    def start(self) -> list[Event]:
        """Deal the round (RULES.md "Dealing order") and play up to the first question.

        Returns:
            The events of the deal and of everything automatic after it.

        Raises:
            IllegalDecision: the round was already started.
            ShoeExhausted: the shoe ran out (the round is then in ``ERROR``).
        """
        if self.phase is not _NEW:
            raise IllegalDecision("deal: the round has already been dealt")
        ev: list[Event] | None = [] if self._record else None
        try:
            self._deal(ev)
        except ShoeExhausted:
            self.phase = _ERROR
            self._prompt = None
            raise
        self._prompt = self._make_prompt()
        return [] if ev is None else ev

    def _deal(self, ev: list[Event] | None) -> None:
        draw = self.shoe.draw
        for s in self.spots:
            c = draw()
            s.hands[0].cards.append(c)
            if ev is not None:
                ev.append(PlayerCardDealt(s.seat, s.spot, 1, c))
        up = draw()
        self.dealer_cards.append(up)
        if ev is not None:
            ev.append(DealerCardDealt(up, True))
        for s in self.spots:
            c = draw()
            s.hands[0].cards.append(c)
            if ev is not None:
                ev.append(PlayerCardDealt(s.seat, s.spot, 1, c))
        if self.rules.dealer_hole_card:
            hole = draw()
            self.dealer_cards.append(hole)
            self.dealer_hidden = True
            if ev is not None:
                ev.append(DealerCardDealt(hole, False))
        for s in self.spots:
            h = s.hands[0]
            if is_natural(h.cards):
                h.blackjack = h.done = True
                if ev is not None:
                    ev.append(HandStood(s.seat, s.spot, 1, 21, "blackjack"))
        if self.rules.insurance and up.value == 1:
            # RULES.md: offered to each initial hand that is not a blackjack,
            # when the seat's credits cover half the bet.
            self._ins_queue = [
                i
                for i, s in enumerate(self.spots)
                if not s.hands[0].blackjack and self._affords(s.seat, s.bet_minor // 2)
            ]
        self.phase = _INSURANCE
        self._advance(ev)

    # -- deciding ---------------------------------------------------------------

    def decide(self, decision: Decision | str) -> list[Event]:
        """Answer the open question.

        Args:
            decision: a ``Decision`` or its value (``"hit"``, ``"insure"``...).

        Returns:
            The events that follow, up to the next question or the end.

        Raises:
            IllegalDecision: the decision is unknown or not legal now; the
                message starts with the decision and says why. Nothing changes.
            ShoeExhausted: the shoe ran out (the round is then in ``ERROR``).
        """
        d = decision if isinstance(decision, Decision) else self._parse_decision(decision)
        prompt = self._prompt
        if prompt is None or d not in prompt.legal:
            self._refuse_if_illegal(d)
        assert prompt is not None
        ev: list[Event] | None = None
        if self._record:
            ev = []
            self.history.append((prompt.text, _VALUES[d]))
        try:
            _HANDLERS[d](self, ev)
        except ShoeExhausted:
            self.phase = _ERROR
            self._prompt = None
            raise
        self._prompt = self._make_prompt()
        return [] if ev is None else ev

    @staticmethod
    def _parse_decision(decision: Decision | str) -> Decision:
        if isinstance(decision, Decision):
            return decision
        try:
            return Decision(str(decision).strip().lower())
        except ValueError:
            names = ", ".join(d.value for d in Decision)
            shown = decision if isinstance(decision, str) else repr(decision)
            raise IllegalDecision(f"{shown}: not a decision; one of {names}") from None

    def _refuse_if_illegal(self, d: Decision) -> None:
        if self._prompt is not None and d in self._prompt.legal:
            return  # the cached answer: legal
        name = d.value
        if self.phase is _NEW:
            raise IllegalDecision(f"{name}: the round has not been dealt yet")
        if self.phase is _DONE:
            raise IllegalDecision(f"{name}: the round is over")
        if self.phase is _ERROR:
            raise IllegalDecision(f"{name}: the round stopped on a fault and must be voided")
        prompt = self.prompt
        assert prompt is not None
        if d not in ACCEPTS[self.phase]:
            if self.phase is _INSURANCE:
                raise IllegalDecision(
                    f"{name}: insurance is being offered to seat {prompt.seat} spot "
                    f"{prompt.spot}; answer insure or decline first"
                )
            raise IllegalDecision(
                f"{name}: no insurance offer is open; seat {prompt.seat} spot {prompt.spot} "
                f"hand {prompt.hand} is to play"
            )
        if self.phase is _PLAYER:
            spot, hand = self._current()
            why = None
            if d is Decision.DOUBLE:
                why = self._double_refusal(spot, hand, True)
            elif d is Decision.SPLIT:
                why = self._split_refusal(spot, hand, True)
            if why is not None:
                raise IllegalDecision(f"{name}: {why}")

    def _where(self, spot: Spot, hand_no: int | None = None) -> str:
        w = f"seat {spot.seat} spot {spot.spot}"
        if hand_no is not None and len(spot.hands) > 1:
            w += f" hand {hand_no}"
        return w

    def _double_refusal(self, spot: Spot, hand: Hand, explain: bool) -> str | None:
        """Why a double is refused now (``None``: it is legal). ``explain`` false
        returns ``"no"`` instead of building the message (the hot path)."""
        r = self.rules
        if not explain:
            # The hot path (every play prompt): the same tests, in the same
            # order, without building a message.
            cards = hand.cards
            if len(cards) != 2 or (
                hand.from_split and (not r.double_after_split or (cards[0].is_ace and r.split_aces_one_card))
            ):
                return "no"
            if r.double_totals and hand.total not in r.double_totals:
                return "no"
            return None if self._affords(spot.seat, hand.stake_minor) else "no"
        where = self._where(spot, self._cursor[1] + 1)
        if len(hand.cards) != 2:
            return f"{where} holds {len(hand.cards)} cards; a double is only on the first two"
        if hand.from_split and not r.double_after_split:
            return f"{where} comes from a split; {r.name} does not double after a split"
        if hand.from_split and hand.cards[0].is_ace and r.split_aces_one_card:
            return f"{where} is a split Ace, which takes one card only"
        total = hand.total
        if r.double_totals and total not in r.double_totals:
            allowed = ", ".join(str(t) for t in sorted(r.double_totals))
            return f"{where} totals {total}; {r.name} doubles only on {allowed}"
        if not self._affords(spot.seat, hand.stake_minor):
            return f"seat {spot.seat} has not enough credits to double {hand.stake_minor}"
        return None

    def _split_refusal(self, spot: Spot, hand: Hand, explain: bool) -> str | None:
        """Why a split is refused now (``None``: it is legal); see ``_double_refusal``."""
        r = self.rules
        if not explain:  # the hot path, as in _double_refusal
            if spot.splits >= r.max_splits_per_spot or not is_pair(hand.cards, r.split_by):
                return "no"
            return None if self._affords(spot.seat, spot.bet_minor) else "no"
        where = self._where(spot)
        if spot.splits >= r.max_splits_per_spot:
            if r.max_splits_per_spot == 0:
                return f"{r.name} does not split"
            return f"{where} has already split; {r.name} splits once (no re-split)"
        if len(hand.cards) != 2:
            return f"{where} holds {len(hand.cards)} cards, not a pair"
        if not is_pair(hand.cards, r.split_by):
            held = format_cards(hand.cards)
            if r.split_by == "rank" and is_pair(hand.cards, "value"):
                return f"{where} holds {held}; {r.name} splits only two cards of the same rank"
            return f"{where} holds {held}, not a pair"
        if not self._affords(spot.seat, spot.bet_minor):
            return f"seat {spot.seat} has not enough credits to split {spot.bet_minor}"
        return None

    def _affords(self, seat: int, amount_minor: int) -> bool:
        avail = self._available[seat]
        return avail is None or avail >= amount_minor

    def _spend(self, seat: int, amount_minor: int) -> None:
        avail = self._available[seat]
        if avail is not None:
            self._available[seat] = avail - amount_minor

    def _current(self) -> tuple[Spot, Hand]:
        si, hi = self._cursor
        spot = self.spots[si]
        return spot, spot.hands[hi]

    # -- decision handlers (pure mutations, legality already checked) -------------

    def _insure(self, ev: list[Event] | None) -> None:
        spot = self.spots[self._ins_queue[self._ins_pos]]
        stake = spot.bet_minor // 2
        spot.insurance = "taken"
        spot.insurance_stake_minor = stake
        self._spend(spot.seat, stake)
        if ev is not None:
            ev.append(InsuranceTaken(spot.seat, spot.spot, stake))
        self._ins_pos += 1
        self._advance(ev)

    def _decline(self, ev: list[Event] | None) -> None:
        spot = self.spots[self._ins_queue[self._ins_pos]]
        spot.insurance = "declined"
        if ev is not None:
            ev.append(InsuranceDeclined(spot.seat, spot.spot))
        self._ins_pos += 1
        self._advance(ev)

    def _hit(self, ev: list[Event] | None) -> None:
        spot, hand = self._current()
        self._give(spot, hand, ev)
        self._advance(ev)

    def _stand(self, ev: list[Event] | None) -> None:
        spot, hand = self._current()
        hand.done = True
        if ev is not None:
            ev.append(HandStood(spot.seat, spot.spot, self._cursor[1] + 1, hand.total, "player"))
        self._advance(ev)

    def _double(self, ev: list[Event] | None) -> None:
        spot, hand = self._current()
        extra = hand.stake_minor
        self._spend(spot.seat, extra)
        hand.stake_minor += extra
        hand.doubled = True
        if ev is not None:
            ev.append(HandDoubled(spot.seat, spot.spot, self._cursor[1] + 1, extra))
        self._give(spot, hand, ev)
        if not hand.done:
            hand.done = True
            if ev is not None:
                ev.append(HandStood(spot.seat, spot.spot, self._cursor[1] + 1, hand.total, "double"))
        self._advance(ev)

    def _split(self, ev: list[Event] | None) -> None:
        spot, hand = self._current()
        hi = self._cursor[1]
        first, second = hand.cards
        spot.splits += 1
        self._spend(spot.seat, spot.bet_minor)
        a = Hand([first], hand.stake_minor, from_split=True)
        b = Hand([second], spot.bet_minor, from_split=True)
        spot.hands[hi : hi + 1] = [a, b]
        if ev is not None:
            ev.append(HandSplit(spot.seat, spot.spot, spot.bet_minor))
        # RULES.md: the first new hand gets its second card, then the second.
        for n, h in ((hi + 1, a), (hi + 2, b)):
            c = self.shoe.draw()
            h.cards.append(c)
            if ev is not None:
                ev.append(PlayerCardDealt(spot.seat, spot.spot, n, c))
        self._advance(ev)

    def _give(self, spot: Spot, hand: Hand, ev: list[Event] | None) -> None:
        """Deal one card to the current hand; a bust is lost at once."""
        c = self.shoe.draw()
        hand.cards.append(c)
        n = self._cursor[1] + 1
        if ev is not None:
            ev.append(PlayerCardDealt(spot.seat, spot.spot, n, c))
        total = hand_total(hand.cards)[0]
        if total > 21:
            hand.done = True
            if ev is not None:
                ev.append(HandBusted(spot.seat, spot.spot, n, total))
            self._settle_hand(spot, n, hand, _BUST, ev)

    # -- the automatic parts ---------------------------------------------------------

    def _advance(self, ev: list[Event] | None) -> None:
        """Run everything automatic until a question is open or the round is over."""
        if self.phase is _INSURANCE:
            while self._ins_pos < len(self._ins_queue):
                s = self.spots[self._ins_queue[self._ins_pos]]
                if s.insurance == "none":
                    if not self._affords(s.seat, s.bet_minor // 2):
                        # RULES.md: offered only while the seat's credits cover it;
                        # insurance taken on an earlier spot may have used them up.
                        self._ins_pos += 1
                        continue
                    s.insurance = "offered"
                    if ev is not None:
                        ev.append(InsuranceOffered(s.seat, s.spot, s.bet_minor // 2))
                return
            if self._check(ev):
                return
            self.phase = _PLAYER
            self._cursor = (0, 0)
        if self.phase is _PLAYER:
            if self._next_open_hand(ev):
                return
            self._dealer_plays(ev)

    def _next_open_hand(self, ev: list[Event] | None) -> bool:
        """Move the cursor to the next hand needing a decision; False when none is left."""
        r = self.rules
        si, hi = self._cursor
        while si < len(self.spots):
            spot = self.spots[si]
            while hi < len(spot.hands):
                hand = spot.hands[hi]
                if not hand.done:
                    reason = None
                    total = hand_total(hand.cards)[0]
                    if total == 21:
                        reason = "21"
                    elif r.max_hand_cards is not None and len(hand.cards) >= r.max_hand_cards:
                        reason = "max-cards"
                    elif hand.from_split and r.split_aces_one_card and hand.cards[0].is_ace:
                        reason = "split-aces"
                    if reason is None:
                        self._cursor = (si, hi)
                        return True
                    hand.done = True
                    if ev is not None:
                        ev.append(HandStood(spot.seat, spot.spot, hi + 1, total, reason))
                hi += 1
            si, hi = si + 1, 0
        self._cursor = (len(self.spots), 0)
        return False

    def _check(self, ev: list[Event] | None) -> bool:
        """The blackjack check (RULES.md "Blackjack check"). True if the round ended."""
        up = self.dealer_cards[0]
        if self.rules.peeks_on(up.value):
            if len(self.dealer_cards) == 1:
                c = self.shoe.draw()
                self.dealer_cards.append(c)
                self.dealer_hidden = True
                if ev is not None:
                    ev.append(DealerCardDealt(c, False))
            blackjack = is_natural(self.dealer_cards)
            if ev is not None:
                ev.append(DealerChecked(blackjack))
            if blackjack:
                self._reveal(ev)
                self._settle_insurance(True, ev)
                for spot, n, hand in self.hands():
                    outcome = _PUSH if hand.blackjack else _LOSE
                    self._settle_hand(spot, n, hand, outcome, ev)
                self._end(ev)
                return True
            self._settle_insurance(False, ev)
            self._settle_blackjacks(ev)
        elif up.value not in (1, 10):
            self._settle_blackjacks(ev)
        return False

    def _settle_blackjacks(self, ev: list[Event] | None) -> None:
        """Pay player naturals 3:2 now: the dealer cannot have blackjack any more. The
        payout is on the station's credit meter at once, so it covers the seat's later
        doubles and splits (RULES.md "offered only when the station's credits cover the
        extra stake")."""
        for spot in self.spots:  # as ``hands()``, without the generator
            for n, hand in enumerate(spot.hands, 1):
                if hand.blackjack and hand.outcome is None:
                    self._settle_hand(spot, n, hand, _BLACKJACK, ev)
                    self._spend(spot.seat, -(hand.returned_minor or 0))

    def _settle_insurance(self, dealer_blackjack: bool, ev: list[Event] | None) -> None:
        for s in self.spots:
            if s.insurance == "taken" and s.insurance_returned_minor is None:
                ret = 3 * s.insurance_stake_minor if dealer_blackjack else 0
                s.insurance_returned_minor = ret
                if ev is not None:
                    ev.append(InsuranceSettled(s.seat, s.spot, s.insurance_stake_minor, ret))

    def _reveal(self, ev: list[Event] | None) -> None:
        if self.dealer_hidden:
            self.dealer_hidden = False
            if ev is not None:
                ev.append(DealerCardRevealed(self.dealer_cards[1]))

    def _dealer_draw(self, ev: list[Event] | None) -> None:
        c = self.shoe.draw()
        self.dealer_cards.append(c)
        if ev is not None:
            ev.append(DealerCardDealt(c, True))

    def _dealer_plays(self, ev: list[Event] | None) -> None:
        """RULES.md "When the dealer draws", then settle what is left."""
        undecided = only_naturals = False
        for s in self.spots:
            for h in s.hands:
                if h.outcome is None:
                    if not undecided:
                        undecided = only_naturals = True
                    if not h.blackjack:
                        only_naturals = False
        self._reveal(ev)
        cards = self.dealer_cards
        d_total = 0
        if undecided:
            if len(cards) == 1:
                self._dealer_draw(ev)
            if only_naturals:
                d_total = hand_total(cards)[0]
            else:
                hits_soft_17 = self.rules.dealer_hits_soft_17
                while True:
                    d_total, soft = hand_total(cards)
                    if d_total < 17 or (d_total == 17 and soft and hits_soft_17):
                        self._dealer_draw(ev)
                    else:
                        break
            if ev is not None:
                ev.append(DealerStood(d_total, d_total > 21))
        dealer_bj = is_natural(cards)
        self._settle_insurance(dealer_bj, ev)
        for spot in self.spots:
            for n, hand in enumerate(spot.hands, 1):
                if hand.outcome is not None:
                    continue
                if hand.blackjack:
                    outcome = _PUSH if dealer_bj else _BLACKJACK
                elif dealer_bj:
                    outcome = _LOSE
                else:
                    total = hand_total(hand.cards)[0]
                    if d_total > 21 or total > d_total:
                        outcome = _WIN
                    elif total == d_total:
                        outcome = _PUSH
                    else:
                        outcome = _LOSE
                self._settle_hand(spot, n, hand, outcome, ev)
        self._end(ev)

    def _settle_hand(self, spot: Spot, n: int, hand: Hand, outcome: Outcome, ev: list[Event] | None) -> None:
        hand.done = True
        hand.outcome = outcome
        hand.returned_minor = _payout(outcome, hand.stake_minor)
        if ev is not None:
            ev.append(HandSettled(spot.seat, spot.spot, n, outcome, hand.stake_minor, hand.returned_minor))

    def _end(self, ev: list[Event] | None) -> None:
        self.phase = _DONE
        self._cursor = (len(self.spots), 0)
        if ev is not None:
            ev.append(RoundEnded(self.wagered_minor(), self.returned_minor()))

    # -- money ---------------------------------------------------------------------

    def wagered_minor(self, seat: int | None = None) -> int:
        """Everything staked so far (hands incl. doubles and splits, and insurance)."""
        total = 0
        for s in self.spots:
            if seat is None or s.seat == seat:
                total += s.insurance_stake_minor
                for h in s.hands:
                    total += h.stake_minor
        return total

    def returned_minor(self, seat: int | None = None) -> int:
        """Everything settled back so far, stakes included."""
        total = 0
        for s in self.spots:
            if seat is None or s.seat == seat:
                total += s.insurance_returned_minor or 0
                for h in s.hands:
                    total += h.returned_minor or 0
        return total

    def seats(self) -> list[int]:
        """Seat numbers in play, ascending."""
        return sorted(self._available)

    # -- views ----------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """The round's outcome in the SCENARIOS.md output shape (without ``prompts``).

        Complete once ``finished``; before that, unsettled amounts are ``None``.
        """
        dealer_total = hand_total(self.dealer_cards)[0] if self.dealer_cards else 0
        spots = []
        for s in self.spots:
            ins = None
            if s.insurance == "taken":
                ins = {"stake": s.insurance_stake_minor, "returned": s.insurance_returned_minor}
            spots.append(
                {
                    "seat": s.seat,
                    "spot": s.spot,
                    "insurance": ins,
                    "hands": [
                        {
                            "cards": [str(c) for c in h.cards],
                            "stake": h.stake_minor,
                            "total": h.total,
                            "blackjack": h.blackjack,
                            "doubled": h.doubled,
                            "from_split": h.from_split,
                            "outcome": h.outcome.value if h.outcome else None,
                            "returned": h.returned_minor,
                        }
                        for h in s.hands
                    ],
                }
            )
        seats = []
        for seat in self.seats():
            w, r = self.wagered_minor(seat), self.returned_minor(seat)
            seats.append({"seat": seat, "wagered": w, "returned": r, "net": r - w})
        return {
            "variant": self.rules.variant,
            "dealer": {
                "cards": [str(c) for c in self.dealer_cards],
                "total": dealer_total,
                "blackjack": is_natural(self.dealer_cards),
            },
            "spots": spots,
            "seats": seats,
        }

    def player_view(self) -> PlayerView:
        """What a player may see now: no undealt card, no face-down card.

        Returns:
            a fresh ``PlayerView`` (``cabinet.game.view``); a hidden dealer card
            appears only as a count in ``dealer.face_down``.
        """
        visible = self.dealer_cards[:1] if self.dealer_hidden else self.dealer_cards
        prompt = self.prompt
        return PlayerView(
            variant=self.rules.variant,
            phase=self.phase.value,
            dealer=VisibleDealer(
                cards=[str(c) for c in visible],
                face_down=len(self.dealer_cards) - len(visible),
                total=hand_total(visible)[0] if visible else 0,
                total_text=describe_total(visible) if visible else "",
                blackjack=not self.dealer_hidden and is_natural(self.dealer_cards),
            ),
            spots=[
                VisibleSpot(
                    seat=s.seat,
                    spot=s.spot,
                    bet_minor=s.bet_minor,
                    insurance=s.insurance,
                    insurance_stake_minor=s.insurance_stake_minor,
                    insurance_returned_minor=s.insurance_returned_minor,
                    hands=[
                        VisibleHand(
                            cards=[str(c) for c in h.cards],
                            stake_minor=h.stake_minor,
                            total=h.total,
                            total_text=describe_total(h.cards),
                            blackjack=h.blackjack,
                            doubled=h.doubled,
                            from_split=h.from_split,
                            done=h.done,
                            outcome=h.outcome.value if h.outcome else None,
                            returned_minor=h.returned_minor,
                        )
                        for h in s.hands
                    ],
                )
                for s in self.spots
            ],
            prompt=None
            if prompt is None
            else VisiblePrompt(
                kind=prompt.kind,
                seat=prompt.seat,
                spot=prompt.spot,
                hand=prompt.hand,
                text=prompt.text,
                legal=sorted(d.value for d in prompt.legal),
            ),
        )

    # -- persistence ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every bit of state as plain JSON-able values; ``from_dict`` restores it."""
        return {
            "version": STATE_VERSION,
            "rules": self.rules.to_dict(),
            "shoe": self.shoe.to_dict(),
            "phase": self.phase.value,
            "dealer": {"cards": [str(c) for c in self.dealer_cards], "hidden": self.dealer_hidden},
            "spots": [
                {
                    "seat": s.seat,
                    "spot": s.spot,
                    "bet": s.bet_minor,
                    "splits": s.splits,
                    "insurance": s.insurance,
                    "insurance_stake": s.insurance_stake_minor,
                    "insurance_returned": s.insurance_returned_minor,
                    "hands": [
                        {
                            "cards": [str(c) for c in h.cards],
                            "stake": h.stake_minor,
                            "from_split": h.from_split,
                            "doubled": h.doubled,
                            "done": h.done,
                            "outcome": h.outcome.value if h.outcome else None,
                            "returned": h.returned_minor,
                        }
                        for h in s.hands
                    ],
                }
                for s in self.spots
            ],
            "insurance_queue": list(self._ins_queue),
            "insurance_pos": self._ins_pos,
            "cursor": list(self._cursor),
            "available": [[seat, v] for seat, v in sorted(self._available.items())],
            "history": [list(h) for h in self.history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Round:
        """Restore a round saved by ``to_dict``.

        Raises:
            StateError: the dict is malformed or from another version.
        """
        try:
            if data.get("version") != STATE_VERSION:
                raise StateError(f"round: version {data.get('version')!r}, expected {STATE_VERSION}")
            rnd = object.__new__(cls)  # not cls.__new__: mypyc (bench/build_compiled.py)
            rnd.rules = RuleSet.from_dict(data["rules"])
            rnd.shoe = Shoe.from_dict(data["shoe"])
            rnd.phase = Phase(data["phase"])
            rnd.dealer_cards = [parse_card(c) for c in data["dealer"]["cards"]]
            rnd.dealer_hidden = bool(data["dealer"]["hidden"])
            rnd.spots = []
            for s in data["spots"]:
                spot = Spot(
                    int(s["seat"]),
                    int(s["spot"]),
                    int(s["bet"]),
                    [],
                    int(s["splits"]),
                    str(s["insurance"]),
                    int(s["insurance_stake"]),
                    s["insurance_returned"],
                )
                for h in s["hands"]:
                    cards = [parse_card(c) for c in h["cards"]]
                    from_split = bool(h["from_split"])
                    spot.hands.append(
                        Hand(
                            cards,
                            int(h["stake"]),
                            from_split,
                            bool(h["doubled"]),
                            bool(h["done"]),
                            Outcome(h["outcome"]) if h["outcome"] else None,
                            h["returned"],
                            not from_split and is_natural(cards),
                        )
                    )
                rnd.spots.append(spot)
            rnd._ins_queue = [int(i) for i in data["insurance_queue"]]
            rnd._ins_pos = int(data["insurance_pos"])
            si, hi = data["cursor"]
            rnd._cursor = (int(si), int(hi))
            rnd._available = {int(k): (None if v is None else int(v)) for k, v in data["available"]}
            rnd.history = [(str(p), str(d)) for p, d in data["history"]]
            rnd._record = True  # a journaled round records
        except StateError:
            raise
        except (KeyError, TypeError, ValueError, CardError, RuleSetError) as e:
            raise StateError(f"round: malformed saved state ({type(e).__name__}: {e})") from None
        rnd._verify()
        return rnd

    def _verify(self) -> None:
        """Refuse a restored state whose pointers do not point at a question."""
        try:
            if self.phase is _INSURANCE:
                self.spots[self._ins_queue[self._ins_pos]]
            elif self.phase is _PLAYER:
                spot, hand = self._current()
                if hand.done:
                    raise StateError("round: the hand to play is already done")
        except IndexError:
            raise StateError("round: saved pointers are out of range") from None
        self._prompt = self._make_prompt()


_PLAY_SETS: dict[tuple[bool, bool], frozenset[Decision]] = {
    (dbl, spl): frozenset(
        {Decision.HIT, Decision.STAND} | ({Decision.DOUBLE} if dbl else set()) | ({Decision.SPLIT} if spl else set())
    )
    for dbl in (False, True)
    for spl in (False, True)
}

#: ``Decision.value`` without the enum descriptor (read on every decision).
_VALUES: dict[Decision, str] = {d: d.value for d in Decision}

_HANDLERS = {
    Decision.INSURE: Round._insure,
    Decision.DECLINE: Round._decline,
    Decision.HIT: Round._hit,
    Decision.STAND: Round._stand,
    Decision.DOUBLE: Round._double,
    Decision.SPLIT: Round._split,
}

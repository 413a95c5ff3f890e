"""The demo player: plays the cabinet through its simulated hardware, like a person.

Owns: ``DemoPlayer`` (and its ``RoundLog``, ``DemoResult``), used by ``cabinet run``
when there is no display (and by ``--demo``): it inserts a note into the bill
acceptor twin, bets (Bet+; on chip tables it touches chips and spots, with the
engine's token read from its token file as the display does), plays rounds by
basic strategy on the mock panel (Deal, Hit, Stand, Double, Split, Insure),
cashes out and reads the printed voucher back from the printer twin, then tours
the operator menu. Its links to the engine are ``cabinet.tools.table_client``,
its panel and key ``cabinet.tools.demo_panel``, its decisions
``cabinet.tools.demo_strategy`` (a ``cabinet.strategy.Strategy``: the exact one
of the variant once derived, the common chart until then).

Threads: everything runs on the caller's thread; every wait has a timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cabinet.protocol.money import fmt_money
from cabinet.protocol.snapshot import HandView, Snapshot, WireMode
from cabinet.strategy.strategy import Strategy
from cabinet.tools.demo_panel import DemoPanel, mode_is_not
from cabinet.tools.demo_strategy import DECISIONS, choose
from cabinet.tools.table_client import DemoError, SimControl, TableWatch

#: Any of these lit: the station can bet (its screen draws it and it has credits).
_BET_LAMPS = frozenset({"bet_up", "chip", "deal", "rebet"})
#: Seconds a player at a shared table waits for the table to take bets: another
#: station's round may be in play (alone it has no decision timer; its player's
#: screenshots in it take up to ``run_shots.SHOT_TIMEOUT_S``, 15 s, each).
OTHERS_ROUND_S = 60.0

# -- the player --------------------------------------------------------------------------------


@dataclass
class RoundLog:
    """One round as the demo saw it: its number, the dealer's cards and total text,
    each hand's ``(cards, total text, outcome)``, the buttons pressed, and the change
    of the credit meter over the round (minor units)."""

    number: int
    dealer: list[str]
    dealer_total: str
    hands: list[tuple[list[str], str, str | None]]  # cards, total text, outcome
    decisions: list[str]
    net_minor: int
    message: str = ""  # what the player's own console said at the end


@dataclass
class DemoResult:
    """What a demo did: its rounds, the money in (notes) and out (the voucher, minor
    units), the voucher's validation number and files, and the variant played."""

    rounds: list[RoundLog] = field(default_factory=list)
    inserted_minor: int = 0
    cashed_out_minor: int = 0
    validation_number: str = ""
    voucher_png: Path | None = None
    voucher_txt: Path | None = None
    variant: str = ""


class DemoPlayer(DemoPanel):
    """Plays ``rounds`` rounds and cashes out, through the simulated devices.

    Args:
        watch: a started ``TableWatch`` (the table as the player sees it).
        sim: the sim control link.
        rounds: rounds to play (fewer if the credits run out).
        note_minor: the note inserted first (must be a denomination the
            acceptor takes).
        bet_minor: the bet per round (rounded to what Bet+ reaches).
        variant: switch the game to this variant first (via the operator
            menu), or ``None`` to play whatever is set.
        strategy: a ``cabinet.strategy.Strategy``, a ``Future`` of one (followed
            once done), or ``None`` for the common chart (``demo_strategy``).
        shot: called with a name when the table is worth a screenshot
            (after it has settled ``settle_s`` seconds); ``None`` for none.
        grab: called with a pattern and a name to keep one of the UI's own
            mode-change screenshots (the printing overlay is too short-lived
            to wait for).
        say: progress output (``print`` by default).
        stop: set to abandon the demo between steps.
        settle_s: pause before a screenshot so animations have finished.
        station_no: the station played (1-3); on a multi-station table several
            players share one ``watch`` and ``sim``, each at its own station.
    """

    def __init__(
        self,
        watch: TableWatch,
        sim: SimControl,
        *,
        rounds: int = 5,
        note_minor: int = 10_000,
        bet_minor: int = 500,
        variant: str | None = None,
        strategy: Strategy | Future[Strategy] | None = None,
        shot: Callable[[str], Any] | None = None,
        grab: Callable[[str, str], Any] | None = None,
        say: Callable[[str], None] = print,
        stop: threading.Event | None = None,
        settle_s: float = 1.5,
        station_no: int = 1,
    ) -> None:
        super().__init__(watch, sim, shot=shot, say=say, stop=stop, settle_s=settle_s, station_no=station_no)
        self.rounds = rounds
        self.note_minor = note_minor
        self.bet_minor = bet_minor
        self.variant = variant
        self._strategy = strategy
        self.grab = grab or (lambda pattern, name: None)
        self.result = DemoResult()
        self._mid_shot = False
        self._shot_win = True

    def next_bet(self) -> int:
        """What Deal would stake now: the spots' bets (a settled round's BET meter still
        shows its stakes with doubles and splits; the spots hold the bet itself)."""
        return sum(sp.bet_minor for sp in self.station().spots)

    def strategy(self) -> Strategy | None:
        """The ``Strategy`` to follow now, or ``None`` for the common chart (also while a
        ``Future`` strategy is still being derived)."""
        s = self._strategy
        if isinstance(s, Future):
            if not s.done() or s.exception() is not None:
                return None
            self._strategy = s = s.result()
            self.say(f"demo: basic strategy for {s.variant} ready")
        return s

    # -- the script ---------------------------------------------------------------------

    def run(self, after_cash_out: Callable[[], None] | None = None) -> DemoResult:
        """The whole demo; returns what happened. ``after_cash_out`` runs between the
        cash-out and the menu tour (``cabinet run --tickets host``'s ticket tour).

        Raises:
            DemoError: the table got stuck (with what it waited for).
        """
        self.tidy_up()
        if self.variant and self.snap.variant != self.variant:
            self.switch_variant(self.variant)
        self.play_rounds()
        self.cash_out()
        if after_cash_out is not None:
            after_cash_out()
        self.maintenance_tour()
        return self.result

    def play_rounds(self) -> None:
        """Insert the note and play the rounds (the part every station's player does)."""
        self.result.variant = self.snap.variant
        self.say(f"demo: playing {self.snap.variant_name}")
        self.insert_note(self.note_minor)
        for n in range(1, self.rounds + 1):
            if self.station().credits_minor < self.snap.min_bet_minor:
                self.say("demo: out of credits")
                break
            self.play_round(n)

    def tidy_up(self) -> None:
        """Leave whatever state an earlier run left behind: maintenance, open doors,
        handpay, an unfinished round (played out by strategy)."""
        for _ in range(10):
            mode = self.snap.mode
            if mode == WireMode.MAINTENANCE:
                self.sim({"cmd": "key", "on": False})
            elif mode == WireMode.DOOR_OPEN:
                self.sim({"cmd": "door", "door": "main", "open": False})
            elif mode == WireMode.HANDPAY:
                self.say("demo: resetting a handpay left from an earlier run (operator key)")
                self.sim({"cmd": "key", "on": True})
                self.sim({"cmd": "key", "on": False})
            elif mode == WireMode.IN_ROUND:
                self.say("demo: finishing the round an earlier run left open")
                self.finish_round([])
                continue
            elif mode == WireMode.CASH_OUT:
                pass
            else:
                return
            self.watch.wait_for(mode_is_not(mode), 5.0, f"the table to leave {mode}")
        raise DemoError(f"the table stays in {self.snap.mode}")

    def insert_note(self, amount_minor: int) -> None:
        """Insert a note once the acceptor is enabled; wait for the credit (retries a
        note the acceptor returned: no credit means no money moved)."""
        for _ in range(100):
            reply = self.sim_station({"cmd": "bill", "line": "status"}).get("reply", "")
            if "inhibited=False" in reply:
                break
            if self.stop.wait(0.1):
                raise DemoError("stopped")
        before = self.station().credits_minor
        for attempt in range(3):
            self.say(f"demo: inserting a {fmt_money(amount_minor)} note into the bill acceptor")
            self.sim_station({"cmd": "note", "amount_minor": amount_minor})
            try:
                self.watch.wait_for(lambda s: self.station(s).credits_minor > before, 6.0, "the note's credit")
                self.result.inserted_minor += amount_minor
                return
            except DemoError:
                if attempt == 2:
                    raise
                self.say("demo: the note came back; inserting it again")

    def place_bet(self) -> None:
        """Bet+ until the bet reaches ``bet_minor``. Chip tables: a chip on spot 1, by the
        panel's chip and spot buttons when wired, else by touch (an intent, as the
        screen sends it)."""
        st = self.station()
        lamps = set(st.lamps)

        def staked() -> int:
            # a shared table shows a settled round's stakes on the spots until the next
            # bet: only a Deal that is lit means a bet is down
            if len(self.snap.stations) > 1 and "deal" not in self.station().lamps:
                return 0
            return self.next_bet()

        target = min(self.bet_minor, st.credits_minor, self.snap.max_bet_minor or self.bet_minor)
        if "bet_up" in lamps:
            for _ in range(50):
                if staked() >= target:
                    return
                if self.press("bet_up") is None:
                    return
        elif "chip" in lamps:
            if staked() >= target:
                return
            chip = max(
                (c for c in self.snap.chip_values_minor if c <= target), default=min(self.snap.chip_values_minor)
            )
            action = {100: "chip_1", 500: "chip_5", 2_500: "chip_25", 10_000: "chip_100"}.get(chip, "chip_1")
            try:
                self.press(action)
                place: Callable[[], Snapshot | None] = lambda: self.press("spot_1")  # noqa: E731
            except DemoError:  # no chip buttons wired: chips are picked on the touch screen
                seq = self.watch.seq
                self.watch.touch("chip", chip, station=self.station_no)
                self.watch.wait_newer(seq, 3.0)

                def place() -> Snapshot | None:
                    seq = self.watch.seq
                    self.watch.touch("place", 1, station=self.station_no)
                    return self.watch.wait_newer(seq, 3.0)

            for _ in range(20):
                if staked() >= target or place() is None:
                    return

    def play_round(self, n: int) -> None:
        self._check_stop()
        shared = len(self.snap.stations) > 1
        self.watch.wait_for(
            lambda s: s.mode in (WireMode.BETTING, WireMode.ATTRACT),
            OTHERS_ROUND_S if shared else 10.0,
            "the table to take bets",
        )
        if self.station().credits_minor > 0:
            # a station whose screen is not drawing yet (a UI starting or started again)
            # lights no button: a player waits for the table to light before betting
            self.watch.wait_for(
                lambda s: bool(set(self.station(s).lamps) & _BET_LAMPS), 60.0, "the station's bet buttons to light"
            )
        before = self.station().credits_minor
        self.place_bet()
        self.say(f"demo: round {n}: bet {fmt_money(self.next_bet())}, Deal")
        started = self.watch.rounds_started if shared else 0
        snap = self.press("deal", timeout_s=5.0)
        if snap is not None and shared:
            # a shared table: the round starts once every seat with a bet is ready
            # (or the bet timer runs out, RULES.md classic-multi)
            snap = self.watch.wait_for(lambda s: self.watch.rounds_started > started, 40.0, "the other seats' Deal")
        # a round that settles at once (a blackjack) is dealt too: its cards are shown
        dealt = snap is not None and (
            snap.mode == WireMode.IN_ROUND or any(h.cards for sp in self.station(snap).spots for h in sp.hands)
        )
        if not dealt and "rebet" in self.station().lamps:
            # chip tables clear the spots after a round: Rebet (touch) puts the last bet back
            seq = self.watch.seq
            self.watch.touch("rebet", station=self.station_no)
            self.watch.wait_newer(seq, 3.0)
            snap = self.press("deal", timeout_s=5.0)
        if snap is None:
            raise DemoError("Deal did nothing")
        decisions: list[str] = []
        self.finish_round(decisions, shoot_first=not self._mid_shot)
        snap = self.watch.wait_for(lambda s: s.mode != WireMode.IN_ROUND, 10.0, "the round's end")
        st = self.station(snap)
        hands = [(h.cards, h.total_text, h.outcome) for sp in st.spots for h in sp.hands]
        log_ = RoundLog(
            n,
            snap.dealer.cards,
            snap.dealer.total_text,
            hands,
            decisions,
            st.credits_minor - before,
            st.message or snap.message,
        )
        self.result.rounds.append(log_)
        shown = "; ".join(f"{' '.join(c)} ({t}) {o or ''}".strip() for c, t, o in hands)
        self.say(
            f"demo: round {n}: {', '.join(decisions) or 'no decision'} | player {shown} | "
            f"dealer {' '.join(snap.dealer.cards)} ({snap.dealer.total_text}) | "
            f"net {fmt_money(log_.net_minor)}, credits {fmt_money(st.credits_minor)} | "
            f"told {log_.message!r}"
        )
        won = any(o in ("win", "blackjack") for _, _, o in hands)
        if n == 1:
            self.settle_and_shoot("settled-round")
            self._shot_win = won
        elif won and not self._shot_win:
            self.settle_and_shoot("settled-win")
            self._shot_win = True

    def finish_round(self, decisions: list[str], shoot_first: bool = False) -> None:
        """Decide by strategy until the round is over."""
        for _ in range(40):
            snap = self.snap
            if snap.mode != WireMode.IN_ROUND:
                return
            lamps = frozenset(self.station(snap).lamps) & frozenset(DECISIONS)
            if not lamps:
                if self.watch.wait_newer(snap.seq, 5.0) is None:
                    raise DemoError(f"the round waits for nothing I can press ({snap.message!r})")
                continue
            if shoot_first:
                self.settle_and_shoot("mid-round")
                shoot_first, self._mid_shot = False, True
            action = self.choose(snap, lamps)
            decisions.append(action)
            # Stand answers "no insurance" on the panel (there is no Decline button).
            if self.press("stand" if action == "decline" else action) is None:
                raise DemoError(f"{action} did nothing")
        raise DemoError("the round does not end")

    def choose(self, snap: Snapshot, legal: frozenset[str]) -> str:
        """The button for the prompt on ``snap`` (see ``demo_strategy.choose``)."""
        insurance = "insure" in legal or "decline" in legal
        cards = [] if insurance else self._active_hand(snap).cards
        return choose(cards, snap.dealer.cards, legal, self.strategy())

    def _active_hand(self, snap: Snapshot) -> HandView:
        hands = [h for sp in self.station(snap).spots for h in sp.hands]
        for h in hands:
            if h.active:
                return h
        if not hands:
            raise DemoError("a decision is asked but no hand is shown")
        return hands[-1]

    def cash_out(self) -> None:
        """Cash Out: the voucher prints; read it back from the printer twin."""
        self._check_stop()
        self.watch.wait_for(lambda s: s.mode in (WireMode.BETTING, WireMode.ATTRACT), 10.0, "the table to take bets")
        # Take the bet back first, so the chip is home before the printing screen shows.
        for _ in range(60):
            if self.next_bet() == 0 or "bet_down" not in self.station().lamps:
                break
            if self.press("bet_down") is None:
                break
        if self.stop.wait(1.0):
            raise DemoError("stopped")
        credits = self.station().credits_minor
        before = set(self.sim_station({"cmd": "tickets"}).get("tickets", []))
        self.say(f"demo: Cash Out {fmt_money(credits)}")
        self.press("cash_out", timeout_s=5.0)
        snap = self.watch.wait_for(
            lambda s: (
                s.mode in (WireMode.ATTRACT, WireMode.HANDPAY, WireMode.TILT)
                or (s.mode == WireMode.BETTING and self.station(s).credits_minor == 0)
            ),
            20.0,
            "the voucher to print",
        )
        self.grab("[0-9]*-cash_out*.png", "cash-out-printing")
        if snap.mode not in (WireMode.ATTRACT, WireMode.BETTING):
            raise DemoError(f"cash-out ended in {snap.mode}: {snap.overlay_text or snap.message}")
        new: list[str] = []
        for _ in range(50):
            new = sorted(set(self.sim_station({"cmd": "tickets"}).get("tickets", [])) - before)
            if new and Path(new[-1]).with_suffix(".txt").exists():
                break
            if self.stop.wait(0.1):
                raise DemoError("stopped")
        if not new:
            raise DemoError("no ticket came out of the printer")
        png = Path(new[-1])
        txt = png.with_suffix(".txt")
        text = txt.read_text() if txt.exists() else ""
        number = ""
        for line in text.splitlines():
            if line.startswith("VALIDATION "):
                number = line.split(None, 1)[1].replace("-", "")
        self.result.cashed_out_minor = credits
        self.result.validation_number = number
        self.result.voucher_png = png
        self.result.voucher_txt = txt if txt.exists() else None
        self.say(f"demo: voucher {number} for {fmt_money(credits)} printed")

"""The demo player: plays the cabinet through its simulated hardware, like a person.

Owns: ``DemoPlayer``, used by ``cabinet run`` when there is no display (and
by ``--demo``). It watches the table as a second UI client (``Hello`` role
``ui``; on chip tables it touches chips and spots, with the engine's token
read from its token file as the display does) and otherwise acts only through the engine's sim
control socket: it inserts a note into the bill acceptor twin, presses the
mock panel's buttons (Bet+, Deal, Hit, Stand, Double, Split, Insure, Cash
Out) following basic strategy, turns the operator key, and reads the
printed voucher back from the printer twin. ``TableWatch`` and
``SimControl`` are reused by the end-to-end tests and ``bench/ui.py``.

Basic strategy: ``cabinet.strategy.Strategy.choose`` (derived once per
variant by ``cabinet.strategy.analyse`` and cached as JSON), or the small
total-based chart ``simple_choice`` when no strategy is given.

Threads: a ``TableWatch`` reads its socket on a daemon thread; everything
else runs on the caller's thread. Every wait has a timeout.
"""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cabinet.protocol.ipc import (
    PROTOCOL,
    Hello,
    Intent,
    LineBuffer,
    MessageError,
    decode,
    encode,
    token_path,
)
from cabinet.protocol.money import fmt_money
from cabinet.protocol.snapshot import HandView, Snapshot, StationView

log = logging.getLogger("cabinet.demo")

DECISIONS = ("hit", "stand", "double", "split", "insure", "decline")
#: The panel ignores a second press of the same button within 0.25 s (its refire
#: guard, ``drivers.gpio_panel``; 0.1 s for Bet+/Bet- and chips); the player waits
#: a little longer than the longest.
SAME_BUTTON_GAP_S = 0.3


class DemoError(RuntimeError):
    """The table did not do what the demo expected within its timeout."""


# -- the two connections ------------------------------------------------------------------


class TableWatch:
    """A read-only UI client: keeps the latest snapshot and when it arrived.

    Args:
        path: the engine's UI socket.
        name: sent in ``Hello.name``.
        on_snapshot: called on the reader thread with each snapshot and its
            arrival time (``time.perf_counter()`` seconds).
        authenticate: send the engine's token (read from ``ipc.token_path(path)``)
            so ``touch`` intents count; without it the engine refuses them
            (an observer, issue 11.12).
    """

    def __init__(self, path: str | Path, *, name: str = "demo-player",
                 on_snapshot: Callable[[Snapshot, float], None] | None = None,
                 authenticate: bool = False) -> None:
        self.path = str(path)
        self.name = name
        self.authenticate = authenticate
        self.on_snapshot = on_snapshot
        self.snapshot: Snapshot | None = None
        self.arrived_s = 0.0
        self._cond = threading.Condition()
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.closed = False

    def start(self, timeout_s: float = 10.0) -> TableWatch:
        """Connect, say hello and wait for the first snapshot.

        Raises:
            DemoError: no snapshot within ``timeout_s``.
            OSError: the socket (or, with ``authenticate``, the token file) cannot be reached.
        """
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout_s)
        s.connect(self.path)
        token = token_path(self.path).read_text().strip() if self.authenticate else ""
        s.sendall(encode(Hello(protocol=PROTOCOL, role="ui", name=self.name, token=token)))
        s.settimeout(None)
        self._sock = s
        self._thread = threading.Thread(target=self._read, name="table-watch", daemon=True)
        self._thread.start()
        self.wait_for(lambda snap: True, timeout_s, "the first snapshot")
        return self

    def touch(self, action: str, value: int | None = None, station: int = 1) -> None:
        """Send an intent as the touch screen would (chip tables only: the default
        wiring has no chip or spot buttons)."""
        assert self._sock is not None
        self._sock.sendall(encode(Intent(station=station, action=action, value=value)))

    def close(self) -> None:
        self.closed = True
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        if self._thread is not None:
            self._thread.join(2.0)

    def _read(self) -> None:
        assert self._sock is not None
        buf = LineBuffer()
        try:
            while data := self._sock.recv(65536):
                for line in buf.feed(data):
                    try:
                        msg = decode(line)
                    except MessageError:
                        continue
                    if isinstance(msg, Snapshot):
                        now = time.perf_counter()
                        if self.on_snapshot is not None:
                            self.on_snapshot(msg, now)
                        with self._cond:
                            self.snapshot, self.arrived_s = msg, now
                            self._cond.notify_all()
        except (OSError, MessageError):
            pass
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    @property
    def seq(self) -> int:
        return self.snapshot.seq if self.snapshot is not None else -1

    def wait_for(self, pred: Callable[[Snapshot], bool], timeout_s: float,
                 what: str = "the table") -> Snapshot:
        """The first snapshot (the current one included) for which ``pred`` holds.

        Raises:
            DemoError: not within ``timeout_s`` seconds, or the engine went away.
        """
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                snap = self.snapshot
                if snap is not None and pred(snap):
                    return snap
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    mode = snap.mode if snap is not None else "no snapshot"
                    raise DemoError(f"waited {timeout_s:.0f} s for {what} (table: {mode})")
                self._cond.wait(left)

    def wait_newer(self, seq: int, timeout_s: float) -> Snapshot | None:
        """The next snapshot after ``seq``, or ``None`` when none came in time."""
        try:
            return self.wait_for(lambda s: s.seq > seq, timeout_s, "a new snapshot")
        except DemoError:
            return None


class SimControl:
    """The engine's sim control socket (JSON lines, one reply per command)."""

    def __init__(self, path: str | Path, timeout_s: float = 10.0) -> None:
        self.path = str(path)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout_s)
        self._sock.connect(self.path)
        self._file = self._sock.makefile("rw")
        self._lock = threading.Lock()

    def __call__(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Send one command; returns the reply.

        Raises:
            DemoError: the engine refused it (``ok`` false) or closed the socket.
        """
        with self._lock:
            try:
                self._file.write(json.dumps(cmd) + "\n")
                self._file.flush()
                line = self._file.readline()
            except OSError as e:
                raise DemoError(f"sim control: {e}") from None
        if not line:
            raise DemoError("sim control socket closed")
        reply = dict(json.loads(line))
        if not reply.get("ok"):
            raise DemoError(f"sim control refused {cmd}: {reply.get('error')}")
        return reply

    def press(self, action: str) -> dict[str, Any]:
        return self({"cmd": "press", "action": action})

    def close(self) -> None:
        try:
            self._file.close()
            self._sock.close()
        except OSError:
            pass


# -- basic strategy -------------------------------------------------------------------------

_VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


def card_value(code: str) -> int:
    """``"AS"`` -> 1, ``"TD"``/``"KH"`` -> 10, ``"7C"`` -> 7."""
    rank = code[:-1]
    return _VALUES.get(rank, 10 if rank == "10" else int(rank) if rank.isdigit() else 0)


def hand_total(cards: list[str]) -> tuple[int, bool]:
    """Best total and whether an Ace counts 11 in it."""
    values = [card_value(c) for c in cards]
    total = sum(values)
    if 1 in values and total + 10 <= 21:
        return total + 10, True
    return total, False


def simple_choice(total: int, soft: bool, pair: int, up: int, legal: frozenset[str]) -> str:
    """A small total-based basic strategy (multi-deck, dealer stands on soft 17).

    Args:
        total, soft: the hand's best total and softness.
        pair: card value 1-10 of a two-card pair that may be split, else 0.
        up: the dealer's up card value, 1 (Ace) to 10.
        legal: the decisions offered now (``hit``, ``stand``, ``double``, ``split``).

    Returns:
        one of ``legal`` (``stand`` when nothing fits).
    """
    low = 2 <= up <= 6
    if pair and "split" in legal:
        if pair in (1, 8) or (pair == 9 and up not in (7, 10, 1)) \
                or (pair in (2, 3, 7) and 2 <= up <= 7) or (pair == 6 and low) \
                or (pair == 4 and up in (5, 6)):
            return "split"
    if "double" in legal:
        if (not soft and (total == 11 and up != 1 or total == 10 and 2 <= up <= 9
                          or total == 9 and 3 <= up <= 6)) \
                or (soft and 13 <= total <= 18 and up in (5, 6)):
            return "double"
    if soft:
        hit = total <= 17 or (total == 18 and up in (9, 10, 1))
    else:
        hit = total <= 11 or (total == 12 and up not in (4, 5, 6)) or (13 <= total <= 16 and not low)
    want = "hit" if hit else "stand"
    return want if want in legal else ("stand" if "stand" in legal else sorted(legal)[0])


def load_strategy(variant: str, cache_dir: Path | None) -> Any:
    """``cabinet.strategy.Strategy`` for ``variant``: from the JSON cache in
    ``cache_dir`` when there, else derived (about 10 s of one core) and cached.
    ``cache_dir=None`` never caches."""
    from cabinet.game import preset
    from cabinet.strategy import Strategy, analyse

    rules = preset(variant)
    key = hashlib.sha256(repr(rules).encode()).hexdigest()[:12]
    path = cache_dir / f"strategy-{variant}-{key}.json" if cache_dir else None
    if path is not None and path.exists():
        try:
            return Strategy.from_dict(json.loads(path.read_text()))
        except (OSError, ValueError):
            pass
    strategy = analyse(rules).strategy
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(strategy.to_dict()))
        tmp.replace(path)
    return strategy


# -- the player --------------------------------------------------------------------------------


@dataclass
class RoundLog:
    number: int
    dealer: list[str]
    dealer_total: str
    hands: list[tuple[list[str], str, str | None]]  # cards, total text, outcome
    decisions: list[str]
    net_minor: int


@dataclass
class DemoResult:
    rounds: list[RoundLog] = field(default_factory=list)
    inserted_minor: int = 0
    cashed_out_minor: int = 0
    validation_number: str = ""
    voucher_png: Path | None = None
    voucher_txt: Path | None = None
    variant: str = ""


class DemoPlayer:
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
        strategy: a ``cabinet.strategy.Strategy`` (or a callable returning
            one, run when first needed), or ``None`` for ``simple_choice``.
        shot: called with a name when the table is worth a screenshot
            (after it has settled ``settle_s`` seconds); ``None`` for none.
        grab: called with a pattern and a name to keep one of the UI's own
            mode-change screenshots (the printing overlay is too short-lived
            to wait for).
        say: progress output (``print`` by default).
        stop: set to abandon the demo between steps.
        settle_s: pause before a screenshot so animations have finished.
    """

    def __init__(self, watch: TableWatch, sim: SimControl, *, rounds: int = 5,
                 note_minor: int = 10_000, bet_minor: int = 500, variant: str | None = None,
                 strategy: Any = None, shot: Callable[[str], Any] | None = None,
                 grab: Callable[[str, str], Any] | None = None,
                 say: Callable[[str], None] = print, stop: threading.Event | None = None,
                 settle_s: float = 1.5) -> None:
        self.watch = watch
        self.sim = sim
        self.rounds = rounds
        self.note_minor = note_minor
        self.bet_minor = bet_minor
        self.variant = variant
        self._strategy = strategy
        self.shot = shot or (lambda name: None)
        self.grab = grab or (lambda pattern, name: None)
        self.say = say
        self.stop = stop or threading.Event()
        self.settle_s = settle_s
        self.result = DemoResult()
        self._last_press: dict[str, float] = {}
        self._mid_shot = False
        self._shot_win = True

    # -- helpers ----------------------------------------------------------------------

    @property
    def snap(self) -> Snapshot:
        assert self.watch.snapshot is not None
        return self.watch.snapshot

    def station(self, snap: Snapshot | None = None) -> StationView:
        return (snap or self.snap).stations[0]

    def next_bet(self) -> int:
        """What Deal would stake now: the spots' bets (a settled round's BET meter still
        shows its stakes with doubles and splits; the spots hold the bet itself)."""
        return sum(sp.bet_minor for sp in self.station().spots)

    def _check_stop(self) -> None:
        if self.stop.is_set():
            raise DemoError("stopped")

    def press(self, action: str, timeout_s: float = 3.0) -> Snapshot | None:
        """Press a panel button; the next snapshot (``None`` if nothing changed)."""
        self._check_stop()
        wait = self._last_press.get(action, -1e9) + SAME_BUTTON_GAP_S - time.monotonic()
        if wait > 0 and self.stop.wait(wait):
            raise DemoError("stopped")
        seq = self.watch.seq
        self.sim.press(action)
        self._last_press[action] = time.monotonic()
        return self.watch.wait_newer(seq, timeout_s)

    def settle_and_shoot(self, name: str) -> None:
        if self.stop.wait(self.settle_s):
            raise DemoError("stopped")
        self.shot(name)

    def strategy(self) -> Any:
        """The ``Strategy`` to follow now, or ``None`` for ``simple_choice`` (also while a
        ``Future`` strategy is still being derived)."""
        s = self._strategy
        if isinstance(s, Future):
            if not s.done() or s.exception() is not None:
                return None
            self._strategy = s = s.result()
            self.say(f"demo: basic strategy for {s.variant} ready")
        return s

    # -- the script ---------------------------------------------------------------------

    def run(self) -> DemoResult:
        """The whole demo; returns what happened.

        Raises:
            DemoError: the table got stuck (with what it waited for).
        """
        self.tidy_up()
        if self.variant and self.snap.variant != self.variant:
            self.switch_variant(self.variant)
        self.result.variant = self.snap.variant
        self.say(f"demo: playing {self.snap.variant_name}")
        self.insert_note(self.note_minor)
        for n in range(1, self.rounds + 1):
            if self.station().credits_minor < self.snap.min_bet_minor:
                self.say("demo: out of credits")
                break
            self.play_round(n)
        self.cash_out()
        self.maintenance_tour()
        return self.result

    def tidy_up(self) -> None:
        """Leave whatever state an earlier run left behind: maintenance, open doors,
        handpay, an unfinished round (played out by strategy)."""
        for _ in range(10):
            mode = self.snap.mode
            if mode == "maintenance":
                self.sim({"cmd": "key", "on": False})
            elif mode == "door_open":
                self.sim({"cmd": "door", "door": "main", "open": False})
            elif mode == "handpay":
                self.say("demo: resetting a handpay left from an earlier run (operator key)")
                self.sim({"cmd": "key", "on": True})
                self.sim({"cmd": "key", "on": False})
            elif mode == "in_round":
                self.say("demo: finishing the round an earlier run left open")
                self.finish_round([])
                continue
            elif mode == "cash_out":
                pass
            else:
                return
            self.watch.wait_for(_mode_is_not(mode), 5.0, f"the table to leave {mode}")
        raise DemoError(f"the table stays in {self.snap.mode}")

    def switch_variant(self, variant: str) -> None:
        """Operator menu: key on, Settings, cycle Game to ``variant``, Save, key off."""
        self.say(f"demo: operator key on, settings: game -> {variant}")
        self.sim({"cmd": "key", "on": True})
        self.watch.wait_for(lambda s: s.mode == "maintenance", 5.0, "the maintenance menu")
        self.menu_to("Settings")
        self.press("deal")
        self.watch.wait_for(lambda s: s.maintenance is not None and s.maintenance.page == "settings",
                            5.0, "the settings page")
        self.menu_to("Game:")
        for _ in range(4):
            m = self.snap.maintenance
            assert m is not None
            if m.items[m.selected] == f"Game: {variant}":
                break
            self.press("deal")
        else:
            raise DemoError(f"no game {variant!r} in the settings")
        self.menu_to("Save settings")
        self.press("deal")
        m = self.snap.maintenance
        assert m is not None
        if "Saved" not in m.lines:
            raise DemoError(f"settings not saved: {m.lines}")
        self.sim({"cmd": "key", "on": False})
        self.watch.wait_for(lambda s: s.mode != "maintenance" and s.variant == variant, 5.0,
                            "the table with the new game")

    def menu_to(self, label: str) -> None:
        """Move the menu cursor to the first item starting with ``label`` (Bet+/Hit)."""
        for _ in range(30):
            m = self.snap.maintenance
            if m is None:
                raise DemoError("not in the maintenance menu")
            target = next((i for i, it in enumerate(m.items) if it.startswith(label)), None)
            if target is None:
                raise DemoError(f"no menu item {label!r}")
            if target == m.selected:
                return
            self.press("hit" if target > m.selected else "bet_up")
        raise DemoError(f"could not reach {label!r}")

    def insert_note(self, amount_minor: int) -> None:
        """Insert a note once the acceptor is enabled; wait for the credit (retries a
        note the acceptor returned: no credit means no money moved)."""
        for _ in range(100):
            reply = self.sim({"cmd": "bill", "line": "status"}).get("reply", "")
            if "inhibited=False" in reply:
                break
            if self.stop.wait(0.1):
                raise DemoError("stopped")
        before = self.station().credits_minor
        for attempt in range(3):
            self.say(f"demo: inserting a {fmt_money(amount_minor)} note into the bill acceptor")
            self.sim({"cmd": "note", "amount_minor": amount_minor})
            try:
                self.watch.wait_for(lambda s: s.stations[0].credits_minor > before, 6.0,
                                    "the note's credit")
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
        target = min(self.bet_minor, st.credits_minor, self.snap.max_bet_minor or self.bet_minor)
        if "bet_up" in lamps:
            for _ in range(50):
                if self.next_bet() >= target:
                    return
                if self.press("bet_up") is None:
                    return
        elif "chip" in lamps:
            if self.next_bet() >= target:
                return
            chip = max((c for c in self.snap.chip_values_minor if c <= target),
                       default=min(self.snap.chip_values_minor))
            action = {100: "chip_1", 500: "chip_5", 2_500: "chip_25", 10_000: "chip_100"}.get(chip, "chip_1")
            try:
                self.press(action)
                place: Callable[[], Snapshot | None] = lambda: self.press("spot_1")  # noqa: E731
            except DemoError:  # no chip buttons wired: chips are picked on the touch screen
                seq = self.watch.seq
                self.watch.touch("chip", chip)
                self.watch.wait_newer(seq, 3.0)

                def place() -> Snapshot | None:
                    seq = self.watch.seq
                    self.watch.touch("place", 1)
                    return self.watch.wait_newer(seq, 3.0)
            for _ in range(20):
                if self.next_bet() >= target or place() is None:
                    return

    def play_round(self, n: int) -> None:
        self._check_stop()
        self.watch.wait_for(lambda s: s.mode in ("betting", "attract"), 10.0, "betting")
        before = self.station().credits_minor
        self.place_bet()
        self.say(f"demo: round {n}: bet {fmt_money(self.next_bet())}, Deal")
        snap = self.press("deal", timeout_s=5.0)
        # a round that settles at once (a blackjack) is dealt too: its cards are shown
        dealt = snap is not None and (snap.mode == "in_round" or any(
            h.cards for sp in self.station(snap).spots for h in sp.hands))
        if not dealt and "rebet" in self.station().lamps:
            # chip tables clear the spots after a round: Rebet (touch) puts the last bet back
            seq = self.watch.seq
            self.watch.touch("rebet")
            self.watch.wait_newer(seq, 3.0)
            snap = self.press("deal", timeout_s=5.0)
        if snap is None:
            raise DemoError("Deal did nothing")
        decisions: list[str] = []
        self.finish_round(decisions, shoot_first=not self._mid_shot)
        snap = self.watch.wait_for(lambda s: s.mode != "in_round", 10.0, "the round's end")
        st = self.station(snap)
        hands = [(h.cards, h.total_text, h.outcome) for sp in st.spots for h in sp.hands]
        log_ = RoundLog(n, snap.dealer.cards, snap.dealer.total_text, hands, decisions,
                        st.credits_minor - before)
        self.result.rounds.append(log_)
        shown = "; ".join(f"{' '.join(c)} ({t}) {o or ''}".strip() for c, t, o in hands)
        self.say(f"demo: round {n}: {', '.join(decisions) or 'no decision'} | player {shown} | "
                 f"dealer {' '.join(snap.dealer.cards)} ({snap.dealer.total_text}) | "
                 f"net {fmt_money(log_.net_minor)}, credits {fmt_money(st.credits_minor)}")
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
            if snap.mode != "in_round":
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
        if "insure" in legal or "decline" in legal:
            strat = self.strategy()
            take = bool(getattr(strat, "insurance", False)) if strat is not None else False
            return "insure" if take and "insure" in legal else "decline"
        hand = self._active_hand(snap)
        total, soft = hand_total(hand.cards)
        up = card_value(snap.dealer.cards[0]) if snap.dealer.cards else 10
        pair = card_value(hand.cards[0]) if "split" in legal and len(hand.cards) == 2 else 0
        strat = self.strategy()
        if strat is None:
            return simple_choice(total, soft, pair, up, legal)
        from cabinet.game.events import Decision
        decision = strat.choose(total, soft, pair, up,
                                frozenset(Decision(a) for a in legal if a in ("hit", "stand",
                                                                              "double", "split")))
        return str(decision.value)

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
        self.watch.wait_for(lambda s: s.mode in ("betting", "attract"), 10.0, "betting")
        # Take the bet back first, so the chip is home before the printing screen shows.
        for _ in range(60):
            if self.next_bet() == 0 or "bet_down" not in self.station().lamps:
                break
            if self.press("bet_down") is None:
                break
        if self.stop.wait(1.0):
            raise DemoError("stopped")
        credits = self.station().credits_minor
        before = set(self.sim({"cmd": "tickets"}).get("tickets", []))
        self.say(f"demo: Cash Out {fmt_money(credits)}")
        self.press("cash_out", timeout_s=5.0)
        snap = self.watch.wait_for(lambda s: s.mode in ("attract", "handpay", "tilt"), 20.0,
                                   "the voucher to print")
        self.grab("[0-9]*-cash_out*.png", "cash-out-printing")
        if snap.mode != "attract":
            raise DemoError(f"cash-out ended in {snap.mode}: {snap.overlay_text or snap.message}")
        new: list[str] = []
        for _ in range(50):
            new = sorted(set(self.sim({"cmd": "tickets"}).get("tickets", [])) - before)
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

    def maintenance_tour(self) -> None:
        """Operator key on: the menu, then the meters page; key off."""
        self._check_stop()
        self.sim({"cmd": "key", "on": True})
        self.watch.wait_for(lambda s: s.mode == "maintenance", 5.0, "the maintenance menu")
        self.say("demo: operator key on: maintenance menu, meters")
        self.menu_to("Meters")
        self.press("deal")
        self.watch.wait_for(lambda s: s.maintenance is not None and s.maintenance.page == "meters",
                            5.0, "the meters page")
        self.settle_and_shoot("maintenance-meters")
        self.press("cash_out")  # Back
        self.sim({"cmd": "key", "on": False})
        self.watch.wait_for(lambda s: s.mode != "maintenance", 5.0, "the key off")


def _mode_is_not(mode: str) -> Callable[[Any], bool]:
    """A ``TableWatch.wait_for`` condition: the snapshot's mode is no longer ``mode``."""
    return lambda snap: bool(snap.mode != mode)

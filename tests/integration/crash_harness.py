"""Kill the engine process with SIGKILL at random points of scripted play, restart
it, and check after every restart that nothing was lost or counted twice.

Used by ``tests/integration/test_crash_recovery.py`` (200+ kill points) and by
``bench/crash_soak.py`` (10,000). The engine runs as ``python -m cabinet engine``
with simulated devices; play goes through the real paths: notes through the
ID-003 twin, buttons on the mock panel and intents on the UI socket.

The serial twins (bill acceptor, printer) run in a process of their own
(``cabinet sim-devices``) that survives the engine's death, as real devices do, and
the acceptor's power is cut now and then (also at STACKING / VEND VALID). After
every restart the meters are checked against the twins' physical truth
(``check_physical_truth``): notes credited + notes under attendant review == the
cash box, and vouchers counted out == tickets cut that the engine knew about,
every other cut ticket a handpay, never both.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cabinet.core.machine import new_state
from cabinet.core.meters import audit_balance
from cabinet.core.settings import GameSettings
from cabinet.game import Round
from cabinet.game.view import PlayerView
from cabinet.protocol.ipc import FRAME_HEARTBEAT_S, PROTOCOL, token_path
from cabinet.shell.store import Store
from tests import procs

#: Start-up backstops, for a machine running the suite beside other loads (``tests.procs``).
READY_TIMEOUT_S = procs.START_DEADLINE_S
#: The acceptor's start-up sequence done (its light on) after the engine is ready.
ACCEPTOR_WAIT_S = 20.0
#: A reply on the sim control sockets (the engine's, the twins').
REPLY_TIMEOUT_S = 20.0
#: The acceptor and the printer idle again (``settle``).
SETTLE_S = 30.0


#: Commands that go to the twin process (the rest to the engine's mock panel).
TWIN_COMMANDS = ("note", "voucher", "bill", "printer", "tickets", "power_at", "truth")


class TwinProc:
    """``cabinet sim-devices``: the serial twins in a process that outlives the engine."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "twins"
        self.sock = self.dir / "control.sock"
        self.proc: subprocess.Popen[str] | None = None
        self.child: procs.Child | None = None
        self._file: Any = None
        self._conn: socket.socket | None = None

    def start(self) -> None:
        """Start ``cabinet sim-devices`` and connect to its control socket.

        Raises:
            procs.ChildTimeout: not ready within ``READY_TIMEOUT_S``; procs.ChildExited:
                it ended first (each with what it printed).
        """
        self.child = procs.Child(
            [sys.executable, "-m", "cabinet", "sim-devices", "--state-dir", str(self.dir)], name="sim-devices"
        )
        self.proc = self.child.proc
        self.child.wait_for("sim devices ready", READY_TIMEOUT_S)
        self._conn = socket.socket(socket.AF_UNIX)
        self._conn.connect(str(self.sock))
        self._conn.settimeout(REPLY_TIMEOUT_S)
        self._file = self._conn.makefile("rw")

    def cmd(self, msg: dict[str, Any]) -> dict[str, Any]:
        try:
            self._file.write(json.dumps(msg) + "\n")
            self._file.flush()
            return dict(json.loads(self._file.readline() or "{}"))
        except (OSError, ValueError):
            return {}

    def stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self.child is not None:
            self.child.stop()
        self.proc = None


class EngineProc:
    """One engine process with sim devices, a UI connection and the sim control link.

    ``twins``: the serial twins' own process (``TwinProc``); None = the engine runs
    them itself (they then die with it).
    """

    def __init__(self, workdir: Path, twins: TwinProc | None = None, extra_args: list[str] | None = None) -> None:
        self.twins = twins
        self.extra_args = list(extra_args or [])
        self.dir = workdir
        self.journal = workdir / "journal.db"
        self.sock = workdir / "ui.sock"
        self.proc: subprocess.Popen[str] | None = None
        self.child: procs.Child | None = None
        self.snapshot: dict[str, Any] | None = None
        self.snap_event = threading.Event()
        self._ui: socket.socket | None = None
        self._ui_lock = threading.Lock()
        self._sim: socket.socket | None = None
        self._sim_file: Any = None

    def start(self) -> None:
        """Start the engine, connect as its display and to its sim control socket, and
        wait for its first snapshot and (where it takes notes) an enabled acceptor.

        Raises:
            procs.ChildTimeout: not ready, or no snapshot, within ``READY_TIMEOUT_S``;
                procs.ChildExited: it ended first (each with what it printed).
        """
        env = {**os.environ, "CABINET_LOG": "WARNING"}
        twins = [] if self.twins is None else ["--twins", str(self.twins.dir)]
        self.child = procs.Child(
            [
                sys.executable,
                "-m",
                "cabinet",
                "engine",
                "--journal",
                str(self.journal),
                "--socket",
                str(self.sock),
                "--sim-dir",
                str(self.dir / "sim"),
                *twins,
                *self.extra_args,
            ],
            name="engine",
            env=env,
        )
        self.proc = self.child.proc
        self.child.wait_for("engine ready", READY_TIMEOUT_S)
        self.snapshot = None
        self.snap_event.clear()
        self._ui = socket.socket(socket.AF_UNIX)
        self._ui.connect(str(self.sock))
        # the display's hello (with the engine's token) and its frame heartbeat: the
        # engine takes intents only from its display, and notes only while one draws
        token = token_path(self.sock).read_text().strip()
        self._ui.sendall(
            json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui", "token": token}).encode() + b"\n"
        )
        threading.Thread(target=self._read_ui, args=(self._ui,), daemon=True).start()
        threading.Thread(target=self._beat, args=(self._ui,), daemon=True).start()
        self._sim = socket.socket(socket.AF_UNIX)
        self._sim.connect(str(self.sock) + ".sim")
        self._sim.settimeout(REPLY_TIMEOUT_S)
        self._sim_file = self._sim.makefile("rw")
        procs.wait_until(lambda: self.snap_event.wait(0.2), READY_TIMEOUT_S, "the engine's first snapshot", self.child)
        # The validator refuses notes until its start-up sequence is done, as a real
        # one does: wait for it, as a player waits for the acceptor's light.
        # (Only where the cabinet takes notes at all: not behind a door or a lockup.)
        deadline = time.monotonic() + ACCEPTOR_WAIT_S
        while (
            time.monotonic() < deadline
            and (self.snapshot or {}).get("mode") in ("attract", "betting", "in_round")
            and "inhibited=False" not in str(self.sim({"cmd": "bill", "line": "status"}).get("reply", ""))
        ):
            time.sleep(0.05)

    def _read_ui(self, s: socket.socket) -> None:
        f = s.makefile("r")
        try:
            for line in f:
                msg = json.loads(line)
                if msg.get("type") == "snapshot":
                    self.snapshot = msg
                    self.snap_event.set()
        except (OSError, ValueError):
            pass

    def _beat(self, s: socket.socket) -> None:
        while True:
            try:
                with self._ui_lock:
                    s.sendall(b'{"type":"frame"}\n')
            except OSError:
                return
            time.sleep(FRAME_HEARTBEAT_S / 2)

    def intent(self, action: str, value: int | None = None) -> None:
        assert self._ui is not None
        try:
            with self._ui_lock:
                self._ui.sendall(
                    json.dumps({"type": "intent", "station": 1, "action": action, "value": value}).encode() + b"\n"
                )
        except OSError:
            pass

    def sim(self, cmd: dict[str, Any]) -> dict[str, Any]:
        if self.twins is not None and cmd.get("cmd") in TWIN_COMMANDS:
            return self.twins.cmd(cmd)
        return self._sim_cmd(cmd)

    def _sim_cmd(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """A command to the engine's own sim control socket (the mock panel)."""
        try:
            self._sim_file.write(json.dumps(cmd) + "\n")
            self._sim_file.flush()
            return dict(json.loads(self._sim_file.readline() or "{}"))
        except (OSError, ValueError):
            return {}

    def output(self) -> str:
        """The tail of what the engine (and the twins' process) printed, for a failure."""
        return "\n".join(c.tail(20) for c in (self.child, self.twins and self.twins.child) if c is not None)

    def kill(self) -> None:
        """SIGKILL the engine and reap it (its output stays in ``child``)."""
        if self.child is not None:
            self.child.kill()
        for s in (self._ui, self._sim):
            if s is not None:
                s.close()
        self.proc = None

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()
        self.kill()


@dataclass
class SoakResult:
    kills: int = 0
    checks: int = 0
    rounds_resumed: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    truth_checks: int = 0
    power_cuts: int = 0


def verify_journal(journal: Path) -> dict[str, Any]:
    """Check that credits and every meter equal what the committed events imply.

    Returns:
        ``{"state": ..., "round": round dict or None}``: what was committed last.

    Raises:
        AssertionError: naming the first thing that does not add up.
    """
    store = Store(journal, readonly=True)
    try:
        state = store.load_readonly()
        assert state is not None, "no good copy of the cabinet state"
        rows = store._read_rows("round")
        round_state = json.loads(max(rows.values())[1]) if rows else None
        events = store.all_events()
        vouchers = store.vouchers(10**6)
    finally:
        store.close()
    txns = [e["data"].get("txn") for e in events if e["kind"] == "bill_stacked"]
    assert len(txns) == len(set(txns)), "a note was credited twice"
    cash = [e for e in events if e["kind"] == "cash_out"]
    # A cash-out the casino host validates has its number (and record) only
    # once the host sent it (0x58), or none (a handpay)
    numbers = [e["data"]["validation_number"] for e in cash if "validation_number" in e["data"]]
    own = [v for v in vouchers if v.validation != "system"]
    assert len(numbers) == len(set(numbers)) == len(own), "a voucher exists twice"
    system = [v.validation_number for v in vouchers if v.validation == "system"]
    assert len(system) == len(set(system)), "a host-validated voucher exists twice"
    for st in state.stations:
        n = st.station
        mine = [e for e in events if e["station"] == n]

        def total(kind: str, key: str | None = None, mine: list[dict[str, Any]] = mine) -> int:
            return sum((e["data"][key] if key else e["amount_minor"]) for e in mine if e["kind"] == kind)

        m = st.meters
        assert audit_balance(st.credits_minor, st.pending_out_minor, m) == 0, "audit"
        assert m.bills_in_minor == total("bill_stacked"), "bills in"
        assert m.bills_in_count == sum(1 for e in mine if e["kind"] == "bill_stacked")
        assert m.vouchers_in_minor == total("voucher_in"), "vouchers in"
        assert m.vouchers_out_minor == total("voucher_printed"), "vouchers out"
        jackpots = [e for e in mine if e["kind"] in ("handpay", "handpay_reset") and e["data"].get("kind") == "jackpot"]
        jackpot_locked = sum(e["amount_minor"] for e in jackpots if e["kind"] == "handpay")
        jackpot_paid = sum(e["amount_minor"] for e in jackpots if e["kind"] == "handpay_reset")
        assert m.jackpot_handpay_minor == jackpot_paid, "jackpot handpays"
        assert m.handpay_minor == total("handpay_reset") - jackpot_paid, "handpays"
        assert total("cash_out") == m.vouchers_out_minor + m.handpay_minor + st.pending_out_minor - (
            jackpot_locked - jackpot_paid
        ), "cash-out amounts"
        open_stake = st.stake_in_round_minor if st.in_round else 0
        open_back = st.returned_in_round_minor if st.in_round else 0
        wagered = total("round_end", "wagered_minor") + total("round_void", "wagered_minor")
        returned = total("round_end", "returned_minor") + total("round_void", "returned_minor")
        assert m.coin_in_minor + m.insurance_in_minor == wagered + open_stake, "coin in"
        assert m.coin_out_minor + m.insurance_out_minor == returned + open_back, "coin out"
        assert m.void_returned_minor - m.void_reclaimed_minor == sum(
            e["data"]["wagered_minor"] - e["data"]["returned_minor"] for e in mine if e["kind"] == "round_void"
        ), "voids"
        assert m.games_played == sum(1 for e in mine if e["kind"] == "round_end"), "games"
    return {"state": state, "round": round_state if state.round_open else None}


def settle(eng: EngineProc, timeout_s: float = SETTLE_S) -> dict[str, Any]:
    """Wait until no item is in the acceptor and no print is pending; the twins' truth.

    Returns:
        The twin's ``truth`` (``drivers.sim.twins.TwinSet.truth``), or ``{}`` when
        it did not settle in time.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        truth = eng.sim({"cmd": "truth"})
        if truth.get("idle") and (eng.snapshot or {}).get("mode") != "cash_out":
            time.sleep(0.05)  # the last commit's snapshot is out
            again = eng.sim({"cmd": "truth"})
            if again.get("idle") and again.get("cash_box_minor") == truth.get("cash_box_minor"):
                return again
        time.sleep(0.05)
    return {}


def check_physical_truth(journal: Path, truth: dict[str, Any], station: int = 1) -> None:
    """The meters of ``station`` against what its twins physically did.

    Notes credited (bill-in meter) + notes under attendant review - notes credited
    and then reported possibly in the path (a jam after VEND VALID: ``note_in_path``
    journaled ``credited``) == the cash box total; vouchers counted out == tickets cut that the engine knew about (each
    ``voucher_printed`` number was cut, and the count and amounts agree); every other
    cut ticket is a handpay (unknown print outcome), and no ticket is cut twice,
    counted out and handpaid, or counted out twice.

    Raises:
        AssertionError: naming the first thing that does not add up.
    """
    assert truth, "the acceptor or the printer did not settle"
    store = Store(journal, readonly=True)
    try:
        state = store.load_readonly()
        assert state is not None, "no good copy of the cabinet state"
        events = store.all_events()
        vouchers = {v.validation_number: v for v in store.vouchers(10**6)}
    finally:
        store.close()
    st = state.stations[station - 1]
    review = sum(r.amount_minor for r in state.note_reviews if r.station == station and r.kind == "in_stacker")
    in_path = sum(
        e["amount_minor"]
        for e in events
        if e["kind"] == "note_in_path" and e["station"] == station and e["data"].get("credited")
    )
    assert st.meters.bills_in_minor + review - in_path == truth["cash_box_minor"], (
        f"cash box: {truth['cash_box_minor']} in the box, {st.meters.bills_in_minor} "
        f"credited + {review} under review - {in_path} credited and possibly in the path "
        f"(notes {truth['notes_stacked']})"
    )
    cut = truth["tickets"]
    assert len(cut) == len(set(cut)), f"a ticket was cut twice: {cut}"
    printed = [
        e["data"]["validation_number"] for e in events if e["kind"] == "voucher_printed" and e["station"] == station
    ]
    assert len(printed) == len(set(printed)), "a voucher was counted out twice"
    assert set(printed) <= set(cut), f"counted out but never cut: {set(printed) - set(cut)}"
    assert st.meters.vouchers_out_count == len(printed), "vouchers out count"
    assert st.meters.vouchers_out_minor == sum(vouchers[n].amount_minor for n in printed), "vouchers out amount"
    for n in truth.get("uncut", []):
        rec = vouchers.get(n)
        assert n not in printed and (rec is None or rec.status in ("handpay", "handpaid")), (
            f"print of {n[-4:]} never cut, yet {'counted out' if n in printed else rec}"
        )
    for n in cut:
        rec = vouchers.get(n)
        assert rec is not None, f"ticket {n[-4:]} cut but unknown to the journal"
        if n in printed:
            assert rec.status in ("issued", "redeemed"), f"{n[-4:]} counted out and {rec.status}"
        else:
            assert rec.status in ("handpay", "handpaid"), (
                f"ticket {n[-4:]} cut, not counted out, and not a handpay ({rec.status})"
            )


def credit_note(eng: EngineProc, amount_minor: int, deadline_s: float = SETTLE_S) -> None:
    """Insert a note at station 1 until the credit meter shows it: a note the acceptor
    hands back (inserted while the engine's start-up sequence still had it inhibited,
    which a loaded machine stretches past the harness's readiness check) goes in again,
    as a player puts it in again.

    Raises:
        procs.ChildTimeout: not credited within ``deadline_s`` (with the engine's output).
    """
    target = _credits(eng.snapshot) + amount_minor

    def returned() -> int:
        reply = str(eng.sim({"cmd": "bill", "line": "status"}).get("reply", ""))
        return int(reply.split("returned=")[1].split()[0]) if "returned=" in reply else -1

    deadline = time.monotonic() + deadline_s
    while _credits(eng.snapshot) < target:
        back = returned()
        eng.sim({"cmd": "note", "amount_minor": amount_minor})
        while _credits(eng.snapshot) < target and returned() == back and time.monotonic() < deadline:
            time.sleep(0.05)
        if time.monotonic() >= deadline and _credits(eng.snapshot) < target:
            raise procs.ChildTimeout(
                f"a {amount_minor} note not credited within {deadline_s:g} s "
                f"(credits {_credits(eng.snapshot)})\n{eng.output()}"
            )


def _visible(view: PlayerView) -> tuple[list[str], list[list[str]]]:
    return view.dealer.cards, [h.cards for s in view.spots for h in s.hands]


def _snap_visible(snap: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    return snap["dealer"]["cards"], [h["cards"] for st in snap["stations"] for s in st["spots"] for h in s["hands"]]


def _credits(snap: dict[str, Any] | None) -> int:
    return int(((snap or {}).get("stations") or [{}])[0].get("credits_minor", 0))


def _wait_for(eng: EngineProc, cond: Any, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not cond(eng.snapshot):
        time.sleep(0.02)


def _step(eng: EngineProc, rng: random.Random, issued: list[str]) -> str:
    """One scripted player/operator action chosen from what the table shows now."""
    snap = eng.snapshot or {}
    mode = snap.get("mode", "attract")
    st = (snap.get("stations") or [{}])[0]
    lamps = st.get("lamps", [])
    credits = st.get("credits_minor", 0)
    if mode == "handpay":
        eng.sim({"cmd": "key", "on": True})
        time.sleep(0.1)  # a turn of the key, longer than the switch debounce
        eng.sim({"cmd": "key", "on": False})
        return "handpay_reset"
    if mode == "door_open":
        eng.sim({"cmd": "door", "door": "main", "open": False})
        return "door_close"
    if mode == "maintenance":
        eng.sim({"cmd": "key", "on": False})
        return "key_off"
    if mode == "tilt" and eng.twins is not None:
        # the attendant's key: resolves a note found in the stacker
        eng.sim({"cmd": "key", "on": True})
        time.sleep(0.1)
        eng.sim({"cmd": "key", "on": False})
        return "tilt_key"
    if mode == "in_round":
        choices = [a for a in lamps if a in ("hit", "stand", "double", "split", "insure", "decline")]
        if rng.random() < 0.05:
            eng.sim({"cmd": "door", "door": "main", "open": True})
            return "door_open_mid_round"
        if choices:
            action = rng.choice(choices)
            eng.intent(action)
            return action
        return "wait"
    if mode in ("attract", "betting"):
        r = rng.random()
        if credits < 300 or r < 0.08:
            if issued and rng.random() < 0.3:
                eng.sim({"cmd": "voucher", "validation_number": issued.pop()})
                return "voucher_in"
            kind = "note"
            if eng.twins is not None and rng.random() < 0.25:
                # The acceptor loses power mid-note (or while idle)
                where = rng.choice(["accepting", "escrow", "stacking", "vend_valid", "stacked", "now"])
                if where == "now":
                    eng.sim({"cmd": "bill", "line": "power"})
                else:
                    eng.sim({"cmd": "power_at", "state": where})
                kind = f"note_power_{where}"
            eng.sim({"cmd": "note", "amount_minor": rng.choice([500, 1000, 2000])})
            if rng.random() < 0.7:  # often let it reach the credit meter
                _wait_for(eng, lambda s: _credits(s) > credits, 3.0)
            return kind
        if r < 0.14 and "cash_out" in lamps:
            eng.intent("cash_out")
            return "cash_out"
        if r < 0.17:
            eng.sim({"cmd": "door", "door": "main", "open": True})
            return "door_open"
        if r < 0.19:
            eng.sim({"cmd": "key", "on": True})
            return "key_on"
        if "deal" in lamps and rng.random() < 0.6:
            eng.intent("deal")
            return "deal"
        if "bet_up" in lamps:
            eng.intent("bet_up")
            return "bet_up"
        eng.intent("deal")
        return "deal"
    return "wait"


def soak(
    workdir: Path,
    kills: int,
    seed: int = 1,
    progress: Any = None,
    settings: GameSettings | None = None,
    physical: bool = True,
) -> SoakResult:
    """Play, SIGKILL, restart and verify ``kills`` times; return what happened.

    ``settings``: the operator settings the journal starts with (default: a
    fresh cabinet's), e.g. a low jackpot limit to crash through jackpot handpays.
    ``physical``: the twins run in their own process (surviving every kill), the
    acceptor's power is cut now and then, and after every restart the meters are
    checked against the twins' physical truth (``check_physical_truth``); False:
    the engine runs the twins itself, in its own process.
    """
    rng = random.Random(seed)
    res = SoakResult()
    twins = TwinProc(workdir) if physical else None
    if twins is not None:
        twins.start()
    eng = EngineProc(workdir, twins)
    if settings is not None:
        store = Store(eng.journal)
        store.commit(new_state(settings), None, [], time.time())
        store.close()
    issued: list[str] = []
    committed: dict[str, Any] | None = None
    try:
        for _ in range(kills):
            eng.start()
            if twins is not None:
                try:
                    check_physical_truth(eng.journal, settle(eng))
                    res.truth_checks += 1
                except AssertionError as e:
                    res.failures.append(f"physical truth after restart {res.kills}: {e}\n{eng.output()}")
                    break
            if committed is not None and committed["round"] is not None:
                # the same round at the same decision, with the same cards
                view = Round.from_dict(committed["round"]).player_view()
                snap = eng.snapshot or {}
                if snap.get("mode") in ("in_round", "door_open", "tilt"):
                    if _visible(view) != _snap_visible(snap):
                        res.failures.append(f"round not resumed: {_visible(view)} vs {_snap_visible(snap)}")
                    res.rounds_resumed += 1
            for _ in range(rng.randint(1, 14)):
                kind = _step(eng, rng, issued)
                res.kinds[kind] += 1
                res.power_cuts += kind.startswith("note_power_")
                time.sleep(rng.uniform(0.01, 0.12))
            time.sleep(rng.uniform(0.0, 0.05))
            noted = False
            if (
                twins is not None
                and rng.random() < 0.15
                and (eng.snapshot or {}).get("mode") in ("attract", "betting", "in_round")
            ):
                # kill while a note is on its way (escrow, STACK, VEND VALID, ACK),
                # sometimes just after the acceptor lost power past STACK
                if rng.random() < 0.4:
                    where = rng.choice(["stacking", "vend_valid"])
                    twins.cmd({"cmd": "power_at", "state": where})
                    res.kinds[f"note_power_{where}_then_kill"] += 1
                    res.power_cuts += 1
                eng.sim({"cmd": "note", "amount_minor": rng.choice([500, 1000, 2000])})
                time.sleep(rng.uniform(0.0, 0.4))
                res.kinds["note_then_kill"] += 1
                noted = True
            eng.kill()
            res.kills += 1
            if twins is not None and rng.random() < (0.5 if noted else 0.06):
                # the power cut took the acceptor too (kill, then power-cycle
                # the acceptor, maybe at STACKING / VEND VALID)
                state = twins.cmd({"cmd": "truth"}).get("acceptor", "")
                twins.cmd({"cmd": "bill", "line": "power"})
                res.kinds[f"power_cut_engine_dead_{state.lower()}"] += 1
                res.power_cuts += 1
            try:
                committed = verify_journal(eng.journal)
                res.checks += 1
            except AssertionError as e:
                res.failures.append(f"after kill {res.kills}: {e}\n{eng.output()}")
                break
            store = Store(eng.journal, readonly=True)
            issued = [v.validation_number for v in store.vouchers(50) if v.status == "issued"]
            store.close()
            if progress is not None:
                progress(res)
    finally:
        eng.stop()
        if twins is not None:
            twins.stop()
    return res

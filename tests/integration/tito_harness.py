"""TITO crash tests: SIGKILL the engine (or kill and restart the host twin) anywhere
between a ticket's 0x67 and its final 0x71 status, and anywhere between a cash-out's
0x57 and its printed ticket; after every restart check that money moved exactly once.

``TicketDesk`` is the casino's ticket system, played in the test process over the host
twin's raw long polls (``SasHost.send``): it issues validation numbers (0x57 -> 0x58),
marks a number printed on its 0x3D, redeems each ticket at most once (0x67 -> 0x70 ->
0x71; 0x68 / the 0x71 status query -> redeemed, or valid again), refuses unknown,
unprinted and redeemed ones. It survives every kill (a real system keeps its database).

Used by ``tests/integration/test_tito_crash.py`` (a few kills each, in the suite) and
``bench/tito_crash.py`` (>= 100 each).
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.sas import tito_codes as tc
from drivers.sas import tito_wire as tw
from drivers.sas.host_codec import DataReply
from drivers.sim.sas_host import SasHost

from .crash_harness import EngineProc, TwinProc, settle, verify_journal

SYSTEM_ID = 7
#: How long after the ticket goes in (the cash-out is pressed) the kill may come: the
#: whole flow up to the final 0x71 status (the printed ticket) takes about this long
#: with the desk polling every 50 ms (measured on the dev machine: 0x67 read at ~0.1 s,
#: 0x71 sent at ~0.2 s, final status at ~0.35 s; 0x58 sent at ~0.1 s, 0x3D read at
#: 0.15-0.8 s).
WINDOW_IN_S = 0.45
WINDOW_OUT_S = 0.8


@dataclass
class Ticket:
    amount: int
    state: str  # issued (0x58 sent, no 0x3D yet), valid, pending, redeemed, void
    machine: int = 0  # where it was issued, then where it is pending or redeemed


class TicketDesk:
    """The casino's ticket database and its polling (see the module doc); thread-safe."""

    def __init__(self) -> None:
        self.tickets: dict[str, Ticket] = {}
        self.lock = threading.Lock()
        self.seen: dict[int, int] = {}
        self.next = 1
        self.errors: list[str] = []
        self.counts: Counter[str] = Counter()
        self.seeded: set[str] = set()

    def seed(self, amount: int) -> str:
        """A valid ticket printed elsewhere on the floor (amount in credits)."""
        with self.lock:
            number = self._new_number()
            self.tickets[number] = Ticket(amount, "valid")
            self.seeded.add(number)
            return number

    def _new_number(self) -> str:
        n = f"{SYSTEM_ID:02d}{self.next:016d}"
        self.next += 1
        return n

    def valid(self) -> list[str]:
        with self.lock:
            return [n for n, t in self.tickets.items() if t.state == "valid"]

    def snapshot(self) -> dict[str, tuple[int, str]]:
        """number -> (amount in credits, state), in issue order."""
        with self.lock:
            return {n: (t.amount, t.state) for n, t in self.tickets.items()}

    def pending(self, machine: int = 0) -> list[str]:
        with self.lock:
            return [n for n, t in self.tickets.items() if t.state == "pending" and machine in (0, t.machine)]

    def step(self, host: SasHost, machine: int = 1) -> None:
        """Act on ``machine``'s exceptions read since the last step, then ask after the
        tickets pending there."""
        names = [e.name for e in host.exceptions(machine)]
        new = names[self.seen.get(machine, 0) :]
        self.seen[machine] = len(names)
        for name in new:
            if name == "system_validation_request":
                self._validate(host, machine)
            elif name == "cash_out_ticket_printed":
                with self.lock:
                    issued = [n for n, t in self.tickets.items() if t.state == "issued" and t.machine == machine]
                    if issued:  # the latest number issued is the one cut
                        self.tickets[issued[-1]].state = "valid"
                        for n in issued[:-1]:  # earlier ones never printed: handpays
                            self.tickets[n].state = "void"
            elif name == "ticket_inserted":
                self._redeem(host, machine)
        for number in self.pending(machine):
            self._status(host, number, machine)

    def _validate(self, host: SasHost, machine: int) -> None:
        kind, amount = tw.parse_pending_cashout(_data(host.send(machine, 0x57)))
        if kind == tc.CASHOUT_NOT_WAITING or amount <= 0:
            return
        with self.lock:
            number = self._new_number()
            self.tickets[number] = Ticket(amount, "issued", machine)
        host.send(machine, 0x58, tw.validation_number_request(SYSTEM_ID, number[2:]))
        self.counts["validated"] += 1

    def _redeem(self, host: SasHost, machine: int) -> None:
        t = tw.parse_ticket_reply(_data(host.send(machine, 0x70)), 0x70)
        if t.status != tc.TICKET_IN_ESCROW:
            return
        with self.lock:
            rec = self.tickets.get(t.validation_number)
            if rec is None or rec.state in ("issued", "void"):
                code, amount = tc.TC_NOT_IN_SYSTEM, 0
            elif rec.state == "redeemed":
                code, amount = tc.TC_ALREADY_REDEEMED, 0
            elif rec.state == "pending":
                code, amount = tc.TC_PENDING_ELSEWHERE, 0
            else:
                rec.state, rec.machine, code, amount = "pending", machine, tc.TC_CASHABLE, rec.amount
        self.counts[f"redeem_{code:02x}"] += 1
        host.send(machine, 0x71, tw.redeem_request(code, amount, t.validation_number))

    def _status(self, host: SasHost, number: str, machine: int) -> None:
        reply = host.send(machine, 0x71, tw.STATUS_QUERY)
        if not isinstance(reply, DataReply):
            return
        r = tw.parse_ticket_reply(reply.data, 0x71)
        if r.validation_number != number or r.status in (tc.STATUS_PENDING,):
            return
        with self.lock:
            rec = self.tickets[number]
            if r.status in tc.STATUS_REDEEMED:
                if r.amount != rec.amount:
                    self.errors.append(f"{number[-4:]} redeemed for {r.amount}, not {rec.amount}")
                rec.state = "redeemed"
                self.counts["redeemed"] += 1
            elif r.status != tc.STATUS_NO_INFO:
                rec.state = "valid"
                self.counts[f"returned_{r.status:02x}"] += 1


def _data(reply: object) -> bytes:
    if not isinstance(reply, DataReply):
        raise ConnectionError(f"no data reply: {reply!r}")
    return reply.data


class Desk(threading.Thread):
    """Runs ``TicketDesk.step`` every 50 ms against whatever host twin is current."""

    def __init__(self, desk: TicketDesk, machines: tuple[int, ...] = (1,)) -> None:
        super().__init__(daemon=True)
        self.desk = desk
        self.machines = machines
        self.host: SasHost | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            host = self.host
            for machine in self.machines:
                if host is not None:
                    try:
                        self.desk.step(host, machine)
                    except Exception:  # a host being replaced, a link down
                        pass
            time.sleep(0.05)


@dataclass
class TitoResult:
    kills: int = 0
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)


def _config(workdir: Path) -> Path:
    cfg = workdir / "cabinet.toml"
    cfg.write_text('[sas]\nvalidation = "system"\nvalidation_timeout_s = 5\n')
    return cfg


class TwinRecord:
    """The host twin's own ticket database (``host.tickets``, tito-host's
    ``sas_host_tickets.TicketDb``) seen through ``TicketDesk``'s questions: the twin's
    ``TicketFlow`` is then the casino system. ``host`` is read at each call (a host
    twin killed and restarted reopens the same database)."""

    #: The twin's states in the desk's words.
    STATES = {"issued": "issued", "printed": "valid", "pending": "pending", "redeemed": "redeemed", "void": "void"}
    #: The machine address the seeded tickets were printed at ("elsewhere on the floor").
    ELSEWHERE = 99

    def __init__(self) -> None:
        self.host: SasHost | None = None
        self.errors: list[str] = []
        self.counts: Counter[str] = Counter()

    def _rows(self) -> list[dict[str, Any]]:
        assert self.host is not None
        return list(self.host.tickets.tickets())

    def seed(self, amount: int) -> str:
        assert self.host is not None
        now = time.time()
        number = str(self.host.tickets.issue(self.ELSEWHERE, amount, 0, SYSTEM_ID, now, None))
        self.host.tickets.mark_printed(self.ELSEWHERE, now)
        return number

    @property
    def seeded(self) -> set[str]:
        return {r["number"] for r in self._rows() if r["issued_by"] == self.ELSEWHERE}

    def snapshot(self) -> dict[str, tuple[int, str]]:
        return {r["number"]: (int(r["amount"]), self.STATES.get(r["state"], r["state"])) for r in self._rows()}

    def valid(self) -> list[str]:
        return [n for n, (_, st) in self.snapshot().items() if st == "valid"]

    def pending(self) -> list[str]:
        return [n for n, (_, st) in self.snapshot().items() if st == "pending"]


def desk_only(host: SasHost) -> SasHost:
    """``host`` with its own ticket flow (the twin's casino ticket system, if it has
    one: ``host.tito``) kept out of the way: here the test's ``TicketDesk`` is the
    casino system and sends every TITO long poll itself."""
    flow = getattr(host, "tito", None)
    if flow is not None:
        for name in ("on_exception", "on_link_up", "forget"):
            if hasattr(flow, name):
                setattr(flow, name, lambda *a, **k: None)
        if hasattr(flow, "due"):
            flow.due = lambda *a, **k: False
    return host


def _host(workdir: Path, machines: tuple[int, ...] = (1,), twin: bool = False) -> SasHost:
    host = SasHost(
        list(machines),
        directory=workdir / "host",
        db_path=workdir / "host.sqlite3",
        poll_interval_s=0.05,
        meter_interval_s=5.0,
        link_down_s=1.5,
    )
    if twin:
        host.tito.config.system_id = SYSTEM_ID
        host.tito.config.expiry_days = None
        return host
    return desk_only(host)


def _ready(eng: EngineProc, host: SasHost, timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = ((eng.snapshot or {}).get("stations") or [{}])[0]
        if host.link_up(1) and st.get("host_link") == "online":
            return True
        time.sleep(0.05)
    return False


def _calm(eng: EngineProc, desk: TicketDesk | TwinRecord, timeout_s: float = 60.0) -> dict[str, Any]:
    """Attendant keys for handpays; wait until no ticket is pending at the desk, the
    acceptor and printer are idle and the table is back to play."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        snap = eng.snapshot or {}
        review = snap.get("mode") == "tilt" and any(c in str(snap.get("overlay_text")) for c in ("306", "307"))
        if snap.get("mode") == "handpay" or review:  # the attendant pays, or reviews
            eng.sim({"cmd": "key", "on": True})
            time.sleep(0.1)
            eng.sim({"cmd": "key", "on": False})
            time.sleep(0.3)
            continue
        if not desk.pending() and snap.get("mode") in ("attract", "betting"):
            truth = settle(eng, 3.0)
            if truth and not desk.pending():
                return truth
        time.sleep(0.1)
    return {}


def check(journal: Path, truth: dict[str, Any], desk: TicketDesk | TwinRecord) -> None:
    """The host's record, the journal and the devices' physical truth agree.

    Tickets in: every ticket the acceptor stacked is redeemed at the desk, exactly
    once, and credited by the journal for the desk's amount; every other ticket is
    valid at the desk (returned, still good). Tickets out: every number the desk
    marked printed (its 0x3D) is a voucher the journal counted out and the printer
    cut; every other number issued is no ticket (the cash-out was a handpay).
    """
    assert truth, "the acceptor or the printer did not settle"
    assert not desk.errors, desk.errors
    verify_journal(journal)
    db = sqlite3.connect(journal)
    try:
        events = [
            (k, a, json.loads(d))
            for k, a, d in db.execute("SELECT kind, amount_minor, data FROM events WHERE station = 1 ORDER BY id")
        ]
    finally:
        db.close()
    tickets = desk.snapshot()
    seeded = desk.seeded
    stacked = truth["vouchers_stacked"]
    assert len(stacked) == len(set(stacked)), f"a ticket was stacked twice: {stacked}"
    redeemed = {n for n, (_, s) in tickets.items() if s == "redeemed"}
    assert set(stacked) == redeemed, (
        f"stacked {sorted(x[-4:] for x in stacked)} but redeemed at the host {sorted(x[-4:] for x in redeemed)}"
    )
    credited = [d["validation_number"] for k, _, d in events if k == "voucher_in" and d.get("via") == "host"]
    assert sorted(credited) == sorted(redeemed), (
        f"credited {sorted(x[-4:] for x in credited)}, redeemed {sorted(x[-4:] for x in redeemed)}"
    )
    for k, a, d in events:
        if k == "voucher_in" and d.get("via") == "host":
            assert a == tickets[d["validation_number"]][0], "credited another amount"
    printed = [d["validation_number"] for k, _, d in events if k == "voucher_printed"]
    assert len(printed) == len(set(printed)), "a voucher was counted out twice"
    host_printed = {n for n, (_, s) in tickets.items() if s in ("valid", "pending", "redeemed") and n not in seeded}
    assert set(printed) == host_printed, (
        f"counted out {sorted(x[-4:] for x in printed)}, printed at the host {sorted(x[-4:] for x in host_printed)}"
    )
    assert set(printed) <= set(truth["tickets"]), "counted out but never cut"


def tito_soak(
    workdir: Path,
    kills: int,
    seed: int = 1,
    flow: str = "both",
    kill_host: bool = False,
    system: str = "desk",
    power_cut: bool = False,
) -> TitoResult:
    """``kills`` times: start a ticket in (``flow`` "in"), a cash-out ("out") or either
    ("both"), SIGKILL the engine (``kill_host``: close the host twin and start a new one
    on the same pty path instead) at a random moment of it, restart, settle, ``check``.
    ``system``: who is the casino's ticket system: ``desk`` (the test's ``TicketDesk``)
    or ``twin`` (the host twin's own ticket database and flow, ``TwinRecord``).
    ``power_cut``: each ticket in, the acceptor also loses power at STACKING or VEND
    VALID and is power-cycled while the engine is dead (the ticket may sit in the cash
    box uncredited: the attendant's key sends it to the host)."""
    rng = random.Random(seed)
    res = TitoResult()
    twins = TwinProc(workdir)
    twins.start()
    twin = system == "twin"
    host = _host(workdir, twin=twin)
    desk: TicketDesk | TwinRecord
    runner = Desk(TicketDesk())
    if twin:
        desk = TwinRecord()
        desk.host = host
    else:
        desk = runner.desk
        runner.host = host
        runner.start()
    eng = EngineProc(
        workdir,
        twins=twins,
        extra_args=["--config", str(_config(workdir)), "--sas-port", host.path(1), "--sas-address", "1"],
    )
    eng.start()
    try:
        for _ in range(3):
            desk.seed(rng.choice([300, 700, 1_200]))
        for i in range(kills):
            if not _ready(eng, host):
                res.failures.append(f"kill {i}: the link did not come up\n{eng.output()}")
                break
            kind = flow if flow != "both" else rng.choice(["in", "out"])
            credits = ((eng.snapshot or {}).get("stations") or [{}])[0].get("credits_minor", 0)
            if kind == "out" and credits <= 0:
                eng.sim({"cmd": "note", "amount_minor": rng.choice([500, 1_000])})
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and (eng.snapshot or {})["stations"][0]["credits_minor"] <= credits:
                    time.sleep(0.05)
            valid = desk.valid()
            if kind == "in" and not valid and rng.random() < 0.9:
                valid = [desk.seed(rng.choice([300, 700, 1_200]))]
            if kind == "in" and (not valid or rng.random() < 0.1):
                # now and then a ticket the host does not know, or one already redeemed
                gone = [n for n, (_, st) in desk.snapshot().items() if st == "redeemed"]
                number = rng.choice(gone) if gone and rng.random() < 0.5 else "0" * 17 + "9"
            else:
                number = rng.choice(valid) if valid else ""
            before = len(desk.snapshot())
            if kind == "in" and number:
                if power_cut:
                    where = rng.choice(["stacking", "vend_valid"])
                    twins.cmd({"cmd": "power_at", "state": where})
                    res.kinds[f"power_at_{where}"] += 1
                eng.sim({"cmd": "voucher", "validation_number": number})
                window = WINDOW_IN_S
            else:
                kind = "out"
                eng.intent("cash_out")
                window = WINDOW_OUT_S
            res.kinds[kind] += 1
            t0 = time.monotonic()
            time.sleep(rng.uniform(0.0, window))
            res.kinds[f"{kind}_killed_at_{int((time.monotonic() - t0) * 10) / 10:.1f}s"] += 1
            if kill_host:
                runner.host = None
                host.close()
                time.sleep(rng.uniform(0.0, 2.5))  # the link goes down, or not yet
                host = _host(workdir, twin=twin)
                if twin:
                    desk.host = host  # type: ignore[union-attr]
                else:
                    runner.host = host
            else:
                eng.kill()
                if power_cut and kind == "in":  # the power cut took the acceptor too
                    twins.cmd({"cmd": "bill", "line": "power"})
                eng.start()
            res.kills += 1
            if not _ready(eng, host):
                res.failures.append(f"kill {i}: the link did not come up again\n{eng.output()}")
                break
            truth = _calm(eng, desk)
            now = desk.snapshot()
            if kind == "in":
                res.kinds[f"in_ended_{now[number][1] if number in now else 'unknown'}"] += 1
            else:
                made = [st for _, st in list(now.values())[before:]]
                res.kinds["out_ended_ticket" if "valid" in made else "out_ended_handpay"] += 1
            try:
                check(eng.journal, truth, desk)
                res.checks += 1
            except AssertionError as e:
                res.failures.append(f"kill {i} ({kind}): {e}\n{eng.output()}")
                break
    finally:
        runner.stop.set()
        eng.stop()
        host.close()
        twins.stop()
    res.kinds.update(desk.counts)
    if twin:
        res.kinds.update({f"twin_{k}": v for k, v in host.tito.counts.items()})
    return res


def _credits(eng: EngineProc) -> int:
    return int(((eng.snapshot or {}).get("stations") or [{}])[0].get("credits_minor", 0))


def box_soak(workdir: Path, kills: int, seed: int = 1) -> TitoResult:
    """Validation "none" (the cabinet's own vouchers): ``kills`` times a voucher this
    cabinet printed goes back in, the acceptor loses power at STACKING or VEND VALID,
    the engine is SIGKILLed at a random moment and the acceptor power-cycled; after the
    restart (the attendant's key on any review) the voucher is credited once if it is
    in the cash box (its record redeemed) and not at all otherwise (record still
    issued); the journal adds up and agrees with the twins (``check_physical_truth``)."""
    from cabinet.shell.store import Store

    from .crash_harness import check_physical_truth

    rng = random.Random(seed)
    res = TitoResult()
    twins = TwinProc(workdir)
    twins.start()
    eng = EngineProc(workdir, twins=twins)
    try:
        eng.start()
        for i in range(kills):
            number = ""
            for _ in range(3):  # a voucher of ours to put back
                if _credits(eng) <= 0:
                    eng.sim({"cmd": "note", "amount_minor": rng.choice([500, 1_000, 2_000])})
                    deadline = time.monotonic() + 5
                    while time.monotonic() < deadline and _credits(eng) <= 0:
                        time.sleep(0.05)
                before = set(twins.cmd({"cmd": "truth"}).get("tickets", []))
                eng.intent("cash_out")
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline and (
                    not set(twins.cmd({"cmd": "truth"}).get("tickets", [])) - before
                    or (eng.snapshot or {}).get("mode") not in ("attract", "betting")
                ):
                    time.sleep(0.05)
                new = set(twins.cmd({"cmd": "truth"}).get("tickets", [])) - before
                if len(new) == 1:
                    number = new.pop()
                    break
                res.kinds["cash_out_without_ticket"] += 1  # a handpay: paid, try again
                _calm(eng, TicketDesk())
            if not number:
                res.failures.append(f"kill {i}: no voucher printed in 3 cash-outs")
                break
            time.sleep(0.3)  # the print is journaled
            where = rng.choice(["stacking", "vend_valid"])
            twins.cmd({"cmd": "power_at", "state": where})
            res.kinds[f"power_at_{where}"] += 1
            eng.sim({"cmd": "voucher", "validation_number": number})
            time.sleep(rng.uniform(0.0, 1.0))
            eng.kill()
            twins.cmd({"cmd": "bill", "line": "power"})
            eng.start()
            res.kills += 1
            truth = _calm(eng, TicketDesk())
            try:
                assert truth, "the table did not calm down"
                verify_journal(eng.journal)
                check_physical_truth(eng.journal, truth)
                store = Store(eng.journal, readonly=True)
                try:
                    rec = next(v for v in store.vouchers(10**6) if v.validation_number == number)
                    ins = [
                        e
                        for e in store.all_events()
                        if e["kind"] == "voucher_in" and e["data"].get("validation_number") == number
                    ]
                finally:
                    store.close()
                in_box = number in truth["vouchers_stacked"]
                assert len(ins) == (1 if in_box else 0), f"{number[-4:]} credited {len(ins)} times"
                assert rec.status == ("redeemed" if in_box else "issued"), f"{number[-4:]} {rec.status}"
                res.kinds["in_box_credited_once" if in_box else "handed_back_still_issued"] += 1
                res.kinds["by_the_key" if ins and ins[0]["data"].get("via") == "attendant" else "by_the_acceptor"] += (
                    bool(ins)
                )
                res.checks += 1
            except AssertionError as e:
                res.failures.append(f"kill {i}: {e}")
                break
    finally:
        eng.stop()
        twins.stop()
    return res

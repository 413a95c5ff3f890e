"""Two cabinets and the casino host twin: a ticket must never be paid twice.

Cabinet A (SAS address 1) cashes out through system validation (0x57/0x58) and loses
power (SIGKILL; its printer twin lives on) at a random moment of the print; while it
is down the newest ticket its printer cut is inserted at cabinet B (address 2), which
asks the host to redeem it (0x67/0x70/0x71). Now and then B is killed mid-redemption
too, or the host twin is closed and a new one started on the same ptys and database.
Then A restarts: an unknown print is settled with the host before any handpay
(``cabinet.core.tito_claims``), and the host redeems no number whose print A has not
confirmed (``drivers.sim.sas_host_tickets``).

After every round, with device and host truth: both journals add up
(``verify_journal``); every validation number is paid at most once (credited at B,
credited back at A, or handpaid at A); every ticket the host redeemed was stacked at B
and credited there for its amount; every ticket A's printer cut is counted out by A
(and then valid or redeemed at the host) or handpaid by A (and then void at the host),
never both, never neither; A owes nothing (no pending cash-out left).

Used by ``tests/integration/test_tito_floor.py`` (a few kills) and
``bench/tito_crash.py --flow floor`` (the full runs).
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.sim.sas_host import SasHost

from .crash_harness import EngineProc, TwinProc, settle, verify_journal

SYSTEM_ID = 7
#: A cash-out's print (0x57 .. the printer's verdict) fits in this window (tito_harness);
#: the other kills wait for the host's number (0x58) or the printer's cut and kill then.
WINDOW_OUT_S = 0.8
#: B's redemption (0x67 .. final 0x71) fits in this one.
WINDOW_IN_S = 0.45


@dataclass
class FloorResult:
    kills: int = 0
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)


def _host(workdir: Path) -> SasHost:
    host = SasHost(
        [1, 2],
        directory=workdir / "host",
        db_path=workdir / "host.sqlite3",
        poll_interval_s=0.05,
        meter_interval_s=5.0,
        link_down_s=1.5,
    )
    host.tito.config.system_id = SYSTEM_ID
    host.tito.config.expiry_days = None
    return host


def _engine(workdir: Path, name: str, host: SasHost, address: int) -> tuple[TwinProc, EngineProc]:
    d = workdir / name
    d.mkdir(parents=True, exist_ok=True)
    d.chmod(0o700)  # the journal folder is private
    cfg = d / "cabinet.toml"
    cfg.write_text('[sas]\nvalidation = "system"\nvalidation_timeout_s = 5\n')
    twins = TwinProc(d)
    twins.start()
    eng = EngineProc(
        d,
        twins=twins,
        extra_args=["--config", str(cfg), "--sas-port", host.path(address), "--sas-address", str(address)],
    )
    return twins, eng


def _station(eng: EngineProc) -> dict[str, Any]:
    return dict(((eng.snapshot or {}).get("stations") or [{}])[0])


def _ready(eng: EngineProc, host: SasHost, address: int, timeout_s: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if host.link_up(address) and _station(eng).get("host_link") == "online":
            return True
        time.sleep(0.05)
    return False


def _pending_at_host(host: SasHost) -> bool:
    return any(r["state"] == "pending" for r in host.tickets.tickets())


def _calm(engines: list[EngineProc], host: SasHost, timeout_s: float = 30.0) -> list[dict[str, Any]]:
    """The attendant pays every handpay and clears every review (key); wait until no
    ticket is pending at the host and both tables are back to play; the twins' truth."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        modes = [(e.snapshot or {}).get("mode") for e in engines]
        keyed = False
        for e, mode in zip(engines, modes, strict=True):
            review = mode == "tilt" and any(c in str((e.snapshot or {}).get("overlay_text")) for c in ("306", "307"))
            if mode == "handpay" or review:
                e.sim({"cmd": "key", "on": True})
                time.sleep(0.1)
                e.sim({"cmd": "key", "on": False})
                keyed = True
        if keyed:
            time.sleep(0.3)
            continue
        if all(m in ("attract", "betting") for m in modes) and not _pending_at_host(host):
            truths = [settle(e, 3.0) for e in engines]
            if all(truths) and not _pending_at_host(host):
                return truths
        time.sleep(0.1)
    return []


def _events(journal: Path) -> list[tuple[str, int, dict[str, Any]]]:
    import json

    db = sqlite3.connect(journal)
    try:
        return [
            (k, a, json.loads(d))
            for k, a, d in db.execute("SELECT kind, amount_minor, data FROM events WHERE station = 1 ORDER BY id")
        ]
    finally:
        db.close()


def check_floor(
    a: EngineProc, b: EngineProc, truth_a: dict[str, Any], truth_b: dict[str, Any], host: SasHost
) -> dict[str, int]:
    """The invariants of the module doc; returns the ticket outcomes counted."""
    assert truth_a and truth_b, "an acceptor or a printer did not settle"
    state_a = verify_journal(a.journal)["state"]
    verify_journal(b.journal)
    assert state_a.stations[0].pending_out_minor == 0, "A still owes a cash-out"
    ev_a, ev_b = _events(a.journal), _events(b.journal)
    rows = {r["number"]: r for r in host.tickets.tickets()}
    # paid: credited at B (through the host), credited back at A, handpaid at A
    paid: Counter[str] = Counter()
    for k, _, d in ev_b:
        if k == "voucher_in" and d.get("via") == "host":
            paid[d["validation_number"]] += 1
    for k, _, d in ev_a:
        if (k == "voucher_in" and d.get("via") == "host") or (k == "handpay_reset" and d.get("validation_number")):
            paid[d["validation_number"]] += 1
    twice = {n[-4:]: c for n, c in paid.items() if c > 1}
    assert not twice, f"paid twice: {twice}"
    # every ticket the host redeemed was stacked at B and credited there for its amount
    redeemed_at_b = {n for n, r in rows.items() if r["state"] == "redeemed" and r["redeemed_by"] == 2}
    stacked = set(truth_b["vouchers_stacked"])
    assert redeemed_at_b <= stacked, f"redeemed at the host, not in B's box: {redeemed_at_b - stacked}"
    for k, amt, d in ev_b:
        if k == "voucher_in" and d.get("via") == "host":
            r = rows[d["validation_number"]]
            assert r["state"] == "redeemed" and r["amount"] == amt, f"B credited {d['validation_number'][-4:]}"
    credited_b = {d["validation_number"] for k, _, d in ev_b if k == "voucher_in" and d.get("via") == "host"}
    assert credited_b == redeemed_at_b, (
        f"B credited {sorted(x[-4:] for x in credited_b)}, host redeemed by B {sorted(x[-4:] for x in redeemed_at_b)}"
    )
    # every ticket A's printer cut: counted out by A, or handpaid by A; never both
    printed = {d["validation_number"] for k, _, d in ev_a if k == "voucher_printed"}
    handpaid = {d["validation_number"] for k, _, d in ev_a if k == "handpay_reset" and d.get("validation_number")}
    assert not printed & handpaid, f"counted out and handpaid: {printed & handpaid}"
    out = Counter[str]()
    for n in truth_a["tickets"]:
        r = rows.get(n)
        assert r is not None, f"A cut {n[-4:]}, unknown at the host"
        if n in printed:
            assert r["state"] in ("printed", "pending", "redeemed"), f"{n[-4:]} printed, host {r['state']}"
            out["cut_counted_out"] += 1
        else:
            assert n in handpaid, f"A cut {n[-4:]}: neither counted out nor handpaid"
            assert r["state"] == "void", f"{n[-4:]} handpaid by A, host says {r['state']}"
            out["cut_handpaid"] += 1
    for n in printed:
        assert rows[n]["state"] in ("printed", "pending", "redeemed"), f"{n[-4:]} printed, host {rows[n]['state']}"
    for n, r in rows.items():
        if r["state"] == "printed":
            assert n in printed, f"host has {n[-4:]} printed; A did not count it out"
    return dict(out)


def floor_soak(workdir: Path, kills: int, seed: int = 1) -> FloorResult:
    """``kills`` rounds of the module doc's scenario; ``check_floor`` after each."""
    rng = random.Random(seed)
    res = FloorResult()
    host = _host(workdir)
    twins_a, a = _engine(workdir, "a", host, 1)
    twins_b, b = _engine(workdir, "b", host, 2)
    inserted: set[str] = set()
    last: dict[str, int] = {}
    try:
        a.start()
        b.start()
        for i in range(kills):
            if not (_ready(a, host, 1) and _ready(b, host, 2)):
                res.failures.append(f"round {i}: a link did not come up")
                break
            credits = int(_station(a).get("credits_minor", 0))
            if credits <= 0:
                a.sim({"cmd": "note", "amount_minor": rng.choice([1_000, 2_000, 5_000])})
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and int(_station(a).get("credits_minor", 0)) <= 0:
                    time.sleep(0.05)
            cut_before = set(twins_a.cmd({"cmd": "truth"}).get("tickets", []))
            issued_before = len(host.tickets.tickets(1))
            a.intent("cash_out")
            mode = rng.choice(["random", "issued", "cut", "cut"])
            res.kinds[f"a_kill_{mode}"] += 1
            if mode == "random":
                time.sleep(rng.uniform(0.0, WINDOW_OUT_S))
            else:  # the moment the host issued the number, or the printer cut it
                deadline = time.monotonic() + 5.0
                while time.monotonic() < deadline and (
                    len(host.tickets.tickets(1)) <= issued_before
                    if mode == "issued"
                    else not set(twins_a.cmd({"cmd": "truth"}).get("tickets", [])) - cut_before
                ):
                    time.sleep(0.002)
                time.sleep(rng.choice([0.0, 0.0, rng.uniform(0.0, 0.03)]))
            a.kill()  # A loses power mid-print (or not)
            res.kills += 1
            cut = [n for n in twins_a.cmd({"cmd": "truth"}).get("tickets", []) if n not in cut_before]
            res.kinds["a_cut_before_kill" if cut else "a_nothing_cut"] += 1
            fresh = [n for n in twins_a.cmd({"cmd": "truth"}).get("tickets", []) if n not in inserted]
            if fresh and rng.random() < 0.9:  # the player takes it to B
                number = fresh[-1]
            else:  # or an old one again
                number = rng.choice(sorted(inserted)) if inserted else ""
            if number:
                inserted.add(number)
                b.sim({"cmd": "voucher", "validation_number": number})
                res.kinds["b_inserted"] += 1
                time.sleep(rng.uniform(0.0, WINDOW_IN_S))
                if rng.random() < 0.3:  # B loses power mid-redemption
                    b.kill()
                    res.kills += 1
                    res.kinds["b_killed"] += 1
                    b.start()
            if rng.random() < 0.2:  # the host restarts
                host.close()
                time.sleep(rng.uniform(0.0, 2.0))
                host = _host(workdir)
                res.kinds["host_restarted"] += 1
            time.sleep(rng.uniform(0.0, 1.5))  # A stays down a while
            a.start()
            truths = _calm([a, b], host)
            if not truths:
                res.failures.append(
                    f"round {i}: the floor did not calm down "
                    f"(A {(a.snapshot or {}).get('mode')}, B {(b.snapshot or {}).get('mode')})"
                )
                break
            try:
                last = check_floor(a, b, truths[0], truths[1], host)
                res.checks += 1
            except AssertionError as e:
                res.failures.append(f"round {i}: {e}")
                break
    finally:
        for e in (a, b):
            e.stop()
        host.close()
        twins_a.stop()
        twins_b.stop()
    res.kinds.update(last)  # the tickets A cut, as the last check found them
    res.kinds.update({f"twin_{k}": v for k, v in host.tito.counts.items()})
    return res

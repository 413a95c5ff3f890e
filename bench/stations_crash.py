"""Crash test of a three-station table: SIGKILL the engine at random points while
stations cash out on their own printers at the same time (``--case cashout``), or
while notes go in at a station no screen draws beside one that is drawn (``--case
dark``); restart, and check every station's meters against its twins' physical truth.

Run: ``.venv/bin/python bench/stations_crash.py --case cashout|dark [--kills N]
[--seed S] [--out FILE]``. Bounded: N kills (default 50), a few minutes.

The serial twins of the three stations (bill acceptors, printers) run in a process
of their own (``cabinet sim-devices --stations 3``) that survives every kill, as real
devices do. After every kill the journal is checked (``verify_journal``: each
station's credits and meters equal its journaled events), and after every restart,
once the devices are idle, each station's meters against its twins
(``check_physical_truth``): notes credited + notes under review == its cash box, each
ticket counted out was cut by its own printer, every other cut ticket a handpay.

``cashout``: notes in at stations 1 and 2, then Cash Out at station 1 and, 0-1.2 s
later, at station 2 (both tickets printing at once, each on its own printer); the
kill falls anywhere in that, or in the handpays after. Also checked: a second
station's cash-out is never refused ("not legal" would leave its credits).
``dark``: the display reports frames for station 1's own screen only; notes go in at
stations 1 and 2 (killed now and then with one on its way). Also checked: station 2,
which no screen draws, never takes a note (its cash box and bill meter stay 0).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cabinet.core.machine import new_state  # noqa: E402
from cabinet.core.settings import GameSettings  # noqa: E402
from cabinet.protocol.ipc import FRAME_HEARTBEAT_S  # noqa: E402
from cabinet.shell.store import Store  # noqa: E402
from tests import procs  # noqa: E402
from tests.integration.crash_harness import (  # noqa: E402
    READY_TIMEOUT_S,
    EngineProc,
    TwinProc,
    check_physical_truth,
    verify_journal,
)

STATIONS = 3


class Twins3(TwinProc):
    """``cabinet sim-devices --stations 3``."""

    def start(self) -> None:
        self.child = procs.Child(
            [sys.executable, "-m", "cabinet", "sim-devices", "--state-dir", str(self.dir), "--stations", str(STATIONS)],
            name="sim-devices",
        )
        self.proc = self.child.proc
        self.child.wait_for("sim devices ready", READY_TIMEOUT_S)
        import socket

        self._conn = socket.socket(socket.AF_UNIX)
        self._conn.connect(str(self.sock))
        self._conn.settimeout(10)
        self._file = self._conn.makefile("rw")


class Table3(EngineProc):
    """The engine of a three-station table; its display draws ``screen`` (None: the
    whole table; n: station n's own screen only)."""

    screen: int | None = None

    def _beat(self, s: Any) -> None:
        frame = {"type": "frame"} if self.screen is None else {"type": "frame", "station": self.screen}
        line = json.dumps(frame).encode() + b"\n"
        while True:
            try:
                with self._ui_lock:
                    s.sendall(line)
            except OSError:
                return
            time.sleep(FRAME_HEARTBEAT_S / 2)

    def press(self, station: int, action: str) -> None:
        assert self._ui is not None
        try:
            with self._ui_lock:
                self._ui.sendall(json.dumps({"type": "intent", "station": station, "action": action}).encode() + b"\n")
        except OSError:
            pass


def _station(snap: dict[str, Any] | None, n: int) -> dict[str, Any]:
    stations = (snap or {}).get("stations") or []
    return stations[n - 1] if len(stations) >= n else {}


def settle(eng: Table3, timeout_s: float = 12.0) -> dict[int, dict[str, Any]]:
    """Every station's twins idle and no ticket printing: ``{station: truth}`` ({} if not)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        truths = {n: eng.sim({"cmd": "truth", "station": n}) for n in range(1, STATIONS + 1)}
        printing = (
            any(_station(eng.snapshot, n).get("message", "").startswith("Printing") for n in range(1, STATIONS + 1))
            or (eng.snapshot or {}).get("mode") == "cash_out"
        )
        if all(t.get("idle") for t in truths.values()) and not printing:
            time.sleep(0.1)
            again = {n: eng.sim({"cmd": "truth", "station": n}) for n in range(1, STATIONS + 1)}
            if all(
                again[n].get("idle")
                and again[n].get("cash_box_minor") == truths[n].get("cash_box_minor")
                and again[n].get("tickets") == truths[n].get("tickets")
                for n in truths
            ):
                return again
        time.sleep(0.1)
    return {}


def _attend(eng: Table3) -> str | None:
    """A handpay or a note review waits for the attendant: turn the key once."""
    mode = (eng.snapshot or {}).get("mode")
    if mode in ("handpay", "tilt", "maintenance"):
        if mode != "maintenance":
            eng.sim({"cmd": "key", "on": True})
            time.sleep(0.12)
        eng.sim({"cmd": "key", "on": False})
        time.sleep(0.2)
        return f"key_{mode}"
    return None


def _credit(eng: Table3, n: int, amount: int, wait_s: float) -> None:
    before = _station(eng.snapshot, n).get("credits_minor", 0)
    eng.sim({"cmd": "note", "amount_minor": amount, "station": n})
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and _station(eng.snapshot, n).get("credits_minor", 0) == before:
        time.sleep(0.03)


def _cashout_round(eng: Table3, rng: random.Random, kinds: Counter[str], refusals: list[str]) -> None:
    """Notes at 1 and 2, Cash Out at 1, then at 2 within 1.2 s; kill somewhere."""
    for _ in range(3):
        if (k := _attend(eng)) is None:
            break
        kinds[k] += 1
    for n in (1, 2):
        if _station(eng.snapshot, n).get("credits_minor", 0) < 500:
            _credit(eng, n, rng.choice([500, 1000, 2000, 5000]), 3.0)
    eng.press(1, "cash_out")
    time.sleep(rng.uniform(0.0, 1.2))
    credits2 = _station(eng.snapshot, 2).get("credits_minor", 0)
    eng.press(2, "cash_out")
    kinds["two_cash_outs"] += 1
    if rng.random() < 0.5:  # see station 2's cash-out taken before the kill
        deadline = time.monotonic() + 2.0
        while (
            time.monotonic() < deadline and credits2 and _station(eng.snapshot, 2).get("credits_minor", 0) == credits2
        ):
            time.sleep(0.03)
        if (
            credits2
            and _station(eng.snapshot, 2).get("credits_minor", 0) == credits2
            and (eng.snapshot or {}).get("mode") in ("attract", "betting")
        ):
            refusals.append(f"station 2 kept {credits2} after its Cash Out (mode {(eng.snapshot or {}).get('mode')})")
        kinds["waited_for_station_2"] += 1
    time.sleep(rng.uniform(0.0, 2.5))  # the kill: before, during or after the prints


def _dark_round(eng: Table3, rng: random.Random, kinds: Counter[str]) -> None:
    """Notes at the drawn station 1 and the dark station 2; kill with one on its way."""
    for _ in range(3):
        if (k := _attend(eng)) is None:
            break
        kinds[k] += 1
    for _ in range(rng.randint(1, 4)):
        n = rng.choice([1, 2])
        if rng.random() < 0.15:
            eng.sim({"cmd": "power_at", "state": rng.choice(["stacking", "vend_valid"]), "station": n})
            kinds[f"power_cut_station_{n}"] += 1
        _credit(eng, n, rng.choice([500, 1000, 2000, 5000]), rng.uniform(0.0, 2.0))
        kinds[f"note_station_{n}"] += 1
    if rng.random() < 0.3 and "cash_out" in _station(eng.snapshot, 1).get("lamps", []):
        eng.press(1, "cash_out")
        kinds["cash_out_station_1"] += 1
    time.sleep(rng.uniform(0.0, 1.0))


def run(workdir: Path, case: str, kills: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    store = Store(workdir / "journal.db")
    store.commit(new_state(GameSettings(variant="classic-multi", stations=STATIONS)), None, [], time.time())
    store.close()
    twins = Twins3(workdir)
    twins.start()
    eng = Table3(workdir, twins)
    eng.screen = 1 if case == "dark" else None
    kinds: Counter[str] = Counter()
    failures: list[str] = []
    refusals: list[str] = []
    truth_checks = 0
    done = 0
    try:
        for _ in range(kills):
            eng.start()
            truths = settle(eng)
            try:
                assert truths, "the devices did not settle"
                for n in range(1, STATIONS + 1):
                    check_physical_truth(eng.journal, truths[n], station=n)
                    truth_checks += 1
                if case == "dark":
                    s2 = verify_journal(eng.journal)["state"].stations[1]
                    assert truths[2]["cash_box_minor"] == 0 == s2.meters.bills_in_minor, (
                        f"station 2, drawn by no screen, took notes: {truths[2]}"
                    )
            except AssertionError as e:
                failures.append(f"after restart {done}: {e}")
                eng.kill()
                break
            if case == "cashout":
                _cashout_round(eng, rng, kinds, refusals)
            else:
                _dark_round(eng, rng, kinds)
            eng.kill()
            done += 1
            if rng.random() < 0.1:  # the power cut took an acceptor too
                n = rng.choice([1, 2])
                twins.cmd({"cmd": "bill", "line": "power", "station": n})
                kinds[f"acceptor_power_cut_engine_dead_{n}"] += 1
            try:
                verify_journal(eng.journal)
            except AssertionError as e:
                failures.append(f"after kill {done}: {e}")
                break
        # the last restart: every station settled and checked once more
        eng.start()
        for _ in range(4):
            _attend(eng)
        truths = settle(eng)
        for n in range(1, STATIONS + 1):
            try:
                check_physical_truth(eng.journal, truths.get(n, {}), station=n)
                truth_checks += 1
            except AssertionError as e:
                failures.append(f"final: station {n}: {e}")
        final = verify_journal(eng.journal)["state"]
        totals = {
            st.station: {
                "bills_in_minor": st.meters.bills_in_minor,
                "vouchers_out_minor": st.meters.vouchers_out_minor,
                "vouchers_out_count": st.meters.vouchers_out_count,
                "handpay_minor": st.meters.handpay_minor,
                "credits_minor": st.credits_minor,
                "cash_box_minor": truths.get(st.station, {}).get("cash_box_minor"),
                "tickets_cut": len(truths.get(st.station, {}).get("tickets", [])),
            }
            for st in final.stations
        }
    finally:
        eng.stop()
        twins.stop()
    return {
        "case": case,
        "seed": seed,
        "kills": done,
        "truth_checks": truth_checks,
        "failures": failures,
        "refused_second_cash_outs": refusals,
        "kinds": dict(kinds.most_common()),
        "stations": totals,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=("cashout", "dark"), required=True)
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.kills < 1:
        ap.error("--kills must be >= 1")
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="stations-crash-") as d:
        res = run(Path(d), args.case, args.kills, args.seed)
    res["minutes"] = round((time.monotonic() - t0) / 60, 1)
    line = json.dumps(res)
    print(line)
    if args.out:
        with args.out.open("a") as f:
            f.write(line + "\n")
    return 0 if not res["failures"] and not res["refused_second_cash_outs"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

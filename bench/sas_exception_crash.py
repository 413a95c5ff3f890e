"""SAS exceptions across SIGKILLs: none lost, at most the one in flight repeated per kill.

Run: ``.venv/bin/python bench/sas_exception_crash.py [--kills 50] [--seed 1] [--out FILE]
[--real-time-events]``.  With ``--real-time-events`` the host turns 0x0E on after every
start of the engine (the EGM forgets it on a restart), so the exceptions come as
real-time events, some in place of a long poll's reply.

The casino host twin (``drivers.sim.sas_host.SasHost``, polling every 50 ms, or
``--poll-ms``: a fast host outruns the engine's journal, which is when repeats pile up) lives in
this process and outlives the engine, which runs as its own process on the twin's pty
(``cabinet engine --sas-port``). Each cycle: the host stops polling, the engine's mock
panel opens and closes doors 2 to 8 times (each move a journaled exception), the
host polls again and drains the backlog, and the engine is SIGKILLed at a random
moment of the drain (0 to 1.2 s in). Then, with the engine dead:

- host truth: every exception the host twin has read so far (its sightings);
- journal truth: the station's committed queue (what is not yet acknowledged) and
  its next event id (so how many were ever queued, and how many acknowledged).

Sightings beyond what the journal counts as acknowledged (minus the repeats already
counted) are exceptions the host has that the restarted engine sends again: that
kill's repeats. The engine restarts, the backlog drains, the next cycle begins. At
the end, with the queue empty, the host's sightings must equal every exception ever
queued plus the repeats counted (none lost, none repeated beyond). The bound checked
per kill: at most 1 (DESIGN.md: the one in flight).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cabinet.shell.store import Store  # noqa: E402
from drivers.sim.sas_host import SasHost  # noqa: E402
from tests.integration.crash_harness import EngineProc  # noqa: E402

DOORS = ("main", "cashbox")


def journal_queue(journal: Path) -> tuple[list[int], int]:
    """(the ids still queued for station 1, its next event id), as committed."""
    store = Store(journal, readonly=True)
    try:
        state = store.load_readonly()
    finally:
        store.close()
    assert state is not None, "no good copy of the cabinet state"
    h = state.stations[0].host
    return [e.event_id for e in h.queue], h.next_event_id


def wait_until(cond: object, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if callable(cond) and cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def settle(eng: EngineProc, host: SasHost, timeout_s: float = 20.0) -> None:
    """Until the journal's queue is empty and the host has read nothing new for 0.5 s."""
    deadline = time.monotonic() + timeout_s
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        seen = len(host.exceptions(1))
        if seen != last:
            last, since = seen, time.monotonic()
        elif time.monotonic() - since > 0.5 and not journal_queue(eng.journal)[0]:
            return
        time.sleep(0.05)
    raise AssertionError("the exception queue did not drain")


def run(workdir: Path, kills: int, seed: int, poll_ms: float = 50.0, rte: bool = False) -> dict[str, object]:
    rng = random.Random(seed)
    host = SasHost(
        [1], directory=workdir / "host", poll_interval_s=poll_ms / 1000.0, meter_interval_s=3600.0, link_down_s=2.0
    )
    eng = EngineProc(workdir, extra_args=["--sas-port", host.tty(1), "--sas-address", "1"])
    per_kill: list[int] = []
    repeats_total = 0
    door_open = {d: False for d in DOORS}
    try:
        eng.start()
        wait_until(lambda: host.link_up(1), 20, "the host link")
        if rte:
            assert host.real_time_events(1), "0x0E was not ACKed"
        settle(eng, host)
        for _ in range(kills):
            host.pause()
            for _ in range(rng.randint(2, 8)):
                door = rng.choice(DOORS)
                door_open[door] = not door_open[door]
                eng.sim({"cmd": "door", "door": door, "open": door_open[door]})
                time.sleep(0.3)  # a door move is held 0.25 s (debounce)
            time.sleep(0.2)
            host.resume()
            time.sleep(rng.uniform(0.0, 1.2))
            eng.kill()
            time.sleep(0.3)  # a reply already on the wire is read
            seen = len(host.exceptions(1))
            queued, next_id = journal_queue(eng.journal)
            acked = next_id - 1 - len(queued)
            repeats = seen - acked - repeats_total
            assert repeats >= 0, f"the host has {-repeats} fewer than the journal acknowledged"
            per_kill.append(repeats)
            repeats_total += repeats
            door_open = {d: False for d in DOORS}  # the restarted panel twin starts shut
            eng.start()
            wait_until(lambda: host.link_up(1), 20, "the host link after the restart")
            if rte:
                assert host.real_time_events(1), "0x0E was not ACKed after the restart"
            settle(eng, host)
        queued, next_id = journal_queue(eng.journal)
        seen = len(host.exceptions(1))
        lost = (next_id - 1) + repeats_total - seen
        names = Counter(e.name for e in host.exceptions(1))
    finally:
        eng.stop()
        host.close()
    return {
        "kills": kills,
        "queued": next_id - 1,
        "seen": seen,
        "repeats": repeats_total,
        "max_per_kill": max(per_kill, default=0),
        "kills_with_repeat": sum(1 for r in per_kill if r),
        "lost": lost,
        "left_in_queue": len(queued),
        "names": dict(names),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--poll-ms", type=float, default=50.0, help="the host twin's pause between polls (default 50 ms)")
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--real-time-events", action="store_true", help="the host turns real-time event reporting (0x0E) on"
    )
    args = ap.parse_args()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sas-exc-crash-") as d:
        r = run(Path(d), args.kills, args.seed, args.poll_ms, args.real_time_events)
    ok = r["lost"] == 0 and r["left_in_queue"] == 0 and int(str(r["max_per_kill"])) <= 1
    summary = (
        f"SAS exceptions across SIGKILLs (seed {args.seed}, host polls every "
        f"{args.poll_ms:g} ms{', real-time events' if args.real_time_events else ''}): "
        f"{r['kills']} kills, "
        f"{r['queued']} exceptions queued, {r['seen']} read by the host twin, "
        f"{r['lost']} lost, {r['repeats']} repeated ({r['kills_with_repeat']} kills "
        f"with a repeat, at most {r['max_per_kill']} in one kill; bound 1), "
        f"{r['left_in_queue']} left queued, {(time.monotonic() - t0) / 60:.1f} min: "
        f"{'PASS' if ok else 'FAIL'}\n  read: {r['names']}"
    )
    print(summary)
    if args.out:
        with args.out.open("a") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M ") + summary + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

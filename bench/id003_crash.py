"""ID-003 link faults across SIGKILLs, against the acceptor twin's physical truth.

Run: ``.venv/bin/python bench/id003_crash.py --case garble|jam_at_ack [--kills 50]
[--seed 1] [--out FILE]``.

The acceptor and printer twins run in a process of their own (``cabinet
sim-devices``) that outlives every kill; the engine runs as its own process on
their ptys. Each cycle inserts one note through the fault under test and SIGKILLs
the engine at a random moment of it:

- ``garble``: the acceptor's replies turn to garbage (wrong baud or parity) as the
  note reaches escrow. While the engine lives, the driver sends RETURN and inhibit
  blind: the note must leave escrow within ``HELD_MAX_S`` (handed back), never be
  stacked during the fault. The link heals before or after the kill, at random.
- ``jam_at_ack``: the note jams in the stacker after VEND VALID, before the ACK
  (the twin loses it). The jam is cleared while an engine runs: before the kill
  when it lasted ``JAM_SEEN_S`` by then, else after the restart (a jam cleared while
  no engine runs is never seen: a credited note then looks stacked, and the person
  who cleared it has it in hand). Credited or not, it must be journaled possibly in
  the path (307): the meters may be above the cash box only by notes journaled
  ``note_in_path`` credited.

After every restart, once the acceptor is idle: the journal verifies
(``verify_journal``), and the meters equal the twin's cash box (notes credited +
notes in the stacker under review - credited notes possibly in the path); any
307/306 review is resolved with the attendant's key so the next cycle can take
notes. ``garble`` also counts how long each note was held in escrow.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cabinet.shell.store import Store  # noqa: E402
from tests.integration.crash_harness import (  # noqa: E402
    EngineProc,
    TwinProc,
    check_physical_truth,
    settle,
    verify_journal,
)

#: The longest a note may stay in escrow on a garbled link while the engine runs.
HELD_MAX_S = 1.5
#: How long a jam lasts before it may be cleared (clearing one takes a person).
JAM_SEEN_S = 0.5
NOTE_MINOR = 1000


def _events(journal: Path, kind: str) -> list[dict[str, Any]]:
    store = Store(journal, readonly=True)
    try:
        return [e for e in store.all_events() if e["kind"] == kind]
    finally:
        store.close()


def _ready(eng: EngineProc, twins: TwinProc, timeout_s: float = 15.0) -> None:
    """Resolve any note review with the key, then wait for an enabled acceptor."""
    deadline = time.monotonic() + timeout_s
    snap: dict[str, Any] = {}
    status = ""
    while time.monotonic() < deadline:
        snap = eng.snapshot or {}
        if snap.get("mode") == "tilt" and "30" in str(snap.get("overlay_text", "")):
            # a garble armed at escrow that fired only after the restart: healed here
            twins.cmd({"cmd": "bill", "line": "heal"})
            eng.sim({"cmd": "key", "on": True})
            time.sleep(0.3)
            eng.sim({"cmd": "key", "on": False})
            time.sleep(0.3)
            continue
        status = str(twins.cmd({"cmd": "bill", "line": "status"}).get("reply", ""))
        if snap.get("mode") in ("attract", "betting") and "inhibited=False" in status:
            return
        time.sleep(0.1)
    raise AssertionError(
        f"the cabinet did not take notes again: mode {snap.get('mode')}, "
        f"acceptor {status!r}, {snap.get('overlay_text')!r}"
    )


def _watch_escrow(
    twins: TwinProc, until: float, states: tuple[str, ...] = ("ESCROW", "HOLDING")
) -> tuple[float | None, float | None]:
    """Poll the twin until ``until``: (when it entered ``states``, when it left)."""
    entered = left = None
    while time.monotonic() < until:
        state = twins.cmd({"cmd": "truth"}).get("acceptor", "")
        now = time.monotonic()
        if state in states:
            entered = entered or now
        elif entered is not None and left is None:
            left = now
        time.sleep(0.02)
    return entered, left


def run(workdir: Path, case: str, kills: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    twins = TwinProc(workdir)
    twins.start()
    eng = EngineProc(workdir, twins)
    kinds: Counter[str] = Counter()
    held: list[float] = []
    failures: list[str] = []
    try:
        eng.start()
        for k in range(kills):
            try:
                _ready(eng, twins)
            except AssertionError as e:
                failures.append(f"before kill {k + 1}: {e}")
                break
            stacked_before = len(twins.cmd({"cmd": "truth"}).get("notes_stacked", []))
            if case == "garble":
                twins.cmd({"cmd": "garble_at", "state": "escrow"})
            else:
                twins.cmd({"cmd": "bill", "line": "jamack"})
            twins.cmd({"cmd": "note", "amount_minor": NOTE_MINOR})
            t0 = time.monotonic()
            kill_after = rng.uniform(0.0, 2.5 if case == "garble" else 1.5)
            states = ("ESCROW", "HOLDING") if case == "garble" else ("JAM_IN_STACKER",)
            entered, left = _watch_escrow(twins, t0 + kill_after, states)
            fix = {"cmd": "bill", "line": "heal" if case == "garble" else "clear"}
            heal_first = rng.random() < 0.5 and (
                case == "garble" or (entered is not None and time.monotonic() - entered >= JAM_SEEN_S)
            )
            if heal_first:
                twins.cmd(fix)
                kinds["fixed_before_the_kill"] += 1
            eng.kill()
            if not heal_first and case == "garble":
                time.sleep(rng.uniform(0.0, 0.5))
                twins.cmd(fix)
            if case == "garble":
                truth = twins.cmd({"cmd": "truth"})
                if len(truth.get("notes_stacked", [])) != stacked_before:
                    failures.append(f"kill {k + 1}: a note was stacked during the garbled link")
                if entered is not None and left is not None:
                    held.append(left - entered)
                    kinds["handed_back_while_running"] += 1
                    if left - entered > HELD_MAX_S:
                        failures.append(f"kill {k + 1}: note held {left - entered:.1f} s")
                elif entered is not None and kill_after - (entered - t0) > HELD_MAX_S:
                    failures.append(
                        f"kill {k + 1}: note still in escrow {kill_after - (entered - t0):.1f} s into the fault"
                    )
                else:
                    kinds["killed_before_it_left_escrow" if entered else "killed_before_escrow"] += 1
            try:
                verify_journal(eng.journal)
            except AssertionError as e:
                failures.append(f"after kill {k + 1}: {e}")
                break
            eng.start()
            if not heal_first and case == "jam_at_ack":
                time.sleep(rng.uniform(JAM_SEEN_S, 1.0))  # the restarted engine sees it
                twins.cmd(fix)
                kinds["cleared_after_the_restart"] += 1
            truth = settle(eng, 20.0)
            try:
                check_physical_truth(eng.journal, truth)
            except AssertionError as e:
                failures.append(f"physical truth after restart {k + 1}: {e}")
                break
        in_path = _events(eng.journal, "note_in_path")
        credited_in_path = sum(1 for e in in_path if e["data"].get("credited"))
        truth = twins.cmd({"cmd": "truth"})
    finally:
        eng.stop()
        twins.stop()
    return {
        "kills": kills,
        "kinds": dict(kinds),
        "held": held,
        "failures": failures,
        "in_path": len(in_path),
        "credited_in_path": credited_in_path,
        "cash_box_minor": truth.get("cash_box_minor"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=("garble", "jam_at_ack"), required=True)
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="id003-crash-") as d:
        r = run(Path(d), args.case, args.kills, args.seed)
    held = sorted(r["held"])
    extra = ""
    if args.case == "garble":
        extra = (
            f"; notes handed back while the engine ran: {len(held)}, held in escrow "
            f"median {held[len(held) // 2]:.2f} s, max {held[-1]:.2f} s (limit "
            f"{HELD_MAX_S} s)"
            if held
            else "; no note handed back while running"
        )
    else:
        extra = (
            f"; journaled possibly in the path (307): {r['in_path']} ({r['credited_in_path']} credited at VEND VALID)"
        )
    summary = (
        f"ID-003 {args.case} across SIGKILLs (seed {args.seed}): {r['kills']} kills, "
        f"journal and physical truth (cash box {r['cash_box_minor']}) checked after "
        f"each{extra}; {r['kinds']}; {len(r['failures'])} failures, "
        f"{(time.monotonic() - t0) / 60:.1f} min"
    )
    for f in r["failures"][:10]:
        summary += f"\n  FAILURE {f}"
    print(summary)
    if args.out:
        with args.out.open("a") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M ") + summary + "\n")
    return 1 if r["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())

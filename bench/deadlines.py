"""Deadlines at a Pi 4's speed: frame, press-to-screen and journal, old code and new, in one run.

Each figure is measured in a child process with one source tree first on
``PYTHONPATH`` (the old tree, ``git archive`` of ``--old-rev``, and this tree),
at this machine's speed and at a Pi 4's (every process of the measure in its own
cgroup v1 ``cpu`` group whose CFS quota is 1 ms of CPU per ``ratio`` ms, i.e. at
most 1/ratio of a core each: a slower core by duty cycle). The ratio comes from
``bench/pi_ratio.py`` (a published Pi 4 n-body time against the same code here),
run first unless ``--ratio`` is given.

- journal: ``--rounds`` rounds of basic play through ``Engine.step`` on a journal in
  a temporary folder (``--dir``); per round the CPU (``process_time``) and wall time
  spent in ``Store.commit``, median; against a bare 200-byte ``write`` + ``fsync``
  of a file in the same folder (median of 200). Target: per round at most 3x that.
- frame: the busiest table (three stations, a split, a blackjack, cards sliding and
  chips flying; ``bench/table_ui.py``'s) drawn at 1920x1080 off-screen; CPU per frame,
  median and p95 while animating, the same table at rest, and a bare full-screen
  blit of a 1920x1080 surface. Target: busiest frame at most 3 ms CPU here, 4x a
  bare blit.
- press-to-screen: the real engine (``--devices sim``) and a table UI at 1920x1080
  (SDL dummy driver) whose every drawn frame is timed (``CLOCK_MONOTONIC``, shared
  by the processes); a mock Bet+/Bet- press through the sim control socket (the pin
  goes low at once) until the UI has drawn a snapshot newer than the one on screen
  at the press. Target: p99 at most 15 ms here.

At Pi speed the CPU figures (``process_time``) do not change: they are reported
times the ratio; wall times are measured under the quota.

Run (as root for the cgroup): ``.venv/bin/python bench/deadlines.py [--old-rev REV]
[--ratio R] [--rounds 150] [--frames 120] [--presses 100] [--out bench/results/deadlines.txt]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CGROUP = Path("/sys/fs/cgroup/cpu")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


# -- throttling ------------------------------------------------------------------------------


def throttle(pid: int, ratio: float, tag: str) -> None:
    """Put process ``pid`` (every thread of it, and what it forks later) in a cgroup of
    its own limited to 1/``ratio`` of a core (CFS quota 1 ms per ``ratio`` ms)."""
    g = CGROUP / f"pispeed-{tag}-{pid}"
    g.mkdir(exist_ok=True)
    (g / "cpu.cfs_period_us").write_text(str(round(1000 * ratio)))
    (g / "cpu.cfs_quota_us").write_text("1000")
    (g / "cgroup.procs").write_text(str(pid))


def _remove_groups(tag: str) -> None:
    for g in CGROUP.glob(f"pispeed-{tag}-*"):
        try:
            g.rmdir()
        except OSError:
            pass


# -- the measures (run in a child, the tree under test first on the path) ----------------------


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def measure_journal(rounds: int, directory: str | None) -> dict[str, float]:
    import random

    from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
    from cabinet.core.machine import new_state
    from cabinet.core.settings import GameSettings
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    with tempfile.TemporaryDirectory(dir=directory) as d:
        store = Store(Path(d) / "journal.db")
        spent = [0.0, 0.0]
        commit = store.commit

        def timed(*a: Any, **k: Any) -> None:
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                commit(*a, **k)
            finally:
                spent[0] += time.process_time() - c0
                spent[1] += time.perf_counter() - w0

        store.commit = timed  # type: ignore[method-assign]
        eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0, wall_s=time.time)
        eng.cab.s = new_state(GameSettings(variant="classic"))
        eng.cab.rules = eng.cab.s.settings.validate()
        eng.step(PowerUp(0, time.time()))
        cpu, wall, fsyncs = [], [], []
        for n in range(rounds):
            if eng.cab.s.stations[0].credits_minor < 1000:
                eng.step(NoteStacked(1, 10_000, f"t{n}"))
            spent[:] = [0.0, 0.0]
            f0 = store.fsyncs
            st = eng.cab.s.stations[0]
            if not st.bets_minor or not st.bets_minor[0]:
                eng.step(IntentReceived(1, "bet_up"))
            eng.step(IntentReceived(1, "deal"))
            while eng.cab.mode == "in_round":
                legal = eng.cab.legal_actions(1)
                total = eng.cab.round._current()[1].total if "hit" in legal else 0
                eng.step(
                    IntentReceived(
                        1, "decline" if "decline" in legal else "hit" if total < 17 and "hit" in legal else "stand"
                    )
                )
            cpu.append(spent[0] * 1000)
            wall.append(spent[1] * 1000)
            fsyncs.append(store.fsyncs - f0)
        store.close()
        bare_cpu, bare_wall = [], []
        fd = os.open(Path(d) / "bare", os.O_WRONLY | os.O_CREAT, 0o600)
        for _ in range(200):
            c0, w0 = time.process_time(), time.perf_counter()
            os.pwrite(fd, b"x" * 200, 0)
            os.fsync(fd)
            bare_cpu.append((time.process_time() - c0) * 1000)
            bare_wall.append((time.perf_counter() - w0) * 1000)
        os.close(fd)
    return {
        "round_cpu_ms": statistics.median(cpu),
        "round_wall_ms": statistics.median(wall),
        "round_wall_p95_ms": _pct(wall, 95),
        "durable_commits": statistics.mean(fsyncs),
        "bare_cpu_ms": statistics.median(bare_cpu),
        "bare_wall_ms": statistics.median(bare_wall),
    }


def _busiest() -> tuple[Any, Any]:
    """(before, after): three stations mid-round; ``after`` adds cards and a settlement."""
    import msgspec

    from tests.ui.fixtures import MULTI_PLAY

    rep = msgspec.structs.replace
    st = list(MULTI_PLAY.stations)
    sp = st[0].spots[0]
    st[0] = rep(st[0], spots=[rep(sp, hands=[rep(sp.hands[0], cards=["TH", "7C", "2D"], total_text="19")])])
    sp2 = st[1].spots[0]
    st[1] = rep(
        st[1],
        spots=[
            rep(
                sp2,
                hands=[
                    rep(sp2.hands[0], cards=["8S", "3D", "QS"], total_text="21", active=False),
                    rep(sp2.hands[1], active=True),
                ],
            )
        ],
    )
    sp3 = st[2].spots[0]
    st[2] = rep(st[2], spots=[rep(sp3, hands=[rep(sp3.hands[0], outcome="blackjack", returned_minor=25_000)])])
    return MULTI_PLAY, rep(MULTI_PLAY, seq=MULTI_PLAY.seq + 1, stations=st)


def measure_frame(frames: int) -> dict[str, float]:
    import pygame

    from ui.animation import Animator
    from ui.render import Renderer

    pygame.display.init()
    pygame.font.init()
    size = (1920, 1080)
    before, after = _busiest()
    r, surf = Renderer(), pygame.Surface(size)
    r.draw(surf, before, 0, Animator())  # warm the caches (felt, sprites)
    busy, t_ms, anim = [], 0, Animator()
    for i in range(frames):
        if i % 40 == 0:
            anim = Animator()
            anim.on_snapshot(before, after, t_ms)
        c0 = time.process_time()
        r.draw(surf, after, t_ms, anim)
        busy.append((time.process_time() - c0) * 1000)
        t_ms += 16
    rest = []
    for _ in range(frames // 2):
        c0 = time.process_time()
        r.draw(surf, after, 10_000_000, None)
        rest.append((time.process_time() - c0) * 1000)
    src, dst, blit = pygame.Surface(size), pygame.Surface(size), []
    src.fill((10, 90, 40))
    for _ in range(frames):
        c0 = time.process_time()
        dst.blit(src, (0, 0))
        blit.append((time.process_time() - c0) * 1000)
    return {
        "busy_cpu_ms": statistics.median(busy),
        "busy_p95_ms": _pct(busy, 95),
        "rest_cpu_ms": statistics.median(rest),
        "blit_cpu_ms": statistics.median(blit),
    }


_PROBE = """
import sys, time
import ui.app
_draw = ui.app.App.draw
def draw(self, now_ms):
    _draw(self, now_ms)
    s = self.snapshot
    print(f"drawn {time.monotonic_ns()} {s.seq if s is not None else -1}", flush=True)
ui.app.App.draw = draw
from ui.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def measure_press(presses: int, ratio: float | None, tag: str) -> dict[str, float]:
    from cabinet.tools.demo_player import DemoPlayer
    from cabinet.tools.table_client import SimControl, TableWatch
    from tests.integration.table_procs import TableProcs

    drawn: list[tuple[int, int]] = []  # (monotonic ns, snapshot seq) of each frame
    cond = threading.Condition()
    with tempfile.TemporaryDirectory() as d:
        procs = TableProcs(Path(d), size="1920x1080")
        ui = watch = sim = None
        try:
            procs.start_engine()
            assert procs.engine is not None
            ui = subprocess.Popen(
                [sys.executable, "-c", _PROBE, "--socket", str(procs.sock), "--size", "1920x1080", "--no-sound"],
                env=procs.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )

            def read() -> None:
                assert ui is not None and ui.stdout is not None
                for line in ui.stdout:
                    m = re.match(r"drawn (\d+) (-?\d+)", line)
                    if m:
                        with cond:
                            drawn.append((int(m[1]), int(m[2])))
                            cond.notify_all()

            threading.Thread(target=read, daemon=True).start()
            with cond:
                cond.wait_for(lambda: drawn, 60)
            if ratio is not None:
                throttle(os.getpid(), ratio, tag)
                throttle(procs.engine.proc.pid, ratio, tag)
                throttle(ui.pid, ratio, tag)
            watch = TableWatch(procs.sock, authenticate=True).start()
            sim = SimControl(procs.sim_sock)
            DemoPlayer(watch, sim, strategy=None, say=lambda _t: None).insert_note(10_000)
            time.sleep(1.0)
            lat, lost = [], 0
            for i in range(presses):
                with cond:
                    shown = drawn[-1][1]
                t0 = time.monotonic_ns()
                sim.press("bet_up" if i % 2 == 0 else "bet_down")
                with cond:
                    ok = cond.wait_for(lambda shown=shown: drawn[-1][1] > shown, 3.0)
                    first = next((t for t, s in drawn if s > shown), None)
                if not ok or first is None:
                    lost += 1
                else:
                    lat.append((first - t0) / 1e6)
                time.sleep(0.3)  # the same button again after the panel's refire guard
        finally:
            for link in (sim, watch):
                if link is not None:
                    link.close()
            if ui is not None:
                ui.terminate()
                try:
                    ui.wait(10)
                except subprocess.TimeoutExpired:
                    ui.kill()
            procs.stop()
    return {
        "n": len(lat),
        "lost": lost,
        "median_ms": statistics.median(lat),
        "p99_ms": _pct(lat, 99),
        "max_ms": max(lat),
    }


def child(what: str, args: argparse.Namespace) -> int:
    ratio = args.pi_ratio
    if what == "press":
        out = measure_press(args.presses, ratio, args.tag)
    else:
        if ratio is not None:
            throttle(os.getpid(), ratio, args.tag)
        out = measure_journal(args.rounds, args.dir) if what == "journal" else measure_frame(args.frames)
    print("RESULT " + json.dumps(out), flush=True)
    return 0


# -- the run ------------------------------------------------------------------------------------


def run_child(tree: Path, what: str, ratio: float | None, args: argparse.Namespace) -> dict[str, float]:
    tag = f"{os.getpid()}-{what}"
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        what,
        "--rounds",
        str(args.rounds),
        "--frames",
        str(args.frames),
        "--presses",
        str(args.presses),
        "--tag",
        tag,
        *(["--dir", args.dir] if args.dir else []),
        *(["--pi-ratio", str(ratio)] if ratio is not None else []),
    ]
    env = dict(os.environ, PYTHONPATH=str(tree))
    try:
        p = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, timeout=1800, check=False)
    finally:
        time.sleep(0.2)
        _remove_groups(tag)
    m = re.search(r"^RESULT (.*)$", p.stdout, re.M)
    if m is None:
        raise RuntimeError(f"{what} in {tree} failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return dict(json.loads(m[1]))


def _rev(tree: Path, rev: str = "HEAD") -> str:
    return subprocess.run(
        ["git", "-C", str(tree), "log", "-1", "--format=%h %cs", rev], capture_output=True, text=True, check=True
    ).stdout.strip()


def _ratio() -> tuple[float, str]:
    out = subprocess.run(
        [sys.executable, str(HERE / "pi_ratio.py")], capture_output=True, text=True, check=True, timeout=900
    ).stdout.strip()
    return float(out.rsplit("ratio ", 1)[1]), out


def _lines(res: dict[tuple[str, str, str], dict[str, float]], ratio: float) -> list[str]:
    """The report: one line per figure, old and new, here and at Pi speed."""
    out = []
    for speed in ("normal", "pi"):
        k = 1.0 if speed == "normal" else ratio
        where = "here" if speed == "normal" else f"Pi speed (1/{ratio:.2f} core each)"
        for tree in ("old", "new"):
            f, j, p = res[(tree, speed, "frame")], res[(tree, speed, "journal")], res[(tree, speed, "press")]
            out += [
                f"{where:28s} {tree}: busiest 1080p frame {f['busy_cpu_ms'] * k:.2f} ms CPU "
                f"(p95 {f['busy_p95_ms'] * k:.2f}; at rest {f['rest_cpu_ms'] * k:.2f}; "
                f"{f['busy_cpu_ms'] / f['blit_cpu_ms']:.1f}x a bare blit of {f['blit_cpu_ms'] * k:.2f} ms)",
                f"{where:28s} {tree}: press-to-screen at 1080p over {p['n']:.0f} presses "
                f"({p['lost']:.0f} lost): median {p['median_ms']:.1f} ms, p99 {p['p99_ms']:.1f} ms, "
                f"max {p['max_ms']:.1f} ms (wall)",
                f"{where:28s} {tree}: journal per round {j['round_cpu_ms'] * k:.2f} ms CPU "
                f"({j['round_cpu_ms'] / j['bare_cpu_ms']:.1f}x a bare write+fsync's "
                f"{j['bare_cpu_ms'] * k:.3f}), wall {j['round_wall_ms']:.1f} ms median "
                f"({j['round_wall_ms'] / j['bare_wall_ms']:.1f}x a bare write+fsync's "
                f"{j['bare_wall_ms']:.2f}), {j['durable_commits']:.2f} durable commits",
            ]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-rev", default="e13ade7", help="the code before (a git revision)")
    ap.add_argument("--ratio", type=float, default=None, help="Pi 4 slowdown (default: measure)")
    ap.add_argument("--rounds", type=int, default=150)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--presses", type=int, default=100)
    ap.add_argument("--dir", default=None, help="folder for the journals (default: tmp)")
    ap.add_argument("--only", default="frame,journal,press", help="figures, comma-separated")
    ap.add_argument("--out", default=None, help="append the report to this file")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--pi-ratio", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--tag", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args)
    if args.ratio is None:
        ratio, basis = _ratio()
    else:
        ratio, basis = args.ratio, f"ratio {args.ratio} given"
    print(basis, flush=True)
    whats = args.only.split(",")
    res: dict[tuple[str, str, str], dict[str, float]] = {}
    t_start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        subprocess.run(f"git -C {ROOT} archive {args.old_rev} | tar -x -C {old}", shell=True, check=True)
        for speed in ("normal", "pi"):
            for what in whats:
                for tree_name, tree in (("old", old), ("new", ROOT)):
                    r = run_child(tree, what, None if speed == "normal" else ratio, args)
                    res[(tree_name, speed, what)] = r
                    print(f"{speed:6s} {what:7s} {tree_name}: {json.dumps(r)}", flush=True)
    load = os.getloadavg()
    head = [
        f"# bench/deadlines.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t_start))}, "
        f"{time.time() - t_start:.0f} s; old: {_rev(ROOT, args.old_rev)}, new: {_rev(ROOT)}"
        + (
            " + uncommitted changes"
            if subprocess.run(
                ["git", "-C", str(ROOT), "status", "--porcelain", "--", "cabinet", "ui"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
            else ""
        ),
        f"# Pi 4 ratio: {basis}",
        f"# load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores; "
        f"--rounds {args.rounds} --frames {args.frames} --presses {args.presses}",
    ]
    report = head + (_lines(res, ratio) if len(whats) == 3 else [f"{k}: {json.dumps(v)}" for k, v in res.items()])
    print("\n".join(report))
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n".join(report) + "\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

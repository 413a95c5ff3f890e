"""``cabinet run``: the whole cabinet on one computer, every device simulated.

Owns: starting the casino host twin (``python -m cabinet sim-host``: a SAS host
on a pty, a machine per station), the engine (``python -m cabinet engine
--devices sim --config <run folder>/cabinet.toml``: each station its own SAS link to
its machine, ``cabinet.tools.run_tickets``; journal in the user data directory) and the table
UI (``python -m ui``) as separate processes, the demo player when there is no
display, the run folder (screenshots, the printed voucher, the processes' logs,
the host's database) and a clean stop: Ctrl-C, SIGTERM, closing the window or
the end of the demo stops the UI, then the engine, then the host (SIGTERM, then
SIGKILL after a timeout), and nothing is left running. With a screen per station,
one station's UI that dies is started again and the others play on
(``cabinet.tools.ui_keeper``); the engine's end, or the host's, ends the run.

- With a display (``DISPLAY``/``WAYLAND_DISPLAY`` set, or ``--window``): a
  window to play in, with the UI's dev keys (``ui.devkeys``: notes, the last
  voucher, door, operator key, printer paper, bill jam, Shift+button presses)
  on the engine's sim control socket. ``--demo`` lets the demo player play
  in the window.
- Without one (``--headless``; SSH, CI): the UI draws on SDL's dummy driver
  and ``cabinet.tools.demo_player`` inserts $100, plays ``--rounds`` rounds with
  basic strategy by pressing the mock panel's buttons, cashes out, visits the
  maintenance menu, and the run ends by itself with status 0. ``--tickets host``
  (SAS system validation): between the cash-out and the menu, station 1's
  ticket is taken to station 2, redeemed through the host, and refused the second time.

The UI is signalled (SIGUSR1) for screenshots once the table has settled;
see ``ui/__main__.py``. Nothing here imports pygame.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import fcntl
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

import platformdirs

from cabinet.shell.journal.guard import place_problem
from cabinet.shell.paths import APP, default_journal, private_dir
from cabinet.tools import run_settings, run_tickets
from cabinet.tools import station_screens as screens
from cabinet.tools.run_shots import Shots
from cabinet.tools.ui_keeper import UIKeeper

ENGINE_READY_TIMEOUT_S = 30.0
SAS_HOST_READY_TIMEOUT_S = 15.0
UI_START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the child gets SIGTERM if the launcher dies (no orphans even on SIGKILL)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def default_out_dir() -> Path:
    """``out/run-YYYYmmdd-HHMMSS`` in the source tree when run from a checkout,
    else under the user data directory."""
    root = Path(__file__).resolve().parents[2]
    base = root / "out" if (root / "pyproject.toml").exists() else Path(platformdirs.user_data_dir(APP)) / "runs"
    return base / dt.datetime.now().strftime("run-%Y%m%d-%H%M%S")


def sas_port_of(ready_line: str) -> str | None:
    """Machine 1's pty in ``cabinet sim-host``'s ready line
    (``sas host ready: machine 1 on /dev/pts/7 (DIR/sas-1); ...``), None if absent."""
    return run_tickets.sas_ports_of(ready_line).get(1)


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _last_line(log: Path) -> str:
    """The last non-empty line of ``log`` (a child's error), or ``""``."""
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


class Child:
    """One child process in its own session (Ctrl-C reaches only the launcher)."""

    def __init__(
        self, name: str, argv: list[str], *, env: dict[str, str], log: Path, stdout_to_terminal: bool = False
    ) -> None:
        self.name = name
        self.log_path = log
        self._log: IO[str] = open(log, "a", buffering=1)  # noqa: SIM115 - closed in stop()
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.to_terminal = stdout_to_terminal
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=self._log,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        self._reader = threading.Thread(target=self._read, name=f"{name}-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._log.write(line)
            self.lines.put(line)
            if self.to_terminal:
                sys.stdout.write(line)
                sys.stdout.flush()

    def wait_line(self, text: str, timeout_s: float) -> str | None:
        """The first stdout line containing ``text``; ``None`` on timeout or exit."""
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=min(left, 0.2))
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    return None
                continue
            if text in line:
                return line
        return None

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> int | None:
        """SIGTERM, wait, SIGKILL; returns the exit status."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.terminate()
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                self.proc.wait(5)
        self._reader.join(2)
        self._log.close()
        return self.proc.returncode


def _lock(journal: Path) -> IO[str] | None:
    """One ``cabinet run`` per journal: an exclusive lock beside it, or ``None`` if taken."""
    journal.parent.mkdir(parents=True, exist_ok=True)
    f = open(journal.with_name(journal.name + ".run.lock"), "w")  # noqa: SIM115
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return None
    return f


def main(
    *,
    rounds: int = 5,
    variant: str | None = None,
    out: str | None = None,
    window: bool | None = None,
    demo: bool | None = None,
    size: str | None = None,
    journal: str | None = None,
    stations: int | None = None,
    tickets: str = "cabinet",
    language: str = "",
    display: str = "per-station",
    pin: str | None = None,
) -> int:
    """Run the cabinet; returns the exit status (0 done, 1 failure, 130 interrupted).

    Args:
        rounds: rounds the demo player plays.
        variant: the run switches the game to it first (operator menu, before the
            table UIs start; with or without the demo); ``None`` plays the journal's game.
        out: the run folder (default ``default_out_dir()``).
        window: ``True`` a window, ``False`` headless, ``None`` a window when
            there is a display.
        demo: run the demo player (default: only when headless).
        size: UI window/screenshot size ``WxH`` (default 1280x720; each station's
            window 960x540, tiled, when there are several).
        journal: the SQLite journal (default: the user data directory's).
        stations: the stations to seat (1-3), set through the operator
            menu (``classic-multi`` for more than one) and the engine restarted;
            ``None`` keeps the journal's. One table UI runs per station (see ``display``).
        display: ``shared``: one table UI, the shared wide screen (a panel per station,
            1920x540 unless ``size``; ``[display] screens`` in the run's config).
        tickets: ``cabinet`` (the cabinet numbers its tickets) or ``host`` (system
            validation by the host twin, and the demo's ticket tour).
        language: the station screens' languages (``screens.station_language``).
        pin: the technician PIN typed on the Settings page (``run_settings.run_pin``:
            else ``$CABINET_PIN``, else 2580); checked against the journal first:
            not its PIN, status 2 and nothing typed.
    """
    if tickets not in run_tickets.TICKET_MODES:
        print(f"cabinet run: --tickets must be one of {', '.join(run_tickets.TICKET_MODES)}", file=sys.stderr)
        return 2
    if display not in screens.SCREENS:
        print(f"cabinet run: --screens must be one of {', '.join(screens.SCREENS)}", file=sys.stderr)
        return 2
    if stations is not None and not 1 <= stations <= 3:
        print("cabinet run: --stations must be 1, 2 or 3", file=sys.stderr)
        return 2
    if stations is not None and stations > 1 and variant not in (None, screens.MULTI_VARIANT):
        print(
            f"cabinet run: --stations {stations} needs the multi-player game "
            f"({screens.MULTI_VARIANT}), not --variant {variant}",
            file=sys.stderr,
        )
        return 2
    size_given = size is not None
    size = size or "1280x720"
    why = screens.size_refusal(size)
    if why:
        print(why, file=sys.stderr)
        return 2
    if rounds < 1:
        print(screens.rounds_refusal(rounds), file=sys.stderr)
        return 2
    windowed = has_display() if window is None else window
    play = (not windowed) if demo is None else demo
    journal_path = Path(journal) if journal else default_journal()
    try:
        if not journal:  # the cabinet's own data folder: made or tightened to 0700
            private_dir(journal_path.parent, tighten=True)
    except OSError as e:
        print(f"cabinet run: {e}", file=sys.stderr)
        return 2
    if (problem := place_problem(journal_path)) is not None:
        print(f"cabinet run: {problem}", file=sys.stderr)  # the engine's own refusal
        return 2
    plan = run_settings.plan_settings(journal_path, stations=stations, variant=variant, pin=run_settings.run_pin(pin))
    if isinstance(plan, str):  # a wrong PIN is never typed (3 lock PIN entry)
        print(plan, file=sys.stderr)
        return 2
    out_dir = Path(out) if out else default_out_dir()
    frames = out_dir / "frames"
    try:
        frames.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"cabinet run: --out {out_dir}: {e.strerror or e}", file=sys.stderr)
        return 2
    lock = _lock(journal_path)
    if lock is None:
        print(f"cabinet run: another cabinet is running on {journal_path}", file=sys.stderr)
        return 1

    stop = threading.Event()
    interrupted = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        interrupted.set()
        stop.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    tmp = Path(tempfile.mkdtemp(prefix="cabinet-run-"))
    sock = tmp / "ui.sock"
    sim_sock = tmp / "ui.sock.sim"
    sim_dir = out_dir / "sim"
    children: list[Child] = []
    status = 1
    demo_result: Any = None
    demo_box: dict[str, Any] = {}
    shots: Shots | None = None
    demo_thread: threading.Thread | None = None
    try:
        print(
            f"cabinet run: engine + table UI ({'window' if windowed else 'headless'}), journal {journal_path}",
            flush=True,
        )
        env = {**os.environ, "CABINET_LOG": os.environ.get("CABINET_LOG", "INFO"), "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
        machines = stations or run_tickets.journal_stations(journal_path)
        host = Child(
            "sas-host",
            [sys.executable, "-m", "cabinet", "sim-host", "--machines", str(machines), "--dir", str(sim_dir / "sas")],
            env=env,
            log=out_dir / "sas-host.log",
        )
        children.append(host)
        ready = host.wait_line("sas host ready", SAS_HOST_READY_TIMEOUT_S) or ""
        ports, host_sock = run_tickets.sas_ports_of(ready), run_tickets.host_socket_of(ready)
        if 1 not in ports or host_sock is None:
            print(f"cabinet run: the SAS host twin did not start; see {host.log_path}", file=sys.stderr)
            return 1
        config = out_dir / "cabinet.toml"  # each station its own EGM on the host
        config.write_text(run_tickets.engine_config(ports, tickets) + screens.display_toml(display))
        engine_argv = [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--journal",
            str(journal_path),
            "--socket",
            str(sock),
            "--devices",
            "sim",
            "--sim-dir",
            str(sim_dir),
            "--config",
            str(config),
        ]
        engine = Child("engine", engine_argv, env=env, log=out_dir / "engine.log")
        children.append(engine)
        if engine.wait_line("engine ready", ENGINE_READY_TIMEOUT_S) is None:
            print(f"cabinet run: the engine did not start; see {engine.log_path}", file=sys.stderr)
            return 1
        try:
            if plan.needed and screens.ensure_stations(
                sock, sim_sock, stations, lambda text: print(text, flush=True), variant, plan
            ):
                # new stations get their devices when the engine starts, as on the cabinet
                engine.stop()
                children.remove(engine)
                engine = Child("engine", engine_argv, env=env, log=out_dir / "engine.log")
                children.append(engine)
                if engine.wait_line("engine ready", ENGINE_READY_TIMEOUT_S) is None:
                    print(f"cabinet run: the engine did not restart; see {engine.log_path}", file=sys.stderr)
                    return 1
            count = stations or screens.station_count(sock)
        except Exception as e:
            what = f"seat {stations} station(s)" if stations else f"switch the game to {variant}"
            print(f"cabinet run: could not {what}: {e}", file=sys.stderr)
            return 1
        shared = display == "shared"
        if (count > 1 or shared) and not size_given:
            size = "x".join(map(str, screens.SHARED_SIZE if shared else screens.TILE_SIZE))
        tw, _, th = size.partition("x")
        corners = screens.tile_positions(count, int(tw), int(th))
        uis: list[Child] = []
        all_shots: list[Shots] = []

        def start_ui(n: int, st_frames: Path) -> Child:
            ui_env = dict(env)
            if not windowed:
                ui_env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
            elif count > 1 and not shared:  # one display: the station windows tile
                ui_env["SDL_VIDEO_WINDOW_POS"] = "{},{}".format(*corners[n - 1])
            ui_argv = screens.ui_command(
                sys.executable, sock, n, count, size, st_frames, sim_sock if windowed else None, shared
            )
            if language:  # the UI checks the territory (a bad one: exit 2)
                ui_argv += ["--language", screens.station_language(language, n)]
            name = "ui" if n == 1 else f"ui-station{n}"
            return Child(name, ui_argv, env=ui_env, log=out_dir / f"{name}.log", stdout_to_terminal=windowed and n == 1)

        st_frames = [frames if n == 1 else frames / f"station{n}" for n in range(1, 2 if shared else count + 1)]
        for n, st_dir in enumerate(st_frames, 1):
            st_dir.mkdir(parents=True, exist_ok=True)
            uis.append(start_ui(n, st_dir))
            children.append(uis[-1])
            all_shots.append(Shots(uis[-1], st_dir, out_dir, prefix="" if count == 1 or shared else f"station{n}-"))
        # several station screens: one dying is started again, the others play on
        keeper = UIKeeper(uis, children, all_shots, start_ui, st_frames, restart=len(uis) > 1, windowed=windowed)
        for ui in uis:
            if ui.wait_line("first frame", UI_START_TIMEOUT_S) is None:
                if ui.proc.poll() == 2:  # a setting the UI refused: its one-line reason
                    print(f"cabinet run: the table UI refused its settings: {_last_line(ui.log_path)}", file=sys.stderr)
                    return 2
                why = _last_line(ui.log_path) if ui.proc.poll() is not None else ""
                print(
                    f"cabinet run: the table UI did not start{': ' + why if why else ''}; see {ui.log_path}",
                    file=sys.stderr,
                )
                return 1
        settle, grabs = screens.shot_takers(all_shots, count, shared)
        if count == 1 and not shared:
            print(
                f"cabinet run: UI socket {sock}, sim control socket {sim_sock} (new each run); "
                f"another station's table: {sys.executable} -m ui --socket {sock} "
                f"--sim-socket {sim_sock} --station 2",
                flush=True,
            )
        else:
            print(
                f"cabinet run: {count} stations, "
                + (
                    f"one shared screen ({size}, log ui.log)"
                    if shared
                    else "one table UI each (logs ui.log, ui-station2.log...)"
                )
                + f"; UI socket {sock}",
                flush=True,
            )
        if windowed:
            print("cabinet run: play in the window; F10 or closing it (or Ctrl-C here) stops the cabinet", flush=True)
        shots = all_shots[0]
        hook = None if tickets != "host" else run_tickets.tour_hook(host_sock, settle, stop, demo_box, sorted(ports))
        if play and count == 1:  # --variant is already set (ensure_stations): no PIN typed
            demo_thread = threading.Thread(
                target=screens.run_demo,
                name="demo-player",
                daemon=True,
                args=(sock, sim_sock, rounds, None, shots.settled, shots.grab, stop, demo_box, hook),
            )
            demo_thread.start()
        elif play:
            demo_thread = threading.Thread(
                target=screens.run_demos,
                name="demo-players",
                daemon=True,
                args=(
                    sock,
                    sim_sock,
                    count,
                    rounds,
                    settle,
                    grabs,
                    stop,
                    demo_box,
                    screens.strategy_future(screens.MULTI_VARIANT),
                    hook,
                ),
            )
            demo_thread.start()
        while not stop.is_set():
            if not engine.running:
                print(f"cabinet run: the engine stopped; see {engine.log_path}", file=sys.stderr)
                break
            if not host.running:
                print(f"cabinet run: the SAS host twin stopped; see {host.log_path}", file=sys.stderr)
                break
            gone = keeper.ended()
            if gone is not None:
                if not windowed or play or gone.proc.returncode != 0:
                    print(
                        f"cabinet run: the table UI stopped (status {gone.proc.returncode}); see {gone.log_path}",
                        file=sys.stderr,
                    )
                else:
                    status = 0  # the player closed a window (F10)
                break
            if demo_thread is not None and not demo_thread.is_alive():
                demo_result = demo_box.get("result")
                status = 0 if demo_result is not None and not windowed else status
                if demo_result is None or not windowed:
                    break
                demo_thread = None  # windowed: keep the table open to play on
            stop.wait(0.2)
        if interrupted.is_set():
            status = 130
        elif demo_result is None and demo_box.get("error"):  # a player failing stops the run
            print(f"cabinet run: demo failed: {demo_box['error']}", file=sys.stderr)
    finally:
        stop.set()
        if demo_thread is not None:
            demo_thread.join(5.0)  # it closes its sockets before the engine goes
        for child in reversed(children):  # the UI first, then the engine, then the host
            child.stop()
        run_tickets.collect_vouchers(sim_dir, out_dir)
        run_tickets.save_tour(demo_box.get("tickets"), out_dir)
        shutil.rmtree(tmp, ignore_errors=True)
        for signum, handler in old.items():
            signal.signal(signum, handler)
        lock.close()
    _report(out_dir, demo_result, shots, status, demo_box.get("results", []) if play else [])
    return status


def _report_result(result: Any, station: int = 0) -> None:
    from cabinet.protocol.money import fmt_money

    net = sum(r.net_minor for r in result.rounds)
    who = f"station {station}: " if station else ""
    print(
        f"cabinet run: {who}{len(result.rounds)} round(s) of {result.variant}, net {fmt_money(net)}; "
        f"inserted {fmt_money(result.inserted_minor)}, voucher {result.validation_number} "
        f"for {fmt_money(result.cashed_out_minor)}"
    )


def _report(out_dir: Path, result: Any, shots: Shots | None, status: int, results: list[Any] | None = None) -> None:
    """The run's summary: each demo player's line (named by station, in station order,
    when several played), the outputs."""
    if results and len(results) > 1:
        for n, each in enumerate(results, 1):
            _report_result(each, station=n)
    elif result is not None:
        _report_result(result)
    if status == 130:
        print("cabinet run: stopped (Ctrl-C); engine and UI shut down")
    print(f"output: {out_dir}")
    for p in sorted(out_dir.glob("*.png")) + sorted(out_dir.glob("[tv]*-*.txt")):
        print(f"  {p.name}")
    print("  engine.log, ui.log, frames/ (the UI's screenshot on every mode change)", flush=True)
    print(
        "  sas-host.log, sim/sas/host.sqlite3 (the casino host twin's log and database), "
        "cabinet.toml (each station's SAS link)"
        + (", tickets.json (the ticket tour)" if (out_dir / "tickets.json").exists() else ""),
        flush=True,
    )

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
from dataclasses import dataclass
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


class RunRefused(ValueError):
    """A ``cabinet run`` argument refused before anything starts (exit status 2);
    ``str(e)`` is the line printed."""


@dataclass(frozen=True)
class UiLaunch:
    """One table UI process of a run (``RunPlan.ui_launches``).

    Attributes:
        station: the station whose keys and touches it sends (1-3).
        name: the process's name and log file stem (``ui``, ``ui-station2``).
        argv: its command line (``python -m ui ...``).
        env: what its environment adds to the run's (SDL drivers, window position).
        frames: the folder it saves its screenshots in.
        log: its log file.
        shot_prefix: the prefix of its screenshots in the run folder (``station2-``).
        to_terminal: its stdout is echoed to the terminal (station 1 in a window).
    """

    station: int
    name: str
    argv: tuple[str, ...]
    env: dict[str, str]
    frames: Path
    log: Path
    shot_prefix: str
    to_terminal: bool


@dataclass(frozen=True)
class RunPlan:
    """What one ``cabinet run`` starts, decided from its arguments alone (``plan_run``).

    Attributes:
        python: the interpreter every child runs.
        rounds: the rounds each demo player plays (>= 1).
        variant: the game the run switches to first, ``None`` the journal's.
        stations: the stations to seat (1-3), ``None`` the journal's.
        tickets: ``cabinet`` or ``host`` (``run_tickets.TICKET_MODES``).
        language: the station screens' languages (``screens.station_language``).
        shared: one shared wide screen (``--screens shared``) instead of a UI per station.
        windowed: the UIs open windows (else SDL's dummy driver).
        play: the demo player plays.
        size: the UI size ``WxH`` as given, or the one-station default.
        size_given: ``size`` was given (else a tile or the shared screen's size with
            several stations).
        journal: the engine's journal.
        own_journal: ``journal`` is the user data directory's (its folder made 0700).
        out_dir: the run folder: logs, ``cabinet.toml``, ``frames/``, ``sim/``.
    """

    python: str
    rounds: int
    variant: str | None
    stations: int | None
    tickets: str
    language: str
    shared: bool
    windowed: bool
    play: bool
    size: str
    size_given: bool
    journal: Path
    own_journal: bool
    out_dir: Path

    @property
    def frames(self) -> Path:
        """Station 1's screenshot folder (``frames/``; the others' ``frames/stationN``)."""
        return self.out_dir / "frames"

    @property
    def sim_dir(self) -> Path:
        """The simulated devices' folder (ptys, printed vouchers, the host's ``sas/``)."""
        return self.out_dir / "sim"

    @property
    def config(self) -> Path:
        """The engine's ``cabinet.toml``, written once the host's ports are known."""
        return self.out_dir / "cabinet.toml"

    def host_argv(self, machines: int) -> list[str]:
        """The casino host twin's command line: one SAS machine per station."""
        return [
            self.python,
            "-m",
            "cabinet",
            "sim-host",
            "--machines",
            str(machines),
            "--dir",
            str(self.sim_dir / "sas"),
        ]

    def engine_config(self, ports: dict[int, str]) -> str:
        """The engine's ``cabinet.toml``: each station's SAS link to its machine on
        ``ports`` (station -> pty), the ticket validation, the screens."""
        return run_tickets.engine_config(ports, self.tickets) + screens.display_toml(
            "shared" if self.shared else "per-station"
        )

    def engine_argv(self, sock: Path) -> list[str]:
        """The engine's command line: simulated devices, the UI socket ``sock``."""
        return [
            self.python,
            "-m",
            "cabinet",
            "engine",
            "--journal",
            str(self.journal),
            "--socket",
            str(sock),
            "--devices",
            "sim",
            "--sim-dir",
            str(self.sim_dir),
            "--config",
            str(self.config),
        ]

    def ui_size(self, count: int) -> str:
        """The UI size with ``count`` stations seated: as given, else one tile each
        (several windows) or the shared wide screen."""
        if self.size_given or (count == 1 and not self.shared):
            return self.size
        return "x".join(map(str, screens.SHARED_SIZE if self.shared else screens.TILE_SIZE))

    def ui_frames(self, count: int) -> list[Path]:
        """Each table UI's screenshot folder: one UI for the shared screen, else one per station."""
        return [
            self.frames if n == 1 else self.frames / f"station{n}" for n in range(1, 2 if self.shared else count + 1)
        ]

    def ui_launch(self, station: int, count: int, sock: Path, sim_sock: Path, frames: Path) -> UiLaunch:
        """Station ``station``'s table UI (of ``count``) saving its screenshots in ``frames``."""
        size = self.ui_size(count)
        env: dict[str, str] = {}
        if not self.windowed:
            env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
        elif count > 1 and not self.shared:  # one display: the station windows tile
            tw, _, th = size.partition("x")
            env["SDL_VIDEO_WINDOW_POS"] = "{},{}".format(*screens.tile_positions(count, int(tw), int(th))[station - 1])
        argv = screens.ui_command(
            self.python, sock, station, count, size, frames, sim_sock if self.windowed else None, self.shared
        )
        if self.language:  # the UI checks the territory (a bad one: exit 2)
            argv += ["--language", screens.station_language(self.language, station)]
        name = "ui" if station == 1 else f"ui-station{station}"
        return UiLaunch(
            station=station,
            name=name,
            argv=tuple(argv),
            env=env,
            frames=frames,
            log=self.out_dir / f"{name}.log",
            shot_prefix="" if count == 1 or self.shared else f"station{station}-",
            to_terminal=self.windowed and station == 1,
        )

    def ui_launches(self, count: int, sock: Path, sim_sock: Path) -> list[UiLaunch]:
        """Every table UI the run starts with ``count`` stations seated."""
        return [self.ui_launch(n, count, sock, sim_sock, f) for n, f in enumerate(self.ui_frames(count), 1)]


def plan_run(
    *,
    python: str,
    out_dir: Path,
    journal: Path,
    own_journal: bool,
    display_present: bool,
    rounds: int = 5,
    variant: str | None = None,
    window: bool | None = None,
    demo: bool | None = None,
    size: str | None = None,
    stations: int | None = None,
    tickets: str = "cabinet",
    language: str = "",
    display: str = "per-station",
) -> RunPlan:
    """The run ``main`` starts, from its arguments; pure: nothing is read, made or started.

    Args:
        python: the interpreter the children run.
        out_dir: the run folder.
        journal, own_journal: the journal, and whether it is the user data directory's.
        display_present: a display is there (``has_display``): a window unless ``window``
            says otherwise.
        The rest: as ``main``'s.

    Raises:
        RunRefused: an unknown ``tickets`` or ``display``, ``stations`` not 1-3 or more
            than one with a single-player ``variant``, a bad ``size``, ``rounds`` < 1.
    """
    if tickets not in run_tickets.TICKET_MODES:
        raise RunRefused(f"cabinet run: --tickets must be one of {', '.join(run_tickets.TICKET_MODES)}")
    if display not in screens.SCREENS:
        raise RunRefused(f"cabinet run: --screens must be one of {', '.join(screens.SCREENS)}")
    if stations is not None and not 1 <= stations <= 3:
        raise RunRefused("cabinet run: --stations must be 1, 2 or 3")
    if stations is not None and stations > 1 and variant not in (None, screens.MULTI_VARIANT):
        raise RunRefused(
            f"cabinet run: --stations {stations} needs the multi-player game "
            f"({screens.MULTI_VARIANT}), not --variant {variant}"
        )
    why = screens.size_refusal(size or "1280x720")
    if why:
        raise RunRefused(why)
    if rounds < 1:
        raise RunRefused(screens.rounds_refusal(rounds))
    windowed = display_present if window is None else window
    return RunPlan(
        python=python,
        rounds=rounds,
        variant=variant,
        stations=stations,
        tickets=tickets,
        language=language,
        shared=display == "shared",
        windowed=windowed,
        play=(not windowed) if demo is None else demo,
        size=size or "1280x720",
        size_given=size is not None,
        journal=journal,
        own_journal=own_journal,
        out_dir=out_dir,
    )


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
    """Run the cabinet; returns the exit status (0 done, 1 failure, 2 refused, 130 interrupted).

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
    try:
        plan = plan_run(
            python=sys.executable,
            out_dir=Path(out) if out else default_out_dir(),
            journal=Path(journal) if journal else default_journal(),
            own_journal=not journal,
            display_present=has_display(),
            rounds=rounds,
            variant=variant,
            window=window,
            demo=demo,
            size=size,
            stations=stations,
            tickets=tickets,
            language=language,
            display=display,
        )
        pins = _prepare(plan, pin)
    except RunRefused as e:
        print(e, file=sys.stderr)
        return 2
    lock = _lock(plan.journal)
    if lock is None:
        print(f"cabinet run: another cabinet is running on {plan.journal}", file=sys.stderr)
        return 1
    try:
        return _Run(plan, pins).run()
    finally:
        lock.close()


def _prepare(plan: RunPlan, pin: str | None) -> run_settings.PinPlan:
    """The checks that read the disk before anything starts, and the run folder made.

    Raises:
        RunRefused: the journal's folder cannot be made private, the journal's place is
            refused (the engine's own check), the PIN may not be typed, the run folder
            cannot be made.
    """
    try:
        if plan.own_journal:  # the cabinet's own data folder: made or tightened to 0700
            private_dir(plan.journal.parent, tighten=True)
    except OSError as e:
        raise RunRefused(f"cabinet run: {e}") from None
    if (problem := place_problem(plan.journal)) is not None:
        raise RunRefused(f"cabinet run: {problem}")  # the engine's own refusal
    pins = run_settings.plan_settings(
        plan.journal, stations=plan.stations, variant=plan.variant, pin=run_settings.run_pin(pin)
    )
    if isinstance(pins, str):  # a wrong PIN is never typed (3 lock PIN entry)
        raise RunRefused(pins)
    try:
        plan.frames.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunRefused(f"cabinet run: --out {plan.out_dir}: {e.strerror or e}") from None
    return pins


class _StartFailed(Exception):
    """A child did not start; ``status`` is the run's exit status, ``str(e)`` the line printed."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class _Run:
    """One run's execution of its ``RunPlan``: the children, the demo, the loop, the stop."""

    def __init__(self, plan: RunPlan, pins: run_settings.PinPlan) -> None:
        self.plan = plan
        self.pins = pins
        self.stop = threading.Event()
        self.interrupted = threading.Event()
        self.tmp = Path(tempfile.mkdtemp(prefix="cabinet-run-"))
        self.sock = self.tmp / "ui.sock"
        self.sim_sock = self.tmp / "ui.sock.sim"
        self.env = {
            **os.environ,
            "CABINET_LOG": os.environ.get("CABINET_LOG", "INFO"),
            "PYGAME_HIDE_SUPPORT_PROMPT": "1",
        }
        self.children: list[Child] = []
        self.demo_box: dict[str, Any] = {}
        self.demo_result: Any = None
        self.demo_thread: threading.Thread | None = None
        self.shots: Shots | None = None
        self.status = 1

    def _on_signal(self, signum: int, _frame: Any) -> None:
        self.interrupted.set()
        self.stop.set()

    def run(self) -> int:
        """Start, supervise and stop everything; the exit status."""
        plan = self.plan
        old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            mode = "window" if plan.windowed else "headless"
            print(f"cabinet run: engine + table UI ({mode}), journal {plan.journal}", flush=True)
            self._supervise(*self._start())
        except _StartFailed as e:
            print(e, file=sys.stderr)
            self.status = e.status
        finally:
            self.stop.set()
            if self.demo_thread is not None:
                self.demo_thread.join(5.0)  # it closes its sockets before the engine goes
            for child in reversed(self.children):  # the UI first, then the engine, then the host
                child.stop()
            run_tickets.collect_vouchers(plan.sim_dir, plan.out_dir)
            run_tickets.save_tour(self.demo_box.get("tickets"), plan.out_dir)
            shutil.rmtree(self.tmp, ignore_errors=True)
            for signum, handler in old.items():
                signal.signal(signum, handler)
        results = self.demo_box.get("results", []) if plan.play else []
        _report(plan.out_dir, self.demo_result, self.shots, self.status, results)
        return self.status

    def _child(self, name: str, argv: list[str], log: Path, **kw: Any) -> Child:
        child = Child(name, argv, env=kw.pop("env", self.env), log=log, **kw)
        self.children.append(child)
        return child

    def _start_engine(self, what: str = "start") -> Child:
        engine = self._child("engine", self.plan.engine_argv(self.sock), self.plan.out_dir / "engine.log")
        if engine.wait_line("engine ready", ENGINE_READY_TIMEOUT_S) is None:
            why = _last_line(engine.log_path) if engine.proc.poll() is not None else ""
            raise _StartFailed(
                f"cabinet run: the engine did not {what}{': ' + why if why else ''}; see {engine.log_path}"
            )
        return engine

    def _start(self) -> tuple[Child, Child, UIKeeper]:
        """The host twin, the engine (seating the stations), the table UIs and the demo."""
        plan = self.plan
        machines = plan.stations or run_tickets.journal_stations(plan.journal)
        host = self._child("sas-host", plan.host_argv(machines), plan.out_dir / "sas-host.log")
        ready = host.wait_line("sas host ready", SAS_HOST_READY_TIMEOUT_S) or ""
        ports, host_sock = run_tickets.sas_ports_of(ready), run_tickets.host_socket_of(ready)
        if 1 not in ports or host_sock is None:
            raise _StartFailed(f"cabinet run: the SAS host twin did not start; see {host.log_path}")
        plan.config.write_text(plan.engine_config(ports))  # each station its own EGM on the host
        engine = self._start_engine()
        try:
            if self.pins.needed and screens.ensure_stations(
                self.sock, self.sim_sock, plan.stations, lambda text: print(text, flush=True), plan.variant, self.pins
            ):
                # new stations get their devices when the engine starts, as on the cabinet
                engine.stop()
                self.children.remove(engine)
                engine = self._start_engine("restart")
            count = plan.stations or screens.station_count(self.sock)
        except _StartFailed:
            raise
        except Exception as e:
            what = f"seat {plan.stations} station(s)" if plan.stations else f"switch the game to {plan.variant}"
            raise _StartFailed(f"cabinet run: could not {what}: {e}") from None
        keeper, settle, grabs = self._start_uis(count)
        self._start_demo(count, settle, grabs, host_sock, ports)
        return engine, host, keeper

    def _start_ui(self, launch: UiLaunch) -> Child:
        return Child(
            launch.name,
            list(launch.argv),
            env={**self.env, **launch.env},
            log=launch.log,
            stdout_to_terminal=launch.to_terminal,
        )

    def _start_uis(self, count: int) -> tuple[UIKeeper, Any, Any]:
        plan = self.plan
        launches = plan.ui_launches(count, self.sock, self.sim_sock)
        uis: list[Child] = []
        all_shots: list[Shots] = []
        for launch in launches:
            launch.frames.mkdir(parents=True, exist_ok=True)
            uis.append(self._start_ui(launch))
            self.children.append(uis[-1])
            all_shots.append(Shots(uis[-1], launch.frames, plan.out_dir, prefix=launch.shot_prefix))

        def restart_ui(n: int, frames: Path) -> Child:
            return self._start_ui(plan.ui_launch(n, count, self.sock, self.sim_sock, frames))

        # several station screens: one dying is started again, the others play on
        keeper = UIKeeper(
            uis,
            self.children,
            all_shots,
            restart_ui,
            [launch.frames for launch in launches],
            restart=len(uis) > 1,
            windowed=plan.windowed,
        )
        for ui in uis:
            if ui.wait_line("first frame", UI_START_TIMEOUT_S) is None:
                if ui.proc.poll() == 2:  # a setting the UI refused: its one-line reason
                    raise _StartFailed(
                        f"cabinet run: the table UI refused its settings: {_last_line(ui.log_path)}", status=2
                    )
                why = _last_line(ui.log_path) if ui.proc.poll() is not None else ""
                raise _StartFailed(
                    f"cabinet run: the table UI did not start{': ' + why if why else ''}; see {ui.log_path}"
                )
        settle, grabs = screens.shot_takers(all_shots, count, plan.shared)
        self._say_started(count)
        self.shots = all_shots[0]
        return keeper, settle, grabs

    def _say_started(self, count: int) -> None:
        plan, sock = self.plan, self.sock
        if count == 1 and not plan.shared:
            print(
                f"cabinet run: UI socket {sock}, sim control socket {self.sim_sock} (new each run); "
                f"another station's table: {plan.python} -m ui --socket {sock} "
                f"--sim-socket {self.sim_sock} --station 2",
                flush=True,
            )
        else:
            screens_said = (
                f"one shared screen ({plan.ui_size(count)}, log ui.log)"
                if plan.shared
                else "one table UI each (logs ui.log, ui-station2.log...)"
            )
            print(f"cabinet run: {count} stations, {screens_said}; UI socket {sock}", flush=True)
        if plan.windowed:
            print("cabinet run: play in the window; F10 or closing it (or Ctrl-C here) stops the cabinet", flush=True)

    def _start_demo(self, count: int, settle: Any, grabs: Any, host_sock: str, ports: dict[int, str]) -> None:
        plan = self.plan
        if not plan.play:
            return
        hook = (
            None
            if plan.tickets != "host"
            else run_tickets.tour_hook(host_sock, settle, self.stop, self.demo_box, sorted(ports))
        )
        args: tuple[Any, ...]
        if count == 1:  # --variant is already set (ensure_stations): no PIN typed
            assert self.shots is not None
            target: Any = screens.run_demo
            args = (self.sock, self.sim_sock, plan.rounds, None, self.shots.settled, self.shots.grab)
            args += (self.stop, self.demo_box, hook)
        else:
            target = screens.run_demos
            args = (self.sock, self.sim_sock, count, plan.rounds, settle, grabs, self.stop, self.demo_box)
            args += (screens.strategy_future(screens.MULTI_VARIANT), hook)
        name = "demo-player" if count == 1 else "demo-players"
        self.demo_thread = threading.Thread(target=target, name=name, daemon=True, args=args)
        self.demo_thread.start()

    def _supervise(self, engine: Child, host: Child, keeper: UIKeeper) -> None:
        """Wait for the end: a child gone, the demo done, a signal; sets ``status``."""
        windowed, play = self.plan.windowed, self.plan.play
        while not self.stop.is_set():
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
                    self.status = 0  # the player closed a window (F10)
                break
            if self.demo_thread is not None and not self.demo_thread.is_alive():
                self.demo_result = self.demo_box.get("result")
                self.status = 0 if self.demo_result is not None and not windowed else self.status
                if self.demo_result is None or not windowed:
                    break
                self.demo_thread = None  # windowed: keep the table open to play on
            self.stop.wait(0.2)
        if self.interrupted.is_set():
            self.status = 130
        elif self.demo_result is None and self.demo_box.get("error"):  # a player failing stops the run
            print(f"cabinet run: demo failed: {self.demo_box['error']}", file=sys.stderr)


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

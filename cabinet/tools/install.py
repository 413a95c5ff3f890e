"""``cabinet install``: put the cabinet on a Raspberry Pi, or update it there.

Owns: the install layout (``PREFIX``, ``VENV``, ``CONFIG``, ``STATE_DIR``: the
systemd units' ``ExecStart`` and paths use the same, checked by
``tests/test_systemd_units.py``) and the steps, each safe to run again:

1. on a Raspberry Pi, Pi OS's ``python3-lgpio`` (apt: PyPI has no lgpio wheel for
   trixie's Python 3.13); the engine's user ``cabinet`` (gpio, dialout, i2c) and the table
   UI's ``cabinet-ui`` (video, render, input, audio, tty), see ``install_users``;
2. the program files copied to ``PREFIX`` (files the new version no longer has are
   removed), a venv at ``VENV`` that sees the system's packages (for lgpio) with the
   program installed in it, and SDL's video drivers checked for the one
   ``cabinet-ui.service`` sets (``ui.sdl_drivers``);
3. ``/etc/cabinet/cabinet.toml`` and the wiring file it names, ``WIRING`` (the default
   pin map), from ``systemd/`` only if there are none (the operator's are never
   overwritten);
4. the journal folder ``STATE_DIR`` (0700, the engine user's, all in it owner-only);
   the journal in it is never otherwise touched, so running the installer again from
   a newer checkout is the update path;
5. the units and ``cabinet.target`` in ``/etc/systemd/system`` and enabled (the links
   ``systemctl enable`` makes), the login prompt on tty1 disabled, the udev rules
   (an edited copy is kept, the new one written beside it as ``.new``); reloaded, and
   (8) started, only where systemd runs: in a chroot that is left to the boot;
6. ``consoleblank=0`` (and no blinking console cursor) in the Pi's ``cmdline.txt``, no
   kernel console on a Pi UART there, and in ``config.txt`` the UART, SPI and I2C off
   where the wiring uses their pins as GPIO (``pi_boot``; ``cabinet doctor`` checks);
7. the restart queued (``--no-block``), then at most ``START_WAIT_S`` for the units to
   settle, and what runs and what does not (``Report.running``, ``not_running``).

``--root DIR`` installs into DIR as if it were ``/`` and runs no command (user
creation, the venv, ``systemctl``, ``udevadm``): those are printed as skipped, so the
file steps can be tried, and tested, without root privileges. I/O: files and,
without ``--root``, subprocesses.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from cabinet.shell.manifest import PACKAGES, install_root
from cabinet.tools import install_users

PREFIX = PurePosixPath("/opt/cabinet")
VENV = PREFIX / ".venv"
CONFIG_DIR = PurePosixPath("/etc/cabinet")
CONFIG = CONFIG_DIR / "cabinet.toml"
#: The wiring file ``systemd/cabinet.toml.example`` names: the default pin map.
WIRING = CONFIG_DIR / "wiring.toml"
STATE_DIR = PurePosixPath("/var/lib/cabinet")
UNIT_DIR = PurePosixPath("/etc/systemd/system")
UDEV_RULES = PurePosixPath("/etc/udev/rules.d/99-cabinet.rules")
#: The engine's user (owns the journal) and the table UI's (reaches the UI socket only).
USER = install_users.Accounts().engine
UI_USER = install_users.Accounts().ui
GROUPS = (*install_users.Accounts().engine_groups, *install_users.Accounts().ui_groups)
UNITS = (
    "cabinet-engine.service",
    "cabinet-engine-stopped.service",
    "cabinet-ui.service",
    "cabinet-ui@.service",
    "cabinet.target",
)
#: The services whose state the installer reports at its end.
SERVICES = ("cabinet-engine.service", "cabinet-ui.service")
#: Longest the installer waits for the services to settle after the restart (seconds).
START_WAIT_S = 30
#: The Pi OS packages the cabinet needs besides the venv's (apt): lgpio, which PyPI
#: has no wheel of for trixie's Python 3.13.
APT_PACKAGES = ("python3-lgpio",)
#: The Pi's kernel command line: Bookworm's place first, then the older one.
CMDLINE_FILES = (PurePosixPath("/boot/firmware/cmdline.txt"), PurePosixPath("/boot/cmdline.txt"))
#: The Pi's firmware settings, in the same places.
CONFIG_TXT_FILES = (PurePosixPath("/boot/firmware/config.txt"), PurePosixPath("/boot/config.txt"))
#: Kernel options the display needs: no console blanking, no blinking text cursor.
CMDLINE_OPTIONS = ("consoleblank=0", "vt.global_cursor_default=0")
#: Besides ``PACKAGES``: what ``pip install`` and the operator need in ``PREFIX``.
EXTRA_FILES = ("pyproject.toml", "README.md", "Makefile")
EXTRA_DIRS = ("systemd", "docs")
GETTY_LINK = PurePosixPath("/etc/systemd/system/getty.target.wants/getty@tty1.service")
#: There when systemd is the init system (sd_booted(3)); not in an image being built.
SYSTEMD_RUNNING = PurePosixPath("/run/systemd/system")
NO_SYSTEMD = (
    "systemd is not running (a chroot, an image being built): systemctl daemon-reload, "
    "udevadm control --reload and the start left to the boot, which reads the units"
)


@dataclass
class Report:
    """What one run did: ``done`` (changed files), ``kept`` (left as found), ``skipped``
    (commands not run under ``--root``), in order; after a start, the ``SERVICES`` that
    are ``running`` and those ``not_running`` (with why), one line each."""

    done: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    not_running: list[str] = field(default_factory=list)


#: Runs a query command, returning its exit status and standard output.
Probe = Callable[[Sequence[str]], tuple[int, str]]


class Installer:
    """One install run.

    Args:
        root: where ``/`` is (``Path("/")`` on the Pi; a scratch folder in tests).
        source: the checkout to install from (holds ``cabinet/``, ``systemd/``...).
        run: runs a command (``run(argv, check)``: ``check`` False for one whose
            failure is fine), or ``None`` to record every command as skipped (``--root``).
        probe: runs a query (``systemctl show``, ``journalctl``) for the summary after
            the start, or ``None``: no summary.
        clock, sleep: the monotonic clock and sleep (seconds) of the wait after the start.
    """

    #: The folders of ``source`` laid down in ``PREFIX``.
    DIRS: tuple[str, ...] = (*PACKAGES, *EXTRA_DIRS)

    def __init__(
        self,
        root: Path,
        source: Path,
        run: Callable[[Sequence[str], bool], None] | None,
        probe: Probe | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.root = root
        self.source = source
        self.run_cmd = run
        self.probe = probe
        self.clock, self.sleep = clock, sleep
        self.report = Report()
        #: The users the install makes and gives the journal to.
        self.accounts = install_users.Accounts()

    def at(self, path: PurePosixPath) -> Path:
        """``path`` (absolute, on the Pi) under ``root``."""
        return self.root / path.relative_to("/")

    def command(self, *argv: str, check: bool = True) -> None:
        if self.run_cmd is None:
            self.report.skipped.append(" ".join(argv))
        else:
            self.run_cmd(list(argv), check)

    # -- steps ---------------------------------------------------------------------------

    def on_a_pi(self) -> bool:
        """A Raspberry Pi boot partition (``CMDLINE_FILES``) is there."""
        return any(self.at(p).is_file() for p in CMDLINE_FILES)

    def systemd_running(self) -> bool:
        """systemd is the init system (``SYSTEMD_RUNNING``): not so in a chroot."""
        return self.at(SYSTEMD_RUNNING).is_dir()

    def packages(self) -> None:
        """``APT_PACKAGES`` on a Raspberry Pi; elsewhere said and left."""
        if self.on_a_pi() and self._have_deb(APT_PACKAGES):
            self.report.kept.append(f"{' '.join(APT_PACKAGES)} (installed; apt not needed offline)")
        elif self.on_a_pi():
            self.command("apt-get", "install", "--yes", "--no-install-recommends", *APT_PACKAGES)
        else:
            self.report.skipped.append(
                "not a Raspberry Pi (no cmdline.txt): python3-lgpio not "
                "installed, --devices hardware will not find the GPIO"
            )

    def _have_deb(self, names: Sequence[str]) -> bool:
        """Each Debian package of ``names`` is installed (dpkg's status file under root)."""
        try:
            text = self.at(PurePosixPath("/var/lib/dpkg/status")).read_text(errors="replace")
        except OSError:
            return False
        have = set()
        for stanza in text.split("\n\n"):
            fields = dict(ln.split(": ", 1) for ln in stanza.splitlines() if ": " in ln)
            if fields.get("Status") == "install ok installed":
                have.add(fields.get("Package", ""))
        return set(names) <= have

    def users(self) -> None:
        """The engine's and the UI's system users and their groups (``install_users``)."""
        install_users.create(self, STATE_DIR)

    def program(self) -> None:
        """The checkout's ``DIRS`` and ``EXTRA_FILES`` synced to ``PREFIX`` (only changed
        files written; files the new version dropped removed)."""
        dest = self.at(PREFIX)
        wanted: set[Path] = set()
        for name in self.DIRS:
            src = self.source / name
            for dirpath, dirnames, filenames in os.walk(src):
                dirnames[:] = sorted(d for d in dirnames if d not in {"__pycache__", ".pytest_cache"})
                for fn in sorted(filenames):
                    rel = (Path(dirpath) / fn).relative_to(self.source)
                    if fn.endswith((".pyc", ".tmp")) or fn == "MANIFEST.sha256":
                        continue
                    wanted.add(rel)
        wanted.update(Path(f) for f in EXTRA_FILES if (self.source / f).is_file())
        changed = sum(self._copy(self.source / rel, dest / rel, 0o644, quiet=True) for rel in sorted(wanted))
        if changed:
            self.report.done.append(f"program: {changed} of {len(wanted)} files written to {PREFIX}")
        else:
            self.report.kept.append(f"{PREFIX}: {len(wanted)} files, all up to date")
        for name in self.DIRS:  # files the new version no longer has
            for dirpath, _dirs, filenames in os.walk(dest / name):
                for fn in filenames:
                    path = Path(dirpath) / fn
                    rel = path.relative_to(dest)
                    if rel not in wanted and "__pycache__" not in rel.parts:
                        path.unlink()
                        self.report.done.append(f"removed {PREFIX / rel.as_posix()}")

    def stop(self) -> None:
        """An update: the engine finishes the event in hand and commits before its files change."""
        self.command("systemctl", "stop", "cabinet.target", "cabinet-ui.service", "cabinet-engine.service", check=False)

    def venv(self) -> None:
        """The venv (made once) that sees the system's packages (``python3-lgpio``), with
        the program installed editable from ``PREFIX`` (a development install: a release
        brings a venv of its own, ``cabinet.tools.release_install``); byte-compiled
        (``/opt`` is read-only to it). pygame (an older install's) goes first: pygame-ce
        is ``import pygame`` too."""
        py = VENV / "bin" / "python"
        cfg = self.at(VENV / "pyvenv.cfg")
        if not self.at(py).exists():
            self.command(sys.executable, "-m", "venv", "--system-site-packages", str(self.at(VENV)))
        elif cfg.is_file():
            text = cfg.read_text()
            seen = re.sub(
                r"(?m)^include-system-site-packages\s*=\s*false\s*$", "include-system-site-packages = true", text
            )
            if seen != text:
                cfg.write_text(seen)
                self.report.done.append(f"{VENV}: sees the system's packages (python3-lgpio)")
        self.command(str(self.at(py)), "-m", "pip", "uninstall", "--quiet", "--yes", "pygame", check=False)
        self.command(
            str(self.at(py)), "-m", "pip", "install", "--quiet", "--upgrade", "--editable", str(self.at(PREFIX))
        )
        self.command(str(self.at(py)), "-m", "compileall", "-q", *(str(self.at(PREFIX / p)) for p in PACKAGES))

    def display(self) -> None:
        """The venv's SDL has the video driver ``cabinet-ui.service`` sets
        (``SDL_VIDEODRIVER``): ``python -m ui.sdl_drivers --require`` fails the step if not."""
        driver = unit_environment(self.source / "systemd" / "cabinet-ui.service").get("SDL_VIDEODRIVER")
        if driver:
            self.command(str(self.at(VENV / "bin" / "python")), "-m", "ui.sdl_drivers", "--require", driver)

    def config(self) -> None:
        """``/etc/cabinet/cabinet.toml`` and the wiring file it names (``WIRING``, the
        default pin map) from ``systemd/``, each only if there is none (0640, root:cabinet)."""
        self._dir(CONFIG_DIR, 0o750)
        for path, example in ((CONFIG, "cabinet.toml.example"), (WIRING, "wiring.toml.example")):
            target = self.at(path)
            if target.exists():
                self.report.kept.append(str(path))
            else:
                self._copy(self.source / "systemd" / example, target, 0o640)
        self.command("chown", f"root:{USER}", str(CONFIG_DIR), str(CONFIG), str(WIRING))

    def state(self) -> None:
        """The journal folder, 0700 and the engine user's (all in it owner-only); what
        is in it is never otherwise touched."""
        self._dir(STATE_DIR, 0o700)
        install_users.own_state(self, STATE_DIR)

    def units(self) -> None:
        """The units, enabled (``WantedBy=`` links); getty on tty1 off; the udev rules."""
        for unit in UNITS:
            self._copy(self.source / "systemd" / unit, self.at(UNIT_DIR / unit), 0o644)
            if "@." in unit:
                continue  # a template (a screen per station): enabled per instance
            for wanted_by in _install_wanted_by(self.source / "systemd" / unit):
                self._link(UNIT_DIR / f"{wanted_by}.wants" / unit, UNIT_DIR / unit)
        getty = self.at(GETTY_LINK)
        if getty.is_symlink() or getty.exists():
            getty.unlink()  # the login prompt on the display: off
            self.report.done.append(f"removed {GETTY_LINK}")
        rules, src = self.at(UDEV_RULES), self.source / "systemd" / "99-cabinet.rules"
        if rules.exists() and rules.read_bytes() != src.read_bytes():
            self.report.kept.append(str(UDEV_RULES))  # edited for this cabinet's devices
            self._copy(src, rules.with_name(rules.name + ".new"), 0o644)
        else:
            self._copy(src, rules, 0o644)
        if self.systemd_running():
            self.command("systemctl", "daemon-reload")
            self.command("udevadm", "control", "--reload")
        else:
            self.report.skipped.append(NO_SYSTEMD)

    def cmdline(self) -> None:
        """``CMDLINE_OPTIONS`` in the Pi's kernel command line (one line; replaces other
        values), and no kernel console on a Pi UART (``pi_boot.serial_consoles``: it
        writes to BCM 14 and the serial devices at every boot)."""
        from cabinet.tools import pi_boot

        for rel in CMDLINE_FILES:
            path = self.at(rel)
            if not path.is_file():
                continue
            old = path.read_text()
            keys = tuple(o.split("=")[0] + "=" for o in CMDLINE_OPTIONS)
            keep = [w for w in pi_boot.without_serial_consoles(old).split() if not w.startswith(keys)]
            new = " ".join(keep + list(CMDLINE_OPTIONS)) + "\n"  # one line, as the Pi wants
            if new != old:
                path.write_text(new)
                gone = pi_boot.serial_consoles(old)
                self.report.done.append(
                    f"{rel}: {' '.join(CMDLINE_OPTIONS)}" + (f"; removed {' '.join(gone)} (reboot)" if gone else "")
                )
            else:
                self.report.kept.append(str(rel))
            return
        self.report.skipped.append("no cmdline.txt (not a Raspberry Pi boot partition): console blanking left as it is")

    def boot_config(self) -> None:
        """The Pi's ``config.txt``: each bus whose pins the installed wiring uses as GPIO
        turned off (``pi_boot.fixed_config_txt``: the UART unless a device is on it, SPI,
        I2C unless the hardware counter is on it); a clash no setting mends (a device on
        the UART whose pins are wired) is left for ``cabinet doctor`` to name."""
        from cabinet.tools import pi_boot

        path = next((p for rel in CONFIG_TXT_FILES if (p := self.at(rel)).is_file()), None)
        if path is None:
            self.report.skipped.append(
                "no config.txt (not a Raspberry Pi boot partition): UART, SPI, I2C left as they are"
            )
            return
        try:
            pins, uart_port, counter = self._wired()
        except ValueError as e:  # ConfigError: the engine's own check names it
            self.report.skipped.append(f"config.txt left as it is: the config or wiring does not load ({e})")
            return
        old = path.read_text()
        new = pi_boot.fixed_config_txt(old, pins, uart_port, counter)
        if new != old:
            path.write_text(new)
            self.report.done.append(f"{path.relative_to(self.root)}: buses on the panel's pins off (reboot)")
        else:
            self.report.kept.append(str(path.relative_to(self.root)))

    def _wired(self) -> tuple[dict[int, str], bool, str]:
        """The installed config's pins in use, whether a device is on a Pi UART, its
        hardware counter.

        Raises:
            ConfigError: the config or a wiring file does not load.
        """
        from cabinet.shell.config import load_config
        from cabinet.shell.device_probe import wired_pins
        from cabinet.tools import pi_boot

        cfg = load_config(self.at(CONFIG)) if self.at(CONFIG).is_file() else load_config(None)
        stations = [n for n in (1, 2, 3) if cfg.has_own_devices(n)]
        wiring = {n: str(self.at(PurePosixPath(w))) if (w := cfg.wiring_for(n)) else None for n in stations}
        ports = [cfg.section(n).bill_acceptor_url or "" for n in stations]
        ports += [cfg.section(n).printer_url or "" for n in stations]
        ports += [sas.port for n in (1, 2, 3) if (sas := cfg.sas_for(n)) is not None]
        return wired_pins(wiring), any(pi_boot.on_uart(p) for p in ports), cfg.journal.counter

    def start(self) -> None:
        """(Re)start the cabinet without waiting on it (``--no-block``: a unit that cannot
        start never holds up the installer); an earlier start limit reset first."""
        self.command("systemctl", "reset-failed", *SERVICES, check=False)
        self.command("systemctl", "restart", "--no-block", "cabinet.target")

    def summary(self) -> None:
        """Wait (at most ``START_WAIT_S``) for ``SERVICES`` to leave activating, then
        sort them into ``report.running`` and ``report.not_running``."""
        if self.probe is None:
            return
        from cabinet.tools.install_status import settle

        running, not_running = settle(self.probe, SERVICES, START_WAIT_S, self.clock, self.sleep)
        self.report.running += running
        self.report.not_running += not_running

    def steps(self) -> list[Callable[[], None]]:
        """Every step, in order (a release install runs the same ones)."""
        return [
            self.stop,
            self.packages,
            self.users,
            self.program,
            self.venv,
            self.display,
            self.config,
            self.state,
            self.units,
            self.cmdline,
            self.boot_config,
        ]

    def all(self, start: bool = True) -> Report:
        """Every step in order (``start``: restart ``cabinet.target`` at the end and say
        what runs); the report."""
        for step in self.steps():
            step()
        if start and self.systemd_running():
            self.start()
            self.summary()
        return self.report

    # -- helpers -------------------------------------------------------------------------

    def _dir(self, path: PurePosixPath, mode: int) -> None:
        p = self.at(path)
        if not p.is_dir():
            self._mkdirs(p.parent)
            p.mkdir()
            self.report.done.append(f"made {path}")
        os.chmod(p, mode)

    def _mkdirs(self, path: Path) -> None:
        """Make ``path`` and its missing parents 0755 whatever the umask (a root
        umask of 077 would leave the program unreadable to the ``cabinet`` user)."""
        missing = []
        while not path.exists():
            missing.append(path)
            path = path.parent
        for d in reversed(missing):
            d.mkdir()
            os.chmod(d, 0o755)

    def _copy(self, src: Path, dest: Path, mode: int, quiet: bool = False) -> bool:
        """Copy ``src`` to ``dest`` (atomically) unless it already holds the same bytes;
        True if written."""
        data = src.read_bytes()
        if dest.is_file() and dest.read_bytes() == data:
            os.chmod(dest, mode)
            return False
        self._mkdirs(dest.parent)
        tmp = dest.with_name(f".{dest.name}.tmp")
        tmp.write_bytes(data)
        os.chmod(tmp, mode)
        os.replace(tmp, dest)
        if not quiet:
            self.report.done.append(f"wrote /{dest.relative_to(self.root).as_posix()}")
        return True

    def _link(self, link: PurePosixPath, target: PurePosixPath) -> None:
        p = self.at(link)
        if p.is_symlink() and os.readlink(p) == str(target):
            return
        self._mkdirs(p.parent)
        if p.is_symlink() or p.exists():
            p.unlink()
        p.symlink_to(str(target))
        self.report.done.append(f"enabled {link} -> {target}")


def program_id(source: Path) -> str:
    """``"blackjack-cabinet <version>"`` from the checkout's ``pyproject.toml`` (the
    version being installed, not the one running the installer).

    Raises:
        OSError, KeyError, tomllib.TOMLDecodeError: no readable ``[project]`` there.
    """
    with open(source / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return f"{project['name']} {project['version']}"


def unit_environment(unit: Path) -> dict[str, str]:
    """The ``Environment=NAME=value`` settings of a unit file's ``[Service]`` section."""
    out: dict[str, str] = {}
    section = ""
    for line in unit.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and line.startswith("Environment="):
            for word in line.removeprefix("Environment=").split():
                name, _, value = word.partition("=")
                out[name] = value
    return out


def _install_wanted_by(unit: Path) -> list[str]:
    """The ``WantedBy=`` targets of a unit file's ``[Install]`` section."""
    out: list[str] = []
    section = ""
    for line in unit.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Install]" and line.startswith("WantedBy="):
            out += line.removeprefix("WantedBy=").split()
    return out


def main(root: str | None, source: str | None, start: bool = True) -> int:
    """``cabinet install`` from a checkout (a development install; a release:
    ``cabinet.tools.release_install``): returns the exit status (1: a step failed, with
    why, or a service is not running after the start, with why)."""
    if root is None and os.geteuid() != 0:
        print("cabinet install: run as root (sudo), or try it with --root DIR", file=sys.stderr)
        return 1
    from cabinet.tools.install_status import commands, print_report

    run, probe = commands(root)
    inst = Installer(Path(root or "/").resolve(), Path(source).resolve() if source else install_root(), run, probe)
    try:
        report = inst.all(start)
    except (OSError, KeyError, tomllib.TOMLDecodeError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        print(f"cabinet install: {e}", file=sys.stderr)
        if root is None:
            print(
                "cabinet install: stopped there; the cabinet is not started. Fix that, then run the installer again.",
                file=sys.stderr,
            )
        return 1
    return print_report(report, root)

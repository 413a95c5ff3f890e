"""``cabinet doctor``: check a freshly wired (or serviced) cabinet.

Owns: the list of checks and the pass/fail report. In order: the config file and
each station's wiring file (``confspec`` schemas), each configured device (the
serial ports opened, the acceptor's firmware version and status and the printer's
status read through the drivers, every input pin read through gpiozero: the Pi's
lgpio on hardware, ``MockFactory`` in simulation), the journal's integrity (the
journal verify of ``cabinet.shell.journal``, against the config's hardware counter,
``[journal] counter``, as the engine checks it at start), free disk, the clock (a sane year;
NTP synchronisation when ``timedatectl`` tells), and the venv against its signed
release manifest (``cabinet.shell.program_check``). Each line is ``PASS``, ``WARN``
or ``FAIL`` with what to do; the exit status is 1 when anything failed, else 0.

The device checks open the ports the engine holds: run it with the engine stopped
(``sudo systemctl stop cabinet.target``); a port held elsewhere is a failure saying
so. The hardware counter is not read while an engine holds the journal (one I2C
exchange at a time with the chip; the engine checked it at its start).
I/O: files, GPIO, serial ports, the counter's device, ``timedatectl``.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cabinet.shell.device_probe import (
    Finding,
    acceptor_findings,
    input_findings,
    pin_factory,
    printer_findings,
    station_wiring,
    wiring_findings,
)

if TYPE_CHECKING:  # the drivers' contracts load only with a counter fitted
    from cabinet.shell.journal.counter import MonotonicCounter

#: The installed config and journal (``cabinet.tools.install``'s layout).
INSTALLED_CONFIG = Path("/etc/cabinet/cabinet.toml")
INSTALLED_JOURNAL = Path("/var/lib/cabinet/journal.db")
#: Free space under the journal below which the doctor fails (the journal grows
#: by a few kB per round; SQLite needs room for its write-ahead log).
MIN_FREE_BYTES = 200 * 1024 * 1024
#: A clock before this year has lost its time (no RTC, no network yet).
SANE_YEARS = range(2025, 2100)


@dataclass(frozen=True, slots=True)
class DoctorOptions:
    """What to check.

    Attributes:
        journal: the journal file (``None``: the engine's default).
        config: ``cabinet.toml`` (``None``: none, every default).
        devices: ``hardware``, ``sim`` (``twins`` are ``cabinet sim-devices``'
            folder) or ``none`` (the device checks are skipped).
        twins: the serial twins' folder for ``sim``.
        root: where ``/`` is for the Pi's boot files (tests pass a scratch folder).
    """

    journal: Path
    config: Path | None = None
    devices: str = "none"
    twins: Path | None = None
    root: Path = Path("/")


def run_checks(
    opts: DoctorOptions, now: Callable[[], dt.datetime] = dt.datetime.now, ntp: Callable[[], str | None] | None = None
) -> list[Finding]:
    """Every check of the module docstring, in order; never raises.

    ``now`` and ``ntp`` (``"yes"``, ``"no"`` or ``None``: not known) are the clock
    and NTP readers (tests pass their own).
    """
    out: list[Finding] = []
    cfg = _config(opts, out)
    if cfg is not None:
        _devices(opts, cfg, out)
        out += _boot(opts, cfg)
    out += _journal_and_counter(opts, cfg)
    out += [_disk(opts.journal), _clock(now(), (ntp or _timedatectl_ntp)())]
    out.append(_program())
    return out


def _config(opts: DoctorOptions, out: list[Finding]) -> object | None:
    from cabinet.shell.config import load_config
    from confspec import ConfigError

    what = f"config {opts.config}" if opts.config else "config"
    try:
        cfg = load_config(opts.config)
    except ConfigError as e:
        out.append(
            Finding(
                "FAIL",
                what,
                str(e),
                "correct the file (see systemd/cabinet.toml.example), then run cabinet doctor again",
            )
        )
        return None
    out.append(Finding("PASS", what, "read and checked" if opts.config else "no file: every default"))
    return cfg


def _devices(opts: DoctorOptions, cfg: object, out: list[Finding]) -> None:
    from cabinet.shell.config import EngineConfig
    from confspec import ConfigError

    assert isinstance(cfg, EngineConfig)
    if opts.devices == "none":
        for n in (1, 2, 3):  # the engine reads them whatever the devices
            path = cfg.wiring_for(n)
            try:
                station_wiring(path)
            except ConfigError as e:
                out.append(
                    Finding(
                        "FAIL",
                        f"station {n} wiring {path}",
                        str(e),
                        "correct the wiring file (or the config's wiring line), then run cabinet doctor again",
                    )
                )
        out.append(
            Finding(
                "WARN",
                "devices",
                "not checked",
                "pass --devices hardware on the cabinet (or --devices sim --twins DIR)",
            )
        )
        return
    if opts.devices == "sim" and opts.twins is None:
        out.append(
            Finding(
                "FAIL",
                "devices",
                "--devices sim needs --twins DIR",
                "start 'cabinet sim-devices --state-dir DIR' and pass its DIR",
            )
        )
        return
    if _engine_running(opts.journal):
        out.append(
            Finding(
                "FAIL",
                "devices",
                "not checked: an engine holds this journal (and so the ports and pins)",
                "stop it first: sudo systemctl stop cabinet.target",
            )
        )
        return
    try:
        factory = pin_factory(opts.devices)
    except Exception as e:  # lgpio missing, no GPIO chip, no permission
        out.append(
            Finding(
                "FAIL",
                "GPIO",
                f"cannot open the GPIO chip: {e}",
                "on the Pi: sudo apt-get install python3-lgpio (or run cabinet "
                "install again); run as a user in group gpio",
            )
        )
        factory = None
    for n in (1, 2, 3):
        if n > 1 and not cfg.has_own_devices(n):
            continue
        label = f"station {n}"
        path = cfg.wiring_for(n)
        try:
            wiring = station_wiring(path)
        except ConfigError as e:
            out.append(
                Finding(
                    "FAIL", f"{label} wiring {path}", str(e), "correct the wiring file, then run cabinet doctor again"
                )
            )
            continue
        out += wiring_findings(wiring, label + (f" ({path})" if path else " (default pins)"))
        if factory is not None:
            out += input_findings(wiring, factory, label)
        section = cfg.section(n)
        twins = None if opts.twins is None else opts.twins if n == 1 else opts.twins / f"station{n}"
        if section.acceptor == "id003":
            url = (
                str(twins / "bill-acceptor")
                if twins is not None
                else section.bill_acceptor_url or "/dev/serial/by-id/usb-bill-acceptor"
            )
            out += acceptor_findings(url, label)
        url = (
            str(twins / "printer")
            if twins is not None
            else section.printer_url or "/dev/serial/by-id/usb-ticket-printer"
        )
        out += printer_findings(url, label)
    if factory is not None:
        factory.close()


#: The Pi's boot partition files, Bookworm's place first, then the older one.
BOOT_DIRS = ("boot/firmware", "boot")


def _boot(opts: DoctorOptions, cfg: object) -> list[Finding]:
    """The Pi's serial console, UART, SPI and I2C against the pin map and the serial
    ports (``cabinet.tools.pi_boot``); nothing off a Pi (no ``cmdline.txt``)."""
    from cabinet.shell.config import EngineConfig
    from cabinet.shell.device_probe import wired_pins
    from cabinet.tools import pi_boot
    from confspec import ConfigError

    boot = next((opts.root / d for d in BOOT_DIRS if (opts.root / d / "cmdline.txt").is_file()), None)
    if boot is None or not isinstance(cfg, EngineConfig):
        return []
    stations = [n for n in (1, 2, 3) if cfg.has_own_devices(n)]
    try:
        pins = wired_pins({n: cfg.wiring_for(n) for n in stations})
    except ConfigError:
        return []  # the wiring's own finding says what is wrong
    ports = {}
    for n in (1, 2, 3):
        section, sas = cfg.section(n), cfg.sas_for(n)
        for what, port in (
            ("bill acceptor", section.bill_acceptor_url),
            ("printer", section.printer_url),
            ("SAS port", sas.port if sas is not None else None),
        ):
            if port and port.startswith("/dev/"):
                ports[f"station {n} {what}"] = os.path.realpath(opts.root / port.lstrip("/")).removeprefix(
                    str(opts.root.resolve()).rstrip("/")
                )
    config_txt = boot / "config.txt"
    found = pi_boot.problems(
        pins,
        ports,
        (boot / "cmdline.txt").read_text(),
        config_txt.read_text() if config_txt.is_file() else None,
        cfg.journal.counter,
    )
    if not found:
        return [Finding("PASS", "boot settings", "no serial console; UART, SPI and I2C agree with the pin map")]
    return [Finding("FAIL", f"boot settings: {p.what}", p.detail, p.fix) for p in found]


def _engine_running(journal: Path) -> bool:
    """An engine holds ``journal``'s lock (``cabinet.shell.main.lock_journal``)."""
    import fcntl

    from cabinet.shell.paths import lock_file

    try:
        f = open(lock_file(journal))  # noqa: SIM115 - closed below
    except OSError:
        return False  # no lock file: no engine yet
    try:
        fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        f.close()
    return False


def _journal_and_counter(opts: DoctorOptions, cfg: object | None) -> list[Finding]:
    """The journal's check with the config's hardware counter opened (none: a config
    that failed its own check, or names none), and the counter's own failure to open."""
    from cabinet.shell.config import EngineConfig
    from cabinet.shell.journal.counter import open_fitted
    from confspec import ConfigError

    spec = cfg.journal.counter if isinstance(cfg, EngineConfig) else "none"
    if spec == "none":
        return _journal(opts.journal)
    if _engine_running(opts.journal):
        return _journal(
            opts.journal,
            note="; hardware counter not read: an engine holds the journal (it checked the counter at its start)",
        )
    try:
        counter = open_fitted(spec, str(opts.config or ""))
    except ConfigError as e:
        return [
            Finding(
                "FAIL",
                "hardware counter",
                str(e),
                "correct journal.counter in the "
                "config (see systemd/cabinet.toml.example); for an ATECC608 enable "
                "I2C (raspi-config) and run as a user in group i2c",
            ),
            *_journal(opts.journal),
        ]
    try:
        return _journal(opts.journal, counter)
    finally:
        if counter is not None:
            counter.close()


def _journal(path: Path, counter: MonotonicCounter | None = None, note: str = "") -> list[Finding]:
    """The journal at ``path`` verified (with the fitted ``counter``); ``note`` ends
    the passing line's detail."""
    import stat

    from cabinet.shell.journal.guard import journal_format
    from cabinet.shell.paths import key_file, open_to_others
    from cabinet.shell.store import Store

    what = f"journal {path}"
    places, fixes = [], []  # what lets others at the journal: FAIL, with the fix
    try:
        folder, key = path.parent, key_file(path)
        if folder.is_dir() and open_to_others(folder, group_ok=True):
            places.append(
                f"its folder {folder} has mode "
                f"{stat.S_IMODE(folder.stat().st_mode):04o}: others can enter it "
                "(at most 0750); the engine refuses it"
            )
            fixes.append(f"chmod 700 {folder}")
        if key.is_file() and (mode := stat.S_IMODE(key.stat().st_mode)) & 0o077:
            places.append(f"its key file {key} has mode {mode:04o}: others can read the secret that signs the journal")
            fixes.append(f"chmod 600 {key} (the engine also does at its next start)")
    except OSError as e:
        places.append(f"cannot check its folder: {e.strerror or e}")
    if places:
        return [Finding("FAIL", what, "; ".join(places), "; ".join(fixes) or "run as the engine's user")]
    if not path.exists():
        return [Finding("WARN", what, "none yet", "the engine creates it at its first start")]
    if journal_format(path) == "old":
        return [
            Finding(
                "FAIL",
                what,
                "in the old format (plain SHA-256 checksums): the engine does not start on it",
                f"stop the engine and upgrade it once: cabinet upgrade-journal --journal {path}",
            )
        ]
    try:
        store = Store(path, readonly=True, counter=counter)
        if store.key is None and key_file(path).exists():
            return [
                Finding(
                    "FAIL",
                    what,
                    f"cannot read its key {key_file(path)}",
                    "run as the engine's user: sudo -u cabinet cabinet doctor",
                )
            ]
        findings = store.verify()
        seq, n_events = store.seq, len(store.events(10**9))
    except Exception as e:  # sqlite3.Error, StoreError: not a journal at all
        return [
            Finding(
                "FAIL",
                what,
                f"unreadable: {e}",
                "restore the last backup (docs/guide/install.md 'Backup of the journal') or RAM clear",
            )
        ]
    if findings:
        return [
            Finding(
                "FAIL",
                what,
                "; ".join(findings),
                "do not play: the engine tilts with a RAM error; restore the last backup or RAM clear",
            )
        ]
    return [
        Finding(
            "PASS",
            what,
            f"OK ({seq} commits, {n_events} events verified): keyed "
            "checksums, event chain, commit record" + (", hardware counter" if counter is not None else "") + note,
        )
    ]


def _disk(journal: Path) -> Finding:
    where = journal.parent
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    detail = f"{free // (1024 * 1024)} MB free under {where}"
    if free < MIN_FREE_BYTES:
        return Finding(
            "FAIL",
            "disk",
            detail,
            "free space (old logs: sudo journalctl "
            f"--vacuum-size=50M) to at least {MIN_FREE_BYTES // (1024 * 1024)} MB",
        )
    return Finding("PASS", "disk", detail)


def _timedatectl_ntp() -> str | None:
    try:
        r = subprocess.run(
            ["timedatectl", "show", "-p", "NTPSynchronized", "--value"], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = r.stdout.strip()
    return value if r.returncode == 0 and value in ("yes", "no") else None


def _clock(now: dt.datetime, ntp: str | None) -> Finding:
    stamp = now.strftime("%Y-%m-%d %H:%M:%S")
    if now.year not in SANE_YEARS:
        return Finding(
            "FAIL",
            "clock",
            f"{stamp}: not a sane date",
            "set the clock "
            "(sudo timedatectl set-time 'YYYY-MM-DD HH:MM') or connect the "
            "network for NTP; voucher expiry and the event log use it",
        )
    if ntp == "no":
        return Finding(
            "WARN",
            "clock",
            f"{stamp}, not synchronised (NTP)",
            "connect the network, or fit an RTC and set the time by hand",
        )
    return Finding("PASS", "clock", stamp + (", NTP synchronised" if ntp == "yes" else ""))


def _program() -> Finding:
    import sys
    from pathlib import Path

    from cabinet.shell.program_check import RELEASE_MANIFEST, check_release, development

    venv = Path(sys.prefix)
    installed = sys.prefix != sys.base_prefix and (venv / RELEASE_MANIFEST).exists()
    check = check_release(venv) if installed else development()
    what = f"program {check.program_id}"
    if check.status == "verified":
        return Finding(
            "PASS", what, f"every file of the venv matches the signed release manifest, SHA-256 {check.digest}"
        )
    if check.status == "development":
        return Finding(
            "WARN",
            what,
            check.detail,
            "a cabinet runs a signed release: sudo /opt/cabinet/.venv/bin/cabinet install RELEASE",
        )
    return Finding(
        "FAIL",
        what,
        check.detail,
        "the program was changed: reinstall the "
        "release (sudo /opt/cabinet/.venv/bin/cabinet install RELEASE, or --rollback)",
    )


def report(findings: list[Finding]) -> str:
    """The report: one ``STATUS  what: detail`` line per finding, its fix indented
    under it, and a last line counting the failures."""
    lines = []
    for f in findings:
        lines.append(f"{f.status:4s}  {f.what}: {f.detail}")
        if f.fix:
            lines.append(f"      -> {f.fix}")
    failed = sum(f.status == "FAIL" for f in findings)
    warned = sum(f.status == "WARN" for f in findings)
    lines.append(f"{failed} failed, {warned} warnings, {len(findings) - failed - warned} passed")
    return "\n".join(lines)


def default_paths(journal: str | None, config: str | None) -> tuple[Path, Path | None]:
    """The journal and config to check: the ones given, else the installed ones when
    present (``/var/lib/cabinet``, ``/etc/cabinet``), else the engine's defaults."""
    from cabinet.shell.paths import default_journal

    if journal:
        jpath = Path(journal)
    elif not os.environ.get("CABINET_DATA_DIR") and INSTALLED_JOURNAL.exists():
        jpath = INSTALLED_JOURNAL
    else:
        jpath = default_journal()
    cpath = Path(config) if config else INSTALLED_CONFIG if INSTALLED_CONFIG.exists() else None
    return jpath, cpath


#: ``--engine-stopped``: the heading and the closing lines around the report, the text
#: ``cabinet-engine-stopped.service`` puts on the display when the engine has stopped.
STOPPED_HEADING = "THE CABINET ENGINE HAS STOPPED: it did not start (a config error, or 5 failed starts)."
STOPPED_FOOTER = (
    "Fix what FAIL says, then: sudo systemctl reset-failed cabinet-engine.service "
    "&& sudo systemctl restart cabinet.target\n"
    "The engine's log: journalctl -u cabinet-engine.service"
)


def main(
    journal: str | None, config: str | None, devices: str | None, twins: str | None, engine_stopped: bool = False
) -> int:
    """``cabinet doctor``: print the report; 1 if a check failed, else 0.

    ``devices`` ``None``: ``sim`` with ``twins``, ``hardware`` when a config file is
    found, else ``none``. ``engine_stopped``: the report between ``STOPPED_HEADING``
    and ``STOPPED_FOOTER``.
    """
    jpath, cpath = default_paths(journal, config)
    mode = devices or ("sim" if twins else "hardware" if cpath is not None else "none")
    findings = run_checks(DoctorOptions(jpath, cpath, mode, Path(twins) if twins else None))
    text = report(findings)
    print(f"{STOPPED_HEADING}\n\n{text}\n\n{STOPPED_FOOTER}" if engine_stopped else text)
    return 1 if any(f.status == "FAIL" for f in findings) else 0

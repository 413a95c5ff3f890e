"""The systemd units, the target and the udev rules.

A lint over the unit files (parsed as systemd reads them: sections, repeated keys):
the engine is ``Type=notify`` with a watchdog short enough to catch a 15 s stall;
no start limit can strand the UI or the engine; the UI is bound to the engine, owns
tty1 (``Conflicts=getty@tty1.service``) and draws on KMSDRM full screen; lgpio's
notify pipes have a writable ``LG_WD`` under ``ProtectSystem=strict``; GPIO and serial
stay reachable through the hardening; ``ExecStart`` and the paths agree with the
installer (``cabinet.tools.install``). Then ``systemd-analyze verify`` (Debian's
systemd) checks the units in a scratch root where the installer put them, and a
small udev rule evaluator checks which device gets which stable name."""

from __future__ import annotations

import fnmatch
import re
import shlex
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from cabinet.tools import install

ROOT = Path(__file__).resolve().parents[1]
SYSTEMD = ROOT / "systemd"

Unit = dict[str, dict[str, list[str]]]


def parse_unit(path: Path) -> Unit:
    """``{section: {key: [values in order]}}``: repeated keys kept, as systemd reads them."""
    out: Unit = {}
    section = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            out.setdefault(section, {})
            continue
        assert section is not None and "=" in line, f"{path.name}: bad line {raw!r}"
        key, _, value = line.partition("=")
        out[section].setdefault(key.strip(), []).append(value.strip())
    return out


def one(unit: Unit, section: str, key: str) -> str:
    values = unit.get(section, {}).get(key, [])
    assert len(values) == 1, f"[{section}] {key}: {values}"
    return values[0]


def words(unit: Unit, section: str, key: str) -> list[str]:
    return [w for v in unit.get(section, {}).get(key, []) for w in v.split()]


def env(unit: Unit) -> dict[str, str]:
    return dict(v.split("=", 1) for v in words(unit, "Service", "Environment"))


def seconds(text: str) -> float:
    """systemd's time span (``10``, ``10s``, ``2min``, ``500ms``) in seconds."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(ms|s|sec|min|m)?", text)
    assert m, text
    return float(m.group(1)) * {"ms": 0.001, "min": 60, "m": 60}.get(m.group(2) or "s", 1)


ENGINE = parse_unit(SYSTEMD / "cabinet-engine.service")
UI = parse_unit(SYSTEMD / "cabinet-ui.service")
TARGET = parse_unit(SYSTEMD / "cabinet.target")


def test_engine_is_notify_with_a_watchdog_that_catches_a_15_s_stall():
    """READY=1 from the engine, WATCHDOG=1 pings; restarted when they stop."""
    assert one(ENGINE, "Service", "Type") == "notify"
    assert one(ENGINE, "Service", "NotifyAccess") == "main"
    assert 0 < seconds(one(ENGINE, "Service", "WatchdogSec")) <= 15
    assert one(ENGINE, "Service", "Restart") in {"on-failure", "on-watchdog", "always"}
    assert seconds(one(ENGINE, "Service", "TimeoutStartSec")) >= 60  # a journal salvage takes time


def _cannot_strand(unit: Unit) -> bool:
    """A start limit the unit's own restarts can never hit: none (0), or more starts
    allowed per interval than RestartSec lets happen in it."""
    interval = seconds(unit["Unit"].get("StartLimitIntervalSec", ["10"])[0])
    if interval == 0:
        return True
    burst = int(unit["Unit"].get("StartLimitBurst", ["5"])[0])
    restart_s = seconds(unit["Service"].get("RestartSec", ["0.1"])[0])
    return interval / restart_s + 1 <= burst


def test_start_limits_cannot_strand_the_ui():
    """With RestartSec=1 and the default 5 starts per 10 s, one late display
    left the UI dead for good."""
    assert _cannot_strand(UI)
    assert one(UI, "Service", "Restart") == "always"
    # the lint's own rule: systemd's defaults with RestartSec=1 would strand it
    assert not _cannot_strand({"Unit": {}, "Service": {"RestartSec": ["1"]}})


def test_an_engine_that_cannot_start_stops_after_a_few_tries_and_the_display_says_why():
    """A config error (exit status 2: a missing wiring file) is not retried, and any
    other failure at most ``StartLimitBurst`` times in ``StartLimitIntervalSec``
    (``cabinet.target``'s ``Upholds=`` starts count too): no restart storm. The engine
    then stays failed and ``cabinet-engine-stopped.service`` shows on the display
    (tty1) what ``cabinet doctor`` finds and what to do."""
    interval = seconds(one(ENGINE, "Unit", "StartLimitIntervalSec"))
    burst = int(one(ENGINE, "Unit", "StartLimitBurst"))
    assert 0 < interval and 2 <= burst <= 10
    assert not _cannot_strand(ENGINE)  # the limit is one its restarts reach
    assert seconds(one(ENGINE, "Service", "RestartSec")) * burst < interval
    assert words(ENGINE, "Service", "RestartPreventExitStatus") == ["2"]
    assert words(ENGINE, "Unit", "OnFailure") == ["cabinet-engine-stopped.service"]
    notice = parse_unit(SYSTEMD / "cabinet-engine-stopped.service")
    assert one(notice, "Service", "Type") == "oneshot"
    assert one(notice, "Service", "TTYPath") == "/dev/tty1" == one(UI, "Service", "TTYPath")
    assert one(notice, "Service", "StandardOutput") == "tty"
    argv = shlex.split(one(notice, "Service", "ExecStart"))
    assert argv[0] == "-" + str(install.VENV / "bin" / "cabinet")  # doctor's status 1 is expected
    assert argv[1:] == ["doctor", "--config", str(install.CONFIG), "--devices", "none", "--engine-stopped"]
    assert one(notice, "Service", "User") == install.USER
    assert "Install" not in notice  # started only by the engine's failure


def test_the_hardware_counter_is_the_configs_and_both_units_can_reach_it():
    """The engine and the engine-stopped report read the counter from ``cabinet.toml``
    (``[journal] counter``), the file both are given: no environment variable names it.
    Both can open an I2C bus (group ``i2c``; the engine's ``DeviceAllow``)."""
    notice = parse_unit(SYSTEMD / "cabinet-engine-stopped.service")
    for unit in (ENGINE, notice):
        argv = shlex.split(one(unit, "Service", "ExecStart"))
        assert argv[argv.index("--config") + 1] == str(install.CONFIG)
        assert "i2c" in words(unit, "Service", "SupplementaryGroups")
    for path in (SYSTEMD / "cabinet-engine.service", SYSTEMD / "cabinet-engine-stopped.service"):
        assert "CABINET_COUNTER" not in path.read_text(), path.name
    assert "char-i2c rw" in ENGINE["Service"]["DeviceAllow"]


def test_ui_is_bound_to_the_engine_owns_tty1_and_draws_on_kmsdrm_without_a_cursor():
    """BindsTo/After the engine (the engine Upholds it back), the login prompt
    on tty1 gives way, KMSDRM full screen (no cursor), and the display is waited for."""
    assert "cabinet-engine.service" in words(UI, "Unit", "BindsTo")
    assert "cabinet-engine.service" in words(UI, "Unit", "After")
    assert "cabinet-ui.service" in words(ENGINE, "Unit", "Upholds")
    assert "getty@tty1.service" in words(UI, "Unit", "Conflicts")
    assert "getty@tty1.service" in words(UI, "Unit", "After")
    assert one(UI, "Service", "TTYPath") == "/dev/tty1"
    assert env(UI)["SDL_VIDEODRIVER"] == "kmsdrm"
    argv = shlex.split(one(UI, "Service", "ExecStart"))
    assert "--fullscreen" in argv  # full screen hides the cursor (ui.display)
    assert float(argv[argv.index("--display-wait") + 1]) >= 600


def test_lgpio_has_a_writable_working_directory_under_protect_system_strict():
    """Lgpio makes its notify pipes in $LG_WD (else the working directory):
    with ProtectSystem=strict and / as working directory the button callbacks fail."""
    assert one(ENGINE, "Service", "ProtectSystem") == "strict"
    lg_wd = PurePosixPath(env(ENGINE)["LG_WD"])
    runtime = [PurePosixPath("/run") / d for d in words(ENGINE, "Service", "RuntimeDirectory")]
    writable = runtime + [PurePosixPath(p) for p in words(ENGINE, "Service", "ReadWritePaths")]
    assert lg_wd in runtime  # made fresh, owned by the engine's user
    assert any(lg_wd == w or w in lg_wd.parents for w in writable)
    assert PurePosixPath(one(ENGINE, "Service", "WorkingDirectory")) == lg_wd


def test_hardening_still_allows_gpio_and_serial():
    """DevicePolicy=closed lets through the GPIO chip and the serial ports
    (USB FTDI/Prolific, CDC-ACM, the Pi's UARTs); the groups own those nodes."""
    assert {"gpio", "dialout"} <= set(words(ENGINE, "Service", "SupplementaryGroups"))
    assert one(ENGINE, "Service", "DevicePolicy") == "closed"
    allowed = {v.split()[0] for v in ENGINE["Service"]["DeviceAllow"]}
    assert {"char-gpiochip", "char-ttyUSB", "char-ttyACM", "char-ttyAMA"} <= allowed
    assert all(v.split()[1] == "rw" for v in ENGINE["Service"]["DeviceAllow"])
    assert one(ENGINE, "Service", "PrivateTmp") == "yes"
    assert "PrivateDevices" not in ENGINE["Service"]  # would hide /dev/gpiochip*
    assert one(ENGINE, "Service", "NoNewPrivileges") == "yes"
    assert one(ENGINE, "Service", "CapabilityBoundingSet") == ""


def test_exec_start_and_paths_agree_with_the_installer():
    """What ``cabinet install`` lays down is what the units run and read."""
    engine = shlex.split(one(ENGINE, "Service", "ExecStart"))
    ui = shlex.split(one(UI, "Service", "ExecStart"))
    # the program check first: isolated (-I), no site-packages .pth before it (-S), no .pyc (-B)
    assert engine[:5] == [
        str(install.VENV / "bin" / "python"),
        "-I",
        "-S",
        "-B",
        str(install.PREFIX / "systemd" / "cabinet-boot.py"),
    ]
    assert engine[5] == "engine"
    assert engine[engine.index("--config") + 1] == str(install.CONFIG)
    assert engine[engine.index("--devices") + 1] == "hardware"
    assert ui[:3] == [str(install.VENV / "bin" / "python"), "-m", "ui"]
    sock = ui[ui.index("--socket") + 1]
    assert env(ENGINE)["CABINET_SOCKET"] == sock == env(UI)["CABINET_SOCKET"]
    assert PurePosixPath(sock).parent == PurePosixPath("/run") / words(ENGINE, "Service", "RuntimeDirectory")[0]
    assert env(ENGINE)["CABINET_DATA_DIR"] == str(install.STATE_DIR)
    assert PurePosixPath("/var/lib") / one(ENGINE, "Service", "StateDirectory") == install.STATE_DIR
    assert one(ENGINE, "Service", "User") == install.USER
    assert one(UI, "Service", "User") == install.UI_USER
    for unit in (ENGINE, UI):
        assert set(words(unit, "Service", "SupplementaryGroups")) <= {*install.GROUPS, install.UI_USER}
    assert one(UI, "Service", "WorkingDirectory") == str(install.PREFIX)
    assert set(install.UNITS) == {p.name for p in SYSTEMD.glob("cabinet*.service")} | {"cabinet.target"}
    assert set(install.SERVICES) == {"cabinet-engine.service", "cabinet-ui.service"}


def test_a_station_screen_template_runs_its_own_station_on_its_own_tty():
    """``cabinet-ui@N.service`` is station N's own screen (``--station N
    --own-station``) on ttyN with its display's settings from an optional file; it
    replaces the shared screen and lives through an engine restart (reconnecting)."""
    t = parse_unit(SYSTEMD / "cabinet-ui@.service")
    argv = shlex.split(one(t, "Service", "ExecStart"))
    assert argv[:3] == [str(install.VENV / "bin" / "python"), "-m", "ui"]
    assert argv[argv.index("--station") + 1] == "%i" and "--own-station" in argv
    assert "--fullscreen" in argv and float(argv[argv.index("--display-wait") + 1]) >= 600
    assert argv[argv.index("--socket") + 1] == env(UI)["CABINET_SOCKET"] == env(t)["CABINET_SOCKET"]
    assert one(t, "Service", "TTYPath") == "/dev/tty%i"
    assert {"getty@tty%i.service", "cabinet-ui.service"} <= set(words(t, "Unit", "Conflicts"))
    assert one(t, "Service", "EnvironmentFile") == f"-{install.CONFIG_DIR}/ui-station%i.env"
    assert "BindsTo" not in t["Unit"] and "cabinet-engine.service" in words(t, "Unit", "After")
    assert _cannot_strand(t) and one(t, "Service", "Restart") == "always"
    assert (one(t, "Service", "User"), one(t, "Service", "Group")) == (install.UI_USER,) * 2
    assert words(t, "Install", "WantedBy") == ["cabinet.target"]


def test_the_target_starts_both_at_boot():
    """Cabinet.target (multi-user, no desktop) wants and upholds the engine."""
    assert {"cabinet-engine.service", "cabinet-ui.service"} <= set(words(TARGET, "Unit", "Wants"))
    assert "cabinet-engine.service" in words(TARGET, "Unit", "Upholds")
    assert words(TARGET, "Install", "WantedBy") == ["multi-user.target"]
    for unit in (ENGINE, UI):
        assert words(unit, "Install", "WantedBy") == ["cabinet.target"]
        assert words(unit, "Unit", "PartOf") == ["cabinet.target"]


@pytest.mark.timeout(120)
@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze not found: apt-get install systemd"
)
def test_systemd_analyze_verify_is_clean_in_a_scratch_root(tmp_path):
    """``systemd-analyze verify`` (Debian's systemd, its own units copied into
    the root) on the units as ``cabinet install --root`` put them, with the ExecStart
    programs present (stand-ins for the venv's): no error, no warning; and
    ``systemd-analyze security`` rates both services' exposure 3.0 or less (of 10)."""
    system = Path("/usr/lib/systemd/system")
    if not (system / "sysinit.target").exists():
        system = Path("/lib/systemd/system")
    assert (system / "getty@.service").exists(), "Debian's systemd units are missing"
    assert install.main(str(tmp_path), str(ROOT), start=False) == 0
    shutil.copytree(system, tmp_path / "usr/lib/systemd/system", symlinks=True)
    for exe in ("cabinet", "python"):
        p = tmp_path / install.VENV.relative_to("/") / "bin" / exe
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("#!/bin/sh\n")
        p.chmod(0o755)
    units = [u.replace("@.", "@2.") for u in install.UNITS]  # a template: an instance of it
    r = subprocess.run(
        ["systemd-analyze", "verify", f"--root={tmp_path}", *units],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
    )
    assert (r.returncode, r.stdout + r.stderr) == (0, "")
    for unit in (
        "cabinet-engine.service",
        "cabinet-ui.service",
        "cabinet-ui@2.service",
        "cabinet-engine-stopped.service",
    ):  # "OK", not "EXPOSED"
        r = subprocess.run(
            ["systemd-analyze", "security", "--offline=yes", f"--root={tmp_path}", unit],
            capture_output=True,
            text=True,
            timeout=90,
            cwd=tmp_path,
        )
        m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", r.stdout + r.stderr)
        assert m and float(m.group(1)) <= 3.0, (unit, r.stdout[-300:] + r.stderr[-300:])
    # and it does catch a broken one: the UI's program missing
    (tmp_path / install.VENV.relative_to("/") / "bin" / "python").unlink()
    r = subprocess.run(
        ["systemd-analyze", "verify", f"--root={tmp_path}", "cabinet-ui.service"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
    )
    assert r.returncode != 0 and "is not executable" in r.stderr


# -- udev rules ----------------------------------------------------------------------------

_RULE_KEY = re.compile(r'\s*([A-Z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|:=|=)\s*"([^"]*)"\s*(?:,|$)')


def _parse_rules(text: str) -> list[list[tuple[str, str, str]]]:
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pairs, pos = [], 0
        while pos < len(line):
            m = _RULE_KEY.match(line, pos)
            assert m, f"unparsed udev rule at {line[pos:]!r}"
            pairs.append(m.groups())
            pos = m.end()
        rules.append(pairs)
    return rules


def udev_names(device: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """Run ``99-cabinet.rules`` over one device (``KERNEL``, ``SUBSYSTEM``, ``ACTION``,
    ``ATTRS{..}``, ``ENV{..}`` keys): the symlinks and the other assignments. Enough
    of udev's matching for these rules: globs with ``|``, GOTO/LABEL."""
    rules = _parse_rules((SYSTEMD / "99-cabinet.rules").read_text())
    dev = dict(device)
    links: list[str] = []
    assigned: dict[str, str] = {}
    goto = None
    for pairs in rules:
        if goto is not None:
            if ("LABEL", "=", goto) in pairs:
                goto = None
            continue
        matched = True
        for key, op, value in pairs:
            if op in ("==", "!="):
                have = dev.get(key, "")
                hit = any(fnmatch.fnmatchcase(have, alt) for alt in value.split("|"))
                if hit != (op == "=="):
                    matched = False
                    break
        if not matched:
            continue
        for key, op, value in pairs:
            if key == "GOTO":
                goto = value
            elif key == "SYMLINK" and op == "+=":
                links.append(value)
            elif key.startswith("ENV{") and op == "=":
                dev[key] = value
            elif op in ("=", ":=") and key not in {"LABEL"}:
                assigned[key] = value
    return links, assigned


def _tty(kernel: str, vendor: str = "", product: str = "", serial: str = "", path: str = "") -> dict[str, str]:
    return {
        "ACTION": "add",
        "SUBSYSTEM": "tty",
        "KERNEL": kernel,
        "ATTRS{idVendor}": vendor,
        "ATTRS{idProduct}": product,
        "ENV{ID_SERIAL_SHORT}": serial,
        "ENV{ID_PATH}": path,
    }


PI4_PORT = "platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.{}:1.0"


@pytest.mark.parametrize(
    "device,name",
    [
        (_tty("ttyACM0", "0bed", "1100", "BILL0042"), "cabinet/bill-acceptor"),  # CDC-ACM acceptor
        (_tty("ttyUSB0", "0403", "6001", "BILL7"), "cabinet/bill-acceptor"),  # FTDI FT232R
        (_tty("ttyUSB1", "0403", "6015", "PRN42"), "cabinet/printer"),  # FTDI FT-X
        (_tty("ttyUSB2", "067b", "2303", "", PI4_PORT.format(3)), "cabinet/bill-acceptor"),  # Prolific, by port
        (_tty("ttyUSB3", "067b", "23a3", "", PI4_PORT.format(4)), "cabinet/printer"),  # PL2303GC, by port
        (_tty("ttyACM1", "0519", "2013", "PRN1"), "cabinet/printer"),  # CDC-ACM printer
    ],
)
def test_udev_rules_give_the_acceptor_and_printer_stable_names(device, name):
    """FTDI, Prolific and ttyACM devices get /dev/cabinet/... by serial
    number or by USB port, in group dialout, mode 0660."""
    links, assigned = udev_names(device)
    assert links == [name]
    assert assigned == {"GROUP": "dialout", "MODE": "0660"}


@pytest.mark.parametrize(
    "device",
    [
        _tty("ttyUSB0", "1a86", "7523", "BILL1"),  # a CH340 (not one of ours): left alone
        _tty("ttyUSB0", "0403", "6001", "FT12345"),  # an FTDI cable not named for a role
        {**_tty("ttyUSB0", "0403", "6001", "BILL1"), "ACTION": "remove"},
        {**_tty("ttyS0"), "KERNEL": "ttyS0"},
        {**_tty("ttyUSB0", "0403", "6001", "BILL1"), "SUBSYSTEM": "usb"},
    ],
)
def test_udev_rules_leave_other_devices_alone(device):
    """No stable name for a device that is not the cabinet's."""
    assert udev_names(device) == ([], {})


@pytest.mark.parametrize("ui_unit", ["cabinet-ui.service", "cabinet-ui@.service"])
def test_the_ui_runs_as_its_own_user_who_reaches_only_the_socket(ui_unit):
    """The table UI's user is not the engine's and not in the engine's group (the
    journal, its key and the config are the engine's); its group is the one the engine
    gives the UI socket (``CABINET_SOCKET_GROUP``), which the engine's user is in."""
    ui = parse_unit(SYSTEMD / ui_unit)
    user, group = one(ui, "Service", "User"), one(ui, "Service", "Group")
    assert (user, group) == ("cabinet-ui", "cabinet-ui")
    assert (one(ENGINE, "Service", "User"), one(ENGINE, "Service", "Group")) == ("cabinet", "cabinet")
    assert "cabinet" not in words(ui, "Service", "SupplementaryGroups")
    assert env(ENGINE)["CABINET_SOCKET_GROUP"] == group
    assert group in words(ENGINE, "Service", "SupplementaryGroups")
    assert one(ENGINE, "Service", "RuntimeDirectoryMode") == "0750"  # the UI's group may enter
    assert one(ENGINE, "Service", "StateDirectoryMode") == "0700"  # no one else: the journal
    assert one(ENGINE, "Service", "UMask") == "0077"

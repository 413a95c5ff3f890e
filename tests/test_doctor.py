"""``cabinet doctor`` checks config, wiring, devices, journal, disk, clock and
program, and prints a pass/fail list with what to do for each failure."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
import subprocess
import sys

import pytest

from cabinet.core.events import NoteStacked, PowerUp
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store
from cabinet.tools.doctor import DoctorOptions, report, run_checks

WALL = 1_800_000_000.0
NOW = dt.datetime(2026, 12, 1, 12, 0, 0)


@pytest.fixture
def twins(tmp_path):
    from drivers.sim.twins import TwinSet

    t = TwinSet(tmp_path / "twins", 1)
    yield t
    t.close()


@pytest.fixture
def journal(tmp_path):
    path = tmp_path / "journal.db"
    eng = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.store.close()
    return path


def _check(tmp_path, journal, config=None, devices="sim", ntp="yes", now=NOW):
    opts = DoctorOptions(journal, config, devices, tmp_path / "twins")
    return run_checks(opts, now=lambda: now, ntp=lambda: ntp)


def _status(findings, what):
    """The statuses of the findings about ``what`` (the tmp path holds test names)."""
    return [f.status for f in findings if f.what == what or f.what.startswith(what + " ") or f" {what} " in f.what]


def test_doctor_against_the_simulated_devices_passes_everything(tmp_path, twins, journal):
    """Against the twins on ptys (as ``cabinet run`` uses them) every check
    passes: wiring, 13 input pins, the acceptor's version and status, the printer's
    status, the journal, disk and clock (a checkout is a development build)."""
    found = _check(tmp_path, journal)
    text = report(found)
    assert [f for f in found if f.status == "FAIL"] == [], text
    assert _status(found, "bill acceptor") == ["PASS"]
    acceptor = next(f for f in found if "bill acceptor" in f.what)
    assert "firmware ID003-SIM 1.0" in acceptor.detail and "8E1" in acceptor.detail
    assert _status(found, "printer") == ["PASS"]
    assert len([f for f in found if "(GPIO " in f.what]) == 9 + 3 + 1
    assert _status(found, "journal") == ["PASS"]
    assert "0 failed" in text.splitlines()[-1]


def test_doctor_fails_clearly_with_the_acceptor_twin_stopped(tmp_path, twins, journal):
    """A stopped twin (a device without power) is a FAIL naming the device
    and what to check; the rest still runs."""
    twins.twins[1][0].close()
    found = _check(tmp_path, journal)
    bad = [f for f in found if f.status == "FAIL"]
    assert [f.what for f in bad] == [f"station 1 bill acceptor {tmp_path}/twins/bill-acceptor"]
    assert "bill_acceptor_url" in bad[0].fix and "8E1" in bad[0].fix
    assert _status(found, "printer") == ["PASS"]
    assert "1 failed" in report(found).splitlines()[-1]


def test_doctor_fails_clearly_with_the_printer_twin_stopped(tmp_path, twins, journal):
    """The printer twin stopped: its check fails, saying what to check."""
    twins.twins[1][1].close()
    found = _check(tmp_path, journal)
    bad = [f for f in found if f.status == "FAIL"]
    assert len(bad) == 1 and "printer" in bad[0].what and "printer_url" in bad[0].fix


def test_doctor_fails_a_pin_unwired_in_the_wiring_file(tmp_path, twins, journal):
    """A wiring file whose [buttons] leaves out Cash Out (a section present
    replaces every default) fails, saying which line to add."""
    wiring = tmp_path / "wiring.toml"
    wiring.write_text(
        "[buttons]\ndeal = 5\nhit = 6\nstand = 13\nsplit = 19\ndouble = 26\ninsure = 12\nbet_up = 16\nbet_down = 20\n"
    )
    config = tmp_path / "cabinet.toml"
    config.write_text(f'wiring = "{wiring}"\n')
    found = _check(tmp_path, journal, config=config)
    bad = [f for f in found if f.status == "FAIL"]
    assert len(bad) == 1, report(found)
    assert "button cash_out" in bad[0].what and bad[0].detail == "no pin: unwired"
    assert "cash_out = 21" in bad[0].fix and "[buttons]" in bad[0].fix


def test_doctor_fails_a_bad_wiring_file_and_a_bad_config(tmp_path, journal):
    """A pin out of range in the wiring file, and an unknown key in the
    config, each fail with confspec's message naming the field."""
    wiring = tmp_path / "wiring.toml"
    wiring.write_text("[buttons]\ndeal = 99\n")
    config = tmp_path / "cabinet.toml"
    config.write_text(f'wiring = "{wiring}"\n')
    found = _check(tmp_path, journal, config=config, devices="hardware")
    bad = [f for f in found if f.status == "FAIL" and "wiring" in f.what]
    assert len(bad) == 1 and "buttons.deal" in bad[0].detail
    config.write_text("colour = 1\n")
    found = _check(tmp_path, journal, config=config)
    assert _status(found, "config") == ["FAIL"]
    assert "colour" in next(f for f in found if "config" in f.what).detail


def test_doctor_fails_a_stuck_button(tmp_path, twins, journal, monkeypatch):
    """A button that reads pressed at rest (stuck, or shorted) fails."""
    from gpiozero.pins.mock import MockFactory, MockPin

    class StuckLow(MockPin):  # GPIO 21 held to ground
        def _set_pull(self, value):
            super()._set_pull(value)
            if self._info.name == "GPIO21":
                self.drive_low()

    monkeypatch.setattr("cabinet.tools.doctor.pin_factory", lambda mode: MockFactory(pin_class=StuckLow))
    found = _check(tmp_path, journal)
    bad = [f for f in found if f.status == "FAIL"]
    assert len(bad) == 1 and "button cash_out (GPIO 21)" in bad[0].what
    assert bad[0].detail == "reads pressed"


def test_doctor_checks_the_clock_and_ntp(tmp_path, journal):
    """A clock in 1970 fails; NTP not synchronised warns."""
    found = _check(tmp_path, journal, devices="none", now=dt.datetime(1970, 1, 1))
    assert _status(found, "clock") == ["FAIL"]
    found = _check(tmp_path, journal, devices="none", ntp="no")
    assert _status(found, "clock") == ["WARN"]


def test_doctor_fails_a_tampered_journal_and_exits_1(tmp_path, journal):
    """The journal verify is part of the doctor; a back-dated event
    fails it and ``cabinet doctor`` exits 1."""
    db = sqlite3.connect(journal)
    db.execute("UPDATE events SET wall_s = wall_s - 30*86400 WHERE kind='bill_stacked'")
    db.commit()
    db.close()
    found = _check(tmp_path, journal, devices="none")
    assert _status(found, "journal") == ["FAIL"]
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "doctor", "--journal", str(journal), "--devices", "none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "FAIL  journal" in r.stdout, r.stdout + r.stderr


def test_cabinet_doctor_command_against_the_twins_exits_0(tmp_path, twins, journal):
    """The command itself (``cabinet doctor --twins DIR``) prints the list
    and exits 0 when nothing failed."""
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "doctor", "--journal", str(journal), "--twins", str(tmp_path / "twins")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS  station 1 bill acceptor" in r.stdout
    assert "PASS  station 1 printer" in r.stdout


def test_doctor_does_not_probe_devices_an_engine_holds(tmp_path, twins, journal):
    """With an engine running on the journal (its lock held) the devices are
    not opened (they are the engine's): one FAIL saying to stop it first."""
    from cabinet.shell.main import lock_journal

    held = lock_journal(journal)
    try:
        found = _check(tmp_path, journal)
    finally:
        held.close()
    bad = [f for f in found if f.status == "FAIL"]
    assert [f.what for f in bad] == ["devices"] and "systemctl stop" in bad[0].fix
    assert not any("bill acceptor" in f.what for f in found)


def test_doctor_journal_lines_read_right(tmp_path, journal):
    """The journal's PASS line closed a parenthesis it
    never opened ("...verified): keyed checksums, event chain, commit record)"), and the
    unreadable-journal hint names the install guide's part on backups by its title,
    "Backup of the journal"."""
    from pathlib import Path

    found = _check(tmp_path, journal, devices="none")
    line = next(f for f in found if f.what.startswith("journal")).detail
    assert line.count("(") == line.count(")"), line
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a journal at all" * 100)
    fail = next(f for f in _check(tmp_path, bad, devices="none") if f.what.startswith("journal"))
    assert fail.status == "FAIL"
    install_guide = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "install.md").read_text()
    assert "Backup of the journal" in fail.fix and "**Backup of the journal.**" in install_guide


def test_a_missing_wiring_file_fails_even_without_device_checks(tmp_path, journal):
    """The engine cannot start on a config naming a wiring file it cannot read: the
    doctor says so with ``--devices none`` too (as the display shows it when the engine
    has stopped, ``cabinet-engine-stopped.service``)."""
    config = tmp_path / "cabinet.toml"
    config.write_text(f'wiring = "{tmp_path / "absent.toml"}"\n')
    found = _check(tmp_path, journal, config=config, devices="none")
    bad = [f for f in found if f.status == "FAIL"]
    assert len(bad) == 1 and bad[0].what == f"station 1 wiring {tmp_path / 'absent.toml'}"
    assert "cannot read" in bad[0].detail


def test_the_engine_stopped_report_says_why_and_what_to_do(tmp_path, journal):
    """``cabinet doctor --engine-stopped`` (the display's text when the engine's start
    limit is hit): a heading, the findings, then how to start it again."""
    config = tmp_path / "cabinet.toml"
    config.write_text(f'wiring = "{tmp_path / "absent.toml"}"\n')
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "doctor",
            "--journal",
            str(journal),
            "--config",
            str(config),
            "--devices",
            "none",
            "--engine-stopped",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "THE CABINET ENGINE HAS STOPPED: it did not start (a config error, or 5 failed starts)."
    assert f"FAIL  station 1 wiring {tmp_path / 'absent.toml'}: " in r.stdout
    assert lines[-2:] == [
        "Fix what FAIL says, then: sudo systemctl reset-failed cabinet-engine.service "
        "&& sudo systemctl restart cabinet.target",
        "The engine's log: journalctl -u cabinet-engine.service",
    ]


def _tamper_into_ram_error(journal):
    """The cabinet rows rewritten (+$500, checksums recomputed without the key), then one
    engine start: it stops in a RAM error and commits that state under its key."""
    import hashlib
    import json

    db = sqlite3.connect(journal)
    for copy, seq, blob in db.execute("SELECT copy, seq, blob FROM critical WHERE name='cabinet'").fetchall():
        state = json.loads(blob)
        state["stations"][0]["credits_minor"] += 50000
        new = json.dumps(state, separators=(",", ":")).encode()
        digest = hashlib.sha256(f"cabinet:{seq}:".encode() + new).hexdigest()
        db.execute("UPDATE critical SET blob=?, checksum=? WHERE name='cabinet' AND copy=?", (new, digest, copy))
    db.commit()
    db.close()
    eng = Engine(Store(journal), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    assert eng.cab.s.ram_error
    eng.store.close()


def test_doctor_and_events_verify_fail_a_journal_the_engine_left_in_a_ram_error(tmp_path, journal):
    """A journal whose cabinet stopped in a RAM error is not OK, though every row it now
    holds verifies: ``cabinet doctor`` and ``cabinet events --verify`` say RAM error and
    what was found, and exit 1."""
    _tamper_into_ram_error(journal)
    found = _check(tmp_path, journal, devices="none")
    assert _status(found, "journal") == ["FAIL"]
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "doctor", "--journal", str(journal), "--devices", "none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "RAM error" in r.stdout and "critical row cabinet" in r.stdout, r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "events", "--verify", "--journal", str(journal)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "FOUND: the cabinet is in a RAM error" in r.stdout, r.stdout


def test_key_file_others_can_read_is_failed_by_doctor_and_made_0600_by_the_engine(tmp_path, journal):
    """A key file left 0644 (copied back from a backup): ``cabinet doctor`` fails it, and
    the engine makes it 0600 when it opens the journal."""
    from cabinet.shell.paths import key_file

    key = key_file(journal)
    key.chmod(0o644)
    found = _check(tmp_path, journal, devices="none")
    bad = [f for f in found if f.what.startswith("journal")]
    assert [f.status for f in bad] == ["FAIL"] and f"key file {key} has mode 0644" in bad[0].detail, bad
    Store(journal).close()
    assert key.stat().st_mode & 0o777 == 0o600
    assert _status(_check(tmp_path, journal, devices="none"), "journal") == ["PASS"]


def test_doctor_names_a_serial_console_and_buses_on_the_panels_pins(tmp_path, twins, journal):
    """On a Pi (a boot partition under ``root``): a kernel console on the UART and
    SPI left on are FAILs naming the pins the default map wires there; mended, a PASS."""
    boot = tmp_path / "pi/boot/firmware"
    boot.mkdir(parents=True)
    (boot / "cmdline.txt").write_text("console=serial0,115200 console=tty1 rootwait\n")
    (boot / "config.txt").write_text("dtparam=spi=on\n")
    opts = DoctorOptions(journal, None, "sim", tmp_path / "twins", root=tmp_path / "pi")
    found = run_checks(opts, now=lambda: NOW, ntp=lambda: "yes")
    bad = [f for f in found if f.what.startswith("boot settings")]
    assert [(f.status, f.what) for f in bad] == [
        ("FAIL", "boot settings: serial console"),
        ("FAIL", "boot settings: SPI"),
    ]
    assert "BCM 14 (station 1 tower_light.red)" in bad[0].detail
    assert "BCM 11 (station 1 lamps.cash_out)" in bad[1].detail
    (boot / "cmdline.txt").write_text("console=tty1 rootwait\n")
    (boot / "config.txt").write_text("dtparam=spi=off\n")
    found = run_checks(opts, now=lambda: NOW, ntp=lambda: "yes")
    assert [f.status for f in found if f.what == "boot settings"] == ["PASS"]


def test_doctor_off_a_pi_has_no_boot_finding(tmp_path, twins, journal):
    found = _check(tmp_path, journal)
    assert not [f for f in found if f.what.startswith("boot settings")]

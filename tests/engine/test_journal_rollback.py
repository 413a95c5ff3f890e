"""An SD-card image restored over the journal: its copies of the journal, its key and
its commit record all agree with each other, so only a record the image does not hold
can show that the cabinet was set back. With a hardware monotonic counter fitted
(``[journal] counter`` in ``cabinet.toml``; here its twin, a file outside the journal's
folder) every commit record carries the counter's value, and a record behind the counter
is a rolled-back journal: a RAM error at start and a failing ``cabinet doctor --config``.
A counter setting that names no counter, or a bus that cannot be opened, is a config
error (exit status 2, which the engine's unit does not retry) that touches no file."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.core.effects import PrintVoucher
from cabinet.core.events import IntentReceived, NoteStacked, PowerUp, PrintFinished
from cabinet.shell.engine import Engine
from cabinet.shell.main import lock_journal
from cabinet.shell.store import Store
from drivers.sim.counter_twin import FileCounter

WALL = 1_800_000_000.0


def _boot(path, counter=None):
    store = Store(path, counter=None if counter is None else FileCounter(counter))
    eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def _config(tmp_path, counter: str) -> Path:
    f = tmp_path / "cabinet.toml"
    f.write_text(f'[journal]\ncounter = "{counter}"\n')
    return f


def _doctor(path, config=None):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "doctor",
            "--journal",
            str(path),
            "--devices",
            "none",
            *(["--config", str(config)] if config else []),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _cash_out_between_image_and_restore(tmp_path, counter=None):
    """$200 in; the SD image taken (power off: the journal's folder copied whole); the
    $200 cashed out on a ticket; the image restored. Returns the journal's path."""
    sd = tmp_path / "sd" / "cabinet"
    path = sd / "journal.sqlite3"
    eng = _boot(path, counter)
    eng.step(NoteStacked(1, 20000, "t1"))
    eng.store.close()
    image = tmp_path / "image"
    shutil.copytree(sd, image)
    eng = _boot(path, counter)
    eff = eng.step(IntentReceived(1, "cash_out"))
    vn = next(e.record for e in eff if isinstance(e, PrintVoucher)).validation_number
    eng.step(PrintFinished(1, vn, "done"))
    assert eng.cab.s.stations[0].credits_minor == 0
    eng.store.close()
    shutil.rmtree(sd)
    shutil.copytree(image, sd)
    sd.chmod(0o700)  # as it was on the card
    return path


def test_without_a_counter_a_restored_image_brings_the_cash_out_back(tmp_path):
    """The limit without a counter (or a host that reads the meters): nothing on the
    card can tell the restored image from the real journal."""
    path = _cash_out_between_image_and_restore(tmp_path)
    r = _doctor(path)
    assert r.returncode == 0, r.stdout
    eng = _boot(path)
    assert not eng.cab.s.ram_error
    assert eng.cab.s.stations[0].credits_minor == 20000


def test_with_the_counter_a_restored_image_is_a_rolled_back_journal(tmp_path):
    """``cabinet doctor --config`` (an operator's run by hand, and the engine-stopped
    screen's) reads the counter the config names, with no environment variable."""
    counter = tmp_path / "counter" / "count"  # not on the restored card
    path = _cash_out_between_image_and_restore(tmp_path, counter)
    r = _doctor(path, _config(tmp_path, f"twin:{counter}"))
    assert r.returncode == 1 and "FAIL  journal" in r.stdout, r.stdout
    assert "rolled back" in r.stdout and "hardware counter" in r.stdout, r.stdout
    assert _doctor(path).returncode == 0  # no counter in the config: not read
    eng = _boot(path, counter)
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"
    assert "rolled back" in eng.snapshot.overlay_text
    eff = eng.step(IntentReceived(1, "cash_out"))  # no second $200 ticket
    assert not any(isinstance(e, PrintVoucher) for e in eff)
    assert eng.cab.mode == "ram_error"
    eng.store.close()
    eng = _boot(path, counter)  # the RAM error's own commit keeps it: still one
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"


def test_the_counter_advances_with_the_event_log_and_a_power_cut_is_no_rollback(tmp_path):
    """The counter moves once per commit that adds to the event log (money and meter
    events), not per press; a cut between the record and the counter's step (the
    record one ahead) is not a rollback."""
    counter = tmp_path / "counter" / "count"
    path = tmp_path / "j" / "journal.sqlite3"
    eng = _boot(path, counter)
    start = int(counter.read_text())
    eng.step(NoteStacked(1, 2000, "t1"))
    after_note = int(counter.read_text())
    assert after_note == start + 1
    eng.step(IntentReceived(1, "bet_up"))  # a press: no event, no step
    assert int(counter.read_text()) == after_note
    eng.store.close()
    counter.write_text(f"{after_note - 1}\n")  # the step lost with the power
    eng = _boot(path, counter)
    assert not eng.cab.s.ram_error
    assert eng.cab.s.stations[0].credits_minor == 2000


def _files(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.is_file()}


@pytest.mark.parametrize(
    "setting,says",
    [
        ("eeprom", "expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 'eeprom'"),
        ("atecc608:/dev/i2c-1:7", "expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 'atecc608:/dev/i2c-1:7'"),
        ("twin:", "expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 'twin:'"),
        (
            "atecc608:{tmp}/no-such-bus",
            "'atecc608:{tmp}/no-such-bus': I2C {tmp}/no-such-bus: No such file or directory",
        ),
    ],
    ids=["no such kind", "no such chip counter", "twin without a file", "no such bus"],
)
def test_a_bad_counter_setting_is_a_config_error_that_touches_nothing(tmp_path, setting, says):
    """The engine exits 2 (not retried by its unit) with one line naming the file and
    ``journal.counter``; the journal, its key and its commit record stay as they were
    (not moved aside as a corrupt journal); ``cabinet doctor --config`` fails the same
    setting."""
    setting, says = setting.format(tmp=tmp_path), says.format(tmp=tmp_path)
    sd = tmp_path / "sd"
    path = sd / "journal.sqlite3"
    _boot(path).store.close()
    sd.chmod(0o700)  # as the engine keeps it
    before = _files(sd)
    assert {"journal.sqlite3", "journal.sqlite3.key"} <= set(before)
    config = _config(tmp_path, setting)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--config",
            str(config),
            "--journal",
            str(path),
            "--socket",
            str(tmp_path / "ui.sock"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [f"config: {config}: journal.counter: {says}"]
    after = _files(sd)
    after.pop("journal.sqlite3.lock", None)  # the engine's lock file, empty
    assert after == before
    d = _doctor(path, config)
    assert d.returncode == 1, d.stdout
    assert f"journal.counter: {says}" in d.stdout, d.stdout


def test_doctor_does_not_read_the_counter_while_an_engine_holds_the_journal(tmp_path):
    """The engine steps the counter as it commits; ``cabinet doctor`` run beside it does
    not talk to the same chip (an I2C exchange of its own between the engine's), and
    says so: the engine checked the counter at its start."""
    counter = tmp_path / "counter"
    counter.mkdir()  # read by anyone: "cannot be read"
    path = tmp_path / "j" / "journal.sqlite3"
    _boot(path).store.close()
    path.parent.chmod(0o700)  # as the engine keeps it
    config = _config(tmp_path, f"twin:{counter}")
    assert "hardware counter cannot be read" in _doctor(path, config).stdout
    lock = lock_journal(path)
    try:
        r = _doctor(path, config)
    finally:
        lock.close()
    assert r.returncode == 0, r.stdout
    assert re.search(
        r"PASS  journal .*hardware counter not read: an engine holds the "
        r"journal",
        r.stdout,
    ), r.stdout

"""An SD-card image restored over the journal: its copies of the journal, its key and
its commit record all agree with each other, so only a record the image does not hold
can show that the cabinet was set back. With a hardware monotonic counter fitted
(``CABINET_COUNTER``; here its twin, a file outside the journal's folder) every commit
record carries the counter's value, and a record behind the counter is a rolled-back
journal: a RAM error at start and a failing ``cabinet doctor``."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys

from cabinet.core.effects import PrintVoucher
from cabinet.core.events import IntentReceived, NoteStacked, PowerUp, PrintFinished
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

WALL = 1_800_000_000.0


def _boot(path):
    eng = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def _doctor(path):
    return subprocess.run([sys.executable, "-m", "cabinet", "doctor", "--journal", str(path),
                           "--devices", "none"], capture_output=True, text=True, timeout=60)


def _cash_out_between_image_and_restore(tmp_path):
    """$200 in; the SD image taken (power off: the journal's folder copied whole); the
    $200 cashed out on a ticket; the image restored. Returns the journal's path."""
    sd = tmp_path / "sd" / "cabinet"
    path = sd / "journal.sqlite3"
    eng = _boot(path)
    eng.step(NoteStacked(1, 20000, "t1"))
    eng.store.close()
    image = tmp_path / "image"
    shutil.copytree(sd, image)
    eng = _boot(path)
    eff = eng.step(IntentReceived(1, "cash_out"))
    vn = next(e.record for e in eff if isinstance(e, PrintVoucher)).validation_number
    eng.step(PrintFinished(1, vn, "done"))
    assert eng.cab.s.stations[0].credits_minor == 0
    eng.store.close()
    shutil.rmtree(sd)
    shutil.copytree(image, sd)
    sd.chmod(0o700)                                     # as it was on the card
    return path


def test_without_a_counter_a_restored_image_brings_the_cash_out_back(tmp_path, monkeypatch):
    """The limit without a counter (or a host that reads the meters): nothing on the
    card can tell the restored image from the real journal."""
    monkeypatch.delenv("CABINET_COUNTER", raising=False)
    path = _cash_out_between_image_and_restore(tmp_path)
    r = _doctor(path)
    assert r.returncode == 0, r.stdout
    eng = _boot(path)
    assert not eng.cab.s.ram_error
    assert eng.cab.s.stations[0].credits_minor == 20000


def test_with_the_counter_a_restored_image_is_a_rolled_back_journal(tmp_path, monkeypatch):
    counter = tmp_path / "counter" / "count"            # not on the restored card
    monkeypatch.setenv("CABINET_COUNTER", f"twin:{counter}")
    path = _cash_out_between_image_and_restore(tmp_path)
    r = _doctor(path)
    assert r.returncode == 1 and "FAIL  journal" in r.stdout, r.stdout
    assert "rolled back" in r.stdout and "hardware counter" in r.stdout, r.stdout
    eng = _boot(path)
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"
    assert "rolled back" in eng.snapshot.overlay_text
    eff = eng.step(IntentReceived(1, "cash_out"))           # no second $200 ticket
    assert not any(isinstance(e, PrintVoucher) for e in eff)
    assert eng.cab.mode == "ram_error"
    eng.store.close()
    eng = _boot(path)                       # the RAM error's own commit keeps it: still one
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"


def test_the_counter_advances_with_the_event_log_and_a_power_cut_is_no_rollback(tmp_path,
                                                                               monkeypatch):
    """The counter moves once per commit that adds to the event log (money and meter
    events), not per press; a cut between the record and the counter's step (the
    record one ahead) is not a rollback."""
    counter = tmp_path / "counter" / "count"
    monkeypatch.setenv("CABINET_COUNTER", f"twin:{counter}")
    path = tmp_path / "j" / "journal.sqlite3"
    eng = _boot(path)
    start = int(counter.read_text())
    eng.step(NoteStacked(1, 2000, "t1"))
    after_note = int(counter.read_text())
    assert after_note == start + 1
    eng.step(IntentReceived(1, "bet_up"))                  # a press: no event, no step
    assert int(counter.read_text()) == after_note
    eng.store.close()
    counter.write_text(f"{after_note - 1}\n")               # the step lost with the power
    eng = _boot(path)
    assert not eng.cab.s.ram_error
    assert eng.cab.s.stations[0].credits_minor == 2000

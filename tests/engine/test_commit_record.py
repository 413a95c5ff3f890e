"""The commit record's file: two slots written in place, a torn slot survived, the
single-object file of earlier journals still read."""

from __future__ import annotations

import json
import random

from cabinet.core.events import NoteStacked, PowerUp
from cabinet.shell.engine import Engine
from cabinet.shell.journal.record import SLOT_BYTES, read_records
from cabinet.shell.paths import commit_file
from cabinet.shell.store import Store

WALL = 1_800_000_000.0


def _boot(path):
    eng = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def test_each_durable_commit_is_recorded_in_the_other_slot(tmp_path):
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.step(NoteStacked(1, 5000, "t2"))
    data = commit_file(path).read_bytes()
    assert len(data) == 2 * SLOT_BYTES
    seqs = sorted(r["seq"] for r in read_records(commit_file(path)))
    assert seqs == [eng.store.seq - 1, eng.store.seq]
    assert eng.store.verify_commit_record() == []
    eng.store.close()


def test_a_torn_newest_slot_leaves_the_commit_before_it(tmp_path):
    """A power cut mid-write spoils the slot being written: the other slot's record (one
    commit older, which the journal holds) is taken and the journal starts clean."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.step(NoteStacked(1, 5000, "t2"))
    newest = eng.store.seq
    eng.store.close()
    f = commit_file(path)
    data = bytearray(f.read_bytes())
    slot = next(i for i in (0, 1) if json.loads(data[i * SLOT_BYTES : (i + 1) * SLOT_BYTES])["seq"] == newest)
    data[slot * SLOT_BYTES + 10 : slot * SLOT_BYTES + 60] = b"\x00" * 50
    f.write_bytes(bytes(data))
    eng2 = _boot(path)
    assert not eng2.cab.s.ram_error
    assert eng2.cab.s.stations[0].credits_minor == 7000
    eng2.store.close()


def test_a_commit_record_failing_its_keyed_check_in_both_slots_is_a_ram_error(tmp_path):
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.store.close()
    f = commit_file(path)
    text = f.read_bytes().decode()
    recs = [json.loads(text[i : i + SLOT_BYTES]) for i in (0, SLOT_BYTES)]
    for r in recs:
        r["seq"] += 5
    f.write_text("".join(json.dumps(r).ljust(SLOT_BYTES - 1) + "\n" for r in recs))
    eng2 = _boot(path)
    assert eng2.cab.s.ram_error
    assert "fails its keyed check" in eng2.snapshot.overlay_text


def test_a_single_object_commit_record_is_read_and_then_rewritten_in_slots(tmp_path):
    """The file of earlier journals (one JSON object, replaced whole) still holds: a
    rollback below it is found, and the next commit writes the two-slot file."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.store.close()
    f = commit_file(path)
    newest = max(read_records(f), key=lambda r: r["seq"])
    f.write_text(json.dumps(newest))
    eng2 = _boot(path)
    assert not eng2.cab.s.ram_error and eng2.cab.s.stations[0].credits_minor == 2000
    assert len(f.read_bytes()) == 2 * SLOT_BYTES
    eng2.store.close()
    later = dict(newest, seq=newest["seq"] + 50)
    reader = Store(path, readonly=True)
    later["mac"] = reader._record_mac(later["seq"], later["event_id"], later["chain"])
    reader.close()
    f.write_text(json.dumps(later))
    eng3 = _boot(path)
    assert eng3.cab.s.ram_error and "rolled back" in eng3.snapshot.overlay_text

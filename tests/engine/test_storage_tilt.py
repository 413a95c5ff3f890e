"""A journal write that fails is a storage tilt, not a silent loss."""

from __future__ import annotations

import logging
import random
import sqlite3

import pytest

from cabinet.core.effects import PrintVoucher, ReturnNote, SetAcceptor, StackNote
from cabinet.core.errors import StoreError
from cabinet.core.events import IntentReceived, KeyChanged, NoteEscrowed, NoteStacked, PowerUp, Tick
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

WALL = 1_800_000_000.0


class FlakyDisk:
    """The journal's connection, failing every write while ``full`` (disk full / EIO)."""

    def __init__(self, db):
        self._db = db
        self.full = False

    def execute(self, sql, *args):
        if self.full and sql.split()[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._db, name)


class Recorder:
    def __init__(self):
        self.ran = []

    def start(self, post):
        pass

    def run(self, effect):
        self.ran.append(effect)

    def stop(self):
        pass


def _rig(tmp_path):
    store = Store(tmp_path / "j.db")
    disk = FlakyDisk(store.db)
    store.db = disk
    dev = Recorder()
    eng = Engine(store, dev, rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    eng.step(NoteStacked(1, 2000, "t1"))
    return eng, disk, dev


def _step(eng, event):
    try:
        eng.step(event)
    except StoreError:
        pass  # the event was not journaled: the caller is told


def test_failed_commit_tilts_and_discards_the_uncommitted_state(tmp_path, caplog):
    """A failed commit stops the cabinet in a storage tilt with the core
    reloaded from the last commit; no device acts on the failed step; one log line."""
    eng, disk, dev = _rig(tmp_path)
    eng.step(IntentReceived(1, "bet_up"))
    disk.full = True
    dev.ran.clear()
    with caplog.at_level(logging.INFO):
        _step(eng, NoteStacked(1, 5000, "t2"))
        assert eng.cab.s.stations[0].credits_minor == 2000  # not 7000: not journaled
        assert eng.cab.mode == "tilt"
        assert "storage" in eng.snapshot.overlay_text.lower()
        assert not any(isinstance(e, StackNote | PrintVoucher) for e in dev.ran)
        assert SetAcceptor(1, False, tuple(eng.cab.s.settings.denominations_minor)) in dev.ran
        for i in range(10):  # a second of ticks
            _step(eng, Tick(i * 100, WALL + i / 10))
        _step(eng, NoteEscrowed(1, 500, "t3"))
        assert ReturnNote(1, "storage fault") in dev.ran  # handed back, not stacked
        _step(eng, IntentReceived(1, "deal"))
        _step(eng, IntentReceived(1, "cash_out"))
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert eng.cab.s.stations[0].credits_minor == 2000 and eng.cab.mode == "tilt"
    assert not any(isinstance(e, StackNote | PrintVoucher) for e in dev.ran)
    # storage works again: still tilted until the operator clear re-verifies
    disk.full = False
    _step(eng, Tick(2000, WALL + 2))
    assert eng.cab.mode == "tilt"
    eng.step(KeyChanged(True))
    assert eng.cab.mode == "maintenance"
    eng.step(KeyChanged(False))
    assert eng.cab.mode == "betting" and eng.cab.s.stations[0].credits_minor == 2000
    eng.step(NoteStacked(1, 1000, "t4"))
    eng.store.close()
    again = Store(tmp_path / "j.db").load()
    assert again.state.stations[0].credits_minor == 3000 and not again.ram_error


def test_operator_clear_while_storage_still_fails_stays_tilted(tmp_path):
    """The operator clear re-verifies; a disk still failing keeps the tilt."""
    eng, disk, dev = _rig(tmp_path)
    disk.full = True
    _step(eng, NoteStacked(1, 5000, "t2"))
    with pytest.raises(StoreError):
        eng.step(KeyChanged(True))
    assert eng.cab.mode == "tilt" and eng.cab.s.stations[0].credits_minor == 2000


def test_engine_that_cannot_write_at_start_stays_up_in_a_storage_tilt(tmp_path):
    """A disk already full when the engine starts: the engine runs in a
    storage tilt (acceptor off) instead of dying into a restart loop."""
    import asyncio

    store = Store(tmp_path / "j.db")
    disk = FlakyDisk(store.db)
    store.db = disk
    disk.full = True
    dev = Recorder()
    eng = Engine(store, dev, rng=random.Random(1))

    async def main():
        stop = asyncio.Event()
        await eng.run(stop.set, stop)

    asyncio.run(main())
    assert eng.storage_fault is not None and eng.cab.mode == "tilt"
    assert any(isinstance(e, SetAcceptor) and not e.enabled for e in dev.ran)


def test_commit_whose_record_cannot_be_written_tilts_at_what_was_committed(tmp_path):
    """The database commit passed but the commit record could not be
    written (disk full): the tilt's core is the committed state, as a restart sees it."""
    eng, disk, dev = _rig(tmp_path)

    def no_space():
        raise OSError(28, "No space left on device")

    eng.store.write_commit_record = no_space
    _step(eng, NoteStacked(1, 5000, "t2"))
    assert eng.storage_fault is not None and eng.cab.mode == "tilt"
    on_disk = Store(tmp_path / "j.db", readonly=True).load_readonly()
    assert eng.cab.s.stations[0].credits_minor == on_disk.stations[0].credits_minor == 7000


def test_storage_tilt_lights_nothing_the_cabinet_would_refuse_and_says_a_players_words(tmp_path, caplog):
    """A storage tilt refuses every press, so no lamp and no on-screen button is lit (Cash
    Out included, with credits on the meter); the player reads the fault and "call an
    attendant" (the UI's), not the technician's remedy; a press is logged as refused."""
    from cabinet.core.effects import SetLamps

    eng, disk, dev = _rig(tmp_path)
    disk.full = True
    dev.ran.clear()
    _step(eng, NoteStacked(1, 5000, "t2"))
    assert eng.cab.mode == "tilt" and eng.cab.s.stations[0].credits_minor == 2000
    assert eng.cab.legal_actions(1) == frozenset()
    assert eng.snapshot.stations[0].lamps == []
    lamps = [e for e in dev.ran if isinstance(e, SetLamps) and e.station == 1]
    assert lamps and lamps[-1].actions == frozenset(), lamps
    said = " ".join(eng.snapshot.overlay_text.split())
    assert said.startswith("500 "), said
    for technician in ("restart", "operator key", "journal"):
        assert technician not in said.lower(), said
    with caplog.at_level(logging.INFO):
        _step(eng, IntentReceived(1, "cash_out"))
    assert "rejected cash_out from station 1: storage tilt" in caplog.text, caplog.text

"""The journal: one transaction per event, two checksummed copies, repair, RAM error."""

from __future__ import annotations

import random
import sqlite3

from cabinet.core.events import DoorChanged, IntentReceived, KeyChanged, NoteStacked
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store


def _engine(path, seed=1):
    return Engine(Store(path), rng=random.Random(seed), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)


def _boot(path, seed=1):
    eng = _engine(path, seed)
    from cabinet.core.events import PowerUp

    eng.step(PowerUp(0, 1_800_000_000.0))
    return eng


def _flip_byte(path, copy):
    db = sqlite3.connect(path)
    blob = bytearray(db.execute("SELECT blob FROM critical WHERE name='cabinet' AND copy=?", (copy,)).fetchone()[0])
    i = blob.find(b"credits_minor") + 16
    blob[i] ^= 0x01
    db.execute("UPDATE critical SET blob=? WHERE name='cabinet' AND copy=?", (bytes(blob), copy))
    db.commit()
    db.close()


def test_state_survives_a_restart_with_pragmas_set(tmp_path):
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    assert eng.store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert eng.store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    eng.store.close()
    eng2 = _boot(path)
    assert eng2.cab.s.stations[0].credits_minor == 2000
    kinds = [e["kind"] for e in eng2.store.all_events()]
    assert kinds == ["power_up", "bill_stacked", "power_up"]


def test_one_corrupt_copy_is_repaired_at_start(tmp_path):
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.store.close()
    _flip_byte(path, 0)
    eng2 = _boot(path)
    assert not eng2.cab.s.ram_error
    assert eng2.cab.s.stations[0].credits_minor == 2000
    kinds = [e["kind"] for e in eng2.store.all_events()]
    assert "critical_repaired" in kinds
    rows = eng2.store.db.execute("SELECT copy, blob, checksum FROM critical WHERE name='cabinet'").fetchall()
    assert rows[0][1] == rows[1][1]  # both copies good again


def test_both_copies_corrupt_is_a_ram_error_only_ram_clear_ends(tmp_path):
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.store.close()
    _flip_byte(path, 0)
    _flip_byte(path, 1)
    eng2 = _boot(path)
    assert eng2.cab.s.ram_error and eng2.cab.mode == "ram_error"
    assert eng2.snapshot.overlay == "ram_error"
    eng2.step(NoteStacked(1, 500, "t2"))  # credited: it is in the box ...
    assert eng2.cab.legal_actions(1) == frozenset()  # ... but nothing can be played
    eng2.store.close()
    eng3 = _boot(path)  # a restart does not clear it
    assert eng3.cab.s.ram_error
    eng3.step(KeyChanged(True))
    eng3.step(DoorChanged("logic", True))  # credits on: technician level (10.2)
    for _ in range([k for k, _ in MAIN_ITEMS].index("ram_clear")):
        eng3.step(IntentReceived(1, "menu_down"))
    eng3.step(IntentReceived(1, "menu_select"))
    from .menu_helpers import change_default_pin, eng_send

    change_default_pin(eng_send(eng3))  # a RAM error lost the PIN: factory PIN
    eng3.step(IntentReceived(1, "menu_select"))
    eng3.step(IntentReceived(1, "menu_select"))
    assert not eng3.cab.s.ram_error and eng3.cab.s.needs_config
    assert eng3.store.all_events()[-1]["kind"] == "ram_clear"


def test_clock_ticks_alone_do_not_write(tmp_path):
    from cabinet.core.events import Tick

    eng = _boot(tmp_path / "j.db")
    n = eng.store.fsyncs
    for i in range(50):
        eng.step(Tick(i * 100, 1_800_000_000.0 + i / 10))
    assert eng.store.fsyncs == n


def test_a_round_is_committed_after_every_decision(tmp_path):
    eng = _boot(tmp_path / "j.db", seed=5)
    eng.step(NoteStacked(1, 5000, "t"))
    eng.step(IntentReceived(1, "bet_up"))
    n = eng.store.fsyncs
    eng.step(IntentReceived(1, "deal"))
    assert eng.store.fsyncs == n + 1
    saved = eng.store.load().round_state
    assert saved == eng.cab.round_dict()


def test_money_commits_fsync_bet_building_does_not(tmp_path):
    from cabinet.core.machine import new_state
    from cabinet.core.settings import GameSettings

    eng = _boot(tmp_path / "j.db", seed=2)
    eng.cab.s = new_state(GameSettings(variant="american"))
    eng.cab.rules = eng.cab.s.settings.validate()
    eng.step(NoteStacked(1, 5000, "t"))  # money: durable
    n = eng.store.fsyncs
    eng.step(IntentReceived(1, "chip", 500))
    eng.step(IntentReceived(1, "place", 2))
    assert eng.store.fsyncs == n  # bet building: written, no fsync
    assert eng.store.load().state.stations[0].bets_minor == [0, 500, 0]
    eng.step(IntentReceived(1, "deal"))
    assert eng.store.fsyncs == n + 1  # the deal moves money: durable

"""Issue 11: money safe against what the devices physically did (journal side)."""

from __future__ import annotations

import random

from cabinet.events import NoteEscrowed, NoteReturned, NoteStacked, PowerUp
from cabinet.machine import new_state
from cabinet.runtime import Engine
from cabinet.settings import GameSettings
from cabinet.store import Store


def _engine(path, stations=1):
    store = Store(path)
    if stations > 1:
        store.commit(new_state(GameSettings(variant="classic-multi", stations=stations)), None, [], 1_800_000_000.0)
    eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0,
                 wall_s=lambda: 1_800_000_000.0)
    eng.step(PowerUp(0, 1_800_000_000.0))
    return eng


def test_every_stations_open_escrow_is_restored(tmp_path):
    """Issue 11.4: two stations past STACK when the engine dies: both escrows come back
    (``open_escrow`` returned only the newest, so station 1's VEND VALID was
    "unattributed" and its note never credited)."""
    eng = _engine(tmp_path / "j.db", stations=2)
    eng.step(NoteEscrowed(1, 2000, "s1-note"))
    eng.step(NoteEscrowed(2, 500, "s2-note"))
    opened = eng.store.open_escrows()
    assert {n: (e["txn"], e["denomination_minor"], e["credited"]) for n, e in opened.items()} \
        == {1: ("s1-note", 2000, False), 2: ("s2-note", 500, False)}

    from cabinet.__main__ import build_devices
    devices = build_devices("sim", {}, eng, tmp_path / "sim", None)
    txns = {m.station: m.open_transaction for m in devices.members.values()}
    assert txns[1] is not None and txns[1].transaction_id == "s1-note"
    assert txns[1].denomination_minor == 2000
    assert txns[2] is not None and txns[2].transaction_id == "s2-note"
    assert txns[2].denomination_minor == 500


def test_a_superseded_escrow_is_not_offered_again(tmp_path):
    """Issue 11.3: a note re-escrowed after a restart under a new transaction retires
    the old one: only the newest escrow of a station can be open, and a credited one
    is offered as credited (a repeat VEND VALID owes nothing)."""
    eng = _engine(tmp_path / "j.db")
    eng.step(NoteEscrowed(1, 2000, "old"))      # killed here, before STACK
    eng.step(NoteEscrowed(1, 2000, "new"))      # after restart: the same note again
    eng.step(NoteStacked(1, 2000, "new"))
    opened = eng.store.open_escrows()
    assert list(opened) == [1]
    assert opened[1]["txn"] == "new" and opened[1]["credited"] is True
    assert eng.store.open_escrow() is None
    eng.step(NoteEscrowed(1, 500, "third"))
    eng.step(NoteReturned(1, "third"))
    assert eng.store.open_escrows() == {}

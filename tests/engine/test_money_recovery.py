"""Money safe against what the devices physically did (journal side)."""

from __future__ import annotations

import random

from cabinet.core.events import NoteEscrowed, NoteReturned, NoteStacked, PowerUp
from cabinet.core.machine import new_state
from cabinet.core.settings import GameSettings
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store


def _engine(path, stations=1):
    store = Store(path)
    if stations > 1:
        store.commit(new_state(GameSettings(variant="classic-multi", stations=stations)), None, [], 1_800_000_000.0)
    eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    eng.step(PowerUp(0, 1_800_000_000.0))
    return eng


def test_every_stations_open_escrow_is_restored(tmp_path):
    """Two stations past STACK when the engine dies: both escrows come back
    (``open_escrow`` returned only the newest, so station 1's VEND VALID was
    "unattributed" and its note never credited)."""
    eng = _engine(tmp_path / "j.db", stations=2)
    eng.step(NoteEscrowed(1, 2000, "s1-note"))
    eng.step(NoteEscrowed(2, 500, "s2-note"))
    opened = eng.store.open_escrows()
    assert {n: (e["txn"], e["denomination_minor"], e["credited"]) for n, e in opened.items()} == {
        1: ("s1-note", 2000, False),
        2: ("s2-note", 500, False),
    }

    from cabinet.shell.main import build_devices

    devices = build_devices("sim", {}, eng, tmp_path / "sim", None)
    txns = {m.station: m.open_transaction for m in devices.members.values()}
    assert txns[1] is not None and txns[1].transaction_id == "s1-note"
    assert txns[1].denomination_minor == 2000
    assert txns[2] is not None and txns[2].transaction_id == "s2-note"
    assert txns[2].denomination_minor == 500


def test_a_superseded_escrow_is_not_offered_again(tmp_path):
    """A note re-escrowed after a restart under a new transaction retires
    the old one: only the newest escrow of a station can be open, and a credited one
    is offered as credited (a repeat VEND VALID owes nothing)."""
    eng = _engine(tmp_path / "j.db")
    eng.step(NoteEscrowed(1, 2000, "old"))  # killed here, before STACK
    eng.step(NoteEscrowed(1, 2000, "new"))  # after restart: the same note again
    eng.step(NoteStacked(1, 2000, "new"))
    opened = eng.store.open_escrows()
    assert list(opened) == [1]
    assert opened[1]["txn"] == "new" and opened[1]["credited"] is True
    assert eng.store.open_escrow() is None
    eng.step(NoteEscrowed(1, 500, "third"))
    eng.step(NoteReturned(1, "third"))
    assert eng.store.open_escrows() == {}
    # Journaled as found in the stacker, then killed before the RESET:
    # the next start-up's 0x42 owes nothing more (no second, value-less review)
    from cabinet.core.events import NoteUncredited

    eng.step(NoteEscrowed(1, 1000, "fourth"))
    eng.step(NoteUncredited(1, "in_stacker", "fourth", 1000))
    assert eng.store.open_escrows()[1]["credited"] is True


# -- notes the acceptor took but never credited -------------------------------------


def _kinds(effects):
    from cabinet.core.effects import Journal

    return [(e.kind, e.amount_minor, e.data) for e in effects if isinstance(e, Journal)]


def test_note_found_in_stacker_is_journaled_locked_and_credited_once_by_the_key():
    """Power cut at STACKING: the note is in the cash box, uncredited. It is
    journaled, the cabinet tilts (shown on screen), the attendant's key credits it
    once, and a later VEND VALID for the same note credits nothing."""
    from cabinet.core.events import KeyChanged, NoteUncredited
    from tests.engine.helpers import Rig

    rig = Rig()
    eff = rig.cab.handle(NoteUncredited(1, "in_stacker", "A", 2000))
    assert ("note_in_stacker", 2000, {"txn": "A", "validation_number": "", "credited": False}) in _kinds(eff)
    assert rig.cab.mode == "tilt" and rig.credits() == 0
    assert "306 Note in the cash box" in rig.cab.snapshot(0).overlay_text
    eff = rig.cab.handle(KeyChanged(True))
    assert ("bill_stacked", 2000, {"txn": "A", "via": "attendant"}) in _kinds(eff)
    assert rig.credits() == 2000 and rig.cab.s.stations[0].meters.bills_in_minor == 2000
    assert rig.cab.s.note_reviews == [] and "note_in_stacker" not in rig.cab.s.faults
    rig.cab.handle(KeyChanged(False))
    eff = rig.cab.handle(NoteStacked(1, 2000, "A"))  # the resumed VEND VALID
    assert [k for k, _, _ in _kinds(eff)] == ["note_repeat_ignored"]
    assert rig.credits() == 2000 and rig.cab.mode != "tilt"


def test_note_in_stacker_then_its_vend_valid_credits_once_and_clears_the_review():
    """The journal has the escrow open; the note is reported in the
    stacker and then credited by the resumed VEND VALID: one credit, no review left,
    so the key afterwards credits nothing."""
    from cabinet.core.events import KeyChanged, NoteUncredited
    from tests.engine.helpers import Rig

    rig = Rig()
    rig.cab.handle(NoteUncredited(1, "in_stacker", "A", 2000))
    rig.cab.handle(NoteStacked(1, 2000, "A"))
    assert rig.credits() == 2000 and rig.cab.s.note_reviews == []
    assert rig.cab.mode != "tilt"
    eff = rig.cab.handle(KeyChanged(True))
    assert "bill_stacked" not in [k for k, _, _ in _kinds(eff)] and rig.credits() == 2000
    # reported again after it was credited (another restart): owes nothing
    rig.cab.handle(KeyChanged(False))
    eff = rig.cab.handle(NoteUncredited(1, "in_stacker", "A", 2000))
    assert rig.cab.s.note_reviews == [] and rig.cab.mode != "tilt"
    assert _kinds(eff)[0][2]["credited"] is True


def test_possible_note_in_path_is_an_unresolved_record_never_a_credit():
    """A jam after STACK, cleared: journaled "note_in_path", a tilt for
    the attendant; the key records the review and credits nothing."""
    from cabinet.core.events import KeyChanged, NoteUncredited
    from tests.engine.helpers import Rig

    rig = Rig()
    eff = rig.cab.handle(NoteUncredited(1, "in_path", "J", 2000))
    assert [k for k, _, _ in _kinds(eff)] == ["note_in_path"]
    assert rig.cab.mode == "tilt" and "note_in_path" in rig.cab.s.faults
    eff = rig.cab.handle(KeyChanged(True))
    assert ("note_review_resolved", 0, {"txn": "J", "kind": "in_path", "credited": False}) in _kinds(eff)
    assert rig.credits() == 0 and rig.cab.s.faults == {}


def test_credited_note_possibly_in_path_raises_the_307_review_and_credits_nothing_more():
    """protocols.md 1.9: a note credited at VEND VALID that jammed before it was
    stacked may be in the path, not the cash box: the meters are then above the cash
    box by its value, so the attendant gets the 307 review (journaled as credited);
    the key records it and credits nothing more."""
    from cabinet.core.events import KeyChanged, NoteUncredited
    from tests.engine.helpers import Rig

    rig = Rig()
    rig.cab.handle(NoteStacked(1, 1000, "J"))
    eff = rig.cab.handle(NoteUncredited(1, "in_path", "J", 1000))
    assert ("note_in_path", 1000, {"txn": "J", "validation_number": "", "credited": True}) in _kinds(eff)
    assert rig.cab.mode == "tilt" and "note_in_path" in rig.cab.s.faults
    assert "307 Possible note in the bill path" in rig.cab.snapshot(0).overlay_text
    eff = rig.cab.handle(KeyChanged(True))
    assert ("note_review_resolved", 0, {"txn": "J", "kind": "in_path", "credited": False}) in _kinds(eff)
    assert rig.credits() == 1000 and rig.cab.s.faults == {}
    assert rig.cab.s.stations[0].meters.bills_in_minor == 1000


def test_bridge_journals_a_note_found_in_stacker_instead_of_logging_it():
    """The bridge turned ``BillFoundInStacker`` into an INFO log line; it
    must post it as money and wait for the journal (raising if the engine cannot)."""
    import concurrent.futures

    import pytest

    from cabinet.core.events import NoteUncredited
    from cabinet.shell.devices import DriverDevices
    from drivers import events as dev
    from drivers.factory import DriverSettings

    posted = []

    def post(ev):
        posted.append(ev)
        f = concurrent.futures.Future()
        f.set_result(None)
        return f

    d = DriverDevices(DriverSettings(), lambda n: frozenset(), station=2)
    d.post = post
    d._sink(dev.BillFoundInStacker("A", 2000))
    d._sink(dev.BillPossiblyInPath("B", 500))
    assert posted == [NoteUncredited(2, "in_stacker", "A", 2000), NoteUncredited(2, "in_path", "B", 500)]
    d.post = lambda ev: concurrent.futures.Future()  # the engine never answers
    import cabinet.shell.devices as hw

    old, hw.JOURNAL_WAIT_S = hw.JOURNAL_WAIT_S, 0.05
    try:
        with pytest.raises(TimeoutError):
            d._sink(dev.BillFoundInStacker("C", 2000))
    finally:
        hw.JOURNAL_WAIT_S = old


def test_escrow_decision_returns_the_note_within_two_seconds_when_the_engine_is_slow():
    """The decision waited 5 s for the journal (past the acceptor's own
    escrow timing); it now answers RETURN within 2 s, and a "stack" for that
    escrow among the next step's effects is not taken for the next one's."""
    import concurrent.futures
    import time

    from cabinet.core.effects import StackNote
    from cabinet.shell.devices import DECIDE_WAIT_S, DriverDevices
    from drivers import events as dev
    from drivers.factory import DriverSettings

    d = DriverDevices(DriverSettings(), lambda n: frozenset())
    d.drivers = object()  # run() needs built drivers
    d.post = lambda ev: concurrent.futures.Future()  # the engine never answers
    t0 = time.monotonic()
    answer = d._decide(dev.BillEscrowed("late", 1, 2000, 0x65))
    took = time.monotonic() - t0
    assert answer is dev.EscrowDecision.RETURN and DECIDE_WAIT_S == 2.0 and took < 2.5

    def post(ev):  # the engine's step for the new escrow carries only the late "stack"
        f = concurrent.futures.Future()
        f.set_result([StackNote(1, "late")])
        return f

    d.post = post
    assert d._decide(dev.BillEscrowed("next", 2, 500, 0x63)) is dev.EscrowDecision.RETURN


def test_event_log_says_the_note_in_the_stacker_was_not_credited():
    """The Event log page shows the record and how it was resolved."""
    from cabinet.core.maintenance import event_line

    row = {
        "wall_s": 0.0,
        "station": 1,
        "amount_minor": 2000,
        "kind": "note_in_stacker",
        "data": {"txn": "A", "validation_number": "", "credited": False},
    }
    assert "note in stacker · station 1 · $20.00 · not credited" in event_line(row)
    row = {
        "wall_s": 0.0,
        "station": 1,
        "amount_minor": 2000,
        "kind": "bill_stacked",
        "data": {"txn": "A", "via": "attendant"},
    }
    assert event_line(row).endswith("credited by the attendant's key")

"""The Diagnostics page's bill acceptor test: a note inserted while the test
is on goes to test credits that touch no real meter, is stacked or returned as
chosen, and is counted apart; a restart mid-test neither credits it nor loses it."""

from __future__ import annotations

import random

import msgspec

from cabinet.core.context import NoHistory
from cabinet.core.effects import Journal, ReturnNote, SetAcceptor, StackNote
from cabinet.core.events import (
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    NoteReturned,
    NoteStacked,
    NoteUncredited,
    PowerUp,
)
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.maintenance.diagnostics import ITEMS
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .helpers import Rig
from .menu_helpers import set_pin, type_pin

DIAG = [k for k, _ in MAIN_ITEMS].index("diagnostics")
BILLS = [k for k, _ in ITEMS].index("diag_bills")
WALL = 1_800_000_000.0


def _real_money(cab):
    """Every real meter and money figure of the cabinet (what the test must not touch)."""
    s = cab.s
    return {
        "stations": [
            (
                st.credits_minor,
                st.pending_out_minor,
                msgspec.to_builtins(st.meters),
                list(st.last_bills_minor),
                msgspec.to_builtins(st.host.queue),
                st.host.next_event_id,
            )
            for st in s.stations
        ],
        "reviews": list(s.note_reviews),
        "faults": dict(s.faults),
    }


def _open_bill_test(handle, state=None, technician=True):
    """Key on, Diagnostics, Bill acceptor test (the PIN typed when ``technician``: a
    known PIN is put in ``state`` first), then Select: Test on."""
    if state is not None:
        set_pin(state)
    handle(KeyChanged(True))
    for _ in range(DIAG):
        handle_intent(handle, "menu_down")
    handle_intent(handle, "menu_select")  # Diagnostics
    for _ in range(BILLS):
        handle_intent(handle, "menu_down")
    handle_intent(handle, "menu_select")  # Bill acceptor test: the PIN first
    if technician:
        type_pin(lambda action, value=None: handle(IntentReceived(1, action, value)))
    return handle_intent(handle, "menu_select")  # Test: on


def handle_intent(handle, action):
    from cabinet.core.events import IntentReceived

    return handle(IntentReceived(1, action))


def test_bill_test_note_goes_to_test_credits_and_leaves_every_real_meter_unchanged():
    """With the test on, a $20 note escrowed is journaled as a test escrow,
    stacked, and shown as $20 test credits; the credit meter, bill meters, drop, the
    last bills and the host (SAS) queue are all unchanged; no ``bill_stacked``."""
    rig = Rig()
    rig.note(5000)  # a real note before: $50 credits
    before = _real_money(rig.cab)
    eff = _open_bill_test(rig.cab.handle, rig.cab.s)
    assert rig.cab.s.maintenance.page == "diag_bills"
    assert rig.cab.s.bill_test.on
    assert [(e.enabled, e.test) for e in eff if isinstance(e, SetAcceptor)] == [(True, True)]
    eff = rig.cab.handle(NoteEscrowed(1, 2000, "x1"))
    assert StackNote(1, "x1") in eff
    assert Journal("note_escrowed", 1, 2000, {"txn": "x1", "test": True}) in eff
    eff += rig.cab.handle(NoteStacked(1, 2000, "x1"))
    assert "bill_stacked" not in [e.kind for e in eff if isinstance(e, Journal)]
    assert Journal("bill_test_stacked", 1, 0, {"txn": "x1", "value_minor": 2000, "how": "stacked"}) in eff
    t = rig.cab.s.bill_test
    assert (t.credits_minor, t.stacked_count, t.stacked_minor, t.pending) == (2000, 1, 2000, {})
    assert _real_money(rig.cab) == before
    lines = " ".join(rig.cab.snapshot(1).maintenance.lines)
    assert "Test credits: $20.00" in lines and "Test notes stacked" in lines
    # a repeated VEND VALID of the same note is ignored, not credited for real
    rig.cab.handle(NoteStacked(1, 2000, "x1"))
    assert _real_money(rig.cab) == before and rig.cab.s.bill_test.stacked_count == 1


def test_bill_test_returns_notes_when_chosen_and_counts_them():
    """ "Test notes are returned": the escrow is answered with a return, the
    return is journaled as ``bill_test_returned`` (no host "bill rejected") and
    counted; no meter moves."""
    rig = Rig()
    before = _real_money(rig.cab)
    _open_bill_test(rig.cab.handle, rig.cab.s)
    rig.press("menu_down")
    rig.press("menu_select")  # stack -> return
    assert not rig.cab.s.bill_test.stack
    eff = rig.cab.handle(NoteEscrowed(1, 1000, "r1"))
    assert any(isinstance(e, ReturnNote) for e in eff)
    eff = rig.cab.handle(NoteReturned(1, "r1"))
    assert [e.kind for e in eff if isinstance(e, Journal)] == ["bill_test_returned"]
    t = rig.cab.s.bill_test
    assert (t.returned_count, t.stacked_count, t.credits_minor) == (1, 0, 0)
    assert _real_money(rig.cab) == before


def test_bill_test_needs_the_technician_level():
    """The bill test moves notes into the cash box: the attendant's key alone
    does not open it (the technician PIN is asked) and the acceptor stays off."""
    rig = Rig()
    _open_bill_test(rig.cab.handle, rig.cab.s, technician=False)
    assert not rig.cab.s.bill_test.on
    m = rig.cab.s.maintenance
    assert m.page != "diag_bills" and m.entry is not None and m.entry.kind == "pin"  # PIN asked
    eff = rig.cab.handle(NoteEscrowed(1, 2000, "n1"))
    assert any(isinstance(e, ReturnNote) for e in eff)  # maintenance refuses notes
    assert rig.cab.s.bill_test.credits_minor == 0


def test_leaving_the_bill_test_page_ends_the_test():
    """Back (or the key off) ends the test: a note after that is refused as in
    maintenance, not taken as a test note."""
    rig = Rig()
    _open_bill_test(rig.cab.handle, rig.cab.s)
    rig.press("menu_back")
    assert rig.cab.s.maintenance.page == "diagnostics" and not rig.cab.s.bill_test.on
    eff = rig.cab.handle(NoteEscrowed(1, 2000, "n2"))
    assert any(isinstance(e, ReturnNote) for e in eff)
    assert "n2" not in rig.cab.s.bill_test.pending


def _boot(path, seed=1):
    eng = Engine(Store(path), rng=random.Random(seed), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def _engine_money(eng):
    return _real_money(eng.cab)


def test_restart_mid_bill_test_counts_the_note_as_a_test_note_never_a_credit(tmp_path):
    """The engine dies after answering STACK to a test note (its state and the
    test escrow are journaled; the VEND VALID is not). After the restart the journal
    still offers the escrow to the acceptor driver, whose recovered VEND VALID (or a
    power-up "bill in stacker") is counted as a test note stacked: the credit meter
    and bill meters never see it, and it is not lost from the count."""
    for late in ("vend_valid", "in_stacker"):
        path = tmp_path / f"{late}.db"
        eng = _boot(path)
        eng.step(NoteStacked(1, 5000, "real1"))
        _open_bill_test(eng.step, eng.cab.s)
        before = _engine_money(eng)
        eng.step(NoteEscrowed(1, 2000, "x9"))
        assert eng.cab.s.bill_test.pending == {"x9": 2000}
        del eng  # killed: no close, no more events
        eng2 = _boot(path)
        assert eng2.store.open_escrows()[1]["txn"] == "x9"  # the driver gets it back
        assert not eng2.store.open_escrows()[1]["credited"]
        if late == "vend_valid":
            eng2.step(NoteStacked(1, 2000, "x9"))
        else:
            eng2.step(NoteUncredited(1, "in_stacker", "x9", 2000))
        t = eng2.cab.s.bill_test
        assert (t.stacked_count, t.stacked_minor, t.pending) == (1, 2000, {}), late
        assert _engine_money(eng2)["stations"] == before["stations"], late
        assert eng2.cab.s.note_reviews == [], late  # not left for a key to credit
        assert eng2.store.open_escrows()[1]["credited"]  # closed: nothing more owed
        kinds = [e["kind"] for e in eng2.store.events(50)]
        assert "bill_test_stacked" in kinds and kinds.count("bill_stacked") == 1, late


def test_a_restart_ends_the_bill_test_and_a_note_escrowed_after_it_is_returned(tmp_path):
    """The engine restarts with the key still on and the test on: the restart
    ends the technician's visit (the PIN is asked again) and with it the bill test, so a
    note the acceptor offers at start-up is returned, neither credited nor a test note."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    _open_bill_test(eng.step, eng.cab.s)
    assert eng.cab.s.bill_test.on
    before = _engine_money(eng)
    del eng
    eng2 = _boot(path)
    assert not eng2.cab.s.bill_test.on and eng2.cab.s.maintenance.level == "attendant"
    eff = eng2.step(NoteEscrowed(1, 1000, "y1"))
    assert any(isinstance(e, ReturnNote) for e in eff), eff
    eng2.step(NoteReturned(1, "y1"))
    assert eng2.cab.s.bill_test.stacked_count == 0 and eng2.cab.s.bill_test.pending == {}
    assert _engine_money(eng2)["stations"] == before["stations"]


def test_a_pulse_acceptor_stays_inhibited_in_the_bill_test():
    """A pulse acceptor has no escrow, so a note would be credited on the
    spot: the bridge keeps it inhibited for the test (``SetAcceptor.test``); an
    ID-003 one is enabled."""
    from types import SimpleNamespace

    from cabinet.shell.devices import DriverDevices
    from drivers.factory import DriverSettings

    for kind, want in (("pulse", [False, True]), ("id003", [True, True])):
        calls: list[bool] = []
        d = DriverDevices(DriverSettings(bill_acceptor=kind), lambda n: frozenset())
        d.drivers = SimpleNamespace(bill_acceptor=SimpleNamespace(set_accepting=calls.append))
        d.run(SetAcceptor(1, True, (2000,), test=True))
        d.run(SetAcceptor(1, True, (2000,)))
        assert calls == want, kind


def test_a_ram_clear_keeps_a_test_note_still_in_the_acceptor_a_test_note():
    """A RAM clear while a test note is between STACK and its VEND VALID keeps
    it pending: its late VEND VALID is still a test note, never a credit."""
    rig = Rig()
    _open_bill_test(rig.cab.handle, rig.cab.s)
    rig.cab.handle(NoteEscrowed(1, 2000, "x7"))
    rig.cab.ram_clear([], NoHistory())
    assert rig.cab.s.bill_test.pending == {"x7": 2000}
    rig.cab.handle(NoteStacked(1, 2000, "x7"))
    st = rig.cab.s.stations[0]
    assert (st.credits_minor, st.meters.bills_in_minor) == (0, 0)
    assert rig.cab.s.bill_test.stacked_count == 1

"""SIGKILL of the engine in the middle of a bill test: the test note is
neither credited for real nor lost from the count (real processes: the engine with
``--twins``, the serial twins in ``cabinet sim-devices``)."""

from __future__ import annotations

import time

from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.maintenance.diagnostics import ITEMS
from cabinet.shell.store import Store
from tests.engine.menu_helpers import change_default_pin, type_pin

from .crash_harness import EngineProc, TwinProc, settle

DIAG = [k for k, _ in MAIN_ITEMS].index("diagnostics")
BILLS = [k for k, _ in ITEMS].index("diag_bills")


def _wait(eng, cond, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond(eng.snapshot or {}):
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out; snapshot {(eng.snapshot or {}).get('maintenance')}")


def _start_bill_test(eng, first=True):
    eng.sim({"cmd": "key", "on": True})
    _wait(eng, lambda s: (s.get("maintenance") or {}).get("page") == "main")
    for _ in range(DIAG):
        eng.intent("menu_down")
    eng.intent("menu_select")
    for _ in range(BILLS):
        eng.intent("menu_down")
    eng.intent("menu_select")  # the technician PIN first
    if first:
        change_default_pin(eng.intent)  # a new journal: the factory PIN's change
    else:
        type_pin(eng.intent)
    _wait(eng, lambda s: (s.get("maintenance") or {}).get("page") == "diag_bills")
    time.sleep(0.3)  # the door switch settles (30 ms) and is handled
    eng.intent("menu_select")  # Test: on
    _wait(eng, lambda s: "ON" in " ".join((s.get("maintenance") or {}).get("items", [])))
    # the acceptor is enabled for the test once the engine says so
    deadline = time.monotonic() + 5
    while (
        "inhibited=False" not in str(eng.sim({"cmd": "bill", "line": "status"}).get("reply", ""))
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)


def _test_escrow_journaled(journal, seen):
    store = Store(journal, readonly=True)
    try:
        return sum(1 for e in store.events(20) if e["kind"] == "note_escrowed" and e["data"].get("test")) > seen
    finally:
        store.close()


def test_sigkill_mid_bill_test_neither_credits_the_note_nor_loses_it(tmp_path):
    """Kills at different moments after a $20 test note's escrow is journaled
    (at once: STACK sent or not; while stacking; around the VEND VALID). After each
    restart and settle: no credit, no bill meter moved, no note left for review, and
    the cash box holds exactly the test notes counted as stacked.

    Not here: a kill before the engine journaled the escrow. On a cabinet the key
    and the door stay as they are across the restart, so the engine, still on the
    test page, takes the note still in escrow as a test note
    (``test_a_note_escrowed_after_a_restart_on_the_test_page_is_a_test_note``); the
    simulation's mock panel restarts with the key off, which would leave the menu."""
    twins = TwinProc(tmp_path)
    twins.start()
    try:
        for seen, delay in enumerate((0.0, 0.03, 0.1)):
            eng = EngineProc(tmp_path, twins)
            eng.start()
            _start_bill_test(eng, first=seen == 0)
            eng.sim({"cmd": "note", "amount_minor": 2000})
            deadline = time.monotonic() + 10
            while not _test_escrow_journaled(eng.journal, seen) and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(delay)
            eng.kill()
            eng = EngineProc(tmp_path, twins)
            eng.start()
            truth = settle(eng)
            eng.stop()
            store = Store(eng.journal, readonly=True)
            try:
                state = store.load_readonly()
                log = [(e["kind"], e["data"].get("txn"), e["data"].get("test")) for e in store.all_events()[-40:]]
            finally:
                store.close()
            assert state is not None and truth, delay
            st = state.stations[0]
            assert (st.credits_minor, st.meters.bills_in_minor, st.meters.bills_in_count) == (0, 0, 0), (
                delay,
                "\n".join(map(str, log)),
            )
            review = sum(r.amount_minor for r in state.note_reviews)
            t = state.bill_test
            assert t.pending == {}, delay
            assert truth["cash_box_minor"] == t.stacked_minor + review, (delay, truth, t)
            assert review == 0, (delay, state.note_reviews)
    finally:
        twins.stop()

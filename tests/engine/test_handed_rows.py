"""The RAM clear and the audit export decide on the journal rows the shell hands in
right before their Select (``shell_inputs.event_query``): the same result as the
journal itself gives, and nothing done on rows never read."""

from __future__ import annotations

import csv
import random

from cabinet.core.context import OUTSTANDING, LoadedHistory
from cabinet.core.effects import ExportAudit, Journal, Rejected
from cabinet.core.events import (
    DoorChanged,
    HistoryLoaded,
    IntentReceived,
    KeyChanged,
    NoteStacked,
    NoteUncredited,
    PowerUp,
    PrintFinished,
    Tick,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.maintenance import MAIN_ITEMS, ram_clear_summary
from cabinet.core.maintenance.export import AUDIT_HANDPAYS
from cabinet.core.records import VoucherRecord
from cabinet.core.shell_inputs import event_query
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .helpers import Rig
from .menu_helpers import cab_send, eng_send, set_pin, type_pin

WALL = 1_800_000_000.0
KEYS = [k for k, _ in MAIN_ITEMS]


def _voucher(vn: str, amount_minor: int, validation: str) -> VoucherRecord:
    return VoucherRecord(
        validation_number=vn,
        sequence=1,
        amount_minor=amount_minor,
        station=1,
        issued_wall_s=WALL,
        expires_wall_s=WALL + 86_400,
        clock_adjust_s=0.0,
        status="issued",
        venue="",
        machine_number="1",
        validation=validation,
    )


OWN = _voucher("001111111111111111", 2_500, "none")
HOSTS = _voucher("002222222222222222", 4_000, "system")


def _technician_on(cab: Cabinet, page: str) -> None:
    set_pin(cab.s)
    cab.handle(DoorChanged("logic", True))
    cab.handle(KeyChanged(True))
    cab.handle(IntentReceived(1, "menu_pick", KEYS.index(page)))
    type_pin(cab_send(cab))
    assert cab.s.maintenance.page == page


def _select(cab: Cabinet, loaded: HistoryLoaded | None) -> list:
    select = IntentReceived(1, "menu_select")
    if loaded is not None:
        assert event_query(cab, select) == loaded.query
        cab.handle(loaded)
    return cab.handle(select)


def test_a_ram_clear_records_the_outstanding_vouchers_handed_in_for_its_select():
    rig = Rig()
    rig.note(3_000)
    _technician_on(rig.cab, "ram_clear")
    loaded = HistoryLoaded(OUTSTANDING, outstanding=(OWN, HOSTS))
    expected = ram_clear_summary(rig.cab, LoadedHistory(loaded))
    assert (expected["outstanding_vouchers"], expected["outstanding_vouchers_minor"]) == (1, 2_500)
    assert (expected["host_tickets"], expected["host_tickets_minor"]) == (1, 4_000)
    _select(rig.cab, loaded)
    assert rig.cab.s.maintenance.confirm == "armed"
    eff = _select(rig.cab, loaded)
    clear = [e for e in eff if isinstance(e, Journal) and e.kind == "ram_clear"]
    assert len(clear) == 1 and rig.credits() == 0
    assert {k: clear[0].data[k] for k in expected} == expected
    assert clear[0].data["credits_minor"] == {"1": 3_000}


def test_a_ram_clear_whose_vouchers_were_not_read_erases_nothing():
    rig = Rig()
    rig.note(3_000)
    _technician_on(rig.cab, "ram_clear")
    loaded = HistoryLoaded(OUTSTANDING, outstanding=(OWN,))
    _select(rig.cab, loaded)
    assert rig.cab.s.maintenance.confirm == "armed"
    eff = _select(rig.cab, None)  # the confirming press, no rows handed in
    assert rig.credits() == 3_000 and not [e for e in eff if isinstance(e, Journal)]
    assert Rejected("RAM clear", "outstanding vouchers not read") in eff
    assert rig.cab.s.maintenance.confirm == "Not cleared: the outstanding vouchers were not read. Select again."
    rig.cab.handle(loaded)
    rig.cab.handle(Tick(0, WALL))  # rows read for another event are spent
    eff = _select(rig.cab, None)
    assert rig.credits() == 3_000 and Rejected("RAM clear", "outstanding vouchers not read") in eff


HANDPAY = {
    "id": 9,
    "seq": 4,
    "wall_s": WALL - 60,
    "kind": "handpay",
    "station": 1,
    "amount_minor": 120_000,
    "data": {"validation_number": "", "reason": "over the limit", "kind": "jackpot"},
}


def test_the_audit_report_lists_the_handpays_handed_in_for_its_select():
    rig = Rig()
    _technician_on(rig.cab, "export")
    eff = _select(rig.cab, HistoryLoaded(AUDIT_HANDPAYS, events=(HANDPAY,)))
    (export,) = [e for e in eff if isinstance(e, ExportAudit)]
    assert [r for r in export.rows if r[0] == "handpay"] == [
        ("handpay", "1", "2027-01-15T07:59:00Z", "120000", "jackpot")
    ]
    assert [e.kind for e in eff if isinstance(e, Journal)] == ["audit_export"]


def test_an_audit_report_whose_handpays_were_not_read_is_not_written():
    rig = Rig()
    _technician_on(rig.cab, "export")
    eff = _select(rig.cab, None)
    assert not [e for e in eff if isinstance(e, ExportAudit | Journal)]
    assert Rejected("audit export", "handpay records not read") in eff
    assert rig.cab.s.maintenance.confirm == "Not written: the handpay records were not read. Select again."


def test_the_engine_reads_the_handpays_for_the_export_from_its_journal(tmp_path, monkeypatch):
    out = tmp_path / "usb"
    monkeypatch.setenv("CABINET_EXPORT_DIR", str(out))
    store = Store(tmp_path / "j.db")
    state = set_pin(new_state())
    handpay = Journal("handpay", 1, 120_000, {"validation_number": "", "reason": "over the limit", "kind": "jackpot"})
    store.commit(state, None, [handpay], WALL - 60)
    eng = Engine(store, rng=random.Random(5), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    eng.step(KeyChanged(True))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("export")))
    type_pin(eng_send(eng))
    eng.step(IntentReceived(1, "menu_select"))
    (written,) = list(out.glob("audit-*.csv"))
    rows = list(csv.reader(written.open()))
    assert [r for r in rows if r[0] == "handpay"] == [["handpay", "1", "2027-01-15T07:59:00Z", "120000", "jackpot"]]


def test_the_engine_reads_the_vouchers_for_a_ticket_found_in_the_cash_box(tmp_path):
    """Validation "none": this cabinet's voucher, found in the cash box and never
    credited, is credited once by the key from the record the engine reads for it."""
    store = Store(tmp_path / "j.db")
    store.commit(new_state(), None, [], WALL)
    eng = Engine(store, rng=random.Random(7), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    eng.step(NoteStacked(1, 2_000, "b1"))
    eng.step(IntentReceived(1, "cash_out"))
    vn = eng.cab.s.stations[0].printing.validation_number
    eng.step(PrintFinished(1, vn, "done"))
    assert eng.cab.s.stations[0].credits_minor == 0
    eng.step(NoteUncredited(1, "in_stacker", "v9", 0, vn))
    eff = eng.step(KeyChanged(True))
    assert eng.cab.s.stations[0].credits_minor == 2_000 and not eng.cab.s.note_reviews
    assert Journal("note_review_resolved", 1, 2_000, {"txn": "v9", "kind": "in_stacker", "credited": True}) in eff
    assert [v.status for v in store.outstanding_vouchers()] == []

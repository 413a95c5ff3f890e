"""RAM clear: what it says it erases, who may do it, what it keeps."""

from __future__ import annotations

import random

from cabinet.core.effects import Journal, ReturnNote, StackNote
from cabinet.core.events import (
    DoorChanged,
    IntentReceived,
    KeyChanged,
    NoteReturned,
    NoteStacked,
    PowerUp,
    PrintFinished,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.machine import new_state
from cabinet.core.maintenance import MAIN_ITEMS, SETTING_CHOICES
from cabinet.core.settings import GameSettings
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .helpers import Rig
from .menu_helpers import eng_send, rig_send, set_pin, type_pin

WALL = 1_800_000_000.0
RAM_CLEAR = [k for k, _ in MAIN_ITEMS].index("ram_clear")


def _engine(tmp_path, settings):
    store = Store(tmp_path / "j.db")
    store.commit(set_pin(new_state(settings)), None, [], WALL)
    eng = Engine(store, rng=random.Random(7), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def _press(eng, action, n=1):
    for _ in range(n):
        eng.step(IntentReceived(1, action))


def _print_voucher(eng, station, amount):
    eng.step(NoteStacked(station, amount, f"bill-{station}-{amount}"))
    eng.step(IntentReceived(station, "cash_out"))
    vn = eng.cab.s.stations[0].printing.validation_number
    eng.step(PrintFinished(station, vn, "done"))
    return vn


def _open_ram_clear(eng):
    eng.step(KeyChanged(True))
    _press(eng, "menu_down", RAM_CLEAR)
    _press(eng, "menu_select")
    assert eng.cab.s.maintenance.entry.kind == "pin"  # the technician's page
    type_pin(eng_send(eng))
    assert eng.snapshot.maintenance.page == "ram_clear"
    return eng.snapshot.maintenance


def _save_settings(eng):
    eng.step(KeyChanged(True))
    type_pin(eng_send(eng))  # needs_config: the PIN first
    assert eng.cab.s.maintenance.page == "settings"
    _press(eng, "menu_down", len(SETTING_CHOICES))
    _press(eng, "menu_select")
    eng.step(KeyChanged(False))


def test_ram_clear_says_what_it_erases_needs_the_technician_and_keeps_outstanding_vouchers(tmp_path):
    """Credits on three stations and an outstanding voucher: the
    confirm page lists them, the attendant is refused, the technician (logic door open)
    clears; the clear is dated now and kept in the event log; the voucher printed
    before is redeemed afterwards exactly once."""
    eng = _engine(tmp_path, GameSettings(variant="classic-multi", stations=3))
    vn = _print_voucher(eng, 1, 2_000)
    for station, amount in ((1, 1_000), (2, 2_000), (3, 5_000)):
        eng.step(NoteStacked(station, amount, f"t{station}"))
    page = _open_ram_clear(eng)
    text = "\n".join(page.lines)
    assert "Station 1 credits $10.00" in text
    assert "Station 2 credits $20.00" in text
    assert "Station 3 credits $50.00" in text
    assert "Pending handpays: none" in text
    assert "1 outstanding voucher ($20.00)" in text
    assert "technician" in text and "logic door" in text

    _press(eng, "menu_select", 3)  # the PIN, no door: refused, every time
    assert [st.credits_minor for st in eng.cab.s.stations] == [1_000, 2_000, 5_000]
    assert (
        "Refused: open the main or logic door first (credits and outstanding vouchers "
        "on the cabinet)" in eng.snapshot.maintenance.lines
    )
    kinds = [e["kind"] for e in eng.store.all_events()]
    assert "ram_clear_refused" in kinds and "ram_clear" not in kinds

    eng.step(DoorChanged("logic", True))  # technician level and the logic door
    _press(eng, "menu_select", 2)  # arm, confirm
    assert [st.credits_minor for st in eng.cab.s.stations] == [0, 0, 0]
    events = eng.store.all_events()
    clear = [e for e in events if e["kind"] == "ram_clear"]
    assert len(clear) == 1 and clear[0]["wall_s"] == WALL
    assert clear[0]["data"]["access"] == "technician"
    assert clear[0]["data"]["credits_minor"] == {"1": 1_000, "2": 2_000, "3": 5_000}
    assert clear[0]["data"]["outstanding_vouchers"] == 1
    assert eng.cab.s.doors_open == ["logic"]  # the door is still physically open
    assert [e["kind"] for e in events] == ["ram_clear"]  # its own record survives
    assert eng.cab.s.operator.pin.hash_hex  # and the PIN

    eng.step(DoorChanged("logic", False))
    eng.step(KeyChanged(False))
    _save_settings(eng)
    assert eng.cab.mode == "attract"
    eff = eng.step(VoucherEscrowed(2, vn, None, "v1"))
    assert StackNote(2) in eff
    eng.step(VoucherStacked(2, vn, "v1", None))
    assert eng.cab.s.stations[1].credits_minor == 2_000
    eff = eng.step(VoucherEscrowed(3, vn, None, "v2"))  # a second time: refused
    assert ReturnNote(3, "voucher is redeemed") in eff
    eff = eng.step(NoteReturned(3, "v2"))
    assert Journal("note_returned", 3, 0, {"txn": "v2", "reason": "voucher is redeemed"}) in eff
    assert eng.cab.s.stations[2].credits_minor == 0


def test_ram_clear_of_an_empty_cabinet_still_needs_the_pin_and_door_and_keeps_its_record(tmp_path):
    """With nothing on the cabinet a RAM clear still needs the
    technician PIN and the main or logic door (the stricter rule kept); the event log
    keeps the clear's own record, dated, after each clear."""
    eng = _engine(tmp_path, GameSettings())
    for _ in range(2):
        page = _open_ram_clear(eng)
        assert "Station 1 credits $0.00" in "\n".join(page.lines)
        _press(eng, "menu_select")
        assert "Refused: open the main or logic door first" in eng.snapshot.maintenance.lines
        eng.step(DoorChanged("main", True))
        _press(eng, "menu_select", 2)
        events = eng.store.all_events()
        assert [(e["kind"], e["wall_s"], e["data"]["access"]) for e in events] == [("ram_clear", WALL, "technician")]
        eng.step(DoorChanged("main", False))
        eng.step(KeyChanged(False))
        _save_settings(eng)


def test_a_refused_bill_or_voucher_carries_its_reason_to_the_journal():
    """A refusal says why: ``ReturnNote`` and then ``note_returned`` carry
    the reason; a return the cabinet did not ask for has none of ours."""
    from cabinet.core.events import NoteEscrowed

    rig = Rig(GameSettings(credit_limit_minor=1_000))
    eff = rig.cab.handle(VoucherEscrowed(1, "123456789012345678", None, "v9"))
    assert ReturnNote(1, "not issued by this cabinet") in eff
    eff = rig.cab.handle(NoteReturned(1, "v9"))
    assert Journal("note_returned", 1, 0, {"txn": "v9", "reason": "not issued by this cabinet"}) in eff
    eff = rig.cab.handle(NoteReturned(1, "v9"))  # a repeat: told once
    assert Journal("note_returned", 1, 0, {"txn": "v9"}) in eff
    eff = rig.cab.handle(NoteEscrowed(1, 2_000, "b1"))
    assert ReturnNote(1, "over the credit limit") in eff
    eff = rig.cab.handle(NoteReturned(1, "other"))  # the acceptor's own return
    assert Journal("note_returned", 1, 0, {"txn": "other"}) in eff
    eff = rig.cab.handle(NoteReturned(1, "b1"))
    assert Journal("note_returned", 1, 0, {"txn": "b1", "reason": "over the credit limit"}) in eff
    eff = rig.cab.handle(NoteEscrowed(1, 500, "b2"))  # accepted: nothing to tell
    assert StackNote(1) in eff
    eff = rig.cab.handle(NoteReturned(1, "b2"))  # returned by the acceptor itself
    assert Journal("note_returned", 1, 0, {"txn": "b2"}) in eff


def test_the_technician_level_is_checked_again_at_the_confirming_press():
    """Armed with the logic door open, then the door closed: the confirming
    press is refused and nothing is erased."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.note(2_000)
    rig.cab.handle(KeyChanged(True))
    for _ in range(RAM_CLEAR):
        rig.press("menu_down")
    rig.press("menu_select")
    type_pin(rig_send(rig))
    rig.cab.handle(DoorChanged("logic", True))
    rig.press("menu_select")
    assert rig.cab.s.maintenance.confirm == "armed"
    rig.cab.handle(DoorChanged("logic", False))
    eff = rig.press("menu_select")
    assert rig.credits() == 2_000 and rig.cab.s.maintenance.page == "ram_clear"
    assert [e.kind for e in eff if isinstance(e, Journal)] == ["ram_clear_refused"]
    lines = rig.cab.snapshot(1).maintenance.lines
    assert "Refused: open the main or logic door first (credits on the cabinet)" in lines


def test_a_refusal_line_goes_once_the_technician_level_is_reached(tmp_path):
    """ "Refused: ... needs the technician level" stayed on the RAM
    clear page after the main door was opened and the page said "Now: technician"."""
    eng = _engine(tmp_path, GameSettings(variant="classic"))
    eng.step(NoteStacked(1, 2000, "t1"))
    _open_ram_clear(eng)
    _press(eng, "menu_select")
    assert any(line.startswith("Refused:") for line in eng.snapshot.maintenance.lines)
    eng.step(DoorChanged("main", True))
    lines = eng.snapshot.maintenance.lines
    assert any("Now: technician, doors open: main" in line for line in lines), lines
    assert not any(line.startswith("Refused:") for line in lines), lines


def test_ram_clear_tells_the_hosts_tickets_apart_from_this_cabinets_vouchers(tmp_path):
    """The RAM clear summary counted a ticket the casino host
    validated (SAS 0x58: the host keeps it and any machine on the floor
    redeems it through the host) as one of this cabinet's outstanding vouchers, which
    only this cabinet's own journal keeps redeemable."""
    from cabinet.core.effects import SaveVoucher
    from cabinet.core.records import VoucherRecord

    eng = _engine(tmp_path, GameSettings())
    _print_voucher(eng, 1, 2_000)
    host_ticket = VoucherRecord(
        validation_number="001234567890123456",
        sequence=90,
        amount_minor=700,
        station=1,
        issued_wall_s=WALL,
        expires_wall_s=WALL + 86_400 * 30,
        status="issued",
        venue="Test",
        machine_number="1",
        validation="system",
    )
    eng.store.commit(eng.cab.s, eng.cab.round_dict(), [SaveVoucher(host_ticket)], WALL)
    page = _open_ram_clear(eng)
    text = "\n".join(page.lines)
    assert "1 outstanding voucher ($20.00), redeemable once" in text
    assert "1 ticket validated by the casino host ($7.00): the host redeems it" in text
    eng.step(DoorChanged("logic", True))
    _press(eng, "menu_select", 2)
    clear = [e for e in eng.store.all_events() if e["kind"] == "ram_clear"]
    assert clear[0]["data"]["outstanding_vouchers"] == 1
    assert clear[0]["data"]["outstanding_vouchers_minor"] == 2_000
    assert clear[0]["data"]["host_tickets"] == 1 and clear[0]["data"]["host_tickets_minor"] == 700

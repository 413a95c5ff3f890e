"""The maintenance menu's Diagnostics page (was "Device test"): lamp test,
missing buttons audit, door and key switches live, tower light test, devices and
program."""

from __future__ import annotations

from cabinet.core.effects import Journal, SetLamps, SetTowerLight
from cabinet.core.events import DoorChanged, KeyChanged
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.maintenance.diagnostics import (
    ITEMS,
    MISSING_AFTER_GAMES,
    PANEL_BUTTONS,
    TECHNICIAN_ITEMS,
    missing_buttons,
)

from .helpers import Rig

DIAG = [k for k, _ in MAIN_ITEMS].index("diagnostics")


def _open(rig, page):
    rig.cab.handle(KeyChanged(True))
    for _ in range(DIAG):
        rig.press("menu_down")
    rig.press("menu_select")
    assert rig.cab.s.maintenance.page == "diagnostics"
    for _ in range([k for k, _ in ITEMS].index(page)):
        rig.press("menu_down")
    eff = rig.press("menu_select")
    assert rig.cab.s.maintenance.page == page
    assert Journal("maintenance_page", 0, 0, {"page": page, "level": "attendant"}) in eff
    return eff


def test_diagnostics_lists_its_tests_and_marks_the_technician_ones():
    """The main menu's Diagnostics opens a list of tests; the bill test (it
    moves notes into the cash box) is marked for the technician level."""
    rig = Rig()
    rig.cab.handle(KeyChanged(True))
    for _ in range(DIAG):
        rig.press("menu_down")
    rig.press("menu_select")
    view = rig.cab.snapshot(1).maintenance
    assert view.title == "Diagnostics"
    assert view.items == [
        "Button and lamp test",
        "Door and key switches",
        "Tower light test",
        "Bill acceptor test (technician)",
        "Printer test ticket",
        "Sound test",
        "Screen colour and touch test",
        "Devices and program",
    ]
    assert TECHNICIAN_ITEMS == {"diag_bills"}
    rig.press("menu_back")
    assert rig.cab.s.maintenance.page == "main"


def test_lamp_test_lights_each_lamp_in_turn_then_the_menu_lamps_come_back():
    """On the button and lamp test each panel lamp is lit alone, one a
    second, in panel order; leaving the page gives the lamps back to the menu."""
    rig = Rig()
    _open(rig, "diag_buttons")
    lit = []
    for _ in range(len(PANEL_BUTTONS)):
        lamps = [e for e in rig.advance(1000) if isinstance(e, SetLamps)]
        lit.append(sorted(lamps[-1].actions))
    start = PANEL_BUTTONS.index(lit[0][0])
    assert lit == [[PANEL_BUTTONS[(start + i) % len(PANEL_BUTTONS)]] for i in range(len(PANEL_BUTTONS))]
    assert "Lamp lit now:" in " ".join(rig.cab.snapshot(1).maintenance.lines)
    eff = rig.press("menu_back")
    assert SetLamps(1, frozenset({"menu_up", "menu_down", "menu_select", "menu_back"})) in eff


def test_missing_buttons_audit_lists_buttons_not_pressed_in_the_last_games():
    """A button not pressed in the last 100 games is listed; one pressed in
    play drops off the list (the game of its last press is journaled in the state)."""
    rig = Rig()
    rig.cab.s.round_id = MISSING_AFTER_GAMES + 5
    assert missing_buttons(rig.cab.s) == list(PANEL_BUTTONS)
    rig.note(2000)
    rig.press("bet_up")  # pressed in play: recorded
    assert rig.cab.s.button_rounds["bet_up"] == MISSING_AFTER_GAMES + 5
    assert "bet_up" not in missing_buttons(rig.cab.s)
    _open(rig, "diag_buttons")
    lines = rig.cab.snapshot(1).maintenance.lines
    audit = next(ln for ln in lines if ln.startswith("Not pressed in the last"))
    assert "Deal" in audit and "Bet +" not in audit and "Cash Out" in audit
    assert rig.cab.s.button_rounds.get("menu_down") is None  # menu presses don't count


def test_door_and_key_page_follows_the_switches_live():
    """The page shows each door and the key as they are now."""
    rig = Rig()
    _open(rig, "diag_doors")
    assert "Main door: shut (opened 0 times)" in rig.cab.snapshot(1).maintenance.lines
    rig.cab.handle(DoorChanged("main", True))
    lines = rig.cab.snapshot(2).maintenance.lines
    assert "Main door: OPEN (opened 1 time)" in lines and "Operator key: on" in lines
    assert rig.cab.s.maintenance.page == "diag_doors"


def test_tower_light_test_shows_each_state_in_turn():
    """The tower light test steps through service, tilt, handpay and off."""
    rig = Rig()
    _open(rig, "diag_tower")
    assert "Tower light now: service (amber lit)" in rig.cab.snapshot(1).maintenance.lines
    seen = ["service"]
    for _ in range(7):  # ends on "off"
        seen += [e.state for e in rig.advance(1000) if isinstance(e, SetTowerLight)]
    assert {"service", "tilt", "handpay", "off"} <= set(seen)
    eff = rig.press("menu_back")
    assert SetTowerLight("service") in eff  # the menu's own again


def test_devices_page_shows_program_id_digest_serial_settings_and_status():
    """The devices page shows the program ID, its full digest, each device's
    serial settings and its status (a fault by name)."""
    from cabinet.core.events import DeviceFaulted

    rig = Rig()
    rig.cab.program_id, rig.cab.program_digest = "blackjack-cabinet 0.1.0", "ab" * 32
    rig.cab.program_status = "verified"
    rig.cab.handle(DeviceFaulted("printer", "printer_paper_out"))
    _open(rig, "diag_devices")
    lines = rig.cab.snapshot(1).maintenance.lines
    assert "Program: blackjack-cabinet 0.1.0" in lines
    assert f"Digest (SHA-256): {'ab' * 32}" in lines
    assert "Station 1 Bill acceptor (ID-003, 9600 baud 8E1): OK" in lines
    assert "Station 1 Printer (ESC/POS, 9600 baud 8N1): Printer out of paper" in lines


def test_printer_test_ticket_is_sent_without_money_meter_or_voucher_record():
    """Select on the printer test asks the station's printer for a VOID / TEST
    ticket (``PrintTestTicket``) and journals ``test_ticket``; no voucher record, no
    meter, no print in progress, the menu stays open (attendant level suffices)."""
    import msgspec

    from cabinet.core.effects import PrintTestTicket, PrintVoucher, SaveVoucher

    rig = Rig()
    rig.note(2000)
    meters = msgspec.to_builtins(rig.meters())
    rig.cab.program_id = "blackjack-cabinet 0.1.0"
    _open(rig, "diag_printer")
    assert rig.cab.snapshot(1).maintenance.items == ["Print a test ticket"]
    eff = rig.press("menu_select")
    tickets = [e for e in eff if isinstance(e, PrintTestTicket)]
    assert len(tickets) == 1 and tickets[0].station == 1
    assert "PROGRAM blackjack-cabinet 0.1.0" in tickets[0].lines
    assert Journal("test_ticket", 1, 0, {"access": "attendant"}) in eff
    assert not any(isinstance(e, PrintVoucher | SaveVoucher) for e in eff)
    assert rig.cab.s.stations[0].printing is None and rig.cab.mode == "maintenance"
    assert msgspec.to_builtins(rig.meters()) == meters and rig.credits() == 2000
    assert any("Test ticket sent" in ln for ln in rig.cab.snapshot(2).maintenance.lines)


def test_sound_test_plays_each_sound_by_a_cue_and_screen_test_page_exists():
    """Select on the sound test sends the UI a ``sound_test`` cue naming the
    sound (the UI plays it, or says "no audio device"); the screen colour and touch test
    is a page of its own (drawn by the UI)."""
    from cabinet.core.effects import SendCue

    rig = Rig()
    _open(rig, "diag_sound")
    assert rig.cab.snapshot(1).maintenance.items == [
        "Play: card",
        "Play: chip",
        "Play: win",
        "Play: blackjack",
        "Play: big_win",
        "Play: button",
    ]
    rig.press("menu_down")
    rig.press("menu_down")
    eff = rig.press("menu_select")
    assert SendCue("sound_test", None, {"sound": "win"}) in eff
    assert "Played: win" in rig.cab.snapshot(2).maintenance.lines
    rig.press("menu_back")
    rig.press("menu_down")
    rig.press("menu_select")
    assert rig.cab.s.maintenance.page == "diag_screen"
    assert rig.cab.snapshot(3).maintenance.title == "Screen colour and touch test"


def test_devices_page_shows_the_firmware_each_device_reported():
    """The acceptor's firmware version, reported with its start-up
    (``DeviceCleared.firmware``), is on the devices page beside its serial settings."""
    from cabinet.core.events import DeviceCleared

    rig = Rig()
    rig.cab.handle(DeviceCleared("bill", 1, "ID003-SIM 1.0"))
    _open(rig, "diag_devices")
    lines = rig.cab.snapshot(1).maintenance.lines
    assert "Station 1 Bill acceptor (ID-003, 9600 baud 8E1, firmware ID003-SIM 1.0): OK" in lines
    assert "Station 1 Printer (ESC/POS, 9600 baud 8N1): OK" in lines


def test_the_missing_buttons_audit_survives_a_restart(tmp_path):
    """Each button's last game is journaled with the state: after a restart
    the audit still knows Bet + was pressed."""
    import random

    from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    path = tmp_path / "j.db"
    eng = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    eng.step(PowerUp(0, 1_800_000_000.0))
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.step(IntentReceived(1, "bet_up"))
    eng.store.close()
    eng2 = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    assert eng2.cab.s.button_rounds == {"bet_up": 0}
    eng2.cab.s.round_id = MISSING_AFTER_GAMES - 1
    assert missing_buttons(eng2.cab.s) == []  # fewer games than the window
    eng2.cab.s.round_id = MISSING_AFTER_GAMES
    assert "bet_up" in missing_buttons(eng2.cab.s)  # not pressed in the last 100


def test_printer_test_ticket_with_a_printer_fault_says_so_and_prints_nothing():
    """With the printer out of paper the page showed
    only the driver's raw status ("Printer: status 1a 32 12 72") and Select still said
    "Test ticket sent" and journaled ``test_ticket`` though nothing could print. The page
    names the fault by its code and words; Select asks for no ticket and says why."""
    from cabinet.core.effects import PrintTestTicket
    from cabinet.core.events import DeviceFaulted

    rig = Rig()
    rig.cab.handle(DeviceFaulted("printer", "printer_paper_out", "status 1a 32 12 72"))
    _open(rig, "diag_printer")
    lines = rig.cab.snapshot(1).maintenance.lines
    assert "Printer: 401 Printer out of paper (status 1a 32 12 72)" in lines
    eff = rig.press("menu_select")
    assert not any(isinstance(e, PrintTestTicket) for e in eff)
    assert not any(isinstance(e, Journal) and e.kind == "test_ticket" for e in eff)
    lines = rig.cab.snapshot(1).maintenance.lines
    assert not any("Test ticket sent" in ln for ln in lines)
    assert "Not printed: station 1's printer reports 401 Printer out of paper" in lines

"""Engine core: modes, doors, key, maintenance, faults, recovery and the self-audit."""

from __future__ import annotations

import random

import msgspec

from cabinet.core.effects import ClearJournal, Journal, PollDevices, Rejected, SetAcceptor, SetTowerLight
from cabinet.core.events import (
    DeviceCleared,
    DeviceFaulted,
    DoorChanged,
    IntentReceived,
    KeyChanged,
    PowerUp,
)
from cabinet.core.machine import Cabinet
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.modes import MODE_TABLE
from cabinet.core.settings import GameSettings
from cabinet.core.view_said import DOOR_CLOSED_NOTICE_MS

from .helpers import Rig
from .menu_helpers import rig_send, set_pin, type_pin


def _start_round(rig):
    rig.note(5000)
    rig.press("bet_up")
    rig.press("deal")
    while rig.cab.mode != "in_round":  # a natural settles at once: deal again
        rig.press("deal")


def test_every_mode_has_a_row_in_the_table():
    assert set(MODE_TABLE) >= {
        "attract",
        "betting",
        "in_round",
        "cash_out",
        "handpay",
        "tilt",
        "door_open",
        "maintenance",
    }


def test_attract_then_betting_then_in_round():
    rig = Rig()
    assert rig.cab.mode == "attract"
    rig.note(500)
    assert rig.cab.mode == "betting"
    _start_round(rig)
    assert rig.cab.mode == "in_round"


def test_door_open_mid_round_freezes_it_and_closing_resumes_the_same_round():
    rig = Rig()
    _start_round(rig)
    before = rig.cab.round.to_dict()
    eff = rig.cab.handle(DoorChanged("main", True))
    assert rig.cab.mode == "door_open"
    assert SetTowerLight("service") in eff
    assert any(isinstance(e, SetAcceptor) and not e.enabled for e in eff)
    assert isinstance(rig.press("stand")[0], Rejected)
    assert rig.cab.round.to_dict() == before
    rig.cab.handle(DoorChanged("main", False))
    assert rig.cab.mode == "in_round" and rig.cab.round.to_dict() == before
    assert rig.cab.s.door_opens == {"main": 1}
    assert rig.cab.s.door_closed_notice
    rig.play_out()
    assert not rig.cab.s.door_closed_notice  # shown until the next game ends


def test_key_enters_maintenance_only_between_rounds():
    rig = Rig()
    _start_round(rig)
    eff = rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "in_round"  # requested: after the round (10.6)
    assert Journal("maintenance_requested", 0, 0, {"after": "round"}) in eff
    rig.cab.handle(KeyChanged(False))
    rig.play_out()
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "maintenance"
    assert rig.cab.legal_actions(1) == {"menu_up", "menu_down", "menu_select", "menu_back"}
    assert isinstance(rig.press("bet_up"), list)
    assert rig.cab.s.last_button == "bet_up"  # device test shows the press
    rig.cab.handle(KeyChanged(False))
    assert rig.cab.mode == "betting"


def test_maintenance_meters_page_and_back():
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(KeyChanged(True))
    snap = rig.cab.snapshot(1)
    assert snap.maintenance.items[0] == "Meters"
    rig.press("menu_select")
    snap = rig.cab.snapshot(2)
    assert snap.maintenance.title == "Meters"
    assert any("Bills in $20.00 (1)" in line for line in snap.maintenance.lines)
    rig.press("menu_back")
    assert rig.cab.snapshot(3).maintenance.page == "main"


def _goto(rig, page_index):
    for _ in range(page_index):
        rig.press("menu_down")
    rig.press("menu_select")


def test_settings_change_is_validated_applied_and_logged():
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 5)  # Settings: the PIN first
    type_pin(rig_send(rig))
    assert rig.cab.s.maintenance.page == "settings"
    rig.press("menu_select")  # Game: classic -> classic-multi
    eff = []
    for _ in range(len(rig.cab.snapshot(1).maintenance.items) - 2):
        rig.press("menu_down")
    eff = rig.press("menu_select")  # Save settings
    assert rig.cab.rules.variant == "classic-multi"
    changed = [e for e in eff if isinstance(e, Journal) and e.kind == "settings_changed"]
    assert changed and changed[0].data["level"] == "technician"


def test_invalid_settings_are_refused_with_the_field_named():
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 5)
    type_pin(rig_send(rig))
    rig.press("menu_down")  # Stations: 1 -> 2 (classic seats one)
    rig.press("menu_select")
    for _ in range(len(rig.cab.snapshot(1).maintenance.items) - 3):
        rig.press("menu_down")
    rig.press("menu_select")
    assert rig.cab.s.maintenance.confirm == "Refused: Stations: Classic Blackjack seats one player"
    assert rig.cab.s.settings.stations == 1


def test_ram_clear_needs_confirmation_zeroes_and_forces_configuration():
    rig = Rig()
    set_pin(rig.cab.s)
    rig.note(2000)
    rig.cab.handle(KeyChanged(True))
    _goto(rig, [k for k, _ in MAIN_ITEMS].index("ram_clear"))
    type_pin(rig_send(rig))  # technician PIN and the logic door (15)
    rig.cab.handle(DoorChanged("logic", True))
    rig.press("menu_select")
    assert rig.credits() == 2000  # armed, not yet done
    eff = rig.press("menu_select")
    assert any(isinstance(e, ClearJournal) for e in eff)
    assert rig.credits() == 0 and rig.meters().bills_in_minor == 0
    rig.cab.handle(DoorChanged("logic", False))
    rig.cab.handle(KeyChanged(False))
    assert rig.cab.mode == "needs_config"
    rig.note(500)
    assert rig.cab.legal_actions(1) == frozenset()  # no play until configured
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.s.maintenance.entry.then == "settings"  # the PIN survived the clear
    type_pin(rig_send(rig))
    assert rig.cab.s.maintenance.page == "settings"
    for _ in range(len(rig.cab.snapshot(1).maintenance.items)):
        rig.press("menu_down")
    rig.press("menu_up")
    rig.press("menu_select")  # Save settings
    rig.cab.handle(KeyChanged(False))
    assert rig.cab.mode == "betting"


def test_device_fault_tilts_and_clears_when_the_device_recovers():
    rig = Rig()
    rig.note(2000)
    eff = rig.cab.handle(DeviceFaulted("bill", "bill_jam"))
    assert rig.cab.mode == "tilt" and SetTowerLight("tilt") in eff
    assert "300 Bill acceptor jam" in rig.cab.snapshot(1).overlay_text
    assert isinstance(rig.press("bet_up")[0], Rejected)
    rig.cab.handle(DeviceCleared("bill"))
    assert rig.cab.mode == "betting"


def test_self_audit_mismatch_tilts_before_the_next_round():
    rig = Rig()
    rig.note(2000)
    rig.press("bet_up")
    rig.cab.s.stations[0].credits_minor += 1  # corrupt the meter by hand
    eff = rig.press("deal")
    assert any(isinstance(e, Journal) and e.kind == "audit_mismatch" for e in eff)
    assert rig.cab.mode == "tilt" and not rig.cab.s.round_open


def test_power_up_resumes_the_round_at_the_same_decision():
    rig = Rig()
    _start_round(rig)
    state = msgspec.json.decode(msgspec.json.encode(rig.cab.s), type=type(rig.cab.s))
    cab = Cabinet(state, rig.cab.round.to_dict(), rng=random.Random(99))
    cab.handle(PowerUp(0, rig.wall_s))
    assert cab.mode == "in_round"
    assert cab.round.to_dict() == rig.cab.round.to_dict()
    assert cab.s.power_ups == 2 and cab.s.games_since_power_up == 0


def test_round_that_fails_its_check_is_voided_stakes_back():
    rig = Rig()
    _start_round(rig)
    credits_before = rig.cab.s.stations[0].credits_at_round_start_minor
    state = rig.cab.s
    cab = Cabinet(state, {"version": 1, "garbage": True})
    eff = cab.handle(PowerUp(0, rig.wall_s))
    assert any(isinstance(e, Journal) and e.kind == "round_void" for e in eff)
    st = cab.s.stations[0]
    assert st.credits_minor == credits_before
    assert st.meters.void_returned_minor == 100
    assert cab.mode == "betting" and not cab.s.round_open
    from cabinet.core.meters import audit_balance

    assert audit_balance(st.credits_minor, st.pending_out_minor, st.meters) == 0


def test_unknown_station_and_unknown_action_change_nothing():
    rig = Rig()
    rig.note(2000)
    before = msgspec.json.encode(rig.cab.s)
    assert isinstance(rig.cab.handle(IntentReceived(3, "bet_up"))[0], Rejected)
    assert isinstance(rig.cab.handle(IntentReceived(1, "jackpot"))[0], Rejected)
    assert msgspec.json.encode(rig.cab.s) == before


def test_help_is_reachable_with_zero_credits():
    rig = Rig(GameSettings(variant="american"))
    snap = rig.cab.snapshot(1)
    assert snap.mode == "attract"
    assert snap.help_lines[0] == "American Blackjack"
    assert any("Any two ten-value cards may be split" in line for line in snap.help_lines)
    assert snap.table_texts == ["BLACKJACK PAYS 3 TO 2", "DEALER MUST STAND ON ALL 17", "INSURANCE PAYS 2 TO 1"]


def test_engine_fault_is_cleared_by_the_operator_device_faults_by_the_device():
    rig = Rig()
    rig.cab.handle(DeviceFaulted("engine", "engine_fault", "KeyError: x"))
    rig.cab.handle(DeviceFaulted("bill", "bill_jam"))
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 6)  # Faults
    eff = rig.press("menu_select")
    assert any(isinstance(e, Journal) and e.kind == "faults_cleared" for e in eff)
    assert list(rig.cab.s.faults) == ["bill_jam"]


def test_the_faults_page_re_polls_the_devices():
    """Opening the Faults page and its Select ask every device to report
    its state now (``PollDevices``), so a fault outliving its cause clears when the
    device answers healthy; the page says so."""
    rig = Rig()
    rig.cab.handle(DeviceFaulted("printer", "printer_paper_out"))
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 6)  # Faults
    assert rig.cab.s.maintenance.page == "faults"
    assert PollDevices() in rig.effects
    view = rig.cab.snapshot(1).maintenance
    assert view.items == ["Re-check devices, clear engine faults"]
    assert "Printer out of paper" in " ".join(view.lines)
    eff = rig.press("menu_select")
    assert PollDevices() in eff
    assert list(rig.cab.s.faults) == ["printer_paper_out"]  # only the device clears it
    rig.cab.handle(DeviceCleared("printer"))
    assert rig.cab.s.faults == {}
    assert rig.cab.snapshot(2).maintenance.lines[0] == "No faults."


def test_device_test_page_shows_every_button_by_its_name_and_cash_out_stays():
    """On the Device test page (Diagnostics, Button and lamp
    test) the panel's buttons are shown by their player-facing names (not
    ``menu_down``) and do not navigate, Cash Out included; Cash Out twice within a
    second, the screen's BACK or the key leave, as the page says."""
    rig = Rig()
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 4)  # Diagnostics
    rig.press("menu_select")  # Button and lamp test
    assert rig.cab.s.maintenance.page == "diag_buttons"
    view = rig.cab.snapshot(1).maintenance
    assert any("Cash Out twice" in line for line in view.lines + [view.hint])
    shown = []
    for action, value in (
        ("hit", None),
        ("stand", None),
        ("deal", None),
        ("bet_up", None),
        ("bet_down", None),
        ("cash_out", None),
        ("chip", 500),
        ("place", 2),
        ("double", None),
    ):
        rig.advance(2000)
        rig.press(action, value=value)
        assert rig.cab.s.maintenance.page == "diag_buttons", action
        last = [ln for ln in rig.cab.snapshot(1).maintenance.lines if ln.startswith("Last button")]
        shown.append(last[0].removeprefix("Last button: "))
    assert shown == ["Hit", "Stand", "Deal", "Bet +", "Bet -", "Cash Out", "$5 chip", "Spot 2", "Double"]
    lines = " ".join(rig.cab.snapshot(1).maintenance.lines)
    assert "menu_" not in lines and "Pressed: Hit, Stand, Deal, Bet +, Bet -, Cash Out" in lines
    rig.advance(2000)
    rig.press("cash_out")
    rig.advance(300)
    rig.press("cash_out")  # twice within 1 s: back to the menu
    assert rig.cab.s.maintenance.page == "diagnostics"
    rig.press("menu_select")
    rig.press("menu_back")  # the screen's BACK leaves too
    assert rig.cab.s.maintenance.page == "diagnostics"
    rig.press("menu_back")
    assert rig.cab.s.maintenance.page == "main"


def test_panel_buttons_navigate_the_other_maintenance_pages():
    """The core, not the device bridge, turns panel buttons into menu
    moves (Hit/Bet- down, Bet+ up, Deal/Stand select, Cash Out back)."""
    rig = Rig()
    rig.cab.handle(KeyChanged(True))
    rig.press("hit")
    rig.press("bet_down")
    rig.press("bet_up")
    assert rig.cab.s.maintenance.selected == 1
    rig.press("deal")
    assert rig.cab.s.maintenance.page == "recall"
    rig.press("cash_out")
    assert rig.cab.s.maintenance.page == "main"
    rig.press("stand")
    assert rig.cab.s.maintenance.page == "recall"


def test_a_door_opened_while_powered_off_is_journaled_counted_and_logged():
    """The door latch's boot reading becomes a journaled
    ``door_opened_while_powered_off`` event, counts as a door opening and shows in
    the Event log; the cabinet does not lock up (the door is shut now)."""
    from cabinet.core.events import DoorOpenedWhileOff
    from cabinet.core.maintenance import event_line

    rig = Rig()
    eff = rig.cab.handle(DoorOpenedWhileOff("main"))
    assert Journal("door_opened_while_powered_off", 0, 0, {"door": "main"}) in eff
    assert rig.cab.s.door_opens == {"main": 1} and rig.cab.mode == "attract"
    line = event_line(
        {
            "wall_s": 1.8e9,
            "kind": "door_opened_while_powered_off",
            "station": 0,
            "amount_minor": 0,
            "data": {"door": "main"},
        }
    )
    assert line.endswith(" · door opened while powered off · cabinet · main door")


def test_device_test_names_the_station_of_a_press_on_a_table_of_several():
    """On a two-station table a press on station 2's
    panel showed as just "Stand"; the technician must see whose panel it came from."""
    rig = Rig(GameSettings(variant="classic-multi", stations=2))
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 4)  # Diagnostics
    rig.press("menu_select")  # Button and lamp test
    rig.advance(2000)
    rig.press("stand", station=2)
    rig.advance(2000)
    rig.press("hit", station=1)
    lines = rig.cab.snapshot(1).maintenance.lines
    assert "Pressed: Station 2 Stand, Station 1 Hit" in lines, lines


def test_the_door_closed_notice_goes_after_a_few_seconds():
    """ "Door closed" stayed the table message long after the door
    was shut (and even after a restart); it is a notice of a few seconds."""
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(DoorChanged("main", True))
    rig.cab.handle(DoorChanged("main", False))
    assert rig.cab.snapshot(1).message == "Door closed"
    rig.advance(DOOR_CLOSED_NOTICE_MS + 100)
    assert rig.cab.snapshot(1).message != "Door closed"

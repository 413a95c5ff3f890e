"""Engine core: modes, doors, key, maintenance, faults, recovery and the self-audit."""

from __future__ import annotations

import random

import msgspec

from cabinet.effects import ClearJournal, Journal, Rejected, SetAcceptor, SetTowerLight
from cabinet.events import (
    DeviceCleared,
    DeviceFaulted,
    DoorChanged,
    IntentReceived,
    KeyChanged,
    PowerUp,
)
from cabinet.machine import ACCEPTS, Cabinet
from cabinet.settings import GameSettings

from .helpers import Rig


def _start_round(rig):
    rig.note(5000)
    rig.press("bet_up")
    rig.press("deal")
    while rig.cab.mode != "in_round":          # a natural settles at once: deal again
        rig.press("deal")


def test_every_mode_has_a_row_in_the_table():
    assert set(ACCEPTS) >= {"attract", "betting", "in_round", "cash_out", "handpay", "tilt",
                            "door_open", "maintenance"}


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
    assert not rig.cab.s.door_closed_notice             # shown until the next game ends


def test_key_enters_maintenance_only_between_rounds():
    rig = Rig()
    _start_round(rig)
    eff = rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "in_round"                 # requested: after the round (10.6)
    assert Journal("maintenance_requested", 0, 0, {"after": "round"}) in eff
    rig.cab.handle(KeyChanged(False))
    rig.play_out()
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "maintenance"
    assert rig.cab.legal_actions(1) == {"menu_up", "menu_down", "menu_select", "menu_back"}
    assert isinstance(rig.press("bet_up"), list)
    assert rig.cab.s.last_button == "bet_up"           # device test shows the press
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
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 5)                                    # Settings
    assert rig.cab.s.maintenance.page == "settings"
    rig.press("menu_select")                         # Game: classic -> classic-multi
    eff = []
    for _ in range(10):
        rig.press("menu_down")
    eff = rig.press("menu_select")                   # Save settings
    assert rig.cab.rules.variant == "classic-multi"
    assert any(isinstance(e, Journal) and e.kind == "settings_changed" for e in eff)


def test_invalid_settings_are_refused_with_the_field_named():
    rig = Rig()
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 5)
    rig.press("menu_down")                           # Stations: 1 -> 2 (classic seats one)
    rig.press("menu_select")
    for _ in range(9):
        rig.press("menu_down")
    rig.press("menu_select")
    assert rig.cab.s.maintenance.confirm.startswith("Refused: stations")
    assert rig.cab.s.settings.stations == 1


def test_ram_clear_needs_confirmation_zeroes_and_forces_configuration():
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 7)                                    # RAM clear
    rig.cab.handle(DoorChanged("logic", True))       # credits on: technician level (10.2)
    rig.press("menu_select")
    assert rig.credits() == 2000                     # armed, not yet done
    eff = rig.press("menu_select")
    assert any(isinstance(e, ClearJournal) for e in eff)
    assert rig.credits() == 0 and rig.meters().bills_in_minor == 0
    rig.cab.handle(DoorChanged("logic", False))
    rig.cab.handle(KeyChanged(False))
    assert rig.cab.mode == "needs_config"
    rig.note(500)
    assert rig.cab.legal_actions(1) == frozenset()   # no play until configured
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.s.maintenance.page == "settings"
    for _ in range(11):
        rig.press("menu_down")
    rig.press("menu_up")
    rig.press("menu_select")                         # Save settings
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
    rig.cab.s.stations[0].credits_minor += 1          # corrupt the meter by hand
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
    from cabinet.meters import audit_balance
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
    assert snap.table_texts == ["BLACKJACK PAYS 3 TO 2", "DEALER MUST STAND ON ALL 17",
                                "INSURANCE PAYS 2 TO 1"]


def test_engine_fault_is_cleared_by_the_operator_device_faults_by_the_device():
    rig = Rig()
    rig.cab.handle(DeviceFaulted("engine", "engine_fault", "KeyError: x"))
    rig.cab.handle(DeviceFaulted("bill", "bill_jam"))
    rig.cab.handle(KeyChanged(True))
    _goto(rig, 6)                                     # Faults
    eff = rig.press("menu_select")
    assert any(isinstance(e, Journal) and e.kind == "faults_cleared" for e in eff)
    assert list(rig.cab.s.faults) == ["bill_jam"]

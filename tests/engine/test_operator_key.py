"""The operator key turned while the cabinet is busy."""

from __future__ import annotations

from cabinet.core.effects import Journal, Rejected
from cabinet.core.events import IntentReceived, KeyChanged, PrintFinished

from .helpers import Rig


def _start_round(rig):
    rig.note(5000)
    rig.press("bet_up")
    rig.press("deal")
    while rig.cab.mode != "in_round":  # a natural settles at once: deal again
        rig.press("deal")


def _journal_kinds(effects):
    return [e.kind for e in effects if isinstance(e, Journal)]


def test_key_mid_round_is_shown_and_opens_the_menu_when_the_round_ends():
    """The key on mid-round says "Maintenance after this round" on the table
    and the menu opens as the round ends, the key still on."""
    rig = Rig()
    _start_round(rig)
    eff = rig.cab.handle(KeyChanged(True))
    assert not any(isinstance(e, Rejected) for e in eff)
    assert "maintenance_requested" in _journal_kinds(eff)
    assert rig.cab.mode == "in_round"
    snap = rig.cab.snapshot(1)
    assert snap.mode == "in_round" and "Maintenance after this round" in snap.message
    rig.play_out()
    assert rig.cab.mode == "maintenance"
    assert "maintenance_enter" in _journal_kinds(rig.effects)
    assert rig.cab.s.maintenance.page == "main" and rig.balanced()
    rig.cab.handle(KeyChanged(False))
    assert rig.cab.mode == "betting"


def test_key_turned_back_off_before_the_round_ends_keeps_the_cabinet_in_play():
    """The request lasts only while the key is on."""
    rig = Rig()
    _start_round(rig)
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    assert "Maintenance" not in rig.cab.snapshot(1).message
    rig.play_out()
    assert rig.cab.mode == "betting"


def test_key_left_on_after_a_handpay_reset_opens_the_menu():
    """The key turn resets the handpay; the key left on then opens the menu."""
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(IntentReceived(1, "cash_out"))
    vn = rig.cab.s.stations[0].printing.validation_number
    rig.cab.handle(PrintFinished(1, vn, "failed"))
    assert rig.cab.mode == "handpay"
    eff = rig.cab.handle(KeyChanged(True))
    assert _journal_kinds(eff)[:2] == ["handpay_reset", "maintenance_enter"]
    assert rig.cab.mode == "maintenance" and rig.meters().handpay_minor == 2000


def test_key_during_a_ticket_print_opens_the_menu_once_the_ticket_is_out():
    """A key turned while a voucher prints waits for the print, then opens."""
    rig = Rig()
    rig.note(2000)
    rig.press("cash_out")
    vn = rig.cab.s.stations[0].printing.validation_number
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "cash_out"
    assert rig.cab.snapshot(1).overlay_text == "Printing ticket for $20.00 · Maintenance after this ticket"
    rig.cab.handle(PrintFinished(1, vn, "done"))
    assert rig.cab.mode == "maintenance" and rig.meters().vouchers_out_minor == 2000


def test_key_off_cancelling_a_requested_menu_is_logged():
    """The key turned back off before the round ended left
    "maintenance_requested" in the Event log with nothing saying it was withdrawn."""
    rig = Rig()
    _start_round(rig)
    rig.cab.handle(KeyChanged(True))
    eff = rig.cab.handle(KeyChanged(False))
    assert Journal("maintenance_request_cancelled", 0, 0, {"after": "round"}) in eff
    rig.play_out()
    eff = rig.cab.handle(KeyChanged(False))  # a position report: nothing new
    assert "maintenance_request_cancelled" not in _journal_kinds(eff)


def test_key_off_with_unsaved_settings_logs_what_was_discarded():
    """Settings changed but not saved were dropped silently when the
    key went off; the Event log now names them (the values in force are unchanged)."""
    from .test_settings_per_game import _open_settings, _set

    rig = Rig()
    _open_settings(rig)
    _set(rig, "min_bet_minor", 500)
    before = rig.cab.s.settings.min_bet_minor
    eff = rig.cab.handle(KeyChanged(False))
    assert Journal("settings_discarded", 0, 0, {"keys": ["min_bet_minor"], "why": "key turned off"}) in eff
    assert rig.cab.s.settings.min_bet_minor == before
    assert _journal_kinds(eff)[-1] == "maintenance_exit"


def test_the_event_log_says_what_the_key_off_discarded():
    from cabinet.core.maintenance.event_log import event_line

    row = {
        "wall_s": 1.8e9,
        "kind": "settings_discarded",
        "station": 0,
        "amount_minor": 0,
        "data": {"keys": ["min_bet_minor", "volume"], "why": "key turned off"},
    }
    assert event_line(row).endswith("settings discarded · cabinet · not saved: min_bet_minor, volume (key turned off)")
    row = {**row, "kind": "maintenance_request_cancelled", "data": {"after": "round"}}
    assert event_line(row).endswith("cabinet · key off before the round ended")

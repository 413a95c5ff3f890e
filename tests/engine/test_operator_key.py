"""The operator key turned while the cabinet is busy (issue 10.6)."""

from __future__ import annotations

from cabinet.core.effects import Journal, Rejected
from cabinet.core.events import IntentReceived, KeyChanged, PrintFinished

from .helpers import Rig


def _start_round(rig):
    rig.note(5000)
    rig.press("bet_up")
    rig.press("deal")
    while rig.cab.mode != "in_round":          # a natural settles at once: deal again
        rig.press("deal")


def _journal_kinds(effects):
    return [e.kind for e in effects if isinstance(e, Journal)]


def test_key_mid_round_is_shown_and_opens_the_menu_when_the_round_ends():
    """Issue 10.6: the key on mid-round says "Maintenance after this round" on the table
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
    """Issue 10.6: the request lasts only while the key is on."""
    rig = Rig()
    _start_round(rig)
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    assert "Maintenance" not in rig.cab.snapshot(1).message
    rig.play_out()
    assert rig.cab.mode == "betting"


def test_key_left_on_after_a_handpay_reset_opens_the_menu():
    """Issue 10.6: the key turn resets the handpay; the key left on then opens the menu."""
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(IntentReceived(1, "cash_out"))
    vn = rig.cab.s.printing.validation_number
    rig.cab.handle(PrintFinished(1, vn, "failed"))
    assert rig.cab.mode == "handpay"
    eff = rig.cab.handle(KeyChanged(True))
    assert _journal_kinds(eff)[:2] == ["handpay_reset", "maintenance_enter"]
    assert rig.cab.mode == "maintenance" and rig.meters().handpay_minor == 2000


def test_key_during_a_ticket_print_opens_the_menu_once_the_ticket_is_out():
    """Issue 10.6: a key turned while a voucher prints waits for the print, then opens."""
    rig = Rig()
    rig.note(2000)
    rig.press("cash_out")
    vn = rig.cab.s.printing.validation_number
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "cash_out"
    assert rig.cab.snapshot(1).overlay_text == "Printing ticket for $20.00 · " \
        "Maintenance after this ticket"
    rig.cab.handle(PrintFinished(1, vn, "done"))
    assert rig.cab.mode == "maintenance" and rig.meters().vouchers_out_minor == 2000

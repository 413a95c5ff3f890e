"""The operator's typed entries and what the menu confirms after an operator act.

A setting's entry opens with its value shown; the first character typed replaces it
(the value is not appended to), Delete edits it. An entry at its maximum length refuses
a further character and says the maximum. A refused value names the row's label. A
handpay reset, a RAM clear and a printer test ticket each say that they were done.
"""

from __future__ import annotations

import random

from cabinet.core.events import DoorChanged, IntentReceived, KeyChanged, PowerUp, PrintFinished, Tick
from cabinet.core.machine import new_state
from cabinet.core.maintenance import MAIN_ITEMS, SETTING_CHOICES
from cabinet.core.maintenance.entry import DELETE, DIGITS, ENTER, entry_items
from cabinet.core.maintenance.pin import PIN_MAX
from cabinet.core.settings import GameSettings
from cabinet.core.state import HandpayState
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .helpers import Rig
from .menu_helpers import eng_send, rig_send, set_pin, type_pin

KEYS = [k for k, _ in MAIN_ITEMS]
ROWS = {k: i for i, (k, _, _) in enumerate(SETTING_CHOICES)}
WALL = 1_800_000_000.0


def _settings(rig):
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    rig.press("menu_pick", value=KEYS.index("settings"))
    type_pin(rig_send(rig))
    assert rig.cab.s.maintenance.page == "settings"


def _touch(rig, chars):
    items = entry_items(rig.cab.s.maintenance.entry)
    for c in chars:
        rig.press("menu_pick", value=items.index(c))


def _item(rig, key):
    return rig.cab.snapshot(1).maintenance.items[ROWS[key]]


def test_typing_on_a_prefilled_setting_replaces_its_value():
    """Voucher expiry shows 30; typing 45 and Enter saves 45 days (not 3045)."""
    rig = Rig()
    _settings(rig)
    rig.press("menu_pick", value=ROWS["voucher_expiry_days"])
    e = rig.cab.s.maintenance.entry
    assert e is not None and e.text == "30"  # the value shown
    assert "> 30_" in rig.cab.snapshot(1).maintenance.lines
    _touch(rig, "45")
    assert rig.cab.s.maintenance.entry.text == "45"
    _touch(rig, [ENTER])
    assert rig.cab.s.maintenance.entry is None
    assert rig.cab.s.maintenance.draft["voucher_expiry_days"] == 45
    assert _item(rig, "voucher_expiry_days") == "Voucher expiry (days): 45"


def test_delete_edits_the_prefilled_value_and_typing_then_appends():
    """Delete first: the shown value is edited (30 -> 3), typing goes on from there (365)."""
    rig = Rig()
    _settings(rig)
    rig.press("menu_pick", value=ROWS["voucher_expiry_days"])
    _touch(rig, [DELETE])
    assert rig.cab.s.maintenance.entry.text == "3"
    _touch(rig, "65")
    _touch(rig, [ENTER])
    assert rig.cab.s.maintenance.draft["voucher_expiry_days"] == 365


def test_a_refused_value_names_the_rows_label_and_what_was_typed():
    """5000 typed over 30 is refused as 5000 (not "305000"), under the row's label."""
    rig = Rig()
    _settings(rig)
    rig.press("menu_pick", value=ROWS["voucher_expiry_days"])
    _touch(rig, "5000")
    _touch(rig, [ENTER])
    e = rig.cab.s.maintenance.entry
    assert e is not None, "5000 days must be refused"
    assert e.message.startswith("Refused: Voucher expiry (days): "), e.message
    assert "voucher_expiry_days" not in e.message and "got 5000" in e.message, e.message
    assert "305000" not in e.message


def test_a_ninth_pin_digit_is_refused_and_the_maximum_said():
    """The PIN keypad takes at most ``PIN_MAX`` (8) digits; a 9th is refused, and the page
    says so, instead of being dropped without a word."""
    rig = Rig()
    rig.cab.handle(KeyChanged(True))
    rig.press("menu_pick", value=KEYS.index("pin_change"))
    send = rig_send(rig)
    type_pin(send, "0000")  # the factory PIN: a new one is asked
    assert rig.cab.s.maintenance.entry.kind == "pin_new"
    for d in "12345678":
        send("menu_pick", DIGITS.index(d))
    assert rig.cab.secret == "12345678"
    send("menu_pick", DIGITS.index("9"))
    assert rig.cab.secret == "12345678"
    lines = rig.cab.snapshot(1).maintenance.lines
    assert f"A PIN has at most {PIN_MAX} digits: 9 not taken" in lines, lines
    assert PIN_MAX == 8


def test_a_setting_at_its_maximum_length_says_the_maximum():
    """A number entry at its longest (6 digits) refuses a 7th and says so."""
    rig = Rig()
    _settings(rig)
    rig.press("menu_pick", value=ROWS["voucher_expiry_days"])
    _touch(rig, "123456")
    _touch(rig, "7")
    e = rig.cab.s.maintenance.entry
    assert e.text == "123456" and e.message == "At most 6 characters: 7 not taken", e.message


def test_a_handpay_reset_by_the_key_is_confirmed_on_the_menu():
    """The key turned on a handpay resets it; the menu it opens says which handpay was
    reset (amount and station), and the Handpay history keeps it."""
    rig = Rig()
    rig.note(2000)
    rig.cab.handle(IntentReceived(1, "cash_out"))
    vn = rig.cab.s.stations[0].printing.validation_number
    rig.cab.handle(PrintFinished(1, vn, "failed"))
    assert rig.cab.mode == "handpay"
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "maintenance"
    lines = rig.cab.snapshot(1).maintenance.lines
    assert "Handpay reset: $20.00 at station 1, paid by the attendant" in lines, lines
    rig.press("menu_down")  # the confirmation goes with the next move
    assert not any(ln.startswith("Handpay reset") for ln in rig.cab.snapshot(1).maintenance.lines)


def test_a_handpay_reset_with_another_waiting_is_confirmed_on_the_next_handpay():
    """Two handpays: the key resets the first; the second's screen says the first was
    reset, so the attendant sees the key did something."""
    rig = Rig(GameSettings(stations=2, variant="classic-multi"))
    s = rig.cab.s
    for n in (1, 2):  # two jackpots of one round, as the core queues them
        s.stations[n - 1].pending_out_minor = 2000 * n
    s.handpay = HandpayState(station=1, amount_minor=2000, reason="jackpot", kind="jackpot")
    s.handpay_queue = [HandpayState(station=2, amount_minor=4000, reason="jackpot", kind="jackpot")]
    rig.cab.handle(Tick(10, WALL))
    assert rig.cab.mode == "handpay" and len(rig.cab.s.handpay_queue) == 1
    rig.cab.handle(KeyChanged(True))
    snap = rig.cab.snapshot(1)
    assert snap.mode == "handpay" and snap.handpay.station == 2
    assert "Handpay reset: $20.00 at station 1, paid by the attendant" in snap.overlay_text
    assert [p.text for p in snap.handpay.reset_said] == [
        "Handpay reset: {amount_minor} at station {n}, paid by the attendant"
    ]
    rig.cab.handle(KeyChanged(False))
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.mode == "maintenance"
    assert "Handpay reset: $40.00 at station 2, paid by the attendant" in rig.cab.snapshot(1).maintenance.lines


def test_a_ram_clear_says_it_was_done_and_what_resumes_play(tmp_path):
    """After the RAM clear the Settings page opens saying the clear was done and that
    saving the settings resumes play."""
    store = Store(tmp_path / "j.db")
    store.commit(set_pin(new_state(GameSettings())), None, [], WALL)
    eng = Engine(store, rng=random.Random(7), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    eng.step(DoorChanged("main", True))
    eng.step(KeyChanged(True))
    send = eng_send(eng)
    send("menu_pick", KEYS.index("ram_clear"))
    type_pin(send)
    send("menu_select")
    send("menu_select")
    m = eng.snapshot.maintenance
    assert m.page == "settings"
    assert "RAM cleared: credits, meters and history erased. Save the settings to resume play." in m.lines, m.lines
    eng.store.close()

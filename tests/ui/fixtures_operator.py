"""Fixture snapshots of the storage tilt, the handpay and menu confirmations and the typed
entries' messages, made by the cabinet core itself (as ``tests.ui.fixtures_pages``), so
the goldens show what the engine really sends."""

from __future__ import annotations

import random

from cabinet.core.context import NoHistory
from cabinet.core.events import DoorChanged, IntentReceived, KeyChanged, PowerUp
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.maintenance import MAIN_ITEMS, SETTING_CHOICES
from cabinet.core.maintenance.entry import DIGITS, ENTER, entry_items
from cabinet.core.settings import GameSettings
from cabinet.core.shell_inputs import event_query, read_history
from cabinet.core.state import HandpayState
from cabinet.protocol.snapshot import Snapshot
from tests.engine.menu_helpers import set_pin, type_pin

WALL = 1_800_000_000.0  # 2027-01-15 08:00 UTC
KEYS = [k for k, _ in MAIN_ITEMS]
ROWS = {k: i for i, (k, _, _) in enumerate(SETTING_CHOICES)}


def _cabinet(settings: GameSettings | None = None) -> Cabinet:
    cab = Cabinet(new_state(settings), rng=random.Random(1))
    cab.program_id = "blackjack-cabinet 0.1.0"
    cab.program_digest = "3f2a9c01" * 8
    cab.handle(PowerUp(0, WALL))
    return cab


def _send(cab: Cabinet):
    def send(action: str, value: int | None = None) -> object:
        ev = IntentReceived(1, action, value)
        query = event_query(cab, ev)  # handed in as the shell does, from an empty journal
        if query is not None:
            cab.handle(read_history(NoHistory(), query))
        return cab.handle(ev)

    return send


def _snap(cab: Cabinet, seq: int) -> Snapshot:
    snap = cab.snapshot(seq)
    assert isinstance(snap, Snapshot)
    return snap


def storage_tilt() -> Snapshot:
    """A storage tilt on the classic table with $110.50 on the credit meter (a 3:2 win's
    half credit): nothing lit, the player's words."""
    cab = _cabinet()
    cab.s.stations[0].credits_minor = 11_050
    cab.s.faults = {"storage_failure": "journal commit failed: database or disk is full"}
    return _snap(cab, 400)


def _two_handpays() -> Cabinet:
    cab = _cabinet(GameSettings(stations=2, variant="classic-multi"))
    s = cab.s
    for n in (1, 2):
        s.stations[n - 1].pending_out_minor = 2000 * n
        s.stations[n - 1].credits_minor = 1500 * n
    s.handpay = HandpayState(station=1, amount_minor=2000, reason="print failed", validation_number="")
    s.handpay_queue = [HandpayState(station=2, amount_minor=4000, reason="print failed")]
    cab.handle(KeyChanged(True))  # the first is reset; the second is shown
    return cab


def handpay_after_reset() -> Snapshot:
    return _snap(_two_handpays(), 401)


def menu_after_handpay_reset() -> Snapshot:
    cab = _two_handpays()
    cab.handle(KeyChanged(False))
    cab.handle(KeyChanged(True))  # the last is reset: the menu opens and says so
    return _snap(cab, 402)


def _settings_entry(key: str) -> Cabinet:
    cab = _cabinet()
    set_pin(cab.s)
    cab.handle(KeyChanged(True))
    send = _send(cab)
    send("menu_pick", KEYS.index("settings"))
    type_pin(send)
    send("menu_pick", ROWS[key])
    return cab


def setting_entry_shown() -> Snapshot:
    """Voucher expiry's entry as it opens: 30 shown, typing replaces it."""
    return _snap(_settings_entry("voucher_expiry_days"), 403)


def setting_refused() -> Snapshot:
    """5000 typed over 30 and entered: refused under the row's label."""
    cab = _settings_entry("voucher_expiry_days")
    items = entry_items(cab.s.maintenance.entry)  # type: ignore[union-attr]
    send = _send(cab)
    for c in "5000":
        send("menu_pick", items.index(c))
    send("menu_pick", items.index(ENTER))
    return _snap(cab, 404)


def pin_too_long() -> Snapshot:
    """A new PIN of 8 digits and a 9th typed: refused, the maximum said."""
    cab = _cabinet()
    cab.handle(KeyChanged(True))
    send = _send(cab)
    send("menu_pick", KEYS.index("pin_change"))
    type_pin(send, "0000")
    for d in "123456789":
        send("menu_pick", DIGITS.index(d))
    return _snap(cab, 405)


def ram_cleared() -> Snapshot:
    """Right after a RAM clear: the Settings page says it was done and what resumes play."""
    cab = _cabinet()
    set_pin(cab.s)
    cab.handle(DoorChanged("main", True))
    cab.handle(KeyChanged(True))
    send = _send(cab)
    send("menu_pick", KEYS.index("ram_clear"))
    type_pin(send)
    send("menu_select")
    send("menu_select")
    return _snap(cab, 406)


def operator_cases() -> list[tuple[str, Snapshot, str]]:
    """``[(case name, snapshot, language)]``."""
    tilt, handpay = storage_tilt(), handpay_after_reset()
    return [
        ("overlay_tilt_storage", tilt, "en"),
        ("es_overlay_tilt_storage", tilt, "es"),
        ("overlay_handpay_reset", handpay, "en"),
        ("es_overlay_handpay_reset", handpay, "es"),
        ("maintenance_handpay_reset", menu_after_handpay_reset(), "en"),
        ("maintenance_setting_entry_shown", setting_entry_shown(), "en"),
        ("maintenance_setting_refused", setting_refused(), "en"),
        ("maintenance_pin_too_long", pin_too_long(), "en"),
        ("maintenance_ram_cleared", ram_cleared(), "en"),
    ]

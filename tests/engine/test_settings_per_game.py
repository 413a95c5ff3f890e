"""Settings: values in force, limits per game, old journals."""

from __future__ import annotations

import json

import msgspec

from cabinet.core.events import KeyChanged
from cabinet.core.maintenance import MAIN_ITEMS, SETTING_CHOICES
from cabinet.core.settings import MENU_ENTRY, GameLimits
from cabinet.core.state import CabinetState
from cabinet.game import preset

from .helpers import Rig
from .menu_helpers import rig_send, set_pin, type_pin, type_text

SETTINGS = [k for k, _ in MAIN_ITEMS].index("settings")
ROW = {key: i for i, (key, _, _) in enumerate(SETTING_CHOICES)}
SAVE = len(SETTING_CHOICES)


def _open_settings(rig):
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    for _ in range(SETTINGS):
        rig.press("menu_down")
    rig.press("menu_select")
    type_pin(rig_send(rig))  # the technician's page
    assert rig.cab.s.maintenance.page == "settings"


def _go(rig, row):
    m = rig.cab.s.maintenance
    while m.selected < row:
        rig.press("menu_down")
    while m.selected > row:
        rig.press("menu_up")


def _set(rig, key, value):
    """Cycle setting ``key`` until the draft holds ``value`` (a typed row: type it)."""
    _go(rig, ROW[key])
    if key in MENU_ENTRY:
        rig.press("menu_select")
        text = None if value is None else f"{value // 100}.{value % 100:02d}" if key.endswith("_minor") else str(value)
        type_text(rig.cab, rig_send(rig), text)
        assert rig.cab.s.maintenance.entry is None, rig.cab.s.maintenance.entry
        assert rig.cab.s.maintenance.draft.get(key, getattr(rig.cab.s.settings, key)) == value
        return
    for _ in range(12):
        if rig.cab.s.maintenance.draft.get(key, getattr(rig.cab.s.settings, key)) == value:
            return
        rig.press("menu_select")
    raise AssertionError(f"{key} never reached {value!r}")


def _save(rig):
    _go(rig, SAVE)
    rig.press("menu_select")
    assert rig.cab.s.maintenance.confirm == "Saved", rig.cab.s.maintenance.confirm


def _item(rig, label):
    items = rig.cab.snapshot(1).maintenance.items
    return next(i for i in items if i.startswith(label + ":"))


def test_defaults_show_the_value_in_force_for_the_game_chosen():
    """ "Minimum bet: default" becomes the value the game uses, and follows
    the Game shown in the draft."""
    rig = Rig()
    _open_settings(rig)
    assert _item(rig, "Minimum bet") == "Minimum bet: $1.00 (default)"
    assert _item(rig, "Maximum bet") == "Maximum bet: $100.00 (default)"
    assert _item(rig, "Spots per station") == "Spots per station: 1 (default)"
    assert _item(rig, "Cut card") == "Cut card: shuffle every round (default)"
    _set(rig, "stations", 2)  # classic seats one: the draft does not validate
    assert _item(rig, "Minimum bet") == "Minimum bet: $1.00 (default)"
    _set(rig, "variant", "american")
    assert _item(rig, "Maximum bet") == "Maximum bet: $500.00 (default)"
    assert _item(rig, "Spots per station") == "Spots per station: 3 (default)"


def test_limits_set_for_one_game_stay_with_that_game():
    """A minimum set for classic does not carry into american; each game
    keeps its own limits (defaulting to its RULES.md values) and gets them back."""
    rig = Rig()
    _open_settings(rig)
    _set(rig, "min_bet_minor", 500)
    _set(rig, "max_bet_minor", 5_000)
    _save(rig)
    assert (rig.cab.rules.min_bet_minor, rig.cab.rules.max_bet_minor) == (500, 5_000)
    _set(rig, "variant", "american")
    assert _item(rig, "Minimum bet") == "Minimum bet: $1.00 (default)"
    _save(rig)
    american = preset("american")
    assert rig.cab.rules.variant == "american"
    assert (rig.cab.rules.min_bet_minor, rig.cab.rules.max_bet_minor) == (
        american.min_bet_minor,
        american.max_bet_minor,
    )
    _set(rig, "max_bet_minor", 25_000)
    _save(rig)
    _set(rig, "variant", "classic")
    assert _item(rig, "Minimum bet") == "Minimum bet: $5.00"
    _save(rig)
    assert (rig.cab.rules.min_bet_minor, rig.cab.rules.max_bet_minor) == (500, 5_000)
    assert rig.cab.s.settings.limits("american") == GameLimits(max_bet_minor=25_000)


def test_an_old_journal_settings_shape_still_loads():
    """A journal written before per-game limits (flat limits, no
    ``game_limits``) loads with its values, which belong to its game."""
    old = {
        "variant": "classic",
        "stations": 1,
        "spots_per_station": None,
        "min_bet_minor": 500,
        "max_bet_minor": 5_000,
        "bet_step_minor": None,
        "chip_values_minor": None,
        "penetration_percent": None,
        "bet_timer_s": None,
        "decision_timer_s": None,
        "denominations_minor": [100, 500, 1000, 2000, 5000, 10000],
        "credit_limit_minor": 300000,
        "voucher_limit_minor": 120000,
        "jackpot_limit_minor": 120000,
        "voucher_expiry_days": 30,
        "venue_name": "Demo Casino",
        "machine_number": "0001",
        "recall_depth": 10,
        "currency_symbol": "$",
    }
    blob = json.dumps({"version": 1, "settings": old, "stations": [{"station": 1}]}).encode()
    state = msgspec.json.decode(blob, type=CabinetState)
    s = state.settings
    assert (s.variant, s.min_bet_minor, s.max_bet_minor) == ("classic", 500, 5_000)
    assert s.validate().min_bet_minor == 500
    assert s.limits("classic") == GameLimits(min_bet_minor=500, max_bet_minor=5_000)
    other = s.with_variant("american")
    assert other.min_bet_minor is None and other.validate().min_bet_minor == 100
    assert other.with_variant("classic") == s


def test_cabinet_wide_rows_say_default_and_a_new_station_count_says_restart():
    """The cabinet-wide rows (voucher, jackpot and
    credit limits, expiry) never said "(default)" as the game rows do; saving a new
    station count said only "Saved", though the stations' devices are set up at start."""
    rig = Rig()
    _open_settings(rig)
    items = rig.cab.snapshot(1).maintenance.items
    assert "Voucher limit: $1,200.00 (default)" in items, items
    assert "Voucher expiry (days): 30 (default)" in items, items
    _set(rig, "voucher_limit_minor", 300_000)
    assert "Voucher limit: $3,000.00" in rig.cab.snapshot(1).maintenance.items
    _set(rig, "variant", "classic-multi")
    _set(rig, "stations", 2)
    _go(rig, SAVE)
    rig.press("menu_select")
    assert "restart" in rig.cab.s.maintenance.confirm, rig.cab.s.maintenance.confirm

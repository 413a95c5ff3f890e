"""The maintenance menu's Settings page: its rows, the draft, and Select on a row.

Owns: ``SETTING_CHOICES`` (derived from the declarations in
``cabinet.core.settings``: ``menu_choices``), how a row shows its value (the
draft's, or the game's default in force), and what Select does on the page:
step a row to its next choice, save the draft (``Cabinet.apply_settings``) or
discard it. Pure.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect
from cabinet.core.errors import ConfigError
from cabinet.core.settings import GameSettings, menu_choices
from cabinet.protocol.money import fmt_money as money
from confspec import convert

#: Choices offered for each adjustable setting (``None``: the variant's default),
#: in the page's order: ``[(field, label, [value, ...]), ...]``.
SETTING_CHOICES: list[tuple[str, str, list[Any]]] = menu_choices()
#: The rows showing money (the ``*_minor`` fields).
MONEY_SETTINGS = {key for key, _, _ in SETTING_CHOICES if key.endswith("_minor")}


def setting_items(cab: MaintenanceContext) -> list[str]:
    """The page's list: one row per setting, then Save and Discard."""
    return [f"{label}: {fmt_setting(cab, key)}" for key, label, _ in SETTING_CHOICES] + \
        ["Save settings", "Discard changes"]


def draft_value(cab: MaintenanceContext, key: str) -> Any:
    """Setting ``key`` as the draft has it (changed, or as saved)."""
    m = cab.s.maintenance
    assert m is not None
    if key in m.draft:
        return m.draft[key]
    return getattr(cab.s.settings, key)


def draft_settings(cab: MaintenanceContext) -> GameSettings:
    """The settings as the draft would save them (not validated)."""
    m = cab.s.maintenance
    assert m is not None
    if not m.draft:
        return cab.s.settings
    merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
    try:
        return msgspec.convert(merged, GameSettings)
    except msgspec.ValidationError:
        return cab.s.settings


def in_force(cab: MaintenanceContext, key: str) -> str:
    """The value a ``None`` (default) setting has in the draft game (issue 10.9)."""
    r = draft_settings(cab).rules_or_preset()
    sym = cab.s.settings.currency_symbol
    if key == "spots_per_station":
        return str(r.max_spots_per_seat)
    if key == "min_bet_minor":
        return money(r.min_bet_minor, sym)
    if key == "max_bet_minor":
        return money(r.max_bet_minor, sym)
    if key == "penetration_percent":
        return "shuffle every round" if r.shuffle_every_round else f"{r.penetration_percent} %"
    return "game default"


#: The factory value of every operator setting (``GameSettings``' field defaults).
_FACTORY = {f.name: f.default for f in msgspec.structs.fields(GameSettings)}


def fmt_setting(cab: MaintenanceContext, key: str) -> str:
    """Setting ``key``'s draft value as its row shows it: ``"$5.00 (default)"``..."""
    v = draft_value(cab, key)
    if v is None:
        return f"{in_force(cab, key)} (default)"
    if key in MONEY_SETTINGS:
        text = money(v, cab.s.settings.currency_symbol)
    elif key == "penetration_percent":
        text = f"{v} %"
    else:
        text = str(v)
    return f"{text} (default)" if key != "variant" and v == _FACTORY.get(key) else text


def select(cab: MaintenanceContext, out: list[Effect]) -> None:
    """Select on the Settings page: step the row, save or discard the draft."""
    m = cab.s.maintenance
    assert m is not None
    n = len(SETTING_CHOICES)
    if m.selected < n:
        key, _, choices = SETTING_CHOICES[m.selected]
        cur = draft_value(cab, key)
        nxt = choices[(choices.index(cur) + 1) % len(choices)] if cur in choices else choices[0]
        if key == "variant":
            # issue 10.9: each game has its own limits; switching swaps them
            game = draft_settings(cab).with_variant(nxt)
            new = msgspec.to_builtins(game)
            old = msgspec.to_builtins(cab.s.settings)
            m.draft = {k: v for k, v in new.items() if old.get(k) != v}
        else:
            m.draft = {**m.draft, key: nxt}
        m.confirm = ""
    elif m.selected == n:
        merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
        try:
            settings = convert(merged, GameSettings)
        except ConfigError as e:
            m.confirm = f"Refused: {e}"
            return
        stations_before = cab.s.settings.stations
        err = cab.apply_settings(settings, out)
        m.confirm = f"Refused: {err}" if err else "Saved" if \
            settings.stations == stations_before else \
            "Saved: restart the cabinet to set up the new stations' devices"
        if not err:
            m.draft = {}
    else:
        m.draft = {}
        m.confirm = "Changes discarded"

"""The maintenance menu's Settings page: its rows, the draft, and Select on a row.

Owns: ``SETTING_CHOICES`` (derived from the declarations in
``cabinet.core.settings``: ``menu_choices``), how a row shows its value (the
draft's, or the game's default in force), and what Select does on the page:
step a row to its next choice or open its typed entry (``entry``),
save the draft (``Cabinet.apply_settings``; a change of the money rules,
``MONEY_RULE_SETTINGS``, only with no credits on the cabinet) or discard it. Pure.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect, Journal
from cabinet.core.errors import ConfigError, present
from cabinet.core.maintenance.entry import start_text
from cabinet.core.settings import (
    MENU_ENTRY,
    MENU_SETTINGS,
    MONEY_RULE_SETTINGS,
    GameSettings,
    menu_choices,
)
from cabinet.core.state import EntryState
from cabinet.protocol.money import fmt_money as money
from confspec import convert

#: Choices offered for each adjustable setting (``None``: the variant's default),
#: in the page's order: ``[(field, label, [value, ...]), ...]``.
SETTING_CHOICES: list[tuple[str, str, list[Any]]] = menu_choices()
#: The rows showing money (the ``*_minor`` fields).
MONEY_SETTINGS = {key for key, _, _ in SETTING_CHOICES if key.endswith("_minor")}


def setting_items(cab: MaintenanceContext) -> list[str]:
    """The page's list: one row per setting, then Save and Discard."""
    return [f"{label}: {fmt_setting(cab, key)}" for key, label, _ in SETTING_CHOICES] + [
        "Save settings",
        "Discard changes",
    ]


def draft_value(cab: MaintenanceContext, key: str) -> Any:
    """Setting ``key`` as the draft has it (changed, or as saved)."""
    m = present(cab.s.maintenance, "the operator menu")
    if key in m.draft:
        return m.draft[key]
    return getattr(cab.s.settings, key)


def draft_settings(cab: MaintenanceContext) -> GameSettings:
    """The settings as the draft would save them (not validated)."""
    m = present(cab.s.maintenance, "the operator menu")
    if not m.draft:
        return cab.s.settings
    merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
    try:
        return msgspec.convert(merged, GameSettings)
    except msgspec.ValidationError:
        return cab.s.settings


def in_force(cab: MaintenanceContext, key: str) -> str:
    """The value a ``None`` (default) setting has in the draft game."""
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
    if key == "bet_step_minor":
        return money(r.bet_step_minor, sym)
    if key == "chip_values_minor":
        return ", ".join(money(c, sym).removesuffix(".00") for c in r.chip_values_minor) or "none"
    if key in ("bet_timer_s", "decision_timer_s"):
        return f"{getattr(r, key)} s"
    return "game default"


#: The factory value of every operator setting (``GameSettings``' field defaults).
_FACTORY = {f.name: f.default for f in msgspec.structs.fields(GameSettings)}


def fmt_setting(cab: MaintenanceContext, key: str) -> str:
    """Setting ``key``'s draft value as its row shows it: ``"$5.00 (default)"``...; the
    decision timer says when the draft game has one station, where no decision timer
    runs (RULES.md "Decision": a single-seat table has none)."""
    text = _fmt_value(cab, key)
    if key == "decision_timer_s" and draft_settings(cab).stations == 1:
        return f"{text}, unused: one station"
    return text


def _fmt_value(cab: MaintenanceContext, key: str) -> str:
    v = draft_value(cab, key)
    if v is None:
        return f"{in_force(cab, key)} (default)"
    sym = cab.s.settings.currency_symbol
    if key in MONEY_SETTINGS and isinstance(v, list | tuple):
        text = ", ".join(money(int(x), sym).removesuffix(".00") for x in v)
    elif key in MONEY_SETTINGS:
        text = money(v, sym)
    elif isinstance(v, bool):
        text = "on" if v else "off"
    elif v == "":
        text = "(none)"
    elif key == "penetration_percent":
        text = f"{v} %"
    else:
        text = str(v)
    factory = _FACTORY.get(key)
    same = list(v) == list(factory) if isinstance(factory, tuple) and isinstance(v, list | tuple) else v == factory
    return f"{text} (default)" if key != "variant" and same else text


def select(cab: MaintenanceContext, out: list[Effect]) -> None:
    """Select on the Settings page: step the row, save or discard the draft."""
    m = present(cab.s.maintenance, "the operator menu")
    n = len(SETTING_CHOICES)
    if m.selected < n:
        key, _, choices = SETTING_CHOICES[m.selected]
        cur = draft_value(cab, key)
        if key in MENU_ENTRY:  # typed with the buttons or by touch
            text = start_text(key, cur)
            m.entry = EntryState(kind="setting", key=key, row=m.selected, text=text, shown=bool(text))
            m.selected = 0
            return
        nxt = choices[(choices.index(cur) + 1) % len(choices)] if cur in choices else choices[0]
        if key == "variant":
            # Each game has its own limits; switching swaps them
            game = draft_settings(cab).with_variant(nxt)
            new = msgspec.to_builtins(game)
            old = msgspec.to_builtins(cab.s.settings)
            m.draft = {k: v for k, v in new.items() if old.get(k) != v}
        else:
            m.draft = {**m.draft, key: nxt}
        m.confirm = ""
    elif m.selected == n:
        merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
        labels = {key: label for key, label, _ in MENU_SETTINGS}
        try:
            settings = convert(merged, GameSettings)
            settings.validate()
        except ConfigError as e:  # in the menu's words: the setting's label, not its key
            m.confirm = f"Refused: {labels.get(e.key, e.key)}: {e.reason}"
            return
        old = msgspec.to_builtins(cab.s.settings)
        new = msgspec.to_builtins(settings)
        money_rules = sorted(k for k in MONEY_RULE_SETTINGS if old.get(k) != new.get(k))
        if money_rules and any(st.credits_minor or st.pending_out_minor for st in cab.s.stations):
            named = ", ".join(labels.get(k, k) for k in money_rules)
            m.confirm = f"Refused: {named}: a money rule, changed only with no credits on the cabinet"
            out.append(
                Journal(
                    "settings_refused",
                    0,
                    0,
                    {"reason": "credits on the cabinet", "keys": money_rules, "level": m.level},
                )
            )
            return
        stations_before = cab.s.settings.stations
        err = cab.apply_settings(settings, out, m.level)
        m.confirm = (
            f"Refused: {err}"
            if err
            else "Saved"
            if settings.stations == stations_before
            else "Saved: restart the cabinet to set up the new stations' devices"
        )
        if not err:
            m.draft = {}
    else:
        m.draft = {}
        m.confirm = "Changes discarded"

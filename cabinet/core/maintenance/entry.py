"""Typed entry in the maintenance menu: PINs, amounts and names with the
panel buttons or by touch.

Owns: the entry's list (``entry_items``: the characters the value may hold,
then Delete, Enter, Default for a setting that has one, Cancel), what Select on
each does (``select``), parsing a typed setting (``parse``), and its lines
(``entry_lines``). Up/Down (Bet+/Bet-, Hit) choose a character, Select (Deal,
Stand) types it, Cash Out / BACK cancels; a touch on a row is ``menu_pick``.
A setting's entry opens showing its value: the first character typed replaces it,
Delete edits it; a character past ``MAX_LEN`` is refused with the maximum said
(``too_long``). Pure.
"""

from __future__ import annotations

from typing import Any

import msgspec

import cabinet.core.maintenance.pin as pin
from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect, Journal
from cabinet.core.errors import ConfigError, present
from cabinet.core.settings import MENU_ENTRY, MENU_SETTINGS, GameSettings
from cabinet.core.state import EntryState
from confspec import convert

DIGITS = tuple("0123456789")
#: Characters of a name (venue, address, machine number): what a ticket prints.
TEXT_CHARS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + (" ", ".", ",", "-", "&", "'", "/", "#")
DELETE, ENTER, DEFAULT, CANCEL, SPACE = "Delete", "Enter", "Default", "Cancel", "Space"
#: Longest value typed per kind (text fields: their annotation's own maximum).
MAX_LEN = {"money": 10, "money_list": 60, "number": 6, "text": 40, "pin": pin.PIN_MAX}

#: Under a value the entry opened with (``EntryState.shown``).
SHOWN_HINT = "Typing replaces this value; Delete edits it"

_OPTIONAL = {f.name for f in msgspec.structs.fields(GameSettings) if f.default is None}


def kind_of(e: EntryState) -> str:
    """``pin`` for the three PIN entries, else the setting's ``MENU_ENTRY`` kind."""
    return "pin" if e.kind.startswith("pin") else MENU_ENTRY[e.key]


def chars(e: EntryState) -> tuple[str, ...]:
    k = kind_of(e)
    if k == "money":
        return DIGITS + (".",)
    if k == "money_list":
        return DIGITS + (".", ",")
    if k == "text":
        return TEXT_CHARS
    return DIGITS


def entry_items(e: EntryState) -> list[str]:
    """The entry's list: characters, then Delete, Enter, (Default), Cancel."""
    shown = [SPACE if c == " " else c for c in chars(e)]
    tail = [DELETE, ENTER] + ([DEFAULT] if e.kind == "setting" and e.key in _OPTIONAL else [])
    return shown + tail + [CANCEL]


def typed(cab: MaintenanceContext, e: EntryState) -> str:
    return cab.secret if kind_of(e) == "pin" else e.text


def entry_lines(cab: MaintenanceContext, e: EntryState, label: str, message: str = "") -> list[str]:
    """What the page shows above the list: the prompt, the value (a PIN as dots), and
    ``message`` (else the entry's own)."""
    text = typed(cab, e)
    shown = "\u25cf" * len(text) if kind_of(e) == "pin" else text
    lines = [label, f"> {shown}_"]
    if e.shown:
        lines.append(SHOWN_HINT)
    if message or e.message:
        lines.append(message or e.message)
    return lines


def _format_money(v: int) -> str:
    return f"{v // 100}.{v % 100:02d}"


def start_text(key: str, value: Any) -> str:
    """The typed text a setting's entry starts with (its value now)."""
    k = MENU_ENTRY[key]
    if value is None:
        return ""
    if k == "money":
        return _format_money(int(value))
    if k == "money_list":
        return ",".join(_format_money(int(v)).removesuffix(".00") for v in value)
    return str(value)


def _money(text: str) -> int:
    whole, _, frac = text.strip().partition(".")
    if not whole.isdigit() or (frac and (not frac.isdigit() or len(frac) > 2)):
        raise ValueError(f"{text!r} is not an amount")
    return int(whole) * 100 + int(frac.ljust(2, "0") or 0)


def parse(key: str, text: str) -> Any:
    """The value of setting ``key`` typed as ``text``.

    Raises:
        ValueError: not an amount / list / number (the ranges are checked by ``convert``).
    """
    k = MENU_ENTRY[key]
    if k == "money":
        return _money(text)
    if k == "money_list":
        return tuple(_money(part) for part in text.split(",") if part.strip())
    if k == "number":
        if not text.isdigit():
            raise ValueError(f"{text!r} is not a number")
        return int(text)
    return text.strip()


def select(cab: MaintenanceContext, out: list[Effect]) -> str:
    """Select on the entry's selected row. Returns a page to open (``""``: none)."""
    m = present(cab.s.maintenance, "the operator menu")
    e = present(m.entry, "the menu's entry")
    items = entry_items(e)
    item = items[min(m.selected, len(items) - 1)]
    secret = kind_of(e) == "pin"
    text = typed(cab, e)
    if item == CANCEL:
        cancel(cab, out)
        return ""
    if item == DELETE:
        text, e.shown = text[:-1], False
        if e.message.endswith(" not taken"):
            e.message = ""  # the length refusal no longer holds
    elif item == ENTER or item == DEFAULT:
        if secret:
            return pin.submit(cab, e, out)
        _submit_setting(cab, e, None if item == DEFAULT else text, out)
        return ""
    else:
        char = " " if item == SPACE else item
        if e.shown:  # typing replaces the value shown
            text, e.shown = "", False
        if len(text) >= MAX_LEN[kind_of(e)]:
            e.message = too_long(e, char)
            return ""
        text += char
    if secret:
        cab.secret = text
    else:
        e.text = text
    return ""


def too_long(e: EntryState, char: str) -> str:
    """What the entry says when ``char`` is typed with the entry at its longest
    (``MAX_LEN``): the maximum, and that the character was not taken."""
    if kind_of(e) == "pin":
        return f"A PIN has at most {pin.PIN_MAX} digits: {char} not taken"
    return f"At most {MAX_LEN[kind_of(e)]} characters: {char} not taken"


def cancel(cab: MaintenanceContext, out: list[Effect]) -> None:
    """Leave the entry without a change (BACK, Cash Out, or its Cancel row)."""
    m = present(cab.s.maintenance, "the operator menu")
    e = present(m.entry, "the menu's entry")
    m.entry, cab.secret = None, ""
    out.append(Journal("maintenance_entry_cancelled", 0, 0, {"entry": e.kind, "key": e.key, "level": m.level}))
    m.selected = e.row


def _submit_setting(cab: MaintenanceContext, e: EntryState, text: str | None, out: list[Effect]) -> None:
    m = present(cab.s.maintenance, "the operator menu")
    try:
        value = None if text is None else parse(e.key, text)
        merged = {**msgspec.to_builtins(cab.s.settings), **m.draft, e.key: value}
        convert(merged, GameSettings)
    except ConfigError as err:  # in the menu's words: the row's label
        label = next((lb for k, lb, _ in MENU_SETTINGS if k == err.key), err.key)
        e.message = f"Refused: {label}: {err.reason}"
        return
    except ValueError as err:
        e.message = f"Refused: {err}"
        return
    m.draft = {**m.draft, e.key: list(value) if isinstance(value, tuple) else value}
    m.entry, m.confirm, m.selected = None, "", e.row

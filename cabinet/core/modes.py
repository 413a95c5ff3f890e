"""The cabinet's modes: their names, their precedence and every per-mode fact.

Owns: ``Mode`` (the names the journal and the wire spell), ``MODE_TABLE`` (one
``ModeFacts`` per mode: the intents it accepts, whether money may come in, what
the button lamps show, the tower light, the overlay, the acceptor, the running
timer and the name on the wire), ``PRECEDENCE`` and ``mode_of`` (the lock-ups
first, then the base modes). Every per-mode decision of the core and the UI
reads these; no other module compares a mode by its name (tests/core/test_modes.py
holds it). ``docs/reference/modes.md`` is generated from them:
``python -m cabinet.core.modes --write-docs`` writes it, a test fails when it
differs. Pure but for ``main`` (the command line).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

from cabinet.core.state import CabinetState, StationState
from cabinet.protocol.snapshot import ModeName


class Mode(enum.StrEnum):
    """The cabinet's effective mode. The values are the names the journal, the
    refusals and (through ``ModeFacts.wire``) the ``Snapshot`` carry."""

    ATTRACT = "attract"
    BETTING = "betting"
    IN_ROUND = "in_round"
    CASH_OUT = "cash_out"
    HANDPAY = "handpay"
    TILT = "tilt"
    DOOR_OPEN = "door_open"
    MAINTENANCE = "maintenance"
    RAM_ERROR = "ram_error"
    NEEDS_CONFIG = "needs_config"


BETTING_ACTIONS = frozenset(
    {"bet_up", "bet_down", "chip", "place", "undo", "clear", "rebet", "new_game", "deal", "cash_out"}
)
ROUND_ACTIONS = frozenset({"hit", "stand", "double", "split", "insure", "decline"})
MENU_ACTIONS = frozenset({"menu_up", "menu_down", "menu_select", "menu_back"})

#: What a station's button lamps show (and what it may send, ``Cabinet.legal_actions``):
#: ``menu`` every menu intent; ``bets`` the betting intents its bets and credits allow;
#: ``prompt`` the decisions of the round's prompt, on the prompted station only;
#: ``cash_out`` Cash Out while the station holds credits; ``dark`` none.
Lamps = Literal["menu", "bets", "prompt", "cash_out", "dark"]
#: The tower light (``SetTowerLight``) a mode calls for before a station's fault,
#: a player's service call or the light test.
Tower = Literal["off", "service", "tilt", "handpay"]
#: The acceptors: ``enabled`` (each station with a screen drawing it and no
#: cash-out of its own), ``disabled``, or ``bill_test`` (disabled unless the
#: operator's bill test runs).
Acceptor = Literal["enabled", "disabled", "bill_test"]
#: The deadline that runs: ``bet`` (the round starts when it passes), ``decision``
#: (the prompted hand stands or declines), or ``none``.
Timer = Literal["bet", "decision", "none"]


@dataclass(frozen=True)
class ModeFacts:
    """What one mode does.

    Attributes:
        intents: the intents it accepts (``IntentReceived.action``); the lamps rule
            narrows them per station.
        money_in: notes and vouchers may come in.
        lamps: the station lamps' rule (``Lamps``).
        tower: the tower light (``Tower``).
        overlay: ``Snapshot.overlay`` drawn over the table, or ``None``.
        acceptor: the acceptors' state (``Acceptor``).
        timer: the deadline that runs (``Timer``).
        wire: ``Snapshot.mode``: the name the UI sees.
    """

    intents: frozenset[str]
    money_in: bool
    lamps: Lamps
    tower: Tower
    overlay: str | None
    acceptor: Acceptor
    timer: Timer
    wire: ModeName


_NONE: frozenset[str] = frozenset()

#: Every mode's facts (STYLE.md 5.5).
MODE_TABLE: dict[Mode, ModeFacts] = {
    Mode.ATTRACT: ModeFacts(BETTING_ACTIONS, True, "bets", "off", None, "enabled", "bet", "attract"),
    Mode.BETTING: ModeFacts(BETTING_ACTIONS, True, "bets", "off", None, "enabled", "bet", "betting"),
    Mode.IN_ROUND: ModeFacts(ROUND_ACTIONS, True, "prompt", "off", None, "enabled", "decision", "in_round"),
    Mode.CASH_OUT: ModeFacts(_NONE, False, "dark", "off", "printing", "disabled", "none", "cash_out"),
    Mode.HANDPAY: ModeFacts(_NONE, False, "dark", "handpay", "handpay", "disabled", "none", "handpay"),
    Mode.TILT: ModeFacts(frozenset({"cash_out"}), False, "cash_out", "tilt", "tilt", "disabled", "none", "tilt"),
    Mode.DOOR_OPEN: ModeFacts(_NONE, False, "dark", "service", "door_open", "disabled", "none", "door_open"),
    Mode.MAINTENANCE: ModeFacts(MENU_ACTIONS, False, "menu", "service", None, "bill_test", "none", "maintenance"),
    Mode.RAM_ERROR: ModeFacts(_NONE, False, "dark", "tilt", "ram_error", "disabled", "none", "tilt"),
    Mode.NEEDS_CONFIG: ModeFacts(_NONE, False, "dark", "off", "tilt", "disabled", "none", "tilt"),
}

#: Whether station ``st``'s own cash-out is under way (``Cabinet`` answers it: its
#: voucher prints, waits for the host's validation number or for a print check).
CashingOut = Callable[[StationState], bool]


@dataclass(frozen=True)
class Rule:
    """One step of the precedence: ``mode`` when ``when`` holds (``said`` says it)."""

    mode: Mode
    said: str
    when: Callable[[CabinetState, CashingOut], bool]


def _one_station(s: CabinetState) -> bool:
    return len(s.stations) == 1


#: The modes in precedence order: the first rule that holds is the mode. The lock-ups
#: (menu, RAM error, handpay, doors, tilt, a cash-out) come before the base modes.
PRECEDENCE: tuple[Rule, ...] = (
    Rule(Mode.MAINTENANCE, "the operator menu is open (even over a RAM error)", lambda s, c: s.maintenance is not None),
    Rule(Mode.RAM_ERROR, "the journal check failed (RAM error)", lambda s, c: s.ram_error),
    Rule(Mode.HANDPAY, "a handpay is locked up", lambda s, c: s.handpay is not None),
    Rule(Mode.DOOR_OPEN, "a door is open", lambda s, c: bool(s.doors_open)),
    Rule(
        Mode.TILT,
        "a shared device faulted, the self-audit failed, or the only station faulted",
        lambda s, c: bool(s.faults) or s.audit_failed or (_one_station(s) and bool(s.stations[0].faults)),
    ),
    Rule(
        Mode.CASH_OUT,
        "the shared printer prints, or the only station cashes out",
        lambda s, c: s.printing is not None or (_one_station(s) and c(s.stations[0])),
    ),
    Rule(Mode.NEEDS_CONFIG, "the settings must be saved (first boot, RAM clear)", lambda s, c: s.needs_config),
    Rule(Mode.IN_ROUND, "a round is open", lambda s, c: s.round_open),
    Rule(
        Mode.BETTING,
        "a station holds credits or bets",
        lambda s, c: any(st.credits_minor or any(st.bets_minor) for st in s.stations),
    ),
    Rule(Mode.ATTRACT, "otherwise", lambda s, c: True),
)


def mode_of(s: CabinetState, cashing_out: CashingOut) -> Mode:
    """The effective mode of state ``s``: the first rule of ``PRECEDENCE`` that holds.
    ``cashing_out``: whether a station's own cash-out is under way."""
    for rule in PRECEDENCE:
        if rule.when(s, cashing_out):
            return rule.mode
    return Mode.ATTRACT  # the last rule always holds


def facts(mode: Mode) -> ModeFacts:
    """``MODE_TABLE[mode]``."""
    return MODE_TABLE[mode]


# -- the generated reference ----------------------------------------------------------

DOCS_PATH = "docs/reference/modes.md"


def _intents(f: ModeFacts) -> str:
    if f.intents == BETTING_ACTIONS:
        return "betting intents"
    if f.intents == ROUND_ACTIONS:
        return "round decisions"
    if f.intents == MENU_ACTIONS:
        return "menu intents"
    return ", ".join(f"`{a}`" for a in sorted(f.intents)) or "none"


def reference_markdown() -> str:
    """``docs/reference/modes.md``: the precedence (a table and a mermaid graph) and
    every mode's facts, generated from ``PRECEDENCE`` and ``MODE_TABLE``."""
    lines = [
        "# Cabinet modes",
        "",
        "Generated from `cabinet/core/modes.py` (`PRECEDENCE`, `MODE_TABLE`) by",
        "`python -m cabinet.core.modes --write-docs`; `tests/core/test_modes.py` fails when",
        "this file differs from what the code generates. Do not edit it by hand.",
        "",
        "## Precedence",
        "",
        "The cabinet's mode is the first row whose condition holds (`mode_of`).",
        "",
        "| # | Mode | When |",
        "|---|------|------|",
    ]
    lines += [f"| {i} | `{r.mode}` | {r.said} |" for i, r in enumerate(PRECEDENCE, 1)]
    lines += ["", "```mermaid", "flowchart TD"]
    for i, r in enumerate(PRECEDENCE):
        if i + 1 < len(PRECEDENCE):
            lines.append(f'    q{i}{{"{r.said}?"}} -- yes --> {r.mode}([{r.mode}])')
            lines.append(f"    q{i} -- no --> q{i + 1}")
        else:
            lines.append(f'    q{i}["{r.said}"] --> {r.mode}([{r.mode}])')
    lines += ["```", "", "## What each mode does", ""]
    lines += [
        "| Mode | Intents | Money in | Lamps | Tower | Overlay | Acceptor | Timer | On the wire |",
        "|------|---------|----------|-------|-------|---------|----------|-------|-------------|",
    ]
    for mode, f in MODE_TABLE.items():
        overlay = f"`{f.overlay}`" if f.overlay else "none"
        money = "yes" if f.money_in else "no"
        lines.append(
            f"| `{mode}` | {_intents(f)} | {money} | {f.lamps} | {f.tower} | {overlay} | {f.acceptor} "
            f"| {f.timer} | `{f.wire}` |"
        )
    lines += [
        "",
        "Betting intents: " + ", ".join(f"`{a}`" for a in sorted(BETTING_ACTIONS)) + ".",
        "Round decisions: " + ", ".join(f"`{a}`" for a in sorted(ROUND_ACTIONS)) + ".",
        "Menu intents: " + ", ".join(f"`{a}`" for a in sorted(MENU_ACTIONS)) + ".",
        "",
        "Lamps: `menu` every menu intent; `bets` the betting intents the station's bets and",
        "credits allow; `prompt` the prompted station's legal decisions; `cash_out` Cash Out",
        "while the station holds credits; `dark` none. A station with no screen drawing it,",
        "or whose own ticket is out, is dark outside the menu.",
        "",
        "Tower: a station out of service turns an `off` tower to `tilt`; a player's",
        "service call and the operator's light test come over it.",
        "",
        "Names on the wire (`Snapshot.mode`): " + ", ".join(f"`{n}`" for n in get_args(ModeName)) + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m cabinet.core.modes [--write-docs]``: print the reference, or write
    it to ``docs/reference/modes.md`` (run from the repository's root). The only I/O
    of this module, for the command line."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m cabinet.core.modes", description=main.__doc__)
    parser.add_argument("--write-docs", action="store_true", help=f"write {DOCS_PATH}")
    text = reference_markdown()
    if parser.parse_args(argv).write_docs:
        with open(DOCS_PATH, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

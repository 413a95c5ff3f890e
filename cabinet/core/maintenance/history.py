"""The maintenance menu's history pages (research/cabinet-features.md B
"last 35 bills / vouchers / handpays"): bills by denomination, vouchers with
validation numbers masked to their last 4 digits, handpays with who reset them,
and the Event log's filter by kind.

Owns: ``HISTORY_DEPTH``, ``EVENT_FILTERS``, the kinds each page lists and the
pages' lines. Pure: the rows are the ones the shell loaded for the open page
(``MaintenanceContext.shown``, ``cabinet.core.shell_inputs.history_query``).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from cabinet.core.context import MaintenanceContext
from cabinet.protocol.money import fmt_money as money

#: Newest records each history page shows.
HISTORY_DEPTH = 35
#: The event kinds the Bill history and the Handpay history pages read.
BILL_KINDS = frozenset({"bill_stacked"})
HANDPAY_KINDS = frozenset({"handpay", "handpay_reset", "host_command"})
_MONEY = frozenset(
    {
        "bill_stacked",
        "note_escrowed",
        "note_returned",
        "note_review_resolved",
        "note_repeat_ignored",
        "voucher_in",
        "voucher_printed",
        "voucher_escrowed",
        "voucher_refused",
        "voucher_repeat_ignored",
        "voucher_stacked_invalid",
        "cash_out",
        "handpay",
        "handpay_reset",
        "round_void",
    }
)
#: The Event log's filters, in the order Select steps through them: name -> kinds
#: (``None``: every kind but menu navigation).
EVENT_FILTERS: dict[str, frozenset[str] | None] = {
    "all": None,
    "doors": frozenset({"door_open", "door_closed", "door_opened_while_powered_off"}),
    "money": _MONEY,
    "faults": frozenset({"fault", "fault_cleared", "faults_cleared", "audit_mismatch", "decision_timeout"}),
    "menu": frozenset(
        {
            "maintenance_enter",
            "maintenance_exit",
            "maintenance_page",
            "maintenance_requested",
            "maintenance_entry_cancelled",
            "maintenance_request_cancelled",
            "settings_discarded",
            "settings_changed",
            "settings_refused",
            "ram_clear",
            "ram_clear_refused",
            "pin_accepted",
            "pin_wrong",
            "pin_lockout",
            "pin_changed",
            "menu_pin_asked",
            "audit_export",
            "audit_exported",
        }
    ),
    "power": frozenset({"power_up", "clock_jump", "display_shown"}),
}


def when(wall_s: float) -> str:
    """``"11-30 06:41"``: local month, day and time."""
    return dt.datetime.fromtimestamp(wall_s).strftime("%m-%d %H:%M")


def mask(validation_number: str) -> str:
    """A validation number shown by its last 4 digits only: ``"****1234"``."""
    return "****" + validation_number[-4:] if validation_number else "-"


def bill_lines(cab: MaintenanceContext) -> list[str]:
    """The last 35 bills stacked: a count by denomination, then each, newest first."""
    sym = cab.s.settings.currency_symbol
    rows = cab.shown.events_of(BILL_KINDS, HISTORY_DEPTH)
    if not rows:
        return ["No bills since the last RAM clear."]
    by = Counter(int(r["amount_minor"]) for r in rows)
    lines = [f"Last {len(rows)} bills: " + ", ".join(f"{money(d, sym)} x{n}" for d, n in sorted(by.items()))]
    lines += [
        f"{when(r['wall_s'])}  station {r['station']}  {money(r['amount_minor'], sym)}"
        + ("  (credited by the attendant)" if r["data"].get("via") == "attendant" else "")
        for r in rows
    ]
    return lines


def voucher_lines(cab: MaintenanceContext) -> list[str]:
    """The last 35 vouchers printed, newest first, validation numbers masked."""
    sym = cab.s.settings.currency_symbol
    vs = cab.shown.vouchers(HISTORY_DEPTH)
    return [
        f"#{v.sequence}  {when(v.issued_wall_s)}  station {v.station}  "
        f"{mask(v.validation_number)}  {money(v.amount_minor, sym)}  {v.status}"
        for v in vs
    ] or ["No vouchers printed."]


def handpay_lines(cab: MaintenanceContext) -> list[str]:
    """The last 35 handpays: amount, kind, when, and when and by whom reset (the
    attendant's key, or the casino host's remote reset)."""
    sym = cab.s.settings.currency_symbol
    rows = cab.shown.events_of(HANDPAY_KINDS, HISTORY_DEPTH * 3)
    host_seqs = {
        r["seq"] for r in rows if r["kind"] == "host_command" and r["data"].get("command") == "remote_handpay_reset"
    }
    resets = [r for r in reversed(rows) if r["kind"] == "handpay_reset"]  # oldest first
    lines: list[str] = []
    for hp in [r for r in reversed(rows) if r["kind"] == "handpay"]:  # oldest first
        reset = next(
            (
                r
                for r in resets
                if r["id"] > hp["id"] and r["station"] == hp["station"] and r["amount_minor"] == hp["amount_minor"]
            ),
            None,
        )
        if reset is not None:
            resets.remove(reset)
            by = "the casino host" if reset["seq"] in host_seqs else "the attendant's key"
            done = f"reset {when(reset['wall_s'])} by {by}"
        else:
            done = "NOT RESET"
        kind = "jackpot" if hp["data"].get("kind") == "jackpot" else "cancelled credits"
        lines.append(f"{when(hp['wall_s'])}  station {hp['station']}  {money(hp['amount_minor'], sym)}  {kind}  {done}")
    lines.reverse()
    return lines[:HISTORY_DEPTH] or ["No handpays."]


def filtered_events(cab: MaintenanceContext, name: str, limit: int, hidden: frozenset[str]) -> list[dict[str, Any]]:
    """The Event log's rows under filter ``name`` (``EVENT_FILTERS``), newest first."""
    kinds = EVENT_FILTERS.get(name)
    if kinds is None:
        return [r for r in cab.shown.events(limit) if r["kind"] not in hidden]
    return cab.shown.events_of(kinds, limit)


def next_filter(name: str) -> str:
    names = list(EVENT_FILTERS)
    return names[(names.index(name) + 1) % len(names)] if name in names else "all"

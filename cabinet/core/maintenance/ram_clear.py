"""The maintenance menu's RAM clear page: what a RAM clear erases and keeps, and who may do it.

Owns: ``ram_clear_summary`` (journaled with the clear), ``ram_clear_refusal``
(the access rule) and the page's lines. A RAM clear
keeps the PIN and adds the meters it erases to the lifetime meters
(``meters_page.carry``). The clear itself
is ``Cabinet.ram_clear``. Pure.
"""

from __future__ import annotations

from typing import Any

from cabinet.core import access
from cabinet.core.context import History, MaintenanceContext
from cabinet.core.errors import present
from cabinet.protocol.money import fmt_money as money

#: The Settings page's line right after a RAM clear (the page the clear opens).
RAM_CLEARED = "RAM cleared: credits, meters and history erased. Save the settings to resume play."


def access_name(s: Any) -> str:
    """The access level of the cabinet state ``s`` now (``cabinet.core.access``): the
    key, and the PIN typed on this visit of the menu."""
    m = s.maintenance
    return access.name(access.level(s.key_on, m is not None and m.level == "technician"))


def ram_clear_summary(cab: MaintenanceContext, history: History) -> dict[str, Any]:
    """What a RAM clear would erase and keep now.

    Returns ``{"credits_minor": {"1": int, ...}, "pending_out_minor": {...},
    "handpays_minor": [int, ...], "outstanding_vouchers": int,
    "outstanding_vouchers_minor": int, "host_tickets": int, "host_tickets_minor": int}``;
    station keys are strings (journal JSON). ``outstanding_vouchers`` are this cabinet's
    own (it drew the validation number and its journal keeps them redeemable once);
    ``host_tickets`` were validated by the casino host (SAS 0x58), which keeps
    them and redeems them at any machine on the floor. ``history``: the rows the
    outstanding vouchers are read from (the page's ``cab.shown``; the Select's rows
    handed in, ``context.rows_for(cab.handed, OUTSTANDING)``).
    """
    s = cab.s
    handpays = ([s.handpay] if s.handpay is not None else []) + list(s.handpay_queue)
    issued = history.outstanding_vouchers()
    own = [v for v in issued if v.validation != "system"]
    host = [v for v in issued if v.validation == "system"]
    return {
        "credits_minor": {str(st.station): st.credits_minor for st in s.stations},
        "pending_out_minor": {str(st.station): st.pending_out_minor for st in s.stations},
        "handpays_minor": [hp.amount_minor for hp in handpays],
        "outstanding_vouchers": len(own),
        "outstanding_vouchers_minor": sum(v.amount_minor for v in own),
        "host_tickets": len(host),
        "host_tickets_minor": sum(v.amount_minor for v in host),
    }


def _ram_clear_stakes(summary: dict[str, Any]) -> list[str]:
    """What on the cabinet makes a RAM clear a technician's act (empty: nothing)."""
    stakes = []
    if any(summary["credits_minor"].values()) or any(summary["pending_out_minor"].values()):
        stakes.append("credits")
    if summary["handpays_minor"]:
        stakes.append("a pending handpay")
    if summary["outstanding_vouchers"]:
        stakes.append("outstanding vouchers")
    return stakes


def ram_clear_refusal(cab: MaintenanceContext, history: History) -> str:
    """Why a RAM clear may not be done now, or ``""`` if it may.

    Rule (the PIN and, as before, the door): a RAM clear needs
    the technician level (the PIN) *and* the main or logic door open
    (``access.RAM_CLEAR_DOORS``), whatever is on the cabinet; the reason names
    what is at stake (credits, a pending handpay, outstanding vouchers;
    ``history`` as in ``ram_clear_summary``).
    """
    stakes = _ram_clear_stakes(ram_clear_summary(cab, history))
    m = cab.s.maintenance
    lv = access.level(cab.s.key_on, m is not None and m.level == "technician")
    at = f" ({' and '.join(stakes)} on the cabinet)" if stakes else ""
    if lv < access.Level.TECHNICIAN:
        return "needs the technician level" + at
    if not access.ram_clear_door_open(cab.s.doors_open):
        return "open the main or logic door first" + at
    return ""


def ram_clear_lines(cab: MaintenanceContext) -> list[str]:
    s = cab.s
    m = present(s.maintenance, "the operator menu")
    sym = s.settings.currency_symbol
    summary = ram_clear_summary(cab, cab.shown)
    lines = ["A RAM clear erases:"]
    for st in s.stations:
        line = f"- Station {st.station} credits {money(st.credits_minor, sym)}"
        if st.pending_out_minor:
            line += f" (+ {money(st.pending_out_minor, sym)} waiting to be paid)"
        lines.append(line)
    hps = summary["handpays_minor"]
    lines.append(
        "- Pending handpays: " + (f"{len(hps)} (" + ", ".join(money(a, sym) for a in hps) + ")" if hps else "none")
    )
    lines.append("- Meters, game recall, bill history and the event log")
    n = summary["outstanding_vouchers"]
    lines.append("It keeps:")
    lines.append(
        f"- {n} outstanding voucher{'' if n == 1 else 's'} "
        f"({money(summary['outstanding_vouchers_minor'], sym)}), redeemable once"
        if n
        else "- Outstanding vouchers: none"
    )
    if summary["host_tickets"]:
        h = summary["host_tickets"]
        lines.append(
            f"- {h} ticket{'' if h == 1 else 's'} validated by the casino host "
            f"({money(summary['host_tickets_minor'], sym)}): the host redeems "
            f"{'it' if h == 1 else 'them'}"
        )
    lines.append("- Its own record in the event log (dated, with what it erased)")
    lines.append("- The settings (save them again before play resumes), the PIN, the lifetime meters")
    doors = ", ".join(s.doors_open) or "none"
    lines.append(f"Needs the {access.RAM_CLEAR_HOW}. Now: {access_name(s)}, doors open: {doors}.")
    if m.confirm == "armed":
        lines.append("Select once more to confirm.")
    elif m.confirm.startswith("Refused:") and not ram_clear_refusal(cab, cab.shown):
        pass  # the level is reached now: the old refusal no longer holds
    elif m.confirm:
        lines.append(m.confirm)
    return lines

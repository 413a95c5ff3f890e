"""The audit report a route operator collects: meters per station,
bills by denomination, handpays, the period since the last export.

Owns: ``audit_rows`` (the report as CSV rows, used by the menu's Export item and
by ``cabinet meters --export``), ``start`` (the Export page's Select: the core
asks the shell to write it, ``ExportAudit``) and ``exported`` (the shell's answer,
``AuditExported``: journaled; a success starts the next period). Where the file
goes (a USB stick when one is mounted) is the shell's adapter,
``cabinet.shell.audit_export``. Pure.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from cabinet.core.context import History, MaintenanceContext, rows_for
from cabinet.core.effects import Effect, ExportAudit, Journal, Rejected
from cabinet.core.errors import present
from cabinet.core.events import AuditExported, HistoryQuery
from cabinet.core.maintenance.meters_page import (
    METER_NAMES,
    PAR_RTP_PERCENT,
    lifetime_meters,
    meter_dict,
    rtp_text,
)
from cabinet.core.state import CabinetState

#: The report's columns.
HEADER = ("section", "station", "name", "value", "since_last_export")
#: The handpays the report lists (the newest 1000 journaled), read by the shell
#: before the Export page's Select (``shell_inputs.event_query``).
AUDIT_HANDPAYS = HistoryQuery(events_limit=1000, event_kinds=frozenset({"handpay"}))


def _iso(wall_s: float) -> str:
    return dt.datetime.fromtimestamp(wall_s, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if wall_s else ""


def audit_rows(s: CabinetState, history: History, program_id: str = "") -> list[tuple[str, ...]]:
    """The audit report as CSV rows (``HEADER`` first).

    Sections: ``report`` (machine, venue, program, period start and end as UTC
    ISO 8601, RAM clears), ``meters`` (every meter of every station since the last
    RAM clear, money in minor units, and its change since the last export),
    ``lifetime`` (coin in / out and RTP over every RAM clear), ``bills`` (count
    by denomination), ``handpay`` (each handpay journaled: when, amount, kind).
    """
    op = s.operator
    st_set = s.settings
    rows: list[tuple[str, ...]] = [HEADER]

    def add(section: str, station: int | str, name: str, value: Any, since: Any = "") -> None:
        rows.append((section, str(station), name, str(value), str(since)))

    add("report", "", "machine_number", st_set.machine_number)
    add("report", "", "venue", st_set.venue_name)
    add("report", "", "program", program_id)
    add("report", "", "game", st_set.variant)
    add("report", "", "par_rtp_percent", PAR_RTP_PERCENT.get(st_set.variant, ""))
    add("report", "", "period_start", _iso(op.exported_wall_s) or "first export")
    add("report", "", "period_end", _iso(s.wall_s))
    add("report", "", "ram_clears", op.ram_clears)
    add("report", "", "last_ram_clear", _iso(op.last_ram_clear_wall_s))
    for st in s.stations:
        base = op.export_base.get(str(st.station), {})
        for k, v in meter_dict(st.meters).items():
            add("meters", st.station, k, v, v - base.get(k, 0))
        add(
            "meters",
            st.station,
            "rtp_percent",
            rtp_text(st.meters.coin_out_minor, st.meters.coin_in_minor).removesuffix(" %"),
        )
        life = lifetime_meters(s, st.station)
        add("lifetime", st.station, "coin_in_minor", life["coin_in_minor"])
        add("lifetime", st.station, "coin_out_minor", life["coin_out_minor"])
        add(
            "lifetime",
            st.station,
            "rtp_percent",
            rtp_text(life["coin_out_minor"], life["coin_in_minor"]).removesuffix(" %"),
        )
        base_bills = op.export_base.get(f"bills{st.station}", {})
        for d, n in sorted(st.meters.bills_by_denom.items(), key=lambda kv: int(kv[0])):
            add("bills", st.station, d, n, n - base_bills.get(d, 0))
    handpays = history.events_of(frozenset({"handpay"}), AUDIT_HANDPAYS.events_limit)
    for r in reversed(handpays):
        add("handpay", r["station"], _iso(r["wall_s"]), r["amount_minor"], r["data"].get("kind", "cancelled_credits"))
    return rows


def file_name(s: CabinetState) -> str:
    """``audit-0001-20261201-153000.csv``: machine number and UTC time of the export."""
    when = dt.datetime.fromtimestamp(s.wall_s, dt.UTC).strftime("%Y%m%d-%H%M%S")
    machine = "".join(c if c.isalnum() else "-" for c in s.settings.machine_number)
    return f"audit-{machine}-{when}.csv"


def start(cab: MaintenanceContext, out: list[Effect]) -> None:
    """The Export page's Select (technician): ask the shell to write the report, its
    handpays from the rows handed in (``AUDIT_HANDPAYS``); without them nothing is
    written (a report missing handpays would mislead) and the page says so."""
    m = present(cab.s.maintenance, "the operator menu")
    handpays = rows_for(cab.handed, AUDIT_HANDPAYS)
    if handpays is None:
        m.confirm = "Not written: the handpay records were not read. Select again."
        out.append(Rejected("audit export", "handpay records not read"))
        return
    rows = audit_rows(cab.s, handpays, cab.program_id)
    name = file_name(cab.s)
    out.append(Journal("audit_export", 0, 0, {"file": name, "level": m.level}))
    out.append(ExportAudit(name, tuple(rows)))
    m.confirm = f"Writing {name}..."


def exported(cab: MaintenanceContext, ev: AuditExported, out: list[Effect]) -> None:
    """The shell wrote the report (or could not): journal it; a success starts the
    next period (the meters now become the base of "since the last export")."""
    s = cab.s
    op = s.operator
    out.append(Journal("audit_exported", 0, 0, {"path": ev.path, "error": ev.error}))
    if not ev.error:
        op.exported_wall_s = ev.wall_s
        op.export_base = {str(st.station): meter_dict(st.meters) for st in s.stations}
        op.export_base.update({f"bills{st.station}": dict(st.meters.bills_by_denom) for st in s.stations})
    if s.maintenance is not None and s.maintenance.page == "export":
        s.maintenance.confirm = f"Failed: {ev.error}" if ev.error else f"Written to {ev.path}"


__all__ = ["AUDIT_HANDPAYS", "METER_NAMES", "audit_rows", "exported", "file_name", "start"]

"""The maintenance menu's Event log page: one line per journal event.

Owns: ``event_line`` (a ``History.events`` row in an operator's words) and what
the page leaves out. Pure: the rows come from the injected ``History``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from cabinet.core.errors import fault_text
from cabinet.protocol.money import fmt_money as money

#: Journal kinds the Event log page leaves out (menu navigation: it stays in
#: the journal and the CLI's ``cabinet events``).
EVENT_LOG_HIDDEN = frozenset({"maintenance_page"})
#: Newest events the Event log page pages through.
EVENT_LOG_DEPTH = 200


def event_line(row: dict[str, Any], sym: str = "$") -> str:
    """One journal event for the Event log page, newest first on the page.

    ``row``: a ``History.events`` row (``wall_s``, ``kind``, ``station``,
    ``amount_minor``, ``data``). Returns e.g. ``"11-30 06:41:02  door open
    cabinet  main door"``: local date and time, what, where (a station or
    the cabinet), the amount if any and the detail that matters; validation
    numbers show their last 4 digits only (research B "last 35 vouchers").
    """
    when = dt.datetime.fromtimestamp(row["wall_s"]).strftime("%m-%d %H:%M:%S")  # local time
    where = f"station {row['station']}" if row["station"] else "cabinet"
    amount = money(row["amount_minor"], sym) if row["amount_minor"] else ""
    parts = [when, row["kind"].replace("_", " "), where, amount, _event_detail(row["kind"], row["data"], sym)]
    return " · ".join(p for p in parts if p)


def _event_detail(kind: str, d: dict[str, Any], sym: str) -> str:
    if "code" in d:
        return fault_text(str(d["code"]))
    if "codes" in d:
        return ", ".join(fault_text(str(c)) for c in d["codes"])
    if "door" in d:
        return f"{d['door']} door"
    if kind == "program_installed":
        return f"{d.get('action', '')} {d.get('program_id', '')}, SHA-256 {str(d.get('digest', ''))[:16]}"
    if kind == "settings_changed":
        old, new = d.get("old", {}), d.get("new", {})
        return "changed " + (", ".join(k for k in sorted(new) if old.get(k) != new[k]) or "nothing")
    if kind == "settings_discarded":
        return f"not saved: {', '.join(d.get('keys', ()))} ({d.get('why', '')})"
    if kind == "maintenance_request_cancelled":
        return f"key off before the {d.get('after', 'round')} ended"
    detail = []
    if "round_id" in d:
        detail.append(f"round {d['round_id']}")
    if "net_minor" in d:
        net = int(d["net_minor"])
        detail.append(f"net {'-' if net < 0 else '+'}{money(abs(net), sym)}")
    if d.get("reason"):
        detail.append(str(d["reason"]))
    if d.get("kind") == "jackpot":
        detail.append("jackpot")
    if d.get("validation_number"):
        detail.append("voucher " + str(d["validation_number"])[-4:].rjust(8, "*"))
    if "decision" in d:
        detail.append(f"{d['decision']} by timer")
    if "credited" in d:  # notes taken, not credited
        detail.append("credited" if d["credited"] else "not credited")
    if d.get("via") == "attendant":
        detail.append("credited by the attendant's key")
    if "page" in d:
        detail.append(str(d["page"]))
    if "access" in d:
        detail.append(f"by {d['access']}")
    if "level" in d:  # every menu entry, page and act
        detail.append(str(d["level"]))
    if "failures" in d:
        detail.append(f"{d['failures']} wrong in a row")
    if "seconds" in d:
        detail.append(f"locked {d['seconds']} s")
    if "outstanding_vouchers" in d:
        detail.append(f"{d['outstanding_vouchers']} outstanding vouchers kept")
    return ", ".join(detail)

"""The operator menu's Host page: each station's casino host link.

Owns: ``host_page`` (the page's title and lines). Pure: it reads the cabinet state
and the program identity it is given; times are formatted from the state's wall
clock, never read.

Shows per station: the SAS address and port, the link state and since when, the
host events queued (oldest first, by name), whether the host disabled play or the
bill acceptor, the bill values it enabled; for the cabinet: the host's clock offset
(long poll 0x7F) and the program's manifest digest (what long poll 0x21 signs).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from cabinet.protocol.money import fmt_money as money

#: Queued host events listed per station.
SHOWN_EVENTS = 5
#: Line error kinds (``drivers.sas_link.LINE_ERRORS``) as the page names them.
LINE_ERROR_NAMES = {
    "crc": "CRC",
    "truncated": "truncated",
    "length": "bad length",
    "stray": "stray bytes",
    "marker": "framing",
}


def host_page(
    s: Any, program_id: str, program_digest: str, polls: dict[int, tuple[Any, ...]] | None = None
) -> tuple[str, list[str]]:
    """``("Host", lines)`` for cabinet state ``s`` (``CabinetState``); ``polls``: per
    station the link's live status (not journaled): ``(polls seen, wall time of the last
    poll or None[, port open, polls seen for other addresses[, line errors by kind]])``."""
    sym = s.settings.currency_symbol
    lines: list[str] = []
    configured = [st for st in s.stations if st.host.link]
    if not configured:
        lines.append("No casino host link configured ([sas] port in the config, or cabinet engine --sas-port).")
    for st in configured:
        h = st.host
        since = dt.datetime.fromtimestamp(h.link_since_s).strftime("%m-%d %H:%M:%S") if h.link_since_s else "start"
        lines.append(
            f"Station {st.station}: SAS address {h.address or '?'} on {h.port or '?'} · {h.link.upper()} since {since}"
        )
        live = (polls or {}).get(st.station, ())
        count, last = (live[0], live[1]) if len(live) >= 2 else (0, None)
        if len(live) >= 4 and not live[2]:
            lines.append("  Port not open: check the cable, the port name and the event log")
        if last is not None:
            ago = max(0.0, s.wall_s - last)
            lines.append(f"  Polls {count}, last {ago:.1f} s ago")
        if len(live) >= 4 and live[3] and not count:
            lines.append(
                f"  {live[3]} polls seen for other addresses: check the SAS address ({h.address}) against the host's"
            )
        if len(live) >= 5:
            errors = [f"{LINE_ERROR_NAMES.get(k, k)} {n}" for k, n in live[4].items() if n]
            lines.append(
                "  Line errors: " + (", ".join(errors) + ": check the cable and 19,200 baud" if errors else "none")
            )
        queued = ", ".join(e.name.replace("_", " ") for e in h.queue[:SHOWN_EVENTS])
        more = f" (+{len(h.queue) - SHOWN_EVENTS} more)" if len(h.queue) > SHOWN_EVENTS else ""
        lines.append(f"  Exceptions queued: {len(h.queue)}" + (f": {queued}{more}" if queued else ""))
        state = []
        if h.disabled:
            state.append(
                "play DISABLED by the host"
                + (" (maintenance mode)" if h.disabled_by == "enter_maintenance_mode" else "")
            )
        elif h.disable_pending:
            state.append("play disabled after this round")
        if h.bills_disabled:
            state.append("bill acceptor disabled by the host")
        if h.bills_minor is not None:
            state.append("bills enabled by the host: " + (", ".join(money(b, sym) for b in h.bills_minor) or "none"))
        text = "; ".join(state) if state else "play enabled"
        lines.append("  " + text[0].upper() + text[1:])
    if s.host_clock_offset_s:
        lines.append(f"Host clock offset: {s.host_clock_offset_s:+.1f} s (from long poll 0x7F)")
    lines.append(f"Program: {program_id or 'unknown'}")
    lines.append(f"Manifest SHA-256: {program_digest or 'none (development build)'}")
    return "Host", lines

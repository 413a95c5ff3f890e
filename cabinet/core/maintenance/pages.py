"""The maintenance menu's pages as the UI draws them.

Owns: the main menu's items, every page's title, lines and list (``view``), the
hints, and paging long pages (``PAGE_LINES``). What a key press does is
``menu``; the Settings, RAM clear and Event log pages' own content comes from
their modules. Pure: history through the injected ``History``.
"""

from __future__ import annotations

from cabinet.core.context import MaintenanceContext
from cabinet.core.errors import fault_text
from cabinet.core.host_page import host_page
from cabinet.core.maintenance import diagnostics
from cabinet.core.maintenance.event_log import EVENT_LOG_DEPTH, EVENT_LOG_HIDDEN, event_line
from cabinet.core.maintenance.ram_clear import ram_clear_lines
from cabinet.core.maintenance.settings_editor import setting_items
from cabinet.protocol.money import fmt_money as money
from cabinet.protocol.snapshot import MaintenanceView

MAIN_ITEMS = [("meters", "Meters"), ("recall", "Game recall"), ("events", "Event log"),
              ("money_history", "Bills and vouchers"), ("diagnostics", "Diagnostics"),
              ("settings", "Settings"), ("faults", "Faults"), ("host", "Host"),
              ("ram_clear", "RAM clear")]
HINT = "Up/Down: choose   Select: open or change   Back: return   Key off: leave"
#: Body lines shown at once on a page without a list (meters, event log...);
#: Up/Down page through longer ones. 16 fit the 1080-high layout with a footer.
PAGE_LINES = 16
#: The Faults page's one item: every device reports its state again (issue 10.1).
FAULTS_ITEM = "Re-check devices, clear engine faults"
DEVICE_TEST_HINT = ("Buttons are only shown here   Cash Out twice (within 1 s) or BACK: "
                    "menu   Key off: leave")


def page_items(cab: MaintenanceContext) -> list[str]:
    """The current page's list (what Up/Down move through); empty: a page of lines."""
    m = cab.s.maintenance
    assert m is not None
    if m.page == "main":
        return [label for _, label in MAIN_ITEMS]
    if m.page == "settings":
        return setting_items(cab)
    if m.page == "recall":
        entries = cab.history.recall(0, cab.s.settings.recall_depth)
        return [f"Round {e.round_id} station {e.station}: net "
                f"{money(e.returned_minor - e.wagered_minor)}" + (" VOID" if e.voided else "")
                for e in entries]
    if m.page == "ram_clear":
        return ["Confirm RAM clear"]
    if m.page == "faults":
        return [FAULTS_ITEM]
    if m.page in diagnostics.PAGES:
        return diagnostics.items(cab)
    return []


def view(cab: MaintenanceContext) -> MaintenanceView:
    """The current page as the UI draws it."""
    m = cab.s.maintenance
    assert m is not None
    title, lines = page_lines(cab)
    items = page_items(cab)
    if not items and len(lines) > PAGE_LINES:
        first = min(m.scroll, (len(lines) - 1) // PAGE_LINES * PAGE_LINES)
        shown = lines[first:first + PAGE_LINES]
        last = first + len(shown)
        more = "Down: more" if last < len(lines) else "Up: back"
        lines = shown + [f"-- lines {first + 1}-{last} of {len(lines)} ({more}) --"]
    return MaintenanceView(page=m.page, title=title, lines=lines, items=items,
                           selected=m.selected,
                           hint=DEVICE_TEST_HINT if m.page == diagnostics.BUTTONS_PAGE else HINT)


def page_lines(cab: MaintenanceContext) -> tuple[str, list[str]]:
    s = cab.s
    m = s.maintenance
    assert m is not None
    sym = s.settings.currency_symbol
    if m.page == "main":
        head = ["RAM ERROR: only a RAM clear restores play."] if s.ram_error else []
        if s.needs_config:
            head.append("Configuration required: open Settings and save.")
        return "Maintenance", head + [f"Game: {cab.rules.name} · Rounds played: {s.round_id}",
                                      f"Power-ups: {s.power_ups}", program_line(cab)]
    if m.page == "meters":
        lines = []
        for st in s.stations:
            mt = st.meters
            lines += [
                f"Station {st.station}: credits {money(st.credits_minor, sym)}",
                f"  Coin in {money(mt.coin_in_minor, sym)} · Coin out {money(mt.coin_out_minor, sym)}",
                f"  Insurance in {money(mt.insurance_in_minor, sym)} · out "
                f"{money(mt.insurance_out_minor, sym)}",
                f"  Bills in {money(mt.bills_in_minor, sym)} ({mt.bills_in_count}) · "
                + " ".join(f"{money(int(d), sym)}x{n}" for d, n in sorted(
                    mt.bills_by_denom.items(), key=lambda kv: int(kv[0]))),
                f"  Vouchers in {money(mt.vouchers_in_minor, sym)} ({mt.vouchers_in_count}) · "
                f"out {money(mt.vouchers_out_minor, sym)} ({mt.vouchers_out_count})",
                f"  Handpaid {money(mt.handpay_minor, sym)} ({mt.handpay_count}) · "
                f"Jackpots handpaid {money(mt.jackpot_handpay_minor, sym)} "
                f"({mt.jackpot_handpay_count})",
                f"  Voided returns {money(mt.void_returned_minor, sym)}",
                f"  Games {mt.games_played}: won {mt.games_won}, lost {mt.games_lost}, "
                f"pushed {mt.games_pushed}",
                f"  Blackjacks {mt.blackjacks} · Doubles {mt.doubles} · Splits {mt.splits} · "
                f"Insurance {mt.insurance_taken}",
            ]
        doors = ", ".join(f"{d} {n}" for d, n in sorted(s.door_opens.items())) or "none"
        lines += [f"Power-ups {s.power_ups} · Games since power-up {s.games_since_power_up} · "
                  f"since door close {s.games_since_door_close}", f"Door openings: {doors}"]
        return "Meters", lines
    if m.page == "recall":
        entries = cab.history.recall(0, s.settings.recall_depth)
        if not entries:
            return "Game recall", ["No rounds recorded yet."]
        e = entries[min(m.selected, len(entries) - 1)]
        lines = [f"RECALL MODE - round {e.round_id}, station {e.station}, {e.variant}"
                 + (" (VOIDED)" if e.voided else ""),
                 f"Credits before {money(e.credits_before_minor, sym)} · after "
                 f"{money(e.credits_after_minor, sym)}",
                 f"Wagered {money(e.wagered_minor, sym)} (insurance "
                 f"{money(e.insurance_minor, sym)}) · returned {money(e.returned_minor, sym)}"]
        if e.jackpot_handpay_minor:
            lines.append(f"Jackpot handpay {money(e.jackpot_handpay_minor, sym)} "
                         "(paid by the attendant, not to the credit meter)")
        d = e.result.get("dealer", {})
        lines.append(f"Dealer: {' '.join(d.get('cards', []))} ({d.get('total', '')})")
        for sp in e.result.get("spots", []):
            for i, h in enumerate(sp["hands"], 1):
                lines.append(f"Seat {sp['seat']} spot {sp['spot']} hand {i}: "
                             f"{' '.join(h['cards'])} = {h['total']}")
                lines.append(f"{h['outcome']}: stake {money(h['stake'], sym)} · paid "
                             f"{money(h['returned'] or 0, sym)}")
        lines += [f"  {step}" for step in e.steps]
        return "Game recall", lines
    if m.page == "events":
        rows = [r for r in cab.history.events(EVENT_LOG_DEPTH)
                if r["kind"] not in EVENT_LOG_HIDDEN]
        return "Event log", [event_line(r, sym) for r in rows] or ["No events."]
    if m.page == "money_history":
        lines = []
        for st in s.stations:
            bills = ", ".join(money(b, sym) for b in reversed(st.last_bills_minor)) or "none"
            lines.append(f"Station {st.station} last bills: {bills}")
        for v in cab.history.vouchers(35):
            shown = v.validation_number[-4:].rjust(18, "*")
            lines.append(f"Voucher #{v.sequence} {shown} {money(v.amount_minor, sym)} {v.status}")
        return "Bills and vouchers", lines
    if m.page in diagnostics.PAGES:                     # issue 15
        return diagnostics.page_lines(cab)
    if m.page == "settings":
        lines = ["Changes apply between rounds and are logged."]
        if m.confirm:
            lines.append(m.confirm)
        return "Settings", lines
    if m.page == "faults":
        lines = cab.fault_lines()
        if s.audit_failed:
            lines.insert(0, fault_text("audit_mismatch") + " (RAM clear required)")
        if s.ram_error:
            lines.insert(0, fault_text("ram_error"))
        return "Faults", (lines or ["No faults."]) + [
            "Device faults clear when the device reports healthy; Select asks every device now."]
    if m.page == "ram_clear":
        return "RAM clear", ram_clear_lines(cab)
    if m.page == "host":                                  # issue 13
        return host_page(s, cab.program_id, cab.program_digest, cab.host_polls)
    return m.page, []


def program_line(cab: MaintenanceContext) -> str:
    """``"Program: blackjack-cabinet 0.1.0 · SHA-256 3f2a...9c01"`` (issue 11.18), or the
    unverified / mismatch note."""
    pid = cab.program_id or "unknown"
    if cab.program_status == "unverified":
        return f"Program: {pid} · UNVERIFIED (no manifest)"
    d = cab.program_digest
    tail = " · DOES NOT MATCH: reinstall" if cab.program_status == "mismatch" else ""
    return f"Program: {pid} · SHA-256 {d[:8]}...{d[-8:]}{tail}"

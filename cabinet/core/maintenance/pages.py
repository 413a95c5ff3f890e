"""The maintenance menu's pages as the UI draws them.

Owns: the main menu's items, every page's title, lines and list (``view``), the
hints, and paging long pages (``PAGE_LINES``). What a key press does is
``menu``; the Settings, RAM clear and Event log pages' own content comes from
their modules. Pure: journal rows as handed in (``MaintenanceContext.shown``).
"""

from __future__ import annotations

import cabinet.core.maintenance.diagnostics as diagnostics
import cabinet.core.maintenance.entry as entry
import cabinet.core.maintenance.history as history
import cabinet.core.maintenance.pin as pin
from cabinet.core import access
from cabinet.core.context import MaintenanceContext
from cabinet.core.errors import fault_text, present
from cabinet.core.host_page import host_page
from cabinet.core.maintenance.event_log import EVENT_LOG_DEPTH, EVENT_LOG_HIDDEN, event_line
from cabinet.core.maintenance.meters_page import meters_lines
from cabinet.core.maintenance.ram_clear import ram_clear_lines
from cabinet.core.maintenance.recall_view import recall_view
from cabinet.core.maintenance.settings_editor import SETTING_CHOICES, setting_items
from cabinet.core.settings import MENU_ENTRY
from cabinet.protocol.money import fmt_money as money
from cabinet.protocol.snapshot import MaintenanceView

#: The main menu, top to bottom; ``access.TECHNICIAN_PAGES`` need the technician PIN
#: (the first seven keep their places from before the technician level).
MAIN_ITEMS = [
    ("meters", "Meters"),
    ("recall", "Game recall"),
    ("events", "Event log"),
    ("bills", "Bill history"),
    ("diagnostics", "Diagnostics"),
    ("settings", "Settings"),
    ("faults", "Faults"),
    ("vouchers", "Voucher history"),
    ("handpays", "Handpay history"),
    ("host", "Host"),
    ("pin_change", "Change PIN"),
    ("export", "Export audit report"),
    ("ram_clear", "RAM clear"),
]
HINT = "Up/Down: choose   Select: open or change   Back: return   Key off: leave"
#: Body lines shown at once on a page without a list (meters, event log...);
#: Up/Down page through longer ones. 16 fit the 1080-high layout with a footer.
PAGE_LINES = 16
#: The Faults page's one item: every device reports its state again.
FAULTS_ITEM = "Re-check devices, clear engine faults"
RECALL_HINT = "Up: newer round   Down: older round   Back: return   Key off: leave"
EVENTS_HINT = "Select: next filter   Up/Down: pages   Back: return   Key off: leave"
ENTRY_HINT = "Up/Down: character   Select: type it   Back: cancel   Touch a key to type it"
DEVICE_TEST_HINT = "Buttons are only shown here   Cash Out twice (within 1 s) or BACK: menu   Key off: leave"


def page_items(cab: MaintenanceContext) -> list[str]:
    """The current page's list (what Up/Down move through); empty: a page of lines."""
    m = present(cab.s.maintenance, "the operator menu")
    if m.entry is not None:
        return entry.entry_items(m.entry)
    if m.page == "main":
        return [
            label + (" (technician)" if key in access.TECHNICIAN_PAGES and m.level != "technician" else "")
            for key, label in MAIN_ITEMS
        ]
    if m.page == "settings":
        return setting_items(cab)
    if m.page == "recall":
        entries = cab.shown.recall(0, cab.s.settings.recall_depth)
        return [
            f"Round {e.round_id} station {e.station}: net "
            f"{money(e.returned_minor - e.wagered_minor)}" + (" VOID" if e.voided else "")
            for e in entries
        ]
    if m.page == "ram_clear":
        return ["Confirm RAM clear"]
    if m.page == "pin_change":
        return ["Change the technician PIN"]
    if m.page == "export":
        return ["Write the audit report"]
    if m.page == "faults":
        return [FAULTS_ITEM]
    if m.page in diagnostics.PAGES:
        return diagnostics.items(cab)
    return []


def view(cab: MaintenanceContext) -> MaintenanceView:
    """The current page as the UI draws it."""
    m = present(cab.s.maintenance, "the operator menu")
    title, lines = page_lines(cab)
    items = page_items(cab)
    if not items and len(lines) > PAGE_LINES:
        first = min(m.scroll, (len(lines) - 1) // PAGE_LINES * PAGE_LINES)
        shown = lines[first : first + PAGE_LINES]
        last = first + len(shown)
        more = "Down: more" if last < len(lines) else "Up: back"
        lines = shown + [f"-- lines {first + 1}-{last} of {len(lines)} ({more}) --"]
    hint = (
        ENTRY_HINT
        if m.entry is not None
        else DEVICE_TEST_HINT
        if m.page == diagnostics.BUTTONS_PAGE
        else EVENTS_HINT
        if m.page == "events"
        else RECALL_HINT
        if m.page == "recall"
        else HINT
    )
    recall = None
    if m.page == "recall" and m.entry is None:
        entries = cab.shown.recall(0, cab.s.settings.recall_depth)
        if entries:
            i = min(m.selected, len(entries) - 1)
            recall = recall_view(entries[i], i + 1, len(entries))
    return MaintenanceView(
        page=m.page, title=title, lines=lines, items=items, selected=m.selected, hint=hint, level=m.level, recall=recall
    )


def page_lines(cab: MaintenanceContext) -> tuple[str, list[str]]:
    s = cab.s
    m = present(s.maintenance, "the operator menu")
    sym = s.settings.currency_symbol
    if m.entry is not None:
        return _entry_page(cab)
    if m.page == "main":
        head = ["RAM ERROR: only a RAM clear restores play."] if s.ram_error else []
        if s.needs_config:
            head.append("Configuration required: open Settings and save.")
        level = f"Level: {m.level}" + ("" if m.level == "technician" else " (items marked technician ask for the PIN)")
        return "Maintenance", head + ([m.confirm] if m.confirm else []) + [
            f"Game: {cab.rules.name} · Rounds played: {s.round_id}",
            f"Power-ups: {s.power_ups}",
            level,
            program_line(cab),
        ]
    if m.page == "meters":
        return "Meters", meters_lines(s, cab.rules.name)
    if m.page == "recall":
        entries = cab.shown.recall(0, s.settings.recall_depth)
        if not entries:
            return "Game recall", ["No rounds recorded yet."]
        e = entries[min(m.selected, len(entries) - 1)]
        lines = [
            f"RECALL MODE - round {e.round_id}, station {e.station}, {e.variant}" + (" (VOIDED)" if e.voided else ""),
            f"Credits before {money(e.credits_before_minor, sym)} · after {money(e.credits_after_minor, sym)}",
            f"Wagered {money(e.wagered_minor, sym)} (insurance "
            f"{money(e.insurance_minor, sym)}) · returned {money(e.returned_minor, sym)}",
        ]
        if e.jackpot_handpay_minor:
            lines.append(
                f"Jackpot handpay {money(e.jackpot_handpay_minor, sym)} "
                "(paid by the attendant, not to the credit meter)"
            )
        d = e.result.get("dealer", {})
        lines.append(f"Dealer: {' '.join(d.get('cards', []))} ({d.get('total', '')})")
        for sp in e.result.get("spots", []):
            for i, h in enumerate(sp["hands"], 1):
                lines.append(f"Seat {sp['seat']} spot {sp['spot']} hand {i}: {' '.join(h['cards'])} = {h['total']}")
                lines.append(f"{h['outcome']}: stake {money(h['stake'], sym)} · paid {money(h['returned'] or 0, sym)}")
        lines += [f"  {step}" for step in e.steps]
        return "Game recall", lines
    if m.page == "events":
        rows = history.filtered_events(cab, m.filter, EVENT_LOG_DEPTH, EVENT_LOG_HIDDEN)
        return f"Event log: {m.filter}", [event_line(r, sym) for r in rows] or ["No events."]
    if m.page == "bills":
        return "Bill history", history.bill_lines(cab)
    if m.page == "vouchers":
        return "Voucher history", history.voucher_lines(cab)
    if m.page == "handpays":
        return "Handpay history", history.handpay_lines(cab)
    if m.page == "pin_change":
        return "Change PIN", [
            "The technician PIN: 4-8 digits, typed twice.",
            "Only its salted scrypt hash is kept.",
        ] + ([m.confirm] if m.confirm else [])
    if m.page == "export":
        op = s.operator
        since = history.when(op.exported_wall_s) if op.exported_wall_s else "never"
        return "Export audit report", [
            "Meters per station, bills by denomination, handpays.",
            f"Figures since the last export (last: {since}).",
            "Written to a USB stick when one is mounted.",
        ] + ([m.confirm] if m.confirm else [])
    if m.page in diagnostics.PAGES:
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
            "Device faults clear when the device reports healthy; Select asks every device now."
        ]
    if m.page == "ram_clear":
        return "RAM clear", ram_clear_lines(cab)
    if m.page == "host":
        return host_page(s, cab.program_id, cab.program_digest, cab.host_polls)
    return m.page, []


def _entry_page(cab: MaintenanceContext) -> tuple[str, list[str]]:
    m = present(cab.s.maintenance, "the operator menu")
    e = present(m.entry, "the menu's entry")
    if e.kind == "pin":
        left = pin.locked_s(cab.s.operator.pin)
        live = f"PIN entry locked: {left} s left" if left else ""  # counts down on ticks
        if not left and "locked" in e.message:  # a lockout message frozen at the time
            live = "The lockout is over: type the PIN"
        return "Technician PIN", entry.entry_lines(cab, e, "Technician PIN", live)
    if e.kind == "pin_new":
        return "New PIN", entry.entry_lines(cab, e, "New technician PIN (4-8 digits)")
    if e.kind == "pin_confirm":
        return "New PIN", entry.entry_lines(cab, e, "The new PIN again")
    label = next((lb for k, lb, _ in SETTING_CHOICES if k == e.key), e.key)
    return f"Settings: {label}", entry.entry_lines(cab, e, f"{label} ({_entry_range(e.key)})")


def _entry_range(key: str) -> str:
    kind = MENU_ENTRY[key]
    return {
        "money": "an amount, e.g. 25 or 12.50",
        "money_list": "amounts, e.g. 1,5,25",
        "number": "a number",
        "text": "letters, digits, space",
    }[kind]


def program_line(cab: MaintenanceContext) -> str:
    """``"Program: blackjack-cabinet 0.1.0 · SHA-256 3f2a...9c01"``, or the
    development-build / mismatch note."""
    pid = cab.program_id or "unknown"
    if cab.program_status == "development":
        return f"Program: {pid} · DEVELOPMENT BUILD (not a signed release)"
    d = cab.program_digest
    tail = " · DOES NOT MATCH: reinstall" if cab.program_status == "mismatch" else ""
    return f"Program: {pid} · SHA-256 {d[:8]}...{d[-8:]}{tail}"

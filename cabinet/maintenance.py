"""The operator's maintenance menu: pages, navigation, settings, RAM clear.

Owns: the menu's pages and what Up/Down/Select/Back do on each
(research/cabinet-features.md I "Audit / test mode"), and the page views.
Pure: it changes the cabinet only through ``Cabinet`` methods and reads
history through the injected ``History``. Entered with the operator key,
between rounds only; play is impossible inside it and notes are refused.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import msgspec

from cabinet.effects import Effect, Journal
from cabinet.errors import fault_text
from cabinet.rules_text import money
from cabinet.settings import GameSettings
from cabinet.snapshot import MaintenanceView

if TYPE_CHECKING:
    from cabinet.machine import Cabinet

MAIN_ITEMS = [("meters", "Meters"), ("recall", "Game recall"), ("events", "Event log"),
              ("money_history", "Bills and vouchers"), ("device_test", "Device test"),
              ("settings", "Settings"), ("faults", "Faults"), ("ram_clear", "RAM clear")]

#: Choices offered for each adjustable setting (``None``: the variant's default).
SETTING_CHOICES: list[tuple[str, str, list[Any]]] = [
    ("variant", "Game", ["classic", "classic-multi", "american"]),
    ("stations", "Stations", [1, 2, 3]),
    ("spots_per_station", "Spots per station", [None, 1, 2, 3]),
    ("min_bet_minor", "Minimum bet", [None, 100, 200, 500, 1_000, 2_500]),
    ("max_bet_minor", "Maximum bet", [None, 5_000, 10_000, 25_000, 50_000, 100_000]),
    ("penetration_percent", "Cut card", [None, 50, 60, 70, 75, 80, 85]),
    ("voucher_limit_minor", "Voucher limit", [50_000, 120_000, 300_000]),
    ("jackpot_limit_minor", "Jackpot handpay limit", [120_000, 200_000, 500_000]),
    ("credit_limit_minor", "Credit limit", [100_000, 300_000, 500_000]),
    ("voucher_expiry_days", "Voucher expiry (days)", [7, 30, 90, 365]),
]
MONEY_SETTINGS = {"min_bet_minor", "max_bet_minor", "voucher_limit_minor", "credit_limit_minor",
                  "jackpot_limit_minor"}
HINT = "Up/Down: choose   Select: open or change   Back: return   Key off: leave"
#: Body lines shown at once on a page without a list (meters, event log...);
#: Up/Down page through longer ones. 16 fit the 1080-high layout with a footer.
PAGE_LINES = 16
#: Journal kinds the Event log page leaves out (menu navigation: it stays in
#: the journal and the CLI's ``cabinet events``).
EVENT_LOG_HIDDEN = frozenset({"maintenance_page"})
#: Newest events the Event log page pages through.
EVENT_LOG_DEPTH = 200


def _items(cab: Cabinet) -> list[str]:
    m = cab.s.maintenance
    assert m is not None
    if m.page == "main":
        return [label for _, label in MAIN_ITEMS]
    if m.page == "settings":
        return [f"{label}: {_fmt_setting(cab, key)}" for key, label, _ in SETTING_CHOICES] + \
            ["Save settings", "Discard changes"]
    if m.page == "recall":
        entries = cab.history.recall(0, cab.s.settings.recall_depth)
        return [f"Round {e.round_id} station {e.station}: net "
                f"{money(e.returned_minor - e.wagered_minor)}" + (" VOID" if e.voided else "")
                for e in entries]
    if m.page == "ram_clear":
        return ["Confirm RAM clear"]
    if m.page == "faults":
        return ["Clear engine faults"]
    return []


def _draft_value(cab: Cabinet, key: str) -> Any:
    m = cab.s.maintenance
    assert m is not None
    if key in m.draft:
        return m.draft[key]
    return getattr(cab.s.settings, key)


def _fmt_setting(cab: Cabinet, key: str) -> str:
    v = _draft_value(cab, key)
    if v is None:
        return "default"
    if key in MONEY_SETTINGS:
        return money(v, cab.s.settings.currency_symbol)
    if key == "penetration_percent":
        return f"{v} %"
    return str(v)


def handle(cab: Cabinet, action: str, out: list[Effect]) -> None:
    """Apply one menu intent (``menu_up``, ``menu_down``, ``menu_select``, ``menu_back``)."""
    m = cab.s.maintenance
    assert m is not None
    items = _items(cab)
    if action in ("menu_up", "menu_down") and not items:
        # a page without a list: Up/Down turn its pages of body lines
        total = len(_page_lines(cab)[1])
        step = PAGE_LINES if action == "menu_down" else -PAGE_LINES
        m.scroll = max(0, min(m.scroll + step, (max(total, 1) - 1) // PAGE_LINES * PAGE_LINES))
    elif action == "menu_up":
        m.selected = max(0, m.selected - 1)
        m.confirm = ""
    elif action == "menu_down":
        m.selected = min(len(items) - 1, m.selected + 1)
        m.confirm = ""
    elif action == "menu_back":
        if m.page != "main":
            back_to = [k for k, _ in MAIN_ITEMS].index(m.page) if m.page in dict(MAIN_ITEMS) else 0
            m.page, m.selected, m.confirm, m.draft, m.scroll = "main", back_to, "", {}, 0
    elif action == "menu_select":
        _select(cab, out)


def _select(cab: Cabinet, out: list[Effect]) -> None:
    m = cab.s.maintenance
    assert m is not None
    if m.page == "main":
        key = MAIN_ITEMS[min(m.selected, len(MAIN_ITEMS) - 1)][0]
        m.page, m.selected, m.confirm, m.draft, m.scroll = key, 0, "", {}, 0
        out.append(Journal("maintenance_page", 0, 0, {"page": key}))
    elif m.page == "settings":
        n = len(SETTING_CHOICES)
        if m.selected < n:
            key, _, choices = SETTING_CHOICES[m.selected]
            cur = _draft_value(cab, key)
            nxt = choices[(choices.index(cur) + 1) % len(choices)] if cur in choices else choices[0]
            m.draft = {**m.draft, key: nxt}
            m.confirm = ""
        elif m.selected == n:
            merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
            try:
                settings = msgspec.convert(merged, GameSettings)
            except msgspec.ValidationError as e:
                m.confirm = f"Refused: {e}"
                return
            err = cab.apply_settings(settings, out)
            m.confirm = f"Refused: {err}" if err else "Saved"
            if not err:
                m.draft = {}
        else:
            m.draft = {}
            m.confirm = "Changes discarded"
    elif m.page == "ram_clear":
        if m.confirm == "armed":
            cab.ram_clear(out)
        else:
            m.confirm = "armed"
    elif m.page == "faults":
        # Device faults clear when the device reports healthy; an engine fault
        # (a bug caught by the runtime) is cleared here by the operator.
        engine = [c for c in cab.s.faults if not c.startswith(("bill_", "printer_"))]
        if engine:
            cab.s.faults = {c: t for c, t in cab.s.faults.items() if c not in engine}
            out.append(Journal("faults_cleared", 0, 0, {"codes": engine}))


def view(cab: Cabinet) -> MaintenanceView:
    """The current page as the UI draws it."""
    m = cab.s.maintenance
    assert m is not None
    title, lines = _page_lines(cab)
    items = _items(cab)
    if not items and len(lines) > PAGE_LINES:
        first = min(m.scroll, (len(lines) - 1) // PAGE_LINES * PAGE_LINES)
        shown = lines[first:first + PAGE_LINES]
        last = first + len(shown)
        more = "Down: more" if last < len(lines) else "Up: back"
        lines = shown + [f"-- lines {first + 1}-{last} of {len(lines)} ({more}) --"]
    return MaintenanceView(page=m.page, title=title, lines=lines, items=items,
                           selected=m.selected, hint=HINT)


def _page_lines(cab: Cabinet) -> tuple[str, list[str]]:
    s = cab.s
    m = s.maintenance
    assert m is not None
    sym = s.settings.currency_symbol
    if m.page == "main":
        head = ["RAM ERROR: only a RAM clear restores play."] if s.ram_error else []
        if s.needs_config:
            head.append("Configuration required: open Settings and save.")
        return "Maintenance", head + [f"Game: {cab.rules.name} · Rounds played: {s.round_id}",
                                      f"Power-ups: {s.power_ups}"]
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
    if m.page == "device_test":
        return "Device test", [
            "Press any player button: it is shown here and does not play.",
            f"Last button: {s.last_button or '-'}",
            f"Doors open: {', '.join(s.doors_open) or 'none'}",
            f"Faults: {', '.join(fault_text(c) for c in s.faults) or 'none'}",
        ]
    if m.page == "settings":
        lines = ["Changes apply between rounds and are logged."]
        if m.confirm:
            lines.append(m.confirm)
        return "Settings", lines
    if m.page == "faults":
        lines = [fault_text(c) for c in s.faults]
        if s.audit_failed:
            lines.insert(0, fault_text("audit_mismatch") + " (RAM clear required)")
        if s.ram_error:
            lines.insert(0, fault_text("ram_error"))
        return "Faults", lines or ["No faults."]
    if m.page == "ram_clear":
        lines = ["Erases credits, meters, vouchers and history. Settings must be saved",
                 "again before play resumes."]
        if m.confirm == "armed":
            lines.append("Select once more to confirm.")
        return "RAM clear", lines
    return m.page, []


def event_line(row: dict[str, Any], sym: str = "$") -> str:
    """One journal event for the Event log page, newest first on the page.

    ``row``: a ``History.events`` row (``wall_s``, ``kind``, ``station``,
    ``amount_minor``, ``data``). Returns e.g. ``"11-30 06:41:02  door open
    cabinet  main door"``: local date and time, what, where (a station or
    the cabinet), the amount if any and the detail that matters; validation
    numbers show their last 4 digits only (research B "last 35 vouchers").
    """
    when = time.strftime("%m-%d %H:%M:%S", time.localtime(row["wall_s"]))
    where = f"station {row['station']}" if row["station"] else "cabinet"
    amount = money(row["amount_minor"], sym) if row["amount_minor"] else ""
    parts = [when, row["kind"].replace("_", " "), where, amount,
             _event_detail(row["kind"], row["data"], sym)]
    return " · ".join(p for p in parts if p)


def _event_detail(kind: str, d: dict[str, Any], sym: str) -> str:
    if "code" in d:
        return fault_text(str(d["code"]))
    if "codes" in d:
        return ", ".join(fault_text(str(c)) for c in d["codes"])
    if "door" in d:
        return f"{d['door']} door"
    if kind == "settings_changed":
        old, new = d.get("old", {}), d.get("new", {})
        return "changed " + (", ".join(k for k in sorted(new) if old.get(k) != new[k]) or "nothing")
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
    if "credited" in d:                 # issue 11.1 / 11.10: notes taken, not credited
        detail.append("credited" if d["credited"] else "not credited")
    if d.get("via") == "attendant":
        detail.append("credited by the attendant's key")
    if "page" in d:
        detail.append(str(d["page"]))
    return ", ".join(detail)

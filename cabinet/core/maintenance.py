"""The operator's maintenance menu: pages, navigation, settings, RAM clear.

Owns: the menu's pages and what Up/Down/Select/Back do on each
(research/cabinet-features.md I "Audit / test mode"), and the page views.
Pure: it takes a ``MaintenanceContext`` (``cabinet.core.context``), not the
``Cabinet``; it changes the cabinet only through its methods and reads
history through the injected ``History``. Entered with the operator key,
between rounds only; play is impossible inside it and notes are refused.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec

from cabinet.core import access
from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect, Journal, PollDevices
from cabinet.core.errors import fault_text
from cabinet.core.rules_text import money
from cabinet.core.settings import GameSettings
from cabinet.protocol.snapshot import MaintenanceView

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
#: The Faults page's one item: every device reports its state again (issue 10.1).
FAULTS_ITEM = "Re-check devices, clear engine faults"


def _items(cab: MaintenanceContext) -> list[str]:
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
        return [FAULTS_ITEM]
    return []


def _draft_value(cab: MaintenanceContext, key: str) -> Any:
    m = cab.s.maintenance
    assert m is not None
    if key in m.draft:
        return m.draft[key]
    return getattr(cab.s.settings, key)


def _draft_settings(cab: MaintenanceContext) -> GameSettings:
    """The settings as the draft would save them (not validated)."""
    m = cab.s.maintenance
    assert m is not None
    if not m.draft:
        return cab.s.settings
    merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
    try:
        return msgspec.convert(merged, GameSettings)
    except msgspec.ValidationError:
        return cab.s.settings


def _in_force(cab: MaintenanceContext, key: str) -> str:
    """The value a ``None`` (default) setting has in the draft game (issue 10.9)."""
    r = _draft_settings(cab).rules_or_preset()
    sym = cab.s.settings.currency_symbol
    if key == "spots_per_station":
        return str(r.max_spots_per_seat)
    if key == "min_bet_minor":
        return money(r.min_bet_minor, sym)
    if key == "max_bet_minor":
        return money(r.max_bet_minor, sym)
    if key == "penetration_percent":
        return "shuffle every round" if r.shuffle_every_round else f"{r.penetration_percent} %"
    return "game default"


#: The factory value of every operator setting (``GameSettings``' field defaults).
_FACTORY = {f.name: f.default for f in msgspec.structs.fields(GameSettings)}


def _fmt_setting(cab: MaintenanceContext, key: str) -> str:
    v = _draft_value(cab, key)
    if v is None:
        return f"{_in_force(cab, key)} (default)"
    if key in MONEY_SETTINGS:
        text = money(v, cab.s.settings.currency_symbol)
    elif key == "penetration_percent":
        text = f"{v} %"
    else:
        text = str(v)
    return f"{text} (default)" if key != "variant" and v == _FACTORY.get(key) else text


#: Panel buttons in the menu (the core maps them, so the Device test page can
#: see the button itself): Hit and Bet- go down, Bet+ up, Deal and Stand select,
#: Cash Out goes back.
BUTTON_MENU = {"hit": "menu_down", "bet_down": "menu_down", "bet_up": "menu_up",
               "deal": "menu_select", "stand": "menu_select", "cash_out": "menu_back"}
#: Player-facing names of the panel's buttons (as on the buttons and the screen).
BUTTON_NAMES = {"deal": "Deal", "hit": "Hit", "stand": "Stand", "split": "Split",
                "double": "Double", "insure": "Insure", "decline": "No insurance",
                "bet_up": "Bet +", "bet_down": "Bet -", "cash_out": "Cash Out",
                "menu_up": "Up", "menu_down": "Down", "menu_select": "Select"}
#: Cash Out pressed twice within this many ms leaves the Device test page.
TEST_EXIT_MS = 1_000
DEVICE_TEST_HINT = ("Buttons are only shown here   Cash Out twice (within 1 s) or BACK: "
                    "menu   Key off: leave")


def button_name(action: str, value: int | None, sym: str = "$") -> str:
    """The player-facing name of a pressed button: ``"Cash Out"``, ``"$5 chip"``..."""
    if action == "chip" and value is not None:
        return f"{money(value, sym).removesuffix('.00')} chip"
    if action == "place" and value is not None:
        return f"Spot {value}"
    return BUTTON_NAMES.get(action, action.replace("_", " ").capitalize())


def press(cab: MaintenanceContext, action: str, value: int | None, out: list[Effect],
          station: int = 1) -> None:
    """A button or menu intent in maintenance (the panel's buttons come raw).

    On the Device test page a panel button is only shown (issue 10.7), Cash Out
    too; Cash Out twice within ``TEST_EXIT_MS`` or ``menu_back`` (the screen's
    BACK) leave; on a table of several stations the press is named with its
    station ("Station 2 Stand"). Elsewhere panel buttons map to menu moves
    (``BUTTON_MENU``).
    """
    m = cab.s.maintenance
    assert m is not None
    if m.page == "device_test" and action != "menu_back":
        now = cab.s.now_ms
        if action == "cash_out" and m.cash_out_ms is not None \
                and now - m.cash_out_ms <= TEST_EXIT_MS:
            handle(cab, "menu_back", out)
            return
        m.cash_out_ms = now if action == "cash_out" else None
        name = button_name(action, value, cab.s.settings.currency_symbol)
        if len(cab.s.stations) > 1:
            name = f"Station {station} {name}"
        cab.s.last_button = name
        if name not in m.pressed:
            m.pressed = m.pressed + [name]
        return
    action = BUTTON_MENU.get(action, action)
    if action in ("menu_up", "menu_down", "menu_select", "menu_back"):
        handle(cab, action, out)


def handle(cab: MaintenanceContext, action: str, out: list[Effect]) -> None:
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
            m.pressed, m.cash_out_ms = [], None
    elif action == "menu_select":
        _select(cab, out)


def _select(cab: MaintenanceContext, out: list[Effect]) -> None:
    m = cab.s.maintenance
    assert m is not None
    if m.page == "main":
        key = MAIN_ITEMS[min(m.selected, len(MAIN_ITEMS) - 1)][0]
        m.page, m.selected, m.confirm, m.draft, m.scroll = key, 0, "", {}, 0
        out.append(Journal("maintenance_page", 0, 0, {"page": key}))
        if key == "faults":
            out.append(PollDevices())
    elif m.page == "settings":
        n = len(SETTING_CHOICES)
        if m.selected < n:
            key, _, choices = SETTING_CHOICES[m.selected]
            cur = _draft_value(cab, key)
            nxt = choices[(choices.index(cur) + 1) % len(choices)] if cur in choices else choices[0]
            if key == "variant":
                # issue 10.9: each game has its own limits; switching swaps them
                game = _draft_settings(cab).with_variant(nxt)
                new = msgspec.to_builtins(game)
                old = msgspec.to_builtins(cab.s.settings)
                m.draft = {k: v for k, v in new.items() if old.get(k) != v}
            else:
                m.draft = {**m.draft, key: nxt}
            m.confirm = ""
        elif m.selected == n:
            merged = {**msgspec.to_builtins(cab.s.settings), **m.draft}
            try:
                settings = msgspec.convert(merged, GameSettings)
            except msgspec.ValidationError as e:
                m.confirm = f"Refused: {e}"
                return
            stations_before = cab.s.settings.stations
            err = cab.apply_settings(settings, out)
            m.confirm = f"Refused: {err}" if err else "Saved" if \
                settings.stations == stations_before else \
                "Saved: restart the cabinet to set up the new stations' devices"
            if not err:
                m.draft = {}
        else:
            m.draft = {}
            m.confirm = "Changes discarded"
    elif m.page == "ram_clear":
        refusal = ram_clear_refusal(cab)
        if refusal:
            m.confirm = f"Refused: {refusal}"
            out.append(Journal("ram_clear_refused", 0, 0,
                               {"reason": refusal, "access": access_name(cab.s)}))
        elif m.confirm == "armed":
            cab.ram_clear(out)
        else:
            m.confirm = "armed"
    elif m.page == "faults":
        # Device faults clear when the device reports healthy (asked again here:
        # a fault journaled before a restart must not outlive its cause, issue
        # 10.1); an engine fault (a bug caught by the runtime) is cleared here by
        # the operator; a program mismatch only by a reinstall (issue 11.18).
        out.append(PollDevices())
        engine = [c for c in cab.s.faults if not c.startswith(("bill_", "printer_", "program_"))]
        if engine:
            cab.s.faults = {c: t for c, t in cab.s.faults.items() if c not in engine}
            out.append(Journal("faults_cleared", 0, 0, {"codes": engine}))


def access_name(s: Any) -> str:
    """The access level the cabinet state ``s`` grants now (``cabinet.core.access``)."""
    return access.name(access.level(s.key_on, s.doors_open))


def ram_clear_summary(cab: MaintenanceContext) -> dict[str, Any]:
    """What a RAM clear would erase and keep now (issues 10.2, 11.12).

    Returns ``{"credits_minor": {"1": int, ...}, "pending_out_minor": {...},
    "handpays_minor": [int, ...], "outstanding_vouchers": int,
    "outstanding_vouchers_minor": int}``; station keys are strings (journal JSON).
    """
    s = cab.s
    handpays = ([s.handpay] if s.handpay is not None else []) + list(s.handpay_queue)
    vouchers = cab.history.outstanding_vouchers()
    return {"credits_minor": {str(st.station): st.credits_minor for st in s.stations},
            "pending_out_minor": {str(st.station): st.pending_out_minor for st in s.stations},
            "handpays_minor": [hp.amount_minor for hp in handpays],
            "outstanding_vouchers": len(vouchers),
            "outstanding_vouchers_minor": sum(v.amount_minor for v in vouchers)}


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


def ram_clear_refusal(cab: MaintenanceContext) -> str:
    """Why a RAM clear may not be done now, or ``""`` if it may.

    Rule (issues 10.2, 11.12): with credits, a pending handpay or
    outstanding vouchers on the cabinet it needs ``access.Level.TECHNICIAN``;
    otherwise the attendant (the operator key) may do it.
    """
    stakes = _ram_clear_stakes(ram_clear_summary(cab))
    lv = access.level(cab.s.key_on, cab.s.doors_open)
    if stakes and lv < access.Level.TECHNICIAN:
        return f"{' and '.join(stakes)} on the cabinet: needs the technician level"
    return ""


def _ram_clear_lines(cab: MaintenanceContext) -> list[str]:
    s = cab.s
    m = s.maintenance
    assert m is not None
    sym = s.settings.currency_symbol
    summary = ram_clear_summary(cab)
    lines = ["A RAM clear erases:"]
    for st in s.stations:
        line = f"- Station {st.station} credits {money(st.credits_minor, sym)}"
        if st.pending_out_minor:
            line += f" (+ {money(st.pending_out_minor, sym)} waiting to be paid)"
        lines.append(line)
    hps = summary["handpays_minor"]
    lines.append("- Pending handpays: " + (f"{len(hps)} (" + ", ".join(
        money(a, sym) for a in hps) + ")" if hps else "none"))
    lines.append("- Meters, game recall, bill history and the event log")
    n = summary["outstanding_vouchers"]
    lines.append("It keeps:")
    lines.append(f"- {n} outstanding voucher{'' if n == 1 else 's'} "
                 f"({money(summary['outstanding_vouchers_minor'], sym)}), redeemable once"
                 if n else "- Outstanding vouchers: none")
    lines.append("- Its own record in the event log (dated, with what it erased)")
    lines.append("- The settings (save them again before play resumes)")
    need = access.Level.TECHNICIAN if _ram_clear_stakes(summary) else access.Level.ATTENDANT
    lines.append(f"Needs the {access.name(need)} level ({access.HOW[need]}). "
                 f"Now: {access_name(s)}.")
    if m.confirm == "armed":
        lines.append("Select once more to confirm.")
    elif m.confirm.startswith("Refused:") and not ram_clear_refusal(cab):
        pass                        # the level is reached now: the old refusal no longer holds
    elif m.confirm:
        lines.append(m.confirm)
    return lines


def view(cab: MaintenanceContext) -> MaintenanceView:
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
                           selected=m.selected,
                           hint=DEVICE_TEST_HINT if m.page == "device_test" else HINT)


def _page_lines(cab: MaintenanceContext) -> tuple[str, list[str]]:
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
    if m.page == "device_test":
        return "Device test", [
            "Press any player button: it is shown here and does not play.",
            "Cash Out twice within 1 s, BACK on the screen, or the key return to the menu.",
            f"Last button: {m.pressed and s.last_button or '-'}",
            f"Pressed: {', '.join(m.pressed) or 'none yet'}",
            f"Doors open: {', '.join(s.doors_open) or 'none'}",
            f"Faults: {', '.join(cab.fault_lines()) or 'none'}",
        ]
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
        return "RAM clear", _ram_clear_lines(cab)
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
    if "access" in d:
        detail.append(f"by {d['access']}")
    if "outstanding_vouchers" in d:
        detail.append(f"{d['outstanding_vouchers']} outstanding vouchers kept")
    return ", ".join(detail)

"""The maintenance menu's navigation: what Up/Down/Select/Back and the panel's
buttons do on each page.

Owns: the panel-button-to-menu map, the Device test page's presses (shown, not
played), moving and paging, touching a row (``menu_pick``), and
Select on every page: the technician's pages (``access.TECHNICIAN_PAGES``) ask
for the PIN first (``pin``), a typed value goes to ``entry``, the Settings page's
Select is ``settings_editor.select``, Export is ``export.start``. Every page
opened is journaled with the level. It changes the cabinet only through the
``MaintenanceContext``'s methods. Pure.
"""

from __future__ import annotations

import cabinet.core.maintenance.diagnostics as diagnostics
import cabinet.core.maintenance.entry as entry
import cabinet.core.maintenance.export as export
import cabinet.core.maintenance.history as history
import cabinet.core.maintenance.pin as pin
import cabinet.core.maintenance.settings_editor as settings_editor
from cabinet.core import access
from cabinet.core.context import OUTSTANDING, MaintenanceContext, rows_for
from cabinet.core.effects import Effect, Journal, PollDevices, Rejected
from cabinet.core.errors import present
from cabinet.core.maintenance.pages import MAIN_ITEMS, PAGE_LINES, page_items, page_lines
from cabinet.core.maintenance.ram_clear import access_name, ram_clear_refusal
from cabinet.core.state import EntryState
from cabinet.protocol.money import fmt_money as money

#: Panel buttons in the menu (the core maps them, so the Device test page can
#: see the button itself): Hit and Bet- go down, Bet+ up, Deal and Stand select,
#: Cash Out goes back.
BUTTON_MENU = {
    "hit": "menu_down",
    "bet_down": "menu_down",
    "bet_up": "menu_up",
    "deal": "menu_select",
    "stand": "menu_select",
    "cash_out": "menu_back",
}
#: Player-facing names of the panel's buttons (as on the buttons and the screen).
BUTTON_NAMES = {
    "deal": "Deal",
    "hit": "Hit",
    "stand": "Stand",
    "split": "Split",
    "double": "Double",
    "insure": "Insure",
    "decline": "No insurance",
    "bet_up": "Bet +",
    "bet_down": "Bet -",
    "cash_out": "Cash Out",
    "menu_up": "Up",
    "menu_down": "Down",
    "menu_select": "Select",
}
#: Cash Out pressed twice within this many ms leaves the Device test page.
TEST_EXIT_MS = 1_000


def button_name(action: str, value: int | None, sym: str = "$") -> str:
    """The player-facing name of a pressed button: ``"Cash Out"``, ``"$5 chip"``..."""
    if action == "chip" and value is not None:
        return f"{money(value, sym).removesuffix('.00')} chip"
    if action == "place" and value is not None:
        return f"Spot {value}"
    return BUTTON_NAMES.get(action, action.replace("_", " ").capitalize())


def press(cab: MaintenanceContext, action: str, value: int | None, out: list[Effect], station: int = 1) -> None:
    """A button or menu intent in maintenance (the panel's buttons come raw).

    On the Device test page a panel button is only shown, Cash Out
    too; Cash Out twice within ``TEST_EXIT_MS`` or ``menu_back`` (the screen's
    BACK) leave; on a table of several stations the press is named with its
    station ("Station 2 Stand"). Elsewhere panel buttons map to menu moves
    (``BUTTON_MENU``).
    """
    m = present(cab.s.maintenance, "the operator menu")
    if m.page == diagnostics.BUTTONS_PAGE and action != "menu_back":
        now = cab.s.now_ms
        if action == "cash_out" and m.cash_out_ms is not None and now - m.cash_out_ms <= TEST_EXIT_MS:
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
    if action in ("menu_up", "menu_down", "menu_select", "menu_back", "menu_pick"):
        handle(cab, action, out, value)


def handle(cab: MaintenanceContext, action: str, out: list[Effect], value: int | None = None) -> None:
    """Apply one menu intent (``menu_up``, ``menu_down``, ``menu_select``, ``menu_back``,
    ``menu_pick``: a touched row, ``value`` its index)."""
    m = present(cab.s.maintenance, "the operator menu")
    if m.page in access.TECHNICIAN_PAGES and m.level != "technician" and m.entry is None:
        m.page, m.selected = "main", 0  # never shown below its level (defence in depth)
    items = page_items(cab)
    if action == "menu_pick":
        if value is None or not 0 <= value < len(items):
            return
        m.selected = value
        action = "menu_select"
    if action in ("menu_up", "menu_down") and not items:
        # a page without a list: Up/Down turn its pages of body lines
        total = len(page_lines(cab)[1])
        step = PAGE_LINES if action == "menu_down" else -PAGE_LINES
        m.scroll = max(0, min(m.scroll + step, (max(total, 1) - 1) // PAGE_LINES * PAGE_LINES))
    elif action == "menu_up":
        m.selected = max(0, m.selected - 1)
        m.confirm = ""
    elif action == "menu_down":
        m.selected = min(len(items) - 1, m.selected + 1)
        m.confirm = ""
    elif action == "menu_back":
        if m.entry is not None:
            then = m.entry.then
            entry.cancel(cab, out)
            if then and m.page == "main":
                m.selected = _main_row(then)
        elif diagnostics.back(cab, out):
            pass  # a test page returns to Diagnostics
        elif m.page != "main":
            m.page, m.selected, m.confirm, m.draft, m.scroll = "main", _main_row(m.page), "", {}, 0
            m.pressed, m.cash_out_ms = [], None
    elif action == "menu_select":
        if m.entry is not None:
            was = m.entry.kind
            page = entry.select(cab, out)
            if page:
                _open(cab, page, out)
                if was == "pin_confirm":
                    m.confirm = "PIN changed"
        else:
            _select(cab, out)


def _main_row(page: str) -> int:
    keys = [k for k, _ in MAIN_ITEMS]
    return keys.index(page) if page in keys else 0


def _open(cab: MaintenanceContext, key: str, out: list[Effect]) -> None:
    """Open page ``key``, asking for the PIN first when it is the technician's."""
    m = present(cab.s.maintenance, "the operator menu")
    if key in access.TECHNICIAN_PAGES and m.level != "technician":
        m.page, m.selected = "main", 0
        m.entry = EntryState(kind="pin", then=key, row=_main_row(key))
        left = pin.locked_s(cab.s.operator.pin)
        if left:
            m.entry.message = f"PIN entry locked: {left} s left"
        out.append(Journal("menu_pin_asked", 0, 0, {"page": key, "level": m.level}))
        return
    m.page, m.selected, m.confirm, m.draft, m.scroll = key, 0, "", {}, 0
    out.append(Journal("maintenance_page", 0, 0, {"page": key, "level": m.level}))
    if key == "faults":
        out.append(PollDevices())


def _select(cab: MaintenanceContext, out: list[Effect]) -> None:
    m = present(cab.s.maintenance, "the operator menu")
    technician = m.level == "technician"
    if m.page == "main":
        _open(cab, MAIN_ITEMS[min(m.selected, len(MAIN_ITEMS) - 1)][0], out)
    elif m.page == "events":
        m.filter, m.scroll = history.next_filter(m.filter), 0
    elif m.page == "settings" and technician:
        settings_editor.select(cab, out)
    elif m.page == "pin_change" and technician:
        m.entry = EntryState(kind="pin_new", then="pin_change")
        m.selected = 0
    elif m.page == "export" and technician:
        export.start(cab, out)
    elif (
        m.page == diagnostics.PAGE
        and not technician
        and diagnostics.ITEMS[min(m.selected, len(diagnostics.ITEMS) - 1)][0] in diagnostics.TECHNICIAN_ITEMS
    ):
        _open(cab, diagnostics.ITEMS[min(m.selected, len(diagnostics.ITEMS) - 1)][0], out)
    elif m.page in diagnostics.PAGES:
        diagnostics.select(cab, out)
    elif m.page == "ram_clear":
        vouchers = rows_for(cab.handed, OUTSTANDING)  # read by the shell for this Select
        refusal = ram_clear_refusal(cab, vouchers) if vouchers is not None else ""
        if vouchers is None:
            m.confirm = "Not cleared: the outstanding vouchers were not read. Select again."
            out.append(Rejected("RAM clear", "outstanding vouchers not read"))
        elif refusal:
            m.confirm = f"Refused: {refusal}"
            out.append(Journal("ram_clear_refused", 0, 0, {"reason": refusal, "access": access_name(cab.s)}))
        elif m.confirm == "armed":
            cab.ram_clear(out, vouchers)
        else:
            m.confirm = "armed"
    elif m.page == "faults":
        # Device faults clear when the device reports healthy (asked again here:
        # a fault journaled before a restart must not outlive its cause, issue
        # 10.1); an engine fault (a bug caught by the runtime) is cleared here by
        # the operator; a program mismatch only by a reinstall.
        out.append(PollDevices())
        engine = [c for c in cab.s.faults if not c.startswith(("bill_", "printer_", "program_"))]
        if engine:
            cab.s.faults = {c: t for c, t in cab.s.faults.items() if c not in engine}
            out.append(Journal("faults_cleared", 0, 0, {"codes": engine, "level": m.level}))

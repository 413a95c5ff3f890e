"""The maintenance menu's navigation: what Up/Down/Select/Back and the panel's
buttons do on each page.

Owns: the panel-button-to-menu map, the Device test page's presses (shown, not
played, issue 10.7), moving and paging, and Select on the main, RAM clear and
Faults pages (the Settings page's is ``settings_editor.select``). It changes the
cabinet only through the ``MaintenanceContext``'s methods. Pure.
"""

from __future__ import annotations

from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect, Journal, PollDevices
from cabinet.core.maintenance import diagnostics, settings_editor
from cabinet.core.maintenance.pages import MAIN_ITEMS, PAGE_LINES, page_items, page_lines
from cabinet.core.maintenance.ram_clear import access_name, ram_clear_refusal
from cabinet.protocol.money import fmt_money as money

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
    if m.page == diagnostics.BUTTONS_PAGE and action != "menu_back":
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
    items = page_items(cab)
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
        if diagnostics.back(cab, out):
            pass                            # issue 15: a test page returns to Diagnostics
        elif m.page != "main":
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
        settings_editor.select(cab, out)
    elif m.page in diagnostics.PAGES:
        diagnostics.select(cab, out)
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

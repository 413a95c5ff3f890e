"""The maintenance menu's Diagnostics page and its tests (was "Device test").

Owns: the Diagnostics list (``ITEMS``) and each test page's list, lines, Select and
Back: the button and lamp test (each press shown live, each lamp lit in turn, the
"missing buttons" audit), the door and key switches live, the tower light test, the
bill acceptor test (``bill_test``), and the devices and program page. Also what
the lamps and the tower light show while a test runs (``lamps``, ``tower``), which
``Cabinet._refresh_outputs`` puts before the mode's own. Pure: time is the state's
``now_ms``.

Access: ``TECHNICIAN_ITEMS`` are the pages that move money (the bill test stacks
notes into the cash box): the menu's level check gates them; ``bill_test.select``
refuses below that level itself too.
"""

from __future__ import annotations

import cabinet.core.maintenance.bill_test as bill_test
from cabinet.core import access
from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect, Journal, PrintTestTicket, SendCue
from cabinet.core.errors import fault_text, present
from cabinet.core.state import CabinetState, StationState

#: The Diagnostics list: (page, label), in order.
ITEMS = [
    ("diag_buttons", "Button and lamp test"),
    ("diag_doors", "Door and key switches"),
    ("diag_tower", "Tower light test"),
    (bill_test.PAGE, "Bill acceptor test"),
    ("diag_printer", "Printer test ticket"),
    ("diag_sound", "Sound test"),
    ("diag_screen", "Screen colour and touch test"),
    ("diag_devices", "Devices and program"),
]
#: The Diagnostics list's own page.
PAGE = "diagnostics"
#: Every page of this module (the menu dispatches them here).
PAGES = frozenset({PAGE} | {k for k, _ in ITEMS})
#: Pages that need ``access.Level.TECHNICIAN`` (they move money).
TECHNICIAN_ITEMS = frozenset({bill_test.PAGE})
assert TECHNICIAN_ITEMS <= access.TECHNICIAN_PAGES  # the menu asks for the PIN first
#: The button test page (its presses are shown, not played: ``menu.press``).
BUTTONS_PAGE = "diag_buttons"
#: The panel's buttons and lamps, in the order the lamp test lights them
#: (``drivers.pins.BUTTON_PINS``; the core names them by action).
PANEL_BUTTONS = ("deal", "hit", "stand", "split", "double", "insure", "bet_up", "bet_down", "cash_out")
#: Their names as on the buttons (``menu.BUTTON_NAMES``' panel part).
BUTTON_NAMES = {
    "deal": "Deal",
    "hit": "Hit",
    "stand": "Stand",
    "split": "Split",
    "double": "Double",
    "insure": "Insure",
    "bet_up": "Bet +",
    "bet_down": "Bet -",
    "cash_out": "Cash Out",
}
#: Each lamp stays lit this long in the lamp test; each tower state in its test.
LAMP_STEP_MS = 1_000
TOWER_STEP_MS = 2_000
#: The tower light test's states, in turn (``SetTowerLight``).
TOWER_STATES = ("service", "tilt", "handpay", "off")
#: The segments each state lights (``cabinet.shell.devices``' tower map).
TOWER_SEGMENTS = {"service": "amber", "tilt": "red", "handpay": "red and amber", "off": "green"}
#: A button not pressed in this many games is listed as missing (research I
#: "switch test ... buttons not pressed").
MISSING_AFTER_GAMES = 100
#: The sound test's sounds (the UI's ``ui.sound.Sounds.NAMES``), played by the
#: ``sound_test`` cue.
TEST_SOUNDS = ("card", "chip", "win", "blackjack", "big_win", "button")
#: The screen test page (the UI draws colour bars and a touch grid on it).
SCREEN_PAGE = "diag_screen"
#: Serial settings of the devices (the drivers open their ports so).
SERIAL_SETTINGS = {"Bill acceptor": "ID-003, 9600 baud 8E1", "Printer": "ESC/POS, 9600 baud 8N1"}


def items(cab: MaintenanceContext) -> list[str]:
    """The current Diagnostics page's list (empty: a page of lines)."""
    m = present(cab.s.maintenance, "the operator menu")
    if m.page == PAGE:
        return [label + (" (technician)" if key in TECHNICIAN_ITEMS else "") for key, label in ITEMS]
    if m.page == bill_test.PAGE:
        return bill_test.items(cab.s.bill_test)
    if m.page == "diag_printer":
        if len(cab.s.stations) == 1:
            return ["Print a test ticket"]
        return [f"Print a test ticket at station {st.station}" for st in cab.s.stations]
    if m.page == "diag_sound":
        return [f"Play: {name}" for name in TEST_SOUNDS]
    return []


def select(cab: MaintenanceContext, out: list[Effect]) -> None:
    """Select on a Diagnostics page: open a test from the list, or the bill test's items."""
    s = cab.s
    m = present(s.maintenance, "the operator menu")
    if m.page == PAGE:
        key = ITEMS[min(m.selected, len(ITEMS) - 1)][0]
        m.page, m.selected, m.confirm, m.scroll = key, 0, "", 0
        m.pressed, m.cash_out_ms = [], None
        if key == bill_test.PAGE:
            s.bill_test.on = False  # the test starts off at every visit
        out.append(Journal("maintenance_page", 0, 0, {"page": key, "level": m.level}))
    elif m.page == bill_test.PAGE:
        m.confirm = bill_test.select(s, m.selected, out)
    elif m.page == "diag_printer":
        st = s.stations[min(m.selected, len(s.stations) - 1)]
        faults = printer_faults(s, st)
        if faults:  # nothing can print: no request, no test_ticket
            m.confirm = f"Not printed: station {st.station}'s printer reports " + ", ".join(
                f.split(" (")[0] for f in faults
            )
            return
        out.append(
            PrintTestTicket(
                st.station,
                s.settings.venue_name,
                s.settings.machine_number,
                (
                    f"PROGRAM {cab.program_id or 'unknown'}",
                    f"SHA-256 {cab.program_digest[:16] or 'none'}",
                    f"STATION {st.station}",
                ),
            )
        )
        out.append(Journal("test_ticket", st.station, 0, {"access": m.level}))
        m.confirm = f"Test ticket sent to station {st.station}'s printer (marked VOID / TEST: no money, no meter)."
    elif m.page == "diag_sound":
        name = TEST_SOUNDS[min(m.selected, len(TEST_SOUNDS) - 1)]
        out.append(SendCue("sound_test", None, {"sound": name}))
        m.confirm = f"Played: {name}"


def printer_faults(s: CabinetState, st: StationState) -> list[str]:
    """The faults of ``st``'s printer (its own or the cabinet's), each by code and words
    with the driver's detail when it adds something: ``["401 Printer out of paper
    (status 1a 32 12 72)"]``; ``[]`` when none is known (``cabinet.core.errors``)."""
    out = []
    for code, text in {**s.faults, **st.faults}.items():
        if code.startswith("printer_"):
            words = fault_text(code)
            out.append(f"{words} ({text})" if text and text not in words else words)
    return out


def back(cab: MaintenanceContext, out: list[Effect]) -> bool:
    """Back on a test page: to the Diagnostics list (True); False elsewhere."""
    m = present(cab.s.maintenance, "the operator menu")
    if m.page not in PAGES or m.page == PAGE:
        return False
    if m.page == bill_test.PAGE:
        bill_test.leave(cab.s, out)
    keys = [k for k, _ in ITEMS]
    m.page, m.selected, m.confirm, m.scroll = PAGE, keys.index(m.page), "", 0
    m.pressed, m.cash_out_ms = [], None
    return True


def lamps(s: CabinetState) -> frozenset[str] | None:
    """The lamps the button and lamp test lights now (one in turn), or ``None``."""
    if s.maintenance is None or s.maintenance.page != BUTTONS_PAGE:
        return None
    return frozenset({PANEL_BUTTONS[s.now_ms // LAMP_STEP_MS % len(PANEL_BUTTONS)]})


def tower(s: CabinetState) -> str | None:
    """The tower light state its test shows now (each in turn), or ``None``."""
    if s.maintenance is None or s.maintenance.page != "diag_tower":
        return None
    return TOWER_STATES[s.now_ms // TOWER_STEP_MS % len(TOWER_STATES)]


def record_press(s: CabinetState, action: str) -> None:
    """A panel button pressed in play: remember the game it was pressed in (the
    missing buttons audit; journaled with the state)."""
    if action in PANEL_BUTTONS and s.button_rounds.get(action) != s.round_id:
        s.button_rounds = {**s.button_rounds, action: s.round_id}


def missing_buttons(s: CabinetState, games: int = MISSING_AFTER_GAMES) -> list[str]:
    """The panel buttons not pressed in the last ``games`` games (actions, in panel
    order); none before that many games were played."""
    return [a for a in PANEL_BUTTONS if s.round_id - s.button_rounds.get(a, 0) >= games]


def page_lines(cab: MaintenanceContext) -> tuple[str, list[str]]:
    """The current Diagnostics page's title and lines."""
    s = cab.s
    m = present(s.maintenance, "the operator menu")
    if m.page == PAGE:
        return "Diagnostics", ["Choose a test. Back returns here from each test."]
    if m.page == BUTTONS_PAGE:
        lit = lamps(s) or frozenset()
        missing = [BUTTON_NAMES.get(a, a) for a in missing_buttons(s)]
        return "Button and lamp test", [
            "Press any player button: it is shown here and does not play.",
            "Cash Out twice within 1 s, BACK on the screen, or the key return to the menu.",
            f"Last button: {m.pressed and s.last_button or '-'}",
            f"Pressed: {', '.join(m.pressed) or 'none yet'}",
            f"Lamp lit now: {', '.join(BUTTON_NAMES.get(a, a) for a in sorted(lit))} "
            f"(each lamp in turn, {LAMP_STEP_MS // 1000} s each)",
            f"Not pressed in the last {MISSING_AFTER_GAMES} games: "
            + (", ".join(missing) or "none")
            + f" (games played: {s.round_id})",
        ]
    if m.page == "diag_doors":
        shown = {"main": "Main door", "cashbox": "Cash box door", "logic": "Logic door"}
        lines = [
            f"{label}: {'OPEN' if d in s.doors_open else 'shut'} (opened {n} time{'' if n == 1 else 's'})"
            for d, label in shown.items()
            for n in (s.door_opens.get(d, 0),)
        ]
        lines += [f"{d} door: OPEN" for d in s.doors_open if d not in shown]
        lines.append(f"Operator key: {'on' if s.key_on else 'off'}")
        lines.append("Open and shut each door: the line changes at once.")
        return "Door and key switches", lines
    if m.page == "diag_tower":
        now = tower(s) or "off"
        return "Tower light test", [
            f"Tower light now: {now} ({TOWER_SEGMENTS[now]} lit)",
            f"Each state in turn, {TOWER_STEP_MS // 1000} s each: "
            + ", ".join(f"{t} ({TOWER_SEGMENTS[t]})" for t in TOWER_STATES),
        ]
    if m.page == bill_test.PAGE:
        lines = bill_test.lines(s.bill_test, s.settings.currency_symbol)
        return "Bill acceptor test", lines + ([m.confirm] if m.confirm else [])
    if m.page == "diag_printer":
        faults = sorted({f for st in s.stations for f in printer_faults(s, st)})
        return "Printer test ticket", [
            "Prints a ticket marked TEST TICKET / VOID - NO CASH VALUE.",
            "No amount, no validation number, no barcode: no voucher, no meter.",
            f"Printer: {', '.join(faults) or 'no fault reported'}",
        ] + ([m.confirm] if m.confirm else [])
    if m.page == "diag_sound":
        return "Sound test", [
            "Select plays the sound on the cabinet's speaker (the screen",
            "says so when the display has no audio device).",
        ] + ([m.confirm] if m.confirm else [])
    if m.page == SCREEN_PAGE:
        return "Screen colour and touch test", [
            "Colour bars: each colour full and even, no dead pixels.",
            "Touch every square: it turns green where the screen felt it.",
        ]
    return "Devices and program", _device_lines(cab)


def _device_lines(cab: MaintenanceContext) -> list[str]:
    s = cab.s
    status = {
        "verified": "verified against its manifest",
        "development": "DEVELOPMENT BUILD (not a signed release)",
        "mismatch": "DOES NOT MATCH its manifest: reinstall",
    }
    lines = [
        f"Program: {cab.program_id or 'unknown'}",
        f"Digest (SHA-256): {cab.program_digest or 'none'}",
        f"Program files: {status.get(cab.program_status, cab.program_status)}",
    ]
    for st in s.stations:
        for dev, prefix in (("Bill acceptor", "bill_"), ("Printer", "printer_")):
            faults = [t for c, t in {**s.faults, **st.faults}.items() if c.startswith(prefix)]
            fw = cab.firmware.get((st.station, prefix[:-1])) or cab.firmware.get((0, prefix[:-1]))
            lines.append(
                f"Station {st.station} {dev} ({SERIAL_SETTINGS[dev]}"
                + (f", firmware {fw}" if fw else "")
                + "): "
                + (", ".join(faults) if faults else "OK")
            )
    lines.append(
        "Firmware not shown: not reported by the device (the printer never is); "
        "'cabinet doctor' reads the acceptor's with the engine stopped."
    )
    return lines

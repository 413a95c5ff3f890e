"""The maintenance scene, drawn from ``snapshot.maintenance`` (the operator menu).

Owns: title and access level, body lines, the item list with the selected item
highlighted (each row a touch target: ``menu_pick`` with its index),
a typed entry's list drawn as a keypad (``keypad``: the characters in a grid,
Delete / Enter / Default / Cancel below), the hint, and on-screen
up/down/select/back buttons (``menu_*`` intents). The engine owns the menu
itself. Pure drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from cabinet.protocol.snapshot import MaintenanceView
from ui import theme
from ui.widgets import HitBox, Painter

#: Item rows: at most this tall, and never shorter (a longer list scrolls).
ROW_MAX, ROW_MIN = 64.0, 44.0
#: The rows of a typed entry that are not characters (``cabinet.core.maintenance.entry``).
ENTRY_KEYS = ("Delete", "Enter", "Default", "Cancel")


def is_entry(items: list[str]) -> bool:
    """The list is a typed entry's (characters, then Delete and Enter...)."""
    return "Enter" in items and "Delete" in items


def keypad(p: Painter, area: pygame.Rect, items: list[str], selected: int) -> None:
    """A typed entry's list as keys: the characters in a grid, the entry keys in a row
    under it; each key a ``menu_pick`` touch target, the selected one gold."""
    chars = [i for i, it in enumerate(items) if it not in ENTRY_KEYS]
    ctrl = [i for i, it in enumerate(items) if it in ENTRY_KEYS]
    cols = 5 if len(chars) <= 12 else 9
    rows = -(-len(chars) // cols)
    gap = 10
    key_h = min(84.0, (area.h - gap * (rows + 1)) / (rows + 1.3))
    key_w = (area.w - gap * (cols - 1)) / cols

    def key(i: int, r: pygame.Rect) -> None:
        sel = i == selected
        p.fill_rect(r, theme.GOLD if sel else (40, 48, 64), radius=10)
        p.text(items[i], min(34, key_h * 0.5), theme.INK if sel else theme.WHITE, r.center, bold=True, max_w=r.w - 10)
        p.hits.append(HitBox(p.L.rect(r), "menu_pick", None, i, True))

    for n, i in enumerate(chars):
        r = pygame.Rect(
            int(area.x + (n % cols) * (key_w + gap)), int(area.y + (n // cols) * (key_h + gap)), int(key_w), int(key_h)
        )
        key(i, r)
    y = area.y + rows * (key_h + gap) + gap
    cw = (area.w - gap * (len(ctrl) - 1)) / max(1, len(ctrl))
    for n, i in enumerate(ctrl):
        key(i, pygame.Rect(int(area.x + n * (cw + gap)), int(y), int(cw), int(key_h * 1.1)))


#: The screen test's touch grid and colour bars (one colour per column).
GRID_COLS, GRID_ROWS = 8, 4
BARS = ((255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0), (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0))
TOUCHED = (40, 200, 90)


@dataclass
class DiagState:
    """What the UI itself knows for the Diagnostics pages.

    Attributes:
        page: the page last drawn (the touched squares are forgotten on a new one).
        touched: squares of the screen test's grid touched so far (index row-major).
        audio: the UI has an audio device (the sound test says so when not).
    """

    page: str = ""
    touched: set[int] = field(default_factory=set)
    audio: bool = False


def visible_rows(count: int, selected: int, avail: float) -> tuple[int, int, float]:
    """Which items fit in ``avail`` logical units: ``(first, visible, row_h)``.

    Rows shrink from ``ROW_MAX`` to fit every item, down to ``ROW_MIN``; a list
    still longer scrolls so that ``selected`` is shown. The count is
    rounded, not floored, so a list that exactly fits shows its last item.
    """
    row_h = max(ROW_MIN, min(ROW_MAX, avail / max(1, count)))
    visible = max(1, min(count, int(avail / row_h + 1e-6))) if count else 1
    first = selected - visible + 1 if selected >= visible else 0
    return first, visible, row_h


def draw(p: Painter, m: MaintenanceView, diag: DiagState | None = None) -> None:
    """Draw the operator page ``m`` full screen (``diag``: the UI's own part of the
    Diagnostics pages: touches, audio)."""
    diag = diag if diag is not None else DiagState()
    if diag.page != m.page:
        diag.page, diag.touched = m.page, set()
    if m.page == "diag_screen":
        _screen_test(p, m, diag)
        return
    if m.page == "diag_sound":
        m = MaintenanceView(
            page=m.page,
            title=m.title,
            items=m.items,
            selected=m.selected,
            hint=m.hint,
            lines=m.lines + ["Audio: ready" if diag.audio else "Audio: no audio device"],
        )
    L = p.L
    head = pygame.Rect(0, 0, L.lw, 110)
    p.fill_rect(head, (30, 40, 60))
    p.fill_rect(pygame.Rect(0, 106, L.lw, 4), theme.WARNING)
    p.text("MAINTENANCE", 22, theme.WARNING, (40, 30), anchor="midleft", bold=True)
    p.text(m.title, 44, theme.WHITE, (40, 72), anchor="midleft", bold=True, max_w=L.lw - 360)
    if m.level:
        p.pill(
            m.level.upper(),
            (L.lw - 160, 55),
            px=24,
            fg=theme.INK if m.level == "technician" else theme.WHITE,
            bg=theme.WARNING if m.level == "technician" else (60, 72, 96),
        )
    portrait = L.portrait
    # body lines: the left half beside a list, the full width without one
    left = pygame.Rect(40, 140, (L.lw - 120) // 2 if m.items and not portrait else L.lw - 80, 0)
    y = left.y
    bottom = L.lh - 200 if not (portrait and m.items) else L.lh
    rows = [seg for ln in m.lines for seg in p.wrap(ln, 28, left.w)]
    for i, seg in enumerate(rows):
        if y + 40 > bottom and i < len(rows) - 1:  # never under the hint and buttons
            p.text("\u2026", 28, theme.CREAM, (left.x, y + 18), anchor="midleft")
            y += 40
            break
        p.text(seg, 28, theme.CREAM, (left.x, y + 18), anchor="midleft")
        y += 40
    ix = left.right + 40 if not portrait else 40
    iy = 140 if not portrait else y + 30
    iw = L.lw - ix - 40
    btn_top = L.lh - 190
    avail = btn_top - iy - 20
    if is_entry(m.items):
        keypad(p, pygame.Rect(ix, iy, iw, int(avail)), m.items, m.selected)
        first, visible = 0, 0
    else:
        first, visible, row_h = visible_rows(len(m.items), m.selected, avail)
    for i, item in enumerate(m.items[first : first + visible], start=first):
        r = pygame.Rect(ix, int(iy + (i - first) * row_h), iw, int(row_h) - 8)
        sel = i == m.selected
        p.fill_rect(r, theme.GOLD if sel else (40, 48, 64), radius=10)
        p.text(
            ("\u25b6 " if sel else "   ") + item,
            min(30, row_h * 0.5),
            theme.INK if sel else theme.WHITE,
            (r.x + 18, r.centery),
            anchor="midleft",
            bold=sel,
            max_w=r.w - 30,
        )
        p.hits.append(HitBox(p.L.rect(r), "menu_pick", None, i, True))
    if m.hint:
        p.text(m.hint, 24, (170, 180, 200), (L.lw // 2, L.lh - 160), max_w=L.lw - 80)
    labels = [("menu_up", "\u25b2 UP"), ("menu_down", "\u25bc DOWN"), ("menu_select", "SELECT"), ("menu_back", "BACK")]
    bw = 220
    total = len(labels) * bw + (len(labels) - 1) * 20
    x = L.lw // 2 - total // 2
    for action, label in labels:
        p.button(pygame.Rect(x, L.lh - 110, bw, 76), label, True, action, px=26)
        x += bw + 20


def _screen_test(p: Painter, m: MaintenanceView, diag: DiagState) -> None:
    """Colour bars under a grid of touch squares (each a hit box giving the
    local action ``touch:N``), touched ones green; the menu buttons stay at the bottom."""
    L = p.L
    top, bottom = 0, L.lh - 130
    cw, rh = L.lw / GRID_COLS, (bottom - top) / GRID_ROWS
    for i in range(GRID_COLS * GRID_ROWS):
        col, row = i % GRID_COLS, i // GRID_COLS
        x0, y0 = int(col * cw), int(top + row * rh)
        r = pygame.Rect(x0, y0, int((col + 1) * cw) - x0, int(top + (row + 1) * rh) - y0)
        p.fill_rect(r, TOUCHED if i in diag.touched else BARS[col])
        p.fill_rect(r, (128, 128, 128), width=2)
        p.hits.append(HitBox(L.rect(r), f"ui:touch:{i}", None, None, True))
    p.fill_rect(pygame.Rect(0, bottom, L.lw, L.lh - bottom), (16, 20, 28))
    p.text(
        f"{m.title}: {len(diag.touched)} of {GRID_COLS * GRID_ROWS} squares touched",
        24,
        theme.CREAM,
        (40, bottom + 24),
        anchor="midleft",
        max_w=L.lw - 80,
    )
    labels = [("menu_back", "BACK")]
    p.button(pygame.Rect(L.lw // 2 - 110, L.lh - 90, 220, 76), labels[0][1], True, labels[0][0], px=26)

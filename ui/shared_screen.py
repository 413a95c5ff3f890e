"""One shared wide screen with a panel per station (``--screens shared``).

For a cabinet with one display for all its players (a 32:9 panel, 3840x1080,
5760x1080, or a plain 1920x1080): the dealer's area across the top, as on the
classic table, and along the bottom one framed panel per station with that
station's own spots, meters (credits, bet, insurance, paid), buttons, message
(the engine's per-station ``StationView.message`` and the UI's refusal notices),
its HISTORY and SERVICE buttons, and its history panel or reality check drawn
inside its own panel (they take only that panel's touches: the other players
play on).

Owns: the wide logical space (``layout_for``: 1080 logical units high, as wide
as the display's aspect, at least 1920), where the panels sit (``panel_boxes``),
which panel a screen point is in (``station_at``: a touch there focuses that
station's keys and dev keys) and drawing the panels (``draw_panels``). The
dealer's hand, the felt, the station's console are the renderer's. Pure drawing,
UI thread only.

Smallest screen: ``MIN_SIZE`` (800x480, the smallest cabinet display the
goldens cover: a 1920-wide table at 0.44 px per unit, its small words at the
10 px floor, ``ui.widgets.MIN_TEXT_PX``);
below it, or on a portrait display, ``supported`` says no: the UI draws the
classic shared table instead and says so once in its log (``ui.app``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import pygame

from cabinet.protocol.snapshot import Snapshot, StationView
from ui import theme
from ui.i18n import _
from ui.layout import LANDSCAPE, Layout
from ui.scenes import player_panel
from ui.widgets import HitBox, Painter

#: the smallest display the shared screen is drawn on (pixels); below it, the classic table.
MIN_SIZE = (800, 480)
#: logical height of the wide space (the classic table's).
LOGICAL_H = LANDSCAPE[1]
#: the top of the station panels (logical units; the classic table's stations start at 505).
PANELS_TOP = 454
#: each panel's header strip: its station's name tag, HISTORY and SERVICE (logical units).
HEADER_H = 46
#: gap between panels and to the screen's edges (logical units).
GAP = 10
#: the logical width of a panel's history or reality check (the table's is 1920: a
#: narrower one draws their words larger in a panel a third of a screen wide).
MODAL_W = 1400
#: a panel narrower than this (pixels: 1280x720's are 416) shows them over the whole
#: screen instead, as the classic table does (their rows would not be legible in it).
MODAL_MIN_PX = 560

SHARED_KEY_HELP_TEXT = """Shared screen: the keys (and dev keys) act for the station whose panel is ringed in gold:
      Tab the next station's panel, Shift+Tab the previous one; a touch or click in a panel
      picks its station (and presses what it touched, for that station)."""


class Renderer(Protocol):
    """What the panels need of ``ui.render.Renderer`` (a protocol: no import cycle)."""

    def _station(self, *args: Any) -> None: ...


@dataclass(frozen=True)
class WideLayout(Layout):
    """A ``Layout`` whose logical width follows the display (``layout_for``); the
    dealer's group (chip rack, shoe, discard tray, timer) stays around the middle
    1920 units, the placard, HELP and the clock at the left edge."""

    @property
    def dx(self) -> int:
        """How far the middle 1920 units sit right of the left edge."""
        return (self.lw - LANDSCAPE[0]) // 2

    def shoe_rect(self) -> pygame.Rect:  # the classic table's, from its right edge
        return super().shoe_rect().move(-self.dx, 0)

    def chip_rack(self) -> pygame.Rect | None:  # the classic table's, from its left edge
        r = super().chip_rack()
        return None if r is None else r.move(self.dx, 0)

    def discard_tray(self) -> pygame.Rect:
        return super().discard_tray().move(-self.dx, 0)

    def timer_center(self) -> tuple[int, int]:
        x, y = super().timer_center()
        return (x - self.dx, y)

    def message_center(self) -> tuple[int, int]:
        return (self.cx, 424)

    def stations_top(self) -> int:
        return PANELS_TOP


def supported(width: int, height: int) -> bool:
    """Whether a ``width`` x ``height`` display is large enough (``MIN_SIZE``) and
    landscape."""
    return width >= height and width >= MIN_SIZE[0] and height >= MIN_SIZE[1]


def layout_for(width: int, height: int) -> WideLayout:
    """The wide layout of a ``width`` x ``height`` display (pixels, > 0): 1080 logical
    units high and ``max(1920, 1080 * width / height)`` wide, scaled uniformly and
    centred (a display narrower than 16:9 is letterboxed top and bottom)."""
    lw = max(LANDSCAPE[0], int(round(LOGICAL_H * width / height)))
    scale = min(width / lw, height / LOGICAL_H)
    ox = int(round((width - lw * scale) / 2))
    oy = int(round((height - LOGICAL_H * scale) / 2))
    return WideLayout(width, height, lw, LOGICAL_H, scale, ox, oy)


def panel_boxes(L: Layout, count: int) -> list[pygame.Rect]:
    """Each station's panel (logical units), station 1 on the left, side by side under
    the dealer's area, ``GAP`` apart."""
    count = max(1, count)
    w = (L.lw - GAP * (count + 1)) // count
    return [pygame.Rect(GAP + i * (w + GAP), PANELS_TOP, w, L.lh - PANELS_TOP - GAP) for i in range(count)]


def station_at(L: Layout, s: Snapshot | None, pos: tuple[float, float]) -> int | None:
    """The station whose panel holds the screen point ``pos`` (pixels), or ``None``."""
    if s is None or not s.stations:
        return None
    for st, box in zip(s.stations, panel_boxes(L, len(s.stations)), strict=False):
        if L.rect(box).collidepoint(int(pos[0]), int(pos[1])):
            return st.station
    return None


def _header(p: Painter, s: Snapshot, st: StationView, box: pygame.Rect, focused: bool) -> None:
    """The panel's name tag (gold when the keys act for it) and its HISTORY/SERVICE."""
    tag = pygame.Rect(box.x + 14, box.y + 6, 190, HEADER_H - 14)
    p.fill_rect(tag, theme.GOLD if focused else (0, 0, 0, 150), radius=tag.h / 2)
    p.text(
        _("STATION {n}").format(n=st.station),
        22,
        theme.INK if focused else theme.GOLD,
        tag.center,
        bold=True,
        max_w=tag.w - 16,
    )
    bw = 150 if box.w >= 900 else 118
    service = pygame.Rect(box.right - 14 - bw, box.y + 6, bw, HEADER_H - 14)
    history = service.move(-(bw + 10), 0)
    p.button(history, _("HISTORY"), s.player_desk, "history", station=st.station, px=18)
    p.button(
        service,
        _("CALLED") if st.service else _("SERVICE"),
        s.player_desk,
        "service",
        station=st.station,
        px=18,
        danger=st.service,
    )


def _modal(p: Painter, s: Snapshot, st: StationView, box: pygame.Rect, now_ms: int) -> None:
    """The station's history panel or reality check (``ui.scenes.player_panel``'s), drawn
    inside its panel only: a logical screen ``MODAL_W`` wide mapped onto the panel,
    taking that panel's touches (the other stations play on); on a panel narrower than
    ``MODAL_MIN_PX``, over the whole screen, taking every touch until dismissed."""
    pr = p.L.rect(box)
    if pr.w < MODAL_MIN_PX:  # too small to read in a panel: over the whole screen
        if st.history is not None:
            player_panel._panel(p, s, st, st.history)  # noqa: SLF001
        if st.reminder is not None:
            player_panel._reminder(p, s, st, now_ms)  # noqa: SLF001
        return
    scale = pr.w / MODAL_W
    sub = Layout(p.L.width, p.L.height, MODAL_W, max(1, int(pr.h / scale)), scale, pr.x, pr.y)
    sp = Painter(p.surface, sub, p.art)
    if st.history is None:  # the history panel dims its screen itself
        p.fill_rect(box, theme.OVERLAY_DIM)
    sp.dimmed = True
    if st.history is not None:
        player_panel._panel(sp, s, st, st.history)  # noqa: SLF001 (the same panel, smaller)
    if st.reminder is not None:
        player_panel._reminder(sp, s, st, now_ms)  # noqa: SLF001
    # modal for this panel only: its own targets go, a touch anywhere in it is the panel's
    p.hits[:] = [h for h in p.hits if not pr.colliderect(h.rect)]
    action = "reminder_ok" if st.reminder is not None else "history_close"
    p.hits.append(HitBox(pr, action, st.station))
    p.hits.extend(h for h in sp.hits if h.action != action)


class FramedFelt:
    """The felt with every panel's frame drawn on it once (six translucent
    panel-sized blits a frame doubled the shared screen's frame time), kept until the
    felt, the panels or the focused one change. UI thread only."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._felt: pygame.Surface | None = None  # held: its id stays its own
        self._surf: pygame.Surface | None = None

    def over(self, felt: pygame.Surface, L: Layout, art: Any, s: Snapshot, focus: int | None) -> pygame.Surface:
        """``felt`` (the renderer's, for ``L``) with ``s``'s panels framed, ``focus``'s gold."""
        numbers = tuple(st.station for st in s.stations)
        key = (id(felt), L.width, L.height, L.lw, numbers, focus)
        if self._surf is None or key != self._key:
            surf = felt.copy()
            p = Painter(surf, L, art)
            for n, box in zip(numbers, panel_boxes(L, max(1, len(numbers))), strict=False):
                focused = n == focus and len(numbers) > 1
                p.fill_rect(box.move(0, 5), (0, 0, 0, 90), radius=18)
                p.fill_rect(box, (0, 0, 0, 60), radius=18)
                p.fill_rect(box, theme.GOLD if focused else theme.PANEL_EDGE, radius=18, width=3 if focused else 2)
            self._key, self._felt, self._surf = key, felt, surf
        return self._surf


def panel_geos(p: Painter, s: Snapshot, geometry: Any) -> list[tuple[StationView, Any]]:
    """Each station with its geometry in its panel, under the panel's header
    (``geometry``: ``ui.render.station_geometry``)."""
    count = max(1, len(s.stations))
    out = []
    for i, (st, box) in enumerate(zip(s.stations, panel_boxes(p.L, count), strict=False)):
        inner = pygame.Rect(box.x, box.y + HEADER_H, box.w, box.h - HEADER_H)
        out.append((st, geometry(p.L, p, s, i, count, st, inner)))
    return out


def draw_panels(
    r: Renderer, p: Painter, s: Snapshot, now_ms: int, anim: Any, focus: int | None, geos: list[tuple[StationView, Any]]
) -> None:
    """Every station's panel over its frame (on the felt: ``FramedFelt``): header, its
    station drawn by ``r._station`` in the box under the header (``geos``: from
    ``panel_geos``); their modal panels come last (``draw_modals``). ``focus``: the
    station the keys act for."""
    count = max(1, len(s.stations))
    for (st, geo), box in zip(geos, panel_boxes(p.L, count), strict=False):
        _header(p, s, st, box, st.station == focus and count > 1)
        r._station(p, s, st, geo, count, now_ms, anim)


def draw_modals(p: Painter, s: Snapshot, now_ms: int) -> None:
    """Each station's open history panel or due reality check, over the finished frame
    (``_modal``: in its own panel, or over the whole screen when the panels are small)."""
    boxes = panel_boxes(p.L, max(1, len(s.stations)))
    for st, box in zip(s.stations, boxes, strict=False):
        if st.history is not None or st.reminder is not None:
            _modal(p, s, st, box, now_ms)

"""Pure frame drawing: ``draw(surface, snapshot, now_ms, ...)`` for every screen.

Owns: turning one ``Snapshot`` (plus the UI's own state: connected, help
shown, tweens in flight) into pixels and the list of touch targets. No clock,
no sockets, no events: the same inputs always give the same frame, which is
what the golden screenshot tests rely on. Imports only ``cabinet.protocol.snapshot``
from the engine side. UI thread only (pygame).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import msgspec
import pygame

from cabinet.protocol.money import chip_split
from cabinet.protocol.said import Said
from cabinet.protocol.snapshot import HandView, Snapshot, SpotView, StationView, WireMode
from ui import celebration, i18n, settle_draw, shared_screen, theme
from ui import own_station as own_station_mod
from ui.animation import CardKey
from ui.cards import shadow_pad
from ui.celebration import Celebration
from ui.i18n import N_, _, total_words
from ui.layout import (
    BUTTON_H,
    CHIP_BUTTON,
    DEALER_CARD,
    MESSAGE_LINE_H,
    METER_H,
    PLAYER_CARD_MAX_H,
    Layout,
    balanced_rows,
)
from ui.money import fmt_money, meter_text
from ui.motion import HandKey, Settle
from ui.said import say, told
from ui.scenes import attract, maintenance, overlays, player_panel, recall
from ui.scenes import help as help_scene
from ui.widgets import MIN_TEXT_PX, Art, HitBox, Painter


class Anim(Protocol):
    """What the renderer asks of the animator (see ``ui.animation.Animator``)."""

    def card(self, key: CardKey, now_ms: int) -> float | None: ...
    def flip(self, key: CardKey, now_ms: int) -> float | None: ...
    def settle(self, key: HandKey) -> Settle | None: ...
    def celebrations(self, now_ms: int) -> list[Celebration]: ...


#: on-screen buttons per variant and phase, in order: (action, label). ``chip`` expands to the chip values.
BET_BUTTONS: dict[str, list[tuple[str, str]]] = {
    "classic": [
        ("bet_down", N_("BET \u2212")),
        ("bet_up", N_("BET +")),
        ("deal", N_("DEAL")),
        ("cash_out", N_("CASH OUT")),
    ],
    "classic-multi": [("chip", ""), ("clear", N_("CLEAR")), ("deal", N_("DEAL")), ("cash_out", N_("CASH OUT"))],
    "american": [
        ("chip", ""),
        ("undo", N_("UNDO")),
        ("clear", N_("CLEAR")),
        ("rebet", N_("REBET")),
        ("new_game", N_("NEW GAME")),
        ("deal", N_("DEAL")),
        ("cash_out", N_("CASH OUT")),
    ],
}
PLAY_BUTTONS: list[tuple[str, str]] = [
    ("hit", N_("HIT")),
    ("stand", N_("STAND")),
    ("double", N_("DOUBLE")),
    ("split", N_("SPLIT")),
    ("insure", N_("INSURE")),
    ("decline", N_("NO INS.")),
]
ACTION_LABELS = {a: lbl for lst in [*BET_BUTTONS.values(), PLAY_BUTTONS] for a, lbl in lst if lbl}
#: where the player's language button sits (logical units): right of the clock,
#: over the limits placard and under the dealer's chip rack, clear of both.
LANGUAGE_BUTTON = pygame.Rect(236, 84, 134, 50)
_NOT_BUTTONS = {"place", "help", "menu_up", "menu_down", "menu_select", "menu_back"}


def _base_buttons(snapshot: Snapshot, in_round: bool) -> list[tuple[str, str]]:
    if in_round:
        return PLAY_BUTTONS
    base = BET_BUTTONS.get(snapshot.variant)
    if base is None:  # an unknown variant: chips if it has them, else Bet+/Bet-
        base = [("chip", "")] if snapshot.chip_values_minor else BET_BUTTONS["classic"][:2]
        base = base + [("deal", N_("DEAL")), ("cash_out", N_("CASH OUT"))]
    return base


def button_specs(
    snapshot: Snapshot, station: StationView, in_round: bool | None = None, lit_extras: bool = True
) -> list[tuple[str, str, int | None]]:
    """The buttons a station shows now: (action, label, value), chips expanded.

    Betting buttons between rounds, playing buttons during a round (as on the
    cabinet's panel, where unlit lamps stay dark), plus any lit lamp the set
    lacks, so a lit button is never hidden. Lit or grey comes from
    ``station.lamps`` alone. Labels are in the active language (``ui.i18n``).
    """
    if in_round is None:
        in_round = snapshot.mode == WireMode.IN_ROUND
    out: list[tuple[str, str, int | None]] = []
    for action, label in _base_buttons(snapshot, in_round):
        if action == "chip":
            out += [("chip", "", v) for v in snapshot.chip_values_minor]
        else:
            out.append((action, _(label), None))
    shown = {a for a, _, _ in out}
    for lamp in station.lamps if lit_extras else []:
        if lamp not in shown and lamp not in _NOT_BUTTONS:
            out.append(
                (lamp, _(ACTION_LABELS[lamp]) if lamp in ACTION_LABELS else lamp.replace("_", " ").upper(), None)
            )
            shown.add(lamp)
    return out


@dataclass(frozen=True)
class StationGeo:
    """Where a station's parts sit, in logical units."""

    box: pygame.Rect
    console: pygame.Rect
    message: pygame.Rect
    meters: list[pygame.Rect]
    buttons: list[pygame.Rect]
    hands_area: pygame.Rect
    circle_y: int
    circle_r: int
    pill_y: int
    cards_bottom: int
    card_h: int
    #: the buttons' label size (logical units; smaller to keep one row)
    button_px: float = 22


def station_geometry(
    L: Layout,
    p: Painter | None,
    snapshot: Snapshot,
    idx: int,
    count: int,
    station: StationView,
    box: pygame.Rect | None = None,
) -> StationGeo:
    """Lay out one station's box: console (message, meters, buttons) at the bottom, hands above.

    ``box``: the station's area (default: its share of the table, ``Layout.station_box``).
    """
    box = box if box is not None else L.station_box(idx, count)
    inner = box.inflate(-16, 0)
    px_btn = 22 if count < 3 else 19
    min_w = 96 if count < 3 else 80
    pad = 24 if count < 3 else 16

    def widths_of(sp: list[tuple[str, str, int | None]], px: float) -> list[int]:
        out = []
        k = px / px_btn  # a smaller label: a narrower button
        for action, label, _value in sp:
            if action == "chip":
                out.append(CHIP_BUTTON)
            else:
                tw = p.text_width(label, px, True) if p is not None else len(label) * px * 0.7
                out.append(int(max(min_w * k, tw + pad * k)))
        return out

    gap = 8 if count < 3 else 6
    specs = button_specs(snapshot, station)

    def rows_at(px: float) -> tuple[list[int], list[list[int]], int]:
        widths = widths_of(specs, px)
        rows = balanced_rows(widths, inner.w - 12, gap)
        n_rows = len(rows)
        for phase in (False, True):  # keep the console height steady between phases
            plain = widths_of(button_specs(snapshot, station, phase, lit_extras=False), px)
            n_rows = max(n_rows, len(balanced_rows(plain, inner.w - 12, gap)))
        return widths, rows, n_rows

    widths, rows, n_rows = rows_at(px_btn)
    button_px = float(px_btn)
    if n_rows > 1 and count < 3:
        # longer labels (Spanish) shrink, down to 3/4, to keep the buttons on
        # one row, so the hands above keep their size in every language
        for step in range(1, 6):
            smaller = rows_at(px_btn * (1 - 0.05 * step))
            if smaller[2] == 1:
                widths, rows, n_rows = smaller
                button_px = px_btn * (1 - 0.05 * step)
                break
    buttons_h = n_rows * BUTTON_H + (n_rows - 1) * gap
    console_h = MESSAGE_LINE_H + 6 + METER_H + 10 + buttons_h + 14
    console = pygame.Rect(inner.x, box.bottom - console_h - 8, inner.w, console_h)
    message = pygame.Rect(console.x + 10, console.y + 4, console.w - 20, MESSAGE_LINE_H)
    n_m = 4
    mw = min(250, (console.w - 20 - (n_m - 1) * 10) // n_m)
    mx0 = console.centerx - (n_m * mw + (n_m - 1) * 10) // 2
    my = message.bottom + 6
    meters = [pygame.Rect(mx0 + i * (mw + 10), my, mw, METER_H) for i in range(n_m)]
    brects: list[pygame.Rect] = [pygame.Rect(0, 0, 0, 0)] * len(specs)
    y = my + METER_H + 10
    for row in rows:
        total = sum(widths[i] for i in row) + gap * (len(row) - 1)
        x = console.centerx - total // 2
        for i in row:
            h = CHIP_BUTTON if specs[i][0] == "chip" else BUTTON_H
            brects[i] = pygame.Rect(x, y + (BUTTON_H - h) // 2, widths[i], h)
            x += widths[i] + gap
        y += BUTTON_H + gap
    hands = pygame.Rect(box.x, box.y, box.w, console.y - box.y)
    r = 50
    circle_y = hands.bottom - r - 34
    pill_y = circle_y - r - 26
    cards_bottom = pill_y - 22
    card_max = PLAYER_CARD_MAX_H * (1.45 if L.portrait else 1.0)
    card_h = int(max(60, min(card_max, cards_bottom - hands.y - 24)))
    return StationGeo(
        box, console, message, meters, brects, hands, circle_y, r, pill_y, cards_bottom, card_h, button_px
    )


class Renderer:
    """Draws frames; holds only caches (fonts, sprites, the felt), never game state.

    Args:
        art: shared fonts and sprite caches (one is made if omitted).
    """

    def __init__(self, art: Art | None = None) -> None:
        self.art = art or Art()
        self._felt: dict[tuple[object, ...], pygame.Surface] = {}
        self._felt_key: tuple[object, ...] = ()
        self._geos: tuple[Snapshot, tuple[object, ...], list[tuple[StationView, StationGeo]]] | None = None
        #: the consoles' meters and buttons as drawn (``Painter.cached``)
        self._widgets: dict[tuple[object, ...], tuple[pygame.Surface, list[HitBox]]] = {}
        #: the UI's own state of the Diagnostics pages (touches, audio)
        self.diag = maintenance.DiagState()
        #: the screen areas the last ``draw`` changed (pixels), or ``None`` for all of it
        #: (the attract loop repaints only what moves).
        self.last_dirty: list[pygame.Rect] | None = None
        self._attract_bg: tuple[object, pygame.Surface, list[HitBox]] | None = None
        self._under: tuple[object, pygame.Surface, list[HitBox]] | None = None
        self._notices: dict[int, str] = {}
        self._under_last: tuple[pygame.Surface, pygame.Rect] | None = None
        self._attract_prev: tuple[pygame.Surface, object, dict[object, pygame.Rect]] | None = None
        self._languages: tuple[str, ...] = ()
        self._framed = shared_screen.FramedFelt()
        #: the table layer: the felt and every console's static part for one snapshot
        #: (key, pixels, each station's button hit boxes); see ``_table_layer``
        self._layer: tuple[tuple[object, ...], pygame.Surface, dict[int, list[HitBox]], frozenset[int]] | None = None
        self._layer_hits: dict[int, list[HitBox]] | None = None
        self._layer_meters: frozenset[int] = frozenset()
        #: after a table frame over the layer: (that surface, the layer, where it drew over it)
        self._restore: tuple[pygame.Surface, pygame.Surface, list[pygame.Rect]] | None = None
        #: this frame drew over the consoles or across the felt (stacks in flight, a win)
        self._over = False
        #: the snapshot of the last frame (identity, seq)
        self._seen: tuple[int, int] = (0, -1)
        #: screen areas (pixels) of this frame's cards in motion
        self._moving: list[pygame.Rect] = []
        #: draw the table over its layer (False: every console drawn in every frame)
        self.layered = True
        #: the last table frame drawn at rest: (its inputs, the surface, its hit boxes)
        self._rest: tuple[tuple[object, ...], pygame.Surface, list[HitBox]] | None = None

    def draw(
        self,
        surface: pygame.Surface,
        snapshot: Snapshot | None,
        now_ms: int,
        anim: Anim | None = None,
        connected: bool = True,
        show_help: bool = False,
        portrait: bool | None = None,
        own_station: int | None = None,
        clock: str = "",
        notices: dict[int, str] | None = None,
        language: str | i18n.Language | None = None,
        languages: tuple[str, ...] = (),
        shared: bool = False,
        focus: int | None = None,
    ) -> list[HitBox]:
        """Draw one frame of ``snapshot`` on ``surface``.

        Args:
            surface: target of any size; the logical layout is scaled to fit.
            snapshot: the latest snapshot, or ``None`` before the first one.
            now_ms: the caller's monotonic time in ms (drives tweens and attract motion).
            anim: tweens in flight, or ``None`` to draw everything at rest.
            connected: False draws the "lost connection" overlay (play suspended).
            show_help: the help scene is open (a local UI toggle).
            portrait: force the portrait layout; ``None`` picks it from the aspect.
            own_station: this screen is that station's own: its spots,
                meters and buttons large, the other stations' hands small
                (``ui.own_station``); ``None`` draws every station alike.
            clock: the time of day to show (``"14:05"``; the caller's clock, so
                the frame stays a pure function of the arguments), ``""`` none.
            notices: station -> why its last press was refused, shown on
                its console instead of its message while the caller keeps it.
            language: the screen's language (``ui.i18n``: ``"en"``, ``"es"``,
                ``"es_ES"``...); ``None`` keeps the active one. The operator's menu
                is drawn in English whatever it is.
            languages: the languages the player may pick on this screen; with more
                than one, a language button beside HELP switches to the next
                (``ui:toggle_language``).
            shared: one shared wide screen with a panel per station
                (``ui.shared_screen``) for the table's scenes (not attract or the menu).
            focus: on the shared screen, the station the keys act for (its panel ringed).

        Returns:
            the touch targets of this frame, topmost last.
        """
        if language is not None:  # the operator's menu (and its recall) stays English
            i18n.use(i18n.DEFAULT if snapshot is not None and snapshot.mode == WireMode.MAINTENANCE else language)
        self._languages = languages
        shared = shared and snapshot is not None and snapshot.mode not in (WireMode.ATTRACT, WireMode.MAINTENANCE)
        L = (
            shared_screen.layout_for(*surface.get_size())
            if shared
            else Layout.for_size(surface.get_width(), surface.get_height(), portrait)
        )
        p = Painter(surface, L, self.art)
        self.last_dirty = None
        self._notices = notices or {}
        if (
            snapshot is not None
            and snapshot.mode == WireMode.ATTRACT
            and connected
            and not show_help
            and snapshot.overlay is None
        ):
            return self._attract(p, snapshot, now_ms, clock)
        self._attract_prev = None
        if snapshot is None:
            surface.blit(self._felt_for(L, snapshot), (0, 0))
            overlays.draw_panel(p, _("CONNECTING"), [_("Waiting for the game engine\u2026")], theme.GOLD, now_ms)
            return p.hits
        modal = False
        busy = getattr(anim, "busy", None)
        # an overlay that pulses over a table at rest redraws only itself, over
        # the table drawn (and dimmed) once
        still = (
            snapshot.overlay is not None
            and connected
            and snapshot.mode not in (WireMode.MAINTENANCE, WireMode.ATTRACT)
            and not (busy is not None and busy(now_ms))
        )
        key = (
            surface.get_size(),
            portrait,
            id(snapshot),
            snapshot.seq,
            show_help,
            own_station,
            i18n.current(),
            languages,
            shared,
            focus,
        )
        partial: pygame.Rect | None = None
        cached = still and self._under is not None and self._under[0] == key
        table = (
            not cached
            and snapshot.mode != WireMode.ATTRACT
            and not (snapshot.mode == WireMode.MAINTENANCE and snapshot.maintenance is not None)
        )
        # a table at rest drawn again with the same inputs on the same surface: its
        # pixels are there already (an idle frame draws nothing)
        rest = (
            (key, clock, tuple(sorted(self._notices.items())), id(anim), connected)
            if table and connected and snapshot.overlay is None and not (busy is not None and busy(now_ms))
            else None
        )
        if rest is not None and self._rest is not None and self._rest[0] == rest and self._rest[1] is surface:
            self.last_dirty = []
            return list(self._rest[2])
        self._rest = None
        restore, self._restore = self._restore, None
        restored: list[pygame.Rect] | None = None
        self._over = False
        self._moving = []
        layered = self.layered and table and not shared and (own_station is None or len(snapshot.stations) <= 1)
        # a snapshot's first frame is drawn whole (no layer to build first: a press shows at
        # once); its layer is made for its second, when the snapshot animates
        seen, self._seen = self._seen, (id(snapshot), snapshot.seq)
        layered = layered and (seen == self._seen or (self._layer is not None and self._layer[0][2:4] == self._seen))
        if not cached:
            felt = self._felt_for(L, snapshot)
            if layered:
                layer = self._table_layer(L, snapshot, felt, anim)
                if restore is not None and restore[0] is surface and restore[1] is layer:
                    restored = restore[2]  # only where the last frame drew over the layer
                    for r in restored:
                        surface.blit(layer, r, r)
                else:
                    surface.blit(layer, (0, 0))
                assert self._layer is not None
                self._layer_hits, self._layer_meters = self._layer[2], self._layer[3]
            else:  # the shared screen's panel frames, drawn on the felt once
                surface.blit(self._framed.over(felt, L, self.art, snapshot, focus) if shared else felt, (0, 0))
        if cached and self._under is not None:
            last = self._under_last
            if last is not None and last[0] is surface:  # only the panel changes
                partial = last[1]
                surface.blit(self._under[1], partial, partial)
            else:
                surface.blit(self._under[1], (0, 0))
            p.hits = list(self._under[2])
            p.dimmed = True
        elif (
            snapshot.mode == WireMode.MAINTENANCE
            and snapshot.maintenance is not None
            and snapshot.maintenance.recall is not None
        ):  # drawn as a table
            recall.draw(p, snapshot, snapshot.maintenance.recall, self, now_ms)
            modal = True
        elif snapshot.mode == WireMode.MAINTENANCE and snapshot.maintenance is not None:
            maintenance.draw(p, snapshot.maintenance, self.diag)
            modal = True
        elif snapshot.mode == WireMode.ATTRACT:
            attract.draw_static(p, snapshot)
            attract.draw(p, snapshot, now_ms, self, clock)
            self._help_button(p)
        else:
            if not cached and not shared:  # the felt alone lies under the consoles
                p.background, p.widget_cache = self._felt_key, self._widgets
            try:
                self._table(p, snapshot, now_ms, anim, own_station, shared, focus)
            finally:
                self._layer_hits = None
            p.background = None
            self._help_button(p)
            self._clock(p, clock)
            if not shared:
                player_panel.draw(p, snapshot, own_station, now_ms)  # HISTORY, reminder
            else:  # the shared screen's panels have their own buttons
                shared_screen.draw_modals(p, snapshot, now_ms)
        if show_help and not modal and not p.dimmed:
            help_scene.draw(p, snapshot)
        if still and not p.dimmed:
            p.fill_rect((0, 0, L.lw, L.lh), theme.OVERLAY_DIM)
            p.dimmed = True
            self._under = (key, surface.copy(), list(p.hits))
        overlays.draw_for(p, snapshot, now_ms)
        if still and p.drawn_panel is not None:
            self._under_last = (surface, p.drawn_panel)
            if partial is not None and partial == p.drawn_panel:
                self.last_dirty = [partial]
        else:
            self._under_last = None
        if not connected:
            p.hits.clear()
            overlays.draw_panel(
                p,
                _("LOST CONNECTION TO ENGINE"),
                [_("Play suspended \u2014 reconnecting\u2026"), _("Your credits and bets are safe.")],
                theme.DANGER,
                now_ms,
                dim=True,
            )
        if rest is not None and not p.dimmed:
            self._rest = (rest, surface, list(p.hits))
        if (
            layered
            and connected
            and not show_help
            and not p.dimmed
            and not self._over
            and snapshot.overlay is None
            and self._layer is not None
        ):
            drew = self._drawn_over_layer(p, snapshot, own_station, clock)
            if drew is not None:
                self._restore = (surface, self._layer[1], drew)
                if restored is not None:
                    self.last_dirty = restored + drew
        return p.hits

    def felt_for(self, L: Layout, s: Snapshot) -> pygame.Surface:
        """The felt of ``s`` (for the recall scene, which draws a past round's table)."""
        return self._felt_for(L, s)

    def table(self, p: Painter, s: Snapshot, now_ms: int) -> None:
        """Draw the table of ``s`` at rest (the recall scene)."""
        self._table(p, s, now_ms, None)

    def invalidate(self) -> None:
        """The screen lost its pixels (exposed, resized): the next frame repaints all of it."""
        self._attract_prev = None
        self._under = None
        self._under_last = None
        self._rest = None
        self._restore = None

    def _drawn_over_layer(
        self, p: Painter, s: Snapshot, own_station: int | None, clock: str
    ) -> list[pygame.Rect] | None:
        """Screen areas (pixels) holding all that a frame drew over the table layer: the
        table above the consoles (dealer, message, timer, spots, cards, chips to and from
        the rack), the meters not in the layer, HELP and the language button, the clock,
        HISTORY and SERVICE; ``None`` when the player's panel or reminder is open."""
        L = p.L
        memo = self._geos
        if memo is None or memo[0] is not s:
            return None
        geos = memo[2]
        if not geos:
            return None
        # the spots (cards rise, an active hand's marker stands above them) down to the consoles
        top = min(g.hands_area.y for _st, g in geos) - 50
        out = [L.rect((0, top, L.lw, min(g.console.y for _st, g in geos) - top))]
        cw, ch = DEALER_CARD
        out.append(L.rect((L.cx - L.lw * 0.25 - 20, L.dealer_cards_top() - 20, L.lw * 0.5 + 40 + cw, ch + 90)))
        mx, my = L.message_center()
        out.append(L.rect((mx - L.lw * 0.3 - 10, my - 32, L.lw * 0.6 + 20, 64)))
        tx, ty = L.timer_center()
        out.append(L.rect((tx - 90, ty - 90, 180, 210)))
        out += self._moving
        out += [L.rect(r) for st, g in geos if st.station not in self._layer_meters for r in g.meters]
        out.append(L.rect(p.button_area(L.help_button(), True)))
        if len(self._languages) > 1:
            out.append(L.rect(p.button_area(LANGUAGE_BUTTON, True)))
        if clock:
            x, y = L.clock_pos()
            out.append(L.rect(pygame.Rect(x, y - 18, int(p.text_width(clock, 24, True) + 26), 36)))
        st = player_panel.station_of(s, own_station)
        if st is not None:
            if st.history is not None or st.reminder is not None:
                return None
            area = player_panel.history_button().union(player_panel.service_button())
            out.append(L.rect(area.inflate(20, 0).union(area.move(0, 70))))
        screen = p.surface.get_rect()
        return [r.clip(screen) for r in out if r.colliderect(screen)]

    def _table_layer(self, L: Layout, s: Snapshot, felt: pygame.Surface, anim: Anim | None) -> pygame.Surface:
        """The felt with every station's console as it stands for all of ``s`` (panel, name,
        READY, host badge, message, buttons, and the meters of a station whose credit meter
        does not count in ``anim``), drawn once per snapshot; a frame blits it and draws only
        what can change within the snapshot over it (cards, chips, counting meters)."""
        still = frozenset(st.station for st in s.stations if not settle_draw.meter_counts(st, anim))
        key = (self._felt_key, L, id(s), s.seq, i18n.current(), tuple(sorted(self._notices.items())), still)
        if self._layer is not None and self._layer[0] == key:
            return self._layer[1]
        layer = felt.copy()
        lp = Painter(layer, L, self.art)
        lp.background, lp.widget_cache = self._felt_key, self._widgets
        count = max(1, len(s.stations))
        hits: dict[int, list[HitBox]] = {}
        for i, st in enumerate(s.stations):
            geo = station_geometry(L, lp, s, i, count, st)
            lp.hits = []
            self._console(lp, s, st, geo, count)
            self._buttons(lp, s, st, geo)
            if st.station in still:
                self._meters(lp, s, st, geo)
            hits[st.station] = lp.hits
        self._layer = (key, layer, hits, still)
        return layer

    def _attract(self, p: Painter, s: Snapshot, now_ms: int, clock: str) -> list[HitBox]:
        """The attract loop, repainting only what moved since the last attract frame
        drawn on this same surface (``attract.draw_partial``)."""
        L = p.L
        key = (L.width, L.height, L.portrait, s.variant_name, tuple(s.table_texts), i18n.current(), self._languages)
        if self._attract_bg is None or self._attract_bg[0] != key:
            bg = self._felt_for(L, s).copy()
            if pygame.display.get_surface() is not None:
                bg = bg.convert()  # the display's format restores fastest
            bp = Painter(bg, L, self.art)
            attract.draw_static(bp, s)
            self._help_button(bp)
            self._attract_bg = (key, bg, bp.hits)
            self._attract_prev = None
        _key, bg, hits = self._attract_bg
        prev = self._attract_prev
        previous = prev[2] if prev is not None and prev[0] is p.surface and prev[1] == key else None
        if self._notices:  # a refused press in attract: the invitation says why
            s = msgspec.structs.replace(s, message=next(iter(self._notices.values())), message_said=[])
        now, dirty = attract.draw_partial(p, bg, previous, s, now_ms, self, clock)
        self._attract_prev = (p.surface, key, now)
        self.last_dirty = None if previous is None else dirty
        return list(hits)

    # -- background ----------------------------------------------------------

    def _felt_for(self, L: Layout, s: Snapshot | None) -> pygame.Surface:
        maint = s is not None and s.mode == WireMode.MAINTENANCE
        texts = tuple(_(t) for t in s.table_texts) if s is not None and s.mode != WireMode.ATTRACT else ()
        name = _(s.variant_name) if s is not None and s.mode not in (WireMode.ATTRACT,) else ""
        limits = (
            (s.min_bet_minor, s.max_bet_minor, s.spots_per_station, s.currency_symbol)
            if s is not None and s.mode != WireMode.ATTRACT
            else (0, 0, 0, "")
        )
        key = (L.width, L.height, L.lw, L.portrait, name, texts, maint, limits, i18n.current())
        self._felt_key = key
        surf = self._felt.get(key)
        if surf is None:
            if len(self._felt) > 8:
                self._felt.clear()
            surf = self._make_felt(L, name, texts, maint, limits)
            self._felt[key] = surf
        return surf

    def _make_felt(
        self,
        L: Layout,
        name: str,
        texts: tuple[str, ...],
        maint: bool,
        limits: tuple[int, int, int, str] = (0, 0, 0, ""),
    ) -> pygame.Surface:
        surf = pygame.Surface((L.width, L.height))
        if maint:
            surf.fill((16, 20, 28))
            return surf
        # radial gradient, drawn small and smooth-scaled up
        gw, gh = 96, max(2, int(96 * L.height / L.width))
        g = pygame.Surface((gw, gh))
        cx, cy = gw / 2, gh * 0.42
        rmax = math.hypot(gw / 2, gh * 0.6)
        for y in range(gh):
            for x in range(gw):
                t = min(1.0, math.hypot(x - cx, (y - cy) * 1.25) / rmax)
                t = t * t
                g.set_at(
                    (x, y), tuple(int(a + (b - a) * t) for a, b in zip(theme.FELT_CENTER, theme.FELT_EDGE, strict=True))
                )
        surf.blit(pygame.transform.smoothscale(g, (L.width, L.height)), (0, 0))
        p = Painter(surf, L, self.art)
        self._dealer_tray(p)
        self._shoe(p)
        # felt printing along arcs concentric with the players' rail
        top = L.felt_text_top()
        R = L.lw * (0.95 if not L.portrait else 1.1)
        ccx, ccy = L.cx, top - R
        lines: list[tuple[str, float, tuple[int, ...], bool]] = []
        if name:  # a long name (the multi-player table's) shrinks to pass
            # between the limits placard and the discard tray
            right = min(L.discard_tray().x, L.timer_center()[0] - 70)
            room = 2 * min(L.cx - L.limits_placard().right, right - L.cx) - 40  # centred
            px = min(44.0, 44.0 * room / max(1.0, p.text_width(name.upper(), 44, True) * 1.1))
            lines.append((name.upper(), px, theme.GOLD, True))
        for i, line in enumerate(texts):
            lines.append((line, 32 if i == 0 else 24, theme.GOLD if i == 0 else theme.CREAM, i == 0))
        radius = R
        for text, px, color, bold in lines:
            radius += px * 0.6
            _arc_text(p, text, px, color, bold, (ccx, ccy), radius)
            radius += px * 0.7
        if not lines:
            return surf  # attract draws its own titles
        arc_r = radius + 6
        rect = pygame.Rect(0, 0, 0, 0)
        rect.size = (L.px(2 * arc_r), L.px(2 * arc_r))
        rect.center = L.pt(ccx, ccy)
        pygame.draw.arc(surf, theme.FELT_LINE, rect, math.radians(232), math.radians(308), max(1, L.px(3)))
        self._placard(p, limits, texts)
        return surf

    def _dealer_tray(self, p: Painter) -> None:
        """The dealer's chip rack, whole (never half off the top);
        none where the layout has no room (``Layout.chip_rack``)."""
        tray = p.L.chip_rack()
        if tray is None:
            return
        p.fill_rect(tray.move(0, 5), (0, 0, 0, 90), radius=10)
        p.fill_rect(tray, (30, 22, 14), radius=10)
        vals = [10_000, 2_500, 500, 100, 100, 500, 2_500, 10_000]
        cw = (tray.w - 16) / len(vals)
        d = p.L.px(cw - 4)
        for i, v in enumerate(vals):
            chip = p.art.chips.side(v, d)
            x = tray.x + 8 + cw * i + cw / 2
            for k in range(3):
                p.blit_center(chip, (x, tray.bottom - 16 - k * 5))
        p.fill_rect(tray, theme.GOLD_DARK, radius=10, width=2)

    def _shoe(self, p: Painter) -> None:
        """A card shoe, whole: a dark box whose slanted acrylic front shows the next
        card's back, and the discard tray beside it with the used cards."""
        L = p.L
        r = L.shoe_rect()
        mouth = r.h * 0.5
        body = [(r.x + r.w * 0.3, r.y), (r.right, r.y), (r.right, r.bottom), (r.x, r.bottom), (r.x, r.bottom - mouth)]
        pygame.draw.polygon(p.surface, (0, 0, 0), [L.pt(x + 4, y + 6) for x, y in body])
        pygame.draw.polygon(p.surface, (40, 30, 22), [L.pt(x, y) for x, y in body])
        # the next card, face down, in the shoe's mouth
        cw, ch = r.w * 0.42, mouth - 16
        back = pygame.transform.rotate(p.art.cards.back(L.px(ch), L.px(cw)), 90)
        p.surface.blit(back, L.pt(r.x + 8, r.bottom - mouth + 6))
        pygame.draw.line(
            p.surface, theme.GOLD_DARK, L.pt(r.x, r.bottom - mouth), L.pt(r.x + r.w * 0.3, r.y), max(1, L.px(3))
        )
        pygame.draw.polygon(p.surface, theme.GOLD_DARK, [L.pt(x, y) for x, y in body], max(1, L.px(3)))
        p.text(_("SHOE"), 18, theme.GOLD, (r.x + r.w * 0.72, r.y + 34), bold=True)
        # the discard tray, the used cards in it
        t = L.discard_tray()
        p.fill_rect(t.move(0, 5), (0, 0, 0, 90), radius=10)
        p.fill_rect(t, (34, 26, 18), radius=10)
        uw, uh = t.w - 50, t.h - 44
        used = pygame.transform.rotate(p.art.cards.back(L.px(uh), L.px(uw)), 90)
        for k in range(4):
            p.surface.blit(used, L.pt(t.x + 25 + k, t.y + 12 - k * 2))
        p.fill_rect(t, theme.GOLD_DARK, radius=10, width=2)
        p.text(_("DISCARD"), 15, theme.GOLD, (t.centerx, t.bottom - 15), bold=True, max_w=t.w - 10)

    def _placard(self, p: Painter, limits: tuple[int, int, int, str], texts: tuple[str, ...]) -> None:
        """The table limits placard: the minimum and maximum bet per spot
        and the pay lines, from the snapshot (the engine renders both from the
        ``RuleSet``: ``min_bet_minor``/``max_bet_minor``, ``table_texts``)."""
        lo, hi, spots, sym = limits
        if not hi:
            return
        r = p.L.limits_placard()
        p.fill_rect(r.move(0, 5), (0, 0, 0, 90), radius=12)
        p.fill_rect(r, (246, 238, 214), radius=12)
        p.fill_rect(r.inflate(-10, -10), theme.GOLD_DARK, radius=9, width=2)
        p.text(_("TABLE LIMITS"), 20, (90, 20, 20), (r.centerx, r.y + 24), bold=True, max_w=r.w - 24)
        p.text(
            f"{fmt_money(lo, sym, compact=True)} \u2013 {fmt_money(hi, sym, compact=True)}",
            38,
            theme.INK,
            (r.centerx, r.y + 62),
            bold=True,
            max_w=r.w - 24,
        )
        p.text(_("per spot") if spots > 1 else _("per hand"), 17, theme.INK, (r.centerx, r.y + 92), max_w=r.w - 24)
        y = r.y + 118
        # the felt's pay lines; insurance's with what it costs, so a new player reads
        # both from the placard (RULES.md: half the bet)
        lines = [_("Insurance costs \u00bd bet, pays 2 to 1") if i == 2 else line for i, line in enumerate(texts[:3])]
        for line in lines:
            p.text(line.capitalize() if line.isupper() else line, 16, theme.INK, (r.centerx, y), max_w=r.w - 24)
            y += 23

    def _clock(self, p: Painter, text: str) -> None:
        """The time of day, always on screen."""
        if text:
            x, y = p.L.clock_pos()
            w = p.text_width(text, 24, True) + 26
            p.fill_rect(pygame.Rect(x, y - 18, int(w), 36), (0, 0, 0, 150), radius=18)
            p.text(text, 24, theme.CREAM, (x + w / 2, y), bold=True)

    def _help_button(self, p: Painter) -> None:
        p.button(p.L.help_button(), _("HELP"), True, "ui:help", px=24)
        if len(self._languages) > 1:  # the player picks the screen's language
            code = i18n.next_language(i18n.current().code)
            p.button(LANGUAGE_BUTTON, i18n.LANGUAGE_NAMES.get(code, code.upper()), True, "ui:toggle_language", px=20)

    # -- the table -----------------------------------------------------------

    def _table(
        self,
        p: Painter,
        s: Snapshot,
        now_ms: int,
        anim: Anim | None,
        own_station: int | None = None,
        shared: bool = False,
        focus: int | None = None,
    ) -> None:
        """The dealer, the table's message and timer, the stations (``shared``: the shared
        screen's panels, ``ui.shared_screen``, ``focus`` the station the keys act for)."""
        L = p.L
        count = max(1, len(s.stations))
        own = next((st for st in s.stations if st.station == own_station), None) if count > 1 and not shared else None
        if shared:
            geos = shared_screen.panel_geos(p, s, station_geometry)
        elif own is not None:
            box, others = own_station_mod.own_boxes(L, s, own.station)
            geos = [(own, station_geometry(L, p, s, 0, 1, own, box=box))]
        else:
            # the same snapshot on the same layout (every frame of a tween): the same places
            memo = self._geos
            if memo is not None and memo[0] is s and memo[1] == (L, i18n.current()):
                geos = memo[2]
            else:
                geos = [(st, station_geometry(L, p, s, i, count, st)) for i, st in enumerate(s.stations)]
                self._geos = (s, (L, i18n.current()), geos)
        self._motion(p, s, geos, now_ms, anim, "under")  # under every card
        self._dealer(p, s, now_ms, anim)
        if s.message:
            cx, cy = L.message_center()
            p.pill(
                told(s.message, s.message_said, s.currency_symbol),
                (cx, cy),
                px=32,
                fg=theme.GOLD,
                bg=(0, 0, 0, 175),
                edge=theme.GOLD_DARK,
                max_w=L.lw * 0.6,
            )
        if s.timer is not None:
            self._timer(p, s)
        if shared:
            shared_screen.draw_panels(self, p, s, now_ms, anim, focus, geos)
        elif own is not None:
            for st, panel in others:
                cards_bottom, card_h, circle_y, pill_y = own_station_mod.other_geometry(panel)
                mini = StationGeo(
                    panel,
                    pygame.Rect(panel.x, panel.bottom, panel.w, 0),
                    pygame.Rect(panel.x, panel.y, panel.w, 0),
                    [],
                    [],
                    panel,
                    circle_y,
                    22,
                    pill_y,
                    cards_bottom,
                    card_h,
                )
                own_station_mod.draw_other(self, p, s, st, panel, mini, now_ms, anim)
            self._station(p, s, own, geos[0][1], 2, now_ms, anim)
        else:
            for st, geo in geos:
                self._station(p, s, st, geo, count, now_ms, anim)
        self._motion(p, s, geos, now_ms, anim, "over")  # into the credit meters, the banner

    def _motion(
        self,
        p: Painter,
        s: Snapshot,
        geos: list[tuple[StationView, StationGeo]],
        now_ms: int,
        anim: Anim | None,
        layer: str,
    ) -> None:
        """The settlement's flying stacks (``ui.settle_draw``) and the win
        celebrations (``ui.celebration``): ``"under"`` before any card is drawn (to and
        from the rack, the rings, the chip shower), ``"over"`` after the consoles (into
        the credit meters, the banner)."""
        if anim is None:
            return
        shown = {st.station for st, _ in geos}  # a station's own screen: its own wins only
        wins = [c for c in anim.celebrations(now_ms) if c.station in shown]
        clip = p.surface.get_clip()
        if wins and layer == "under" and geos:  # the felt above the consoles: no chip shows through one
            p.surface.set_clip(clip.clip(p.L.rect((0, 0, p.L.lw, min(g.console.y for _, g in geos)))))
        for st, geo in geos:
            n_spots = max(1, s.spots_per_station, len(st.spots))
            spot_w = geo.box.w / n_spots
            centres = {
                sp.spot: (geo.box.x + spot_w * (n_spots - sp.spot + 0.5), float(geo.circle_y)) for sp in st.spots
            }
            settle_draw.draw_moving(
                p, st, centres, geo.circle_r, spot_w, geo.meters[0] if geo.meters else None, anim, now_ms, layer
            )
            if layer == "under":
                for c in wins:
                    if c.station == st.station:
                        celebration.draw_under(
                            p, c, now_ms, [(*centres[n], geo.circle_r) for n in c.spots if n in centres]
                        )
        p.surface.set_clip(clip)
        if wins or any(settle_draw.flying_at(st, anim, now_ms, layer) for st, _g in geos):
            self._over = True  # anywhere on the screen: the next frame restores all of it
        if layer == "over" and wins:  # one banner: the biggest win's
            rank = (celebration.BIG, celebration.MEDIUM, celebration.SMALL)
            top = min(wins, key=lambda c: (rank.index(c.tier), -c.net_minor))
            celebration.draw_over(p, top, now_ms, s.currency_symbol, len(geos))

    def _card_rects(
        self, n: int, center_x: float, bottom: float, cw: float, ch: float, max_w: float, rise: float
    ) -> tuple[list[pygame.Rect], float, float]:
        """Fan ``n`` cards left to right, centred, shrinking cards that don't fit ``max_w``."""
        if n > 1:
            fit_w = max_w / (1 + 0.3 * (n - 1))
            if fit_w < cw:
                ch = ch * fit_w / cw
                cw = fit_w
        step = cw * (0.3 if n > 4 else 0.36)
        total = cw + step * (n - 1)
        x0 = center_x - total / 2
        rects = [pygame.Rect(int(x0 + i * step), int(bottom - ch - i * rise), int(cw), int(ch)) for i in range(n)]
        return rects, cw, ch

    def _blit_card(self, p: Painter, code: str, r: pygame.Rect, key: CardKey, now_ms: int, anim: Anim | None) -> bool:
        """Draw one card at rest or in motion; False when it is still in the shoe."""
        L = p.L
        pr = L.rect(r)
        w, h = pr.w, pr.h
        prog = anim.card(key, now_ms) if anim is not None else None
        if prog is not None:
            if prog < 0:
                return False
            shoe = L.rect(L.shoe_rect())
            sx, sy = shoe.x + shoe.w * 0.2, shoe.y + shoe.h * 0.3
            pr.x = int(sx + (pr.x - sx) * prog)
            pr.y = int(sy + (pr.y - sy) * prog)
        flip = anim.flip(key, now_ms) if anim is not None else None
        if prog is not None or flip is not None:  # a card and its shadow, lifted as it turns
            pad = shadow_pad(w)
            self._moving.append(pygame.Rect(pr.x - 2, pr.y - h // 10 - 2, w + pad + 4, h + h // 10 + pad + 4))
        if flip is not None:
            face = p.art.cards.back(w, h) if flip < 0.5 else p.art.cards.face(code, w, h)
            sx = abs(1 - 2 * flip)
            fw = max(1, int(face.get_width() * sx))
            sprite = pygame.transform.smoothscale(face, (fw, face.get_height()))
            p.surface.blit(sprite, (pr.x + (face.get_width() - fw) // 2, pr.y - int(h * 0.06 * (1 - sx))))
            return True
        p.art.cards.blit(p.surface, code, w, h, pr.topleft)
        return True

    def _dealer(self, p: Painter, s: Snapshot, now_ms: int, anim: Anim | None) -> None:
        L = p.L
        codes = list(s.dealer.cards) + ["back"] * s.dealer.face_down
        dealer_w, dealer_h = DEALER_CARD
        top = L.dealer_cards_top()
        if not codes:
            return
        rects, cw, ch = self._card_rects(len(codes), L.cx, top + dealer_h, dealer_w, dealer_h, L.lw * 0.5, 0)
        # the dealer spreads wider than players
        step = min(cw * 0.62, (L.lw * 0.5 - cw) / max(1, len(codes) - 1)) if len(codes) > 1 else 0
        x0 = L.cx - (cw + step * (len(codes) - 1)) / 2
        rects = [pygame.Rect(int(x0 + i * step), top, int(cw), int(ch)) for i in range(len(codes))]
        for i, (code, r) in enumerate(zip(codes, rects, strict=False)):
            self._blit_card(p, code, r, ("d", i), now_ms, anim)
        if s.dealer.total_text:
            self._total_pill(p, s.dealer.total_text, (L.cx, top + ch + 21), 24)

    def _total_pill(self, p: Painter, text: str, c: tuple[float, float], px: float) -> None:
        up = text.upper()
        if up == "BUST":
            p.pill(_("BUST"), c, px, fg=theme.WHITE, bg=theme.LOSE)
        elif up == "BLACKJACK":
            p.pill(_("BLACKJACK"), c, px, fg=theme.INK, bg=theme.BLACKJACK)
        else:
            p.pill(total_words(text), c, px, fg=theme.WHITE, bg=(0, 0, 0, 170), edge=(255, 255, 255, 90))

    def _timer(self, p: Painter, s: Snapshot) -> None:
        assert s.timer is not None
        cx, cy = p.L.timer_center()
        r = 66
        urgent = s.timer.seconds_left <= 5
        pygame.draw.circle(p.surface, (0, 0, 0), p.L.pt(cx, cy), p.L.px(r))
        pygame.draw.circle(
            p.surface, theme.DANGER if urgent else theme.GOLD, p.L.pt(cx, cy), p.L.px(r), max(1, p.L.px(5))
        )
        label = _("BETS CLOSE") if s.timer.kind == "bet" else _("DECIDE")
        if s.timer.station is not None and s.timer.kind != "bet":
            label = _("STATION {n}").format(n=s.timer.station)
        # the label inside the ring when it fits there at a legible size, else
        # ("FIN DE APUESTAS" at 800x480) on a tag under the circle
        room = 2 * math.sqrt((r - 6) ** 2 - 40**2)  # the ring's inside at the label's bottom
        inside = p.fonts.fit(label, max(p.L.px(15), MIN_TEXT_PX), p.L.px(room), bold=True, min_px=6) >= MIN_TEXT_PX
        p.text(
            str(s.timer.seconds_left),
            52,
            theme.DANGER if urgent else theme.WHITE,
            (cx, cy - 8 if inside else cy),
            bold=True,
        )
        if inside:
            p.text(label, 15, theme.GOLD, (cx, cy + 31), bold=True, max_w=room)
        else:
            lpx = max(15.0, MIN_TEXT_PX / p.L.scale)
            p.pill(label, (cx, cy + r + 4 + lpx * 0.75), lpx, fg=theme.GOLD, bg=(0, 0, 0, 200), edge=theme.GOLD_DARK)

    def _station(
        self, p: Painter, s: Snapshot, st: StationView, geo: StationGeo, count: int, now_ms: int, anim: Anim | None
    ) -> None:
        L = p.L
        sym = s.currency_symbol
        felt = settle_draw.on_felt_minor(st, anim, now_ms)  # counted in as it arrives
        st = msgspec.structs.replace(st, credits_minor=st.credits_minor - felt) if felt else st
        n_spots = max(1, s.spots_per_station, len(st.spots))
        spot_w = geo.box.w / n_spots
        by_spot = {sp.spot: sp for sp in st.spots}
        place = "place" in st.lamps or bool(s.chip_values_minor)
        for k in range(n_spots):
            # RULES.md `american`: spot 1 is on the player's right (the dealer's left)
            # and plays first, so spots run right to left on screen.
            spot_no = n_spots - k
            cx = geo.box.x + spot_w * (k + 0.5)
            sp = by_spot.get(spot_no)
            self._spot(p, s, st, sp, spot_no, cx, spot_w, geo, n_spots, now_ms, anim)
            if place and s.mode != WireMode.IN_ROUND:
                r = geo.circle_r
                p.hits.append(
                    HitBox(
                        L.rect((cx - r, geo.circle_y - r, 2 * r, 2 * r)),
                        "place",
                        st.station,
                        spot_no,
                        "place" in st.lamps,
                    )
                )
        layer_hits = self._layer_hits.get(st.station) if self._layer_hits is not None else None
        if layer_hits is None:
            self._console(p, s, st, geo, count)
        if layer_hits is None or st.station not in self._layer_meters:
            self._meters(p, s, st, geo)
        if st.fault:
            self._out_of_service(p, st.fault, geo, st.fault_said)
        elif st.refusal:  # why this station's note or voucher came back
            refusal = ": ".join(say(x, sym) for x in st.refusal_said) if st.refusal_said else _(st.refusal)
            p.pill(
                refusal,
                (geo.box.centerx, geo.hands_area.y + 40),
                24,
                fg=theme.INK,
                bg=theme.WARNING,
                max_w=geo.box.w - 40,
            )
        if layer_hits is None:
            self._buttons(p, s, st, geo)
        else:
            p.hits += layer_hits

    def _meters(self, p: Painter, s: Snapshot, st: StationView, geo: StationGeo) -> None:
        """A station's meters (credits, bet, insurance, paid), each from the pixel cache."""
        for r, label, minor in zip(
            geo.meters,
            (_("CREDITS"), _("BET"), _("INSURANCE"), _("PAID")),
            (st.credits_minor, st.bet_minor, st.insurance_minor, st.win_minor),
            strict=False,
        ):
            text = meter_text(minor, s.credit_minor, s.currency_symbol)
            p.cached(("meter", tuple(r), label, *text), r, partial(p.meter, r, label, *text))

    def _console(self, p: Painter, s: Snapshot, st: StationView, geo: StationGeo, count: int) -> None:
        """A station's console as it stands for the whole snapshot: the panel, the station's
        name, READY, the host link badge and the message (or why a press was refused)."""
        L = p.L

        def panel(con: pygame.Rect = geo.console) -> None:
            p.fill_rect(con.move(0, 4), (0, 0, 0, 90), radius=18)
            p.fill_rect(con, theme.PANEL, radius=18)
            p.fill_rect(con, theme.PANEL_EDGE, radius=18, width=2)

        p.cached(("console", tuple(geo.console)), geo.console.union(geo.console.move(0, 4)), panel)
        if count > 1:
            p.text(
                _("STATION {n}").format(n=st.station),
                18,
                theme.GOLD,
                (geo.message.x + 6, geo.message.centery),
                anchor="midleft",
                bold=True,
            )
            if st.ready:
                p.pill(_("READY"), (geo.message.right - 50, geo.message.centery), 16, fg=theme.INK, bg=theme.WIN)
        if st.host_link:  # the casino host link of this station
            online = st.host_link == "online"
            # sized as drawn (never under MIN_TEXT_PX) and ending inside the
            # console's right edge, so a long label ("SISTEMA EN LÍNEA") is whole on screen
            badge = _("HOST ONLINE") if online else _("HOST OFFLINE")
            bpx = max(12.0, MIN_TEXT_PX / L.scale)
            bw = p.text_width(badge, bpx, True) + bpx * 1.2
            p.pill(
                badge,
                (geo.console.right - 8 - bw / 2, geo.console.y - max(14.0, bpx * 0.75 + 2)),
                bpx,
                fg=theme.INK if online else theme.WHITE,
                bg=theme.WIN if online else theme.DANGER,
            )
        notice = self._notices.get(st.station)
        if notice:  # why the last press was refused
            m = geo.message
            left: float = m.x + 10
            right: float = m.right - 10
            if count > 1:  # beside the station's name (and READY), not under them
                name = _("STATION {n}").format(n=st.station)  # as drawn: never under MIN_TEXT_PX
                left = m.x + 18 + p.fonts.font(max(L.px(18), MIN_TEXT_PX), True).size(name)[0] / L.scale
                right = m.right - (110 if st.ready else 10)
            p.pill(notice, ((left + right) / 2, m.centery), 20, fg=theme.INK, bg=theme.WARNING, max_w=right - left)
        elif st.message:
            p.text(
                told(st.message, st.message_said, s.currency_symbol),
                22,
                theme.GOLD,
                geo.message.center,
                bold=True,
                max_w=geo.message.w - (300 if count > 1 else 20),
            )

    def _buttons(self, p: Painter, s: Snapshot, st: StationView, geo: StationGeo) -> None:
        """A station's buttons, lit as its lamps are (none while the door is open)."""
        lamps = set(st.lamps)
        # the door-open freeze offers no buttons (nothing can be pressed)
        specs = button_specs(s, st) if s.mode != WireMode.DOOR_OPEN else []
        for (action, label, value), r in zip(specs, geo.buttons, strict=False):
            if action == "chip" and value is not None:
                p.chip_button(r, value, "chip" in lamps, st.selected_chip_minor == value, st.station)
            else:
                lit = action in lamps
                p.cached(
                    ("button", tuple(r), label, lit, action, st.station, value, geo.button_px),
                    p.button_area(r, lit),
                    partial(
                        p.button,
                        r,
                        label,
                        lit,
                        action,
                        station=st.station,
                        value=value,
                        px=geo.button_px,
                        danger=action == "cash_out",
                    ),
                )

    def _out_of_service(self, p: Painter, text: str, geo: StationGeo, fault_said: list[Said] | None = None) -> None:
        """This station's own device failed; a panel over its hands says
        which and why, while the other stations play on."""
        area = geo.hands_area.inflate(-24, -24)
        p.fill_rect(area, (0, 0, 0, 185), radius=18)
        p.fill_rect(area, theme.DANGER, radius=18, width=4)
        p.text(_("OUT OF SERVICE"), 30, theme.DANGER, (area.centerx, area.y + 44), bold=True, max_w=area.w - 30)
        body = text.removeprefix("Out of service: ")
        if fault_said:  # in the screen's language
            body = _("{faults} - call attendant").format(faults="; ".join(say(f, "$") for f in fault_said))
        lines = p.wrap(body, 22, area.w - 40)
        y = area.y + 92
        for ln in lines[:5]:
            p.text(ln, 22, theme.CREAM, (area.centerx, y), max_w=area.w - 30)
            y += 32

    def _spot(
        self,
        p: Painter,
        s: Snapshot,
        st: StationView,
        sp: SpotView | None,
        spot_no: int,
        cx: float,
        spot_w: float,
        geo: StationGeo,
        n_spots: int,
        now_ms: int,
        anim: Anim | None,
    ) -> None:
        L = p.L
        r = geo.circle_r
        cy = geo.circle_y
        # betting circle
        pygame.draw.circle(p.surface, (10, 70, 38), L.pt(cx, cy), L.px(r))
        pygame.draw.circle(p.surface, theme.FELT_LINE, L.pt(cx, cy), L.px(r), max(1, L.px(3)))
        bet = sp.bet_minor if sp is not None else 0
        if sp is None or (bet == 0 and not sp.hands):
            label = str(spot_no) if n_spots > 1 else _("BET")
            # inside the circle ("APUESTA" was wider than it)
            p.text(label, 26, (214, 182, 96, 150), (cx, cy), bold=True, max_w=2 * r - 20)
        if sp is not None:
            chips = list(sp.chips_minor) or (chip_split(bet) if bet else [])
            if settle_draw.is_settled(sp):  # swept, paid beside, collected
                settle_draw.draw_rest(
                    p, s.currency_symbol, st, sp, settle_draw.spot_slots(sp, cx, cy, r, spot_w), anim, now_ms
                )
            elif len(sp.hands) > 1 or any(h.doubled for h in sp.hands):
                self._hand_stakes(p, s, sp, cx, cy, r, spot_w)
            elif chips:
                self._stack(p, chips, (cx, cy + 14), 64)
                p.pill(
                    fmt_money(bet, s.currency_symbol, compact=True),
                    (cx, cy + r + 16),
                    17,
                    fg=theme.WHITE,
                    bg=(0, 0, 0, 190),
                )
            if sp.insurance_minor and sp.insurance_returned_minor is None:
                ix = cx - r - 40
                self._stack(p, chip_split(sp.insurance_minor), (ix, cy + 10), 44)
                p.text(_("INS"), 14, theme.CREAM, (ix, cy + 34), bold=True)
            # hands
            k = len(sp.hands)
            if k:
                hand_w = spot_w / k
                for j, hand in enumerate(sp.hands):
                    hcx = cx + (j - (k - 1) / 2) * hand_w
                    self._hand(p, s, st, sp, j, hand, hcx, hand_w, geo, now_ms, anim, k)

    def _hand_stakes(
        self, p: Painter, s: Snapshot, sp: SpotView, cx: float, cy: float, r: float, spot_w: float
    ) -> None:
        """Each split hand's own stake, left to right as its hand, and a
        doubled stake as two stacks (the bet and the double beside it), each with
        the hand's real amount under it."""
        k = len(sp.hands)
        gap = spot_w / k if k > 1 else 0  # under its own hand (``_spot`` spreads them so)
        for j, h in enumerate(sp.hands):
            hx = cx + (j - (k - 1) / 2) * gap
            d = 50 if k > 1 else 60
            if h.doubled:
                half = h.stake_minor // 2
                self._stack(p, chip_split(half), (hx - d * 0.42, cy + 14), d * 0.8)
                self._stack(p, chip_split(h.stake_minor - half), (hx + d * 0.42, cy + 14), d * 0.8)
            else:
                self._stack(p, chip_split(h.stake_minor), (hx, cy + 14), d)
            p.pill(
                fmt_money(h.stake_minor, s.currency_symbol, compact=True),
                (hx, cy + r + 16),
                17,
                fg=theme.WHITE,
                bg=(0, 0, 0, 190),
            )

    def _hand(
        self,
        p: Painter,
        s: Snapshot,
        st: StationView,
        sp: SpotView,
        j: int,
        hand: HandView,
        hcx: float,
        hand_w: float,
        geo: StationGeo,
        now_ms: int,
        anim: Anim | None,
        k: int,
    ) -> None:
        L = p.L
        n = len(hand.cards)
        rects, cw, ch = self._card_rects(n, hcx, geo.cards_bottom, geo.card_h * 5 / 7, geo.card_h, hand_w - 20, 3)
        drawn = []
        for i, (code, r) in enumerate(zip(hand.cards, rects, strict=False)):
            if self._blit_card(p, code, r, ("p", st.station, sp.spot, j, i), now_ms, anim):
                drawn.append(r)
        if rects:
            box = rects[0].unionall(rects[1:]) if len(rects) > 1 else rects[0].copy()
            if hand.active:
                glow = box.inflate(14, 14)
                p.fill_rect(glow, theme.ACTIVE_GLOW, radius=12, width=4)
                tri = [
                    L.pt(glow.centerx - 16, glow.y - 26),
                    L.pt(glow.centerx + 16, glow.y - 26),
                    L.pt(glow.centerx, glow.y - 6),
                ]
                pygame.draw.polygon(p.surface, theme.ACTIVE_GLOW, tri)
            elif k > 1 and any(h.active for h in sp.hands):
                p.fill_rect(box.inflate(8, 8), (0, 0, 0, 70), radius=10)
        if hand.total_text:
            self._total_pill(p, hand.total_text, (hcx, geo.pill_y), 22)
        if hand.outcome and rects:
            box = rects[0].unionall(rects[1:]) if len(rects) > 1 else rects[0]
            # mid-height, between the top-left and bottom-right indices
            self._outcome_badge(p, s, hand, (box.centerx, box.centery), hand_w - 16)
        if hand.doubled and rects:
            last = rects[-1]
            p.pill("x2", (last.right - 6, last.y + 14), 16, fg=theme.INK, bg=theme.GOLD)

    def _outcome_badge(self, p: Painter, s: Snapshot, hand: HandView, c: tuple[float, float], max_w: float) -> None:
        o = hand.outcome or ""
        # what the hand won, net of its stake (the meter shows what was paid)
        amount = (hand.returned_minor or 0) - hand.stake_minor
        money = fmt_money(amount, s.currency_symbol) if amount > 0 else ""
        if o == "blackjack":
            p.pill(f"{_('BLACKJACK')} {money}".strip(), c, 22, fg=theme.INK, bg=theme.BLACKJACK, max_w=max_w)
        elif o == "win":
            p.pill(f"{_('WIN')} {money}".strip(), c, 22, fg=theme.WHITE, bg=(*theme.WIN[:3], 235), max_w=max_w)
        elif o == "push":
            p.pill(_("PUSH"), c, 22, fg=theme.WHITE, bg=(*theme.PUSH[:3], 235), max_w=max_w)
        elif o == "bust":
            p.pill(_("BUST"), c, 22, fg=theme.WHITE, bg=(*theme.LOSE[:3], 235), max_w=max_w)
        elif o == "lose":
            p.pill(_("LOSE"), c, 22, fg=theme.WHITE, bg=(120, 20, 20, 235), max_w=max_w)

    def _stack(self, p: Painter, chips: list[int], base: tuple[float, float], d: float) -> None:
        """A stack of chips seen at an angle, bottom chip centred at ``base`` (largest at the bottom)."""
        dpx = p.L.px(d)
        shown = sorted(chips, reverse=True)[:12]
        for i, v in enumerate(shown):
            p.blit_center(p.art.chips.side(v, dpx), (base[0], base[1] - i * d * 0.13))


def _arc_text(
    p: Painter, text: str, px: float, color: tuple[int, ...], bold: bool, center: tuple[float, float], radius: float
) -> None:
    """Text curved along the bottom of a circle (a smile), centred under ``center``."""
    L = p.L
    size = L.px(px)
    font = p.fonts.font(size, bold)
    widths = [font.size(ch)[0] / L.scale for ch in text]
    total = sum(widths) + 0.06 * px * len(text)
    ang = math.pi / 2 + (total / radius) / 2
    for ch, w in zip(text, widths, strict=False):
        a_mid = ang - (w / 2) / radius
        x = center[0] + radius * math.cos(a_mid)
        y = center[1] + radius * math.sin(a_mid)
        if ch.strip():
            g = font.render(ch, True, color[:3])
            g = pygame.transform.rotozoom(g, -math.degrees(a_mid - math.pi / 2), 1.0)
            shadow = g.copy()
            shadow.fill((0, 0, 0, 110), special_flags=pygame.BLEND_RGBA_MIN)
            p.surface.blit(shadow, shadow.get_rect(center=L.pt(x + 2, y + 2)))
            p.surface.blit(g, g.get_rect(center=L.pt(x, y)))
        ang -= (w + 0.06 * px) / radius


_default: Renderer | None = None


def draw(
    surface: pygame.Surface,
    snapshot: Snapshot | None,
    now_ms: int,
    anim: Anim | None = None,
    connected: bool = True,
    show_help: bool = False,
) -> list[HitBox]:
    """``Renderer.draw`` on a module-wide renderer (see there for the arguments)."""
    global _default
    if _default is None:
        _default = Renderer()
    return _default.draw(surface, snapshot, now_ms, anim, connected, show_help)

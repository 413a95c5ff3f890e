"""The player's own buttons and panels on the table ("What a player expects").

Owns: the SERVICE button (the ``service`` intent: calls the attendant; while the call
stands it reads CALLED, in red, and a second touch cancels it) and the HISTORY
button (the ``history`` intent) and, when the engine sends the
station's rows (``StationView.history``), the History panel: its last rounds, newest
first, each with the dealer's and the player's cards, the stake, the result and the
net; touching anywhere on it sends ``history_close``. Over it, a session reminder
due (``StationView.reminder``, "reality check"): the time played and the session's
net; touching anywhere sends ``reminder_ok``. Drawn for the station of the
screen (its own screen, or the only station of the table); a shared screen with
several stations shows no button (whose history would it be?). Pure drawing.
"""

from __future__ import annotations

import pygame

from cabinet.protocol.snapshot import RoundLine, Snapshot, StationView
from ui import theme
from ui.i18n import N_, _, ngettext, total_words
from ui.money import fmt_money
from ui.widgets import HitBox, Painter

#: result words and colours per hand outcome.
_RESULT = {
    "blackjack": (N_("BLACKJACK"), theme.WIN),
    "win": (N_("WIN"), theme.WIN),
    "push": (N_("PUSH"), theme.PUSH),
    "lose": (N_("LOSE"), theme.LOSE),
    "bust": (N_("BUST"), theme.LOSE),
}
ROW_H = 78
#: the reminder panel's top and height (logical): under the dealer's cards (which end
#: at 200), above the stations' (505 on).
REMINDER_TOP, REMINDER_H = 212, 280
CARD = (42, 59)


def history_button() -> pygame.Rect:
    """Where HISTORY sits (logical units): under the limits placard, left of the felt."""
    return pygame.Rect(30, 350, 165, 58)


def service_button() -> pygame.Rect:
    """Where SERVICE sits: beside HISTORY, under the placard's right half."""
    return pygame.Rect(205, 350, 165, 58)


def station_of(s: Snapshot, own_station: int | None) -> StationView | None:
    """The station this screen belongs to: its own, or the table's only one."""
    if own_station is not None:
        return next((st for st in s.stations if st.station == own_station), None)
    return s.stations[0] if len(s.stations) == 1 else None


def draw(p: Painter, s: Snapshot, own_station: int | None, now_ms: int = 0) -> None:
    """The station's HISTORY button, its panel when open and its reminder when due
    (each modal: it takes every touch)."""
    st = station_of(s, own_station)
    if st is None:
        return
    p.button(history_button(), _("HISTORY"), s.player_desk, "history", station=st.station, px=24)
    service = service_button()
    p.button(
        service,
        _("CALLED") if st.service else _("SERVICE"),
        s.player_desk,
        "service",
        station=st.station,
        px=24,
        danger=st.service,
    )
    if st.service:
        p.text(
            _("Attendant called \u00b7 touch to cancel"),
            18,
            theme.CREAM,
            ((history_button().x + service.right) / 2, service.bottom + 22),
            max_w=service.right - history_button().x,
        )
    if st.history is not None:
        _panel(p, s, st, st.history)
    if st.reminder is not None:
        _reminder(p, s, st, now_ms)


def reminder_lines(s: Snapshot, st: StationView) -> list[str]:
    """The reminder's words: the time played and the session's net."""
    rc = st.reminder
    if rc is None:
        return []
    h, m = divmod(rc.elapsed_min, 60)
    played = _("{h} h {m:02d} min").format(h=h, m=m) if h else ngettext("{m} minute", "{m} minutes", m).format(m=m)
    net = rc.net_minor
    sym = s.currency_symbol
    session = (
        _("This session you are up {amount}.").format(amount=fmt_money(net, sym))
        if net > 0
        else _("This session you are down {amount}.").format(amount=fmt_money(-net, sym))
        if net < 0
        else _("This session you are even.")
    )
    return [_("You have played for {played}.").format(played=played), session, _("Touch anywhere to continue.")]


def _reminder(p: Painter, s: Snapshot, st: StationView, now_ms: int) -> None:
    """Between the dealer's cards and the stations' (it hides no card), over the dimmed
    table; a touch anywhere dismisses it."""
    L = p.L
    p.hits.clear()
    if not p.dimmed:
        p.fill_rect((0, 0, L.lw, L.lh), theme.OVERLAY_DIM)
    r = pygame.Rect(0, REMINDER_TOP, min(1100, L.lw - 120), REMINDER_H)
    r.centerx = L.lw // 2
    p.fill_rect(r.move(0, 6), (0, 0, 0, 120), radius=22)
    p.fill_rect(r, theme.OVERLAY_PANEL, radius=22)
    bar = pygame.Rect(r.x, r.y, r.w, 70)
    p.fill_rect(bar, theme.PUSH, radius=22)
    p.fill_rect(pygame.Rect(r.x, r.y + 50, r.w, 20), theme.PUSH)
    p.fill_rect(r, theme.PUSH, radius=22, width=4)
    p.text(
        _("REALITY CHECK \u00b7 STATION {n}").format(n=st.station),
        40,
        theme.WHITE,
        bar.center,
        bold=True,
        max_w=r.w - 40,
    )
    for i, line in enumerate(reminder_lines(s, st)):
        p.text(
            line,
            30 if i < 2 else 24,
            theme.CREAM if i < 2 else theme.GOLD,
            (r.centerx, bar.bottom + 40 + 48 * i),
            bold=i < 2,
            max_w=r.w - 60,
        )
    p.hits.append(HitBox(L.rect(pygame.Rect(0, 0, L.lw, L.lh)), "reminder_ok", st.station))


def _cards(p: Painter, cards: list[str], x: float, y: float, max_w: float) -> None:
    """A small fan of card faces from ``x`` (logical), overlapped to fit ``max_w``."""
    if not cards:
        return
    step = min(CARD[0] + 4, (max_w - CARD[0]) / max(1, len(cards) - 1)) if len(cards) > 1 else 0
    for i, code in enumerate(cards):
        r = p.L.rect(pygame.Rect(int(x + i * step), int(y), *CARD))
        p.surface.blit(p.art.cards.face(code, r.w, r.h), r.topleft)


def _result(row: RoundLine) -> tuple[str, tuple[int, ...]]:
    if row.voided:
        return _("VOID"), theme.CREAM
    words = [(_(w), c) for w, c in (_RESULT.get(h.outcome or "", ("", theme.CREAM)) for h in row.hands)]
    if len(words) == 1:
        return words[0]
    return " / ".join(w for w, _c in words), theme.CREAM


def _panel(p: Painter, s: Snapshot, st: StationView, rows: list[RoundLine]) -> None:
    L = p.L
    sym = s.currency_symbol
    p.hits.clear()  # modal: nothing under it takes a touch
    p.fill_rect((0, 0, L.lw, L.lh), theme.OVERLAY_DIM)
    w = min(1560, L.lw - 80)
    h = 150 + ROW_H * max(1, len(rows)) + 90
    r = pygame.Rect(0, 0, w, h)
    r.center = (L.lw // 2, L.lh // 2)
    p.fill_rect(r.move(0, 8), (0, 0, 0, 120), radius=26)
    p.fill_rect(r, theme.OVERLAY_PANEL, radius=26)
    p.fill_rect(r, theme.GOLD, radius=26, width=4)
    p.text(
        _("STATION {n} \u00b7 YOUR LAST ROUNDS").format(n=st.station),
        34,
        theme.GOLD,
        (r.centerx, r.y + 44),
        bold=True,
        max_w=w - 60,
    )
    cols = [r.x + 30, r.x + int(w * 0.12), r.x + int(w * 0.37), r.x + int(w * 0.66), r.x + int(w * 0.76), r.right - 30]
    y = float(r.y + 100)
    for x, label, anchor in zip(
        cols,
        (_("ROUND"), _("DEALER"), _("YOUR CARDS"), _("STAKE"), _("RESULT"), _("NET")),
        ("midleft", "midleft", "midleft", "midleft", "midleft", "midright"),
        strict=True,
    ):
        p.text(label, 20, theme.GOLD_DARK, (x, y), anchor=anchor, bold=True)
    y += 24
    if not rows:
        p.text(_("No rounds played at this station yet"), 28, theme.CREAM, (r.centerx, y + ROW_H / 2))
    for i, row in enumerate(rows):
        top = y + i * ROW_H
        if i % 2 == 0:
            p.fill_rect(pygame.Rect(r.x + 12, top, w - 24, ROW_H), (255, 255, 255, 14), radius=10)
        mid = top + ROW_H / 2
        p.text(f"#{row.round_id}", 24, theme.CREAM, (cols[0], mid - 13), anchor="midleft", bold=True)
        p.text(row.when, 20, theme.CREAM, (cols[0], mid + 15), anchor="midleft")
        _cards(p, row.dealer, cols[1], top + 9, cols[2] - cols[1] - 110)
        p.text(total_words(row.dealer_text), 22, theme.CREAM, (cols[2] - 20, mid), anchor="midright", bold=True)
        hx = float(cols[2])
        span = (cols[3] - cols[2] - 20) / max(1, len(row.hands))
        for hand in row.hands:
            _cards(p, hand.cards, hx, top + 9, span - 12)
            hx += span
        p.text(fmt_money(sum(h.stake_minor for h in row.hands), sym), 24, theme.CREAM, (cols[3], mid), anchor="midleft")
        word, color = _result(row)
        p.text(word, 24, color, (cols[4], mid), anchor="midleft", bold=True, max_w=cols[5] - cols[4] - 150)
        net = row.net_minor
        p.text(
            ("+" if net > 0 else "") + fmt_money(net, sym),
            26,
            theme.WIN if net > 0 else theme.LOSE if net < 0 else theme.CREAM,
            (cols[5], mid),
            anchor="midright",
            bold=True,
        )
    p.text(_("Touch anywhere to close"), 22, theme.CREAM, (r.centerx, r.bottom - 40))
    # the whole screen closes it (a touch anywhere, as the player expects)
    p.hits.append(HitBox(L.rect(pygame.Rect(0, 0, L.lw, L.lh)), "history_close", st.station))

"""Lockup overlays drawn over the table: door open, tilt, handpay, printing, RAM error.

Owns: the modal panels for ``snapshot.overlay`` and the "lost connection"
panel the UI draws on its own. Pure drawing; ``now_ms`` only pulses colours.
"""

from __future__ import annotations

import math

import pygame

from cabinet.protocol.said import SEP
from cabinet.protocol.snapshot import Snapshot, WireMode
from ui import theme
from ui.i18n import _, ngettext
from ui.money import fmt_money
from ui.said import say, say_all
from ui.widgets import Painter


def draw_panel(
    p: Painter,
    title: str,
    lines: list[str],
    accent: tuple[int, ...],
    now_ms: int,
    *,
    dim: bool = True,
    big: str | None = None,
) -> None:
    """A centred modal panel: title bar in ``accent``, optional big line, then ``lines``."""
    L = p.L
    if dim and not p.dimmed:
        p.fill_rect((0, 0, L.lw, L.lh), theme.OVERLAY_DIM)
        # letterbox margins too
        if L.ox or L.oy:
            shade = pygame.Surface(p.surface.get_size(), pygame.SRCALPHA)
            shade.fill((0, 0, 0, 0))
    w = min(1200, L.lw - 120)
    wrapped: list[str] = []
    for ln in lines:
        wrapped += p.wrap(ln, 30, w - 100)
    h = 150 + (110 if big else 0) + 46 * len(wrapped) + 40
    r = pygame.Rect(0, 0, w, h)
    r.center = (L.lw // 2, L.lh // 2)
    p.drawn_panel = L.rect(r.inflate(8, 24))  # its pixels, shadow included
    pulse = 0.5 + 0.5 * math.sin(now_ms / 300)
    edge = tuple(int(c * (0.75 + 0.25 * pulse)) for c in accent[:3])
    p.fill_rect(r.move(0, 8), (0, 0, 0, 120), radius=26)
    p.fill_rect(r, theme.OVERLAY_PANEL, radius=26)
    bar = pygame.Rect(r.x, r.y, r.w, 110)
    p.fill_rect(bar, accent, radius=26)
    p.fill_rect(pygame.Rect(r.x, r.y + 80, r.w, 30), accent)
    p.fill_rect(r, edge, radius=26, width=6)
    p.text(title, 56, theme.WHITE, bar.center, bold=True, max_w=r.w - 60)
    y = bar.bottom + 40
    if big:
        p.text(big, 80, theme.GOLD, (r.centerx, y + 30), bold=True, max_w=r.w - 80)
        y += 110
    for ln in wrapped:
        p.text(ln, 30, theme.CREAM, (r.centerx, y), max_w=r.w - 80)
        y += 46


def handpay_lines(s: Snapshot) -> list[str]:
    """The handpay panel's lines under its amount (``s.handpay`` set): what is paid and why,
    the validation number, how many wait, "please wait", and the handpay the key just
    reset (``reset_said``), in the screen's language."""
    hp = s.handpay
    assert hp is not None
    lines: list[str] = []
    big = fmt_money(hp.amount_minor, s.currency_symbol)
    reason = say_all(hp.reason_said, s.currency_symbol) if hp.reason_said else _(hp.reason)
    if hp.kind == "jackpot":
        lines.append(_("Station {n} wins {amount}: {reason}.").format(n=hp.station, amount=big, reason=reason))
    elif hp.reason:
        lines.append(_("Cash-out paid by hand: {reason}.").format(reason=reason))
    if hp.validation_number:
        lines.append(_("Validation number {number}").format(number=hp.validation_number))
    if hp.waiting:
        lines.append(ngettext("Then {n} more handpay.", "Then {n} more handpays.", hp.waiting).format(n=hp.waiting))
    lines.append(_("Please wait: an attendant will pay you."))
    if hp.reset_said:
        lines.append(say_all(hp.reset_said, s.currency_symbol))
    return lines


def draw_for(p: Painter, s: Snapshot, now_ms: int) -> None:
    """Draw the overlay ``s.overlay`` names, if any (unknown names get a generic panel)."""
    o = s.overlay
    if o is None:
        return
    if o == "door_open" and s.mode == WireMode.MAINTENANCE:
        return  # the operator is at the menu; the door is expected to be open
    # The engine's words in the screen's language (its Said parts, joined as the
    # engine joins them in ``overlay_text``: a tilt's reasons by "; ", the rest by " · ")
    sep = "; " if o == "tilt" else SEP
    text = (
        [sep.join(say(x, s.currency_symbol) for x in s.overlay_said)]
        if s.overlay_said
        else [_(s.overlay_text)]
        if s.overlay_text
        else []
    )
    if o == "door_open":
        draw_panel(p, _("DOOR OPEN"), text or [_("Play is suspended until the door is closed.")], theme.WARNING, now_ms)
    elif o == "tilt":
        draw_panel(
            p,
            _("TILT"),
            (text or [_("A fault stopped the game.")]) + [_("Please call an attendant.")],
            theme.DANGER,
            now_ms,
        )
    elif o == "handpay":
        hp = s.handpay
        title = _("HANDPAY \u2014 CALL ATTENDANT")
        if hp is not None and hp.kind == "jackpot":
            title = _("JACKPOT \u2014 CALL ATTENDANT")
        big = fmt_money(hp.amount_minor, s.currency_symbol) if hp is not None else None
        draw_panel(
            p,
            title,
            handpay_lines(s) if hp is not None else text + [_("Please wait: an attendant will pay you.")],
            (160, 110, 10),
            now_ms,
            big=big,
        )
    elif o == "printing":
        dots = "." * (1 + (now_ms // 400) % 3)
        draw_panel(
            p,
            _("PRINTING TICKET") + dots,
            text or [_("Please take your ticket when it is printed.")],
            (30, 110, 60),
            now_ms,
        )
    elif o == "ram_error":
        draw_panel(
            p, _("RAM ERROR"), (text or [_("Memory check failed.")]) + [_("Call an attendant.")], theme.DANGER, now_ms
        )
    else:
        draw_panel(p, o.replace("_", " ").upper(), text, theme.WARNING, now_ms)

"""The table's meters in money when a credit count would be a fraction, and the handpay
screen's confirmation of a handpay just reset."""

from __future__ import annotations

from cabinet.protocol.said import said
from cabinet.protocol.snapshot import HandpayView
from ui import i18n
from ui.money import meter_text


def test_a_meter_in_whole_credits_shows_credits_over_money():
    assert meter_text(11_000, 100, "$") == ("110", "$110.00")
    assert meter_text(0, 100, "$") == ("0", "$0.00")


def test_a_meter_holding_a_part_credit_shows_money_not_a_fraction_of_a_credit():
    """$110.50 at $1 credits: "$110.50", never "110.5" credits."""
    assert meter_text(11_050, 100, "$") == ("$110.50", None)
    assert meter_text(150, 100, "$") == ("$1.50", None)


def test_a_table_without_credits_shows_money():
    assert meter_text(11_050, None, "$") == ("$110.50", None)


def test_the_handpay_screen_says_the_handpay_the_key_just_reset():
    """Two handpays: after the key reset the first, the second's panel also says the first
    was reset (amount and station), in the screen's language."""
    from tests.ui.fixtures import CASES
    from ui.scenes import overlays

    base = next(c.snapshot for c in CASES if c.name == "overlay_jackpot")
    import msgspec

    reset = said("Handpay reset: {amount_minor} at station {n}, paid by the attendant", amount_minor=2000, n=1)
    snap = msgspec.structs.replace(base, handpay=msgspec.structs.replace(base.handpay, reset_said=[reset]))
    assert isinstance(snap.handpay, HandpayView)
    assert overlays.handpay_lines(snap)[-1] == "Handpay reset: $20.00 at station 1, paid by the attendant"
    i18n.use("es")
    try:
        assert overlays.handpay_lines(snap)[-1] == "Pago manual de $20.00 del puesto 1 hecho: lo pagó el asistente"
    finally:
        i18n.use("en")


def test_the_storage_tilt_lights_no_button_on_the_screen(renderer):
    """The storage tilt as the core sends it: no lamp, HISTORY and SERVICE not lit (the
    engine refuses them too), the credit meter in money."""
    import pygame

    from tests.ui.fixtures_operator import storage_tilt

    snap = storage_tilt()
    assert snap.player_desk is False and snap.stations[0].lamps == []
    surf = pygame.Surface((1280, 720))
    hits = renderer.draw(surf, snap, 1_000, None, True, False)
    lit = sorted(h.action for h in hits if h.lit and h.station is not None)
    assert lit == [], lit
    assert {"history", "service", "cash_out"} <= {h.action for h in hits}

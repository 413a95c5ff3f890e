"""Issue 17 new-user trial, the table's layout: the own hand's size in every
language, the other stations' panels in the third person, texts inside their boxes."""

from __future__ import annotations

import pygame
import pytest

from tests.ui import fixtures  # noqa: F401  (first: it imports the Spanish ones)
from tests.ui import fixtures_i18n as es
from ui import i18n
from ui.layout import Layout
from ui.own_station import own_boxes
from ui.render import station_geometry
from ui.widgets import Art, Painter

SIZES = [(1920, 1080), (1280, 720), (800, 480)]


def _own_geo(language: str, size: tuple[int, int], own: int = 1):  # type: ignore[no-untyped-def]
    s = es.AFTER_ROUND
    L = Layout.for_size(*size)
    p = Painter(pygame.Surface(size), L, Art())
    i18n.use(language)
    st = next(x for x in s.stations if x.station == own)
    box, _others = own_boxes(L, s, own)
    return station_geometry(L, p, s, 0, 1, st, box=box)


@pytest.mark.parametrize("size", SIZES, ids=lambda v: f"{v[0]}x{v[1]}")
def test_spanish_own_hand_keeps_its_size_after_a_round(size: tuple[int, int]) -> None:
    """Issue 17 trial 1: in Spanish the own station's buttons after a round (chips, BORRAR,
    REPARTIR, COBRAR, APUESTA +, NUEVA PARTIDA, REPETIR) took two rows and the own hand
    shrank to tiny cards under its result badge; they fit one row as in English, and the
    own hand is as large as in English."""
    en = _own_geo("en", size)
    spanish = _own_geo("es", size)
    assert spanish.card_h == en.card_h
    assert spanish.card_h >= 150
    assert len({r.y for r in spanish.buttons if r.h}) <= 2     # chips and buttons centred on one row
    assert max(r.bottom for r in spanish.buttons) - min(r.y for r in spanish.buttons) <= 62
    assert spanish.console.y == en.console.y
    inner = spanish.console
    assert all(inner.contains(r) for r in spanish.buttons)

"""Latency: a station's own screen draws a change of other stations only a
little later, coalesced (``ui.coalesce``); its own station's changes at once."""

from __future__ import annotations

import msgspec
import pygame

from cabinet.protocol.snapshot import Snapshot
from tests.ui.fixtures import MULTI_BETTING
from ui import coalesce
from ui.app import App


def _bet(s: Snapshot, station: int, bet_minor: int, seq: int) -> Snapshot:
    """``s`` with ``station``'s bet changed, ``seq`` past ``s``'s."""
    return msgspec.structs.replace(
        s,
        seq=s.seq + seq,
        stations=[
            msgspec.structs.replace(st, bet_minor=bet_minor) if st.station == station else st for st in s.stations
        ],
    )


def test_only_others_changed() -> None:
    """True only when stations other than ``own`` changed and nothing else."""
    a = MULTI_BETTING
    assert coalesce.only_others_changed(a, _bet(a, 1, 4_000, 11), own=2) is True
    assert coalesce.only_others_changed(a, _bet(a, 2, 500, 11), own=2) is False  # its own
    assert coalesce.only_others_changed(None, a, own=2) is False  # the first
    assert coalesce.only_others_changed(a, msgspec.structs.replace(a, seq=a.seq + 1), own=2) is False
    table = msgspec.structs.replace(_bet(a, 1, 4_000, 11), message="Bets closed")
    assert coalesce.only_others_changed(a, table, own=2) is False  # the table's line
    fewer = msgspec.structs.replace(a, seq=11, stations=a.stations[:2])
    assert coalesce.only_others_changed(a, fewer, own=2) is False


class _Clock:
    def __init__(self) -> None:
        self.ms = 1_000

    def __call__(self) -> int:
        return self.ms


def _own_app(station: int = 2) -> tuple[App, _Clock]:
    clock = _Clock()
    app = App(pygame.Surface((640, 360)), None, station=station, own_station=True, clock_ms=clock)
    app.feed([MULTI_BETTING], clock.ms)
    app.step(0)
    return app, clock


def test_own_screen_draws_another_stations_change_later_and_coalesced() -> None:
    """Station 2's screen does not redraw for station 1's bet at once; it draws
    ``LAZY_MS`` later, once, with every such change in between (the newest snapshot)."""
    app, clock = _own_app()
    frames = app.frames
    app.feed([_bet(MULTI_BETTING, 1, 4_000, 11)], clock.ms)
    app.step(0)
    assert app.frames == frames and app.snapshot is not None and app.snapshot.seq == MULTI_BETTING.seq + 11
    clock.ms += 20
    app.feed([_bet(MULTI_BETTING, 3, 200, 12)], clock.ms)
    app.step(0)
    assert app.frames == frames
    clock.ms += coalesce.LAZY_MS - 20
    app.step(0)
    assert app.frames == frames + 1
    clock.ms += 100
    app.step(0)
    assert app.frames == frames + 1  # nothing more to draw


def test_own_screen_draws_its_own_change_at_once() -> None:
    """Station 2's own bet (or a table-wide change) is drawn in the same turn."""
    app, clock = _own_app()
    frames = app.frames
    app.feed([_bet(MULTI_BETTING, 2, 500, 11)], clock.ms)
    app.step(0)
    assert app.frames == frames + 1
    app.feed([msgspec.structs.replace(MULTI_BETTING, seq=MULTI_BETTING.seq + 12, message="Bets closed")], clock.ms)
    app.step(0)
    assert app.frames == frames + 2


def test_shared_and_classic_screens_draw_every_change_at_once() -> None:
    """A screen showing every station (classic or shared) never waits."""
    for kw in ({}, {"screens": "shared"}):
        clock = _Clock()
        app = App(pygame.Surface((1280, 720)), None, clock_ms=clock, **kw)  # type: ignore[arg-type]
        app.feed([MULTI_BETTING], clock.ms)
        app.step(0)
        frames = app.frames
        app.feed([_bet(MULTI_BETTING, 3, 200, 11)], clock.ms)
        app.step(0)
        assert app.frames == frames + 1, kw

"""What a player expects: the HISTORY button and panel on the table."""

from __future__ import annotations

import pygame

from tests.ui.fixtures import CLASSIC_BETTING, MULTI_BETTING, MULTI_PLAY
from tests.ui.fixtures_player import history_rows, with_history
from ui.input import hit_test
from ui.render import Renderer


def _hits(snapshot, own=None, size=(1280, 720)):  # type: ignore[no-untyped-def]
    return Renderer().draw(pygame.Surface(size), snapshot, 1_000, None, own_station=own)


def test_history_button_sends_the_history_intent_of_this_station() -> None:
    """ "the last 10 rounds of this station on a touch": HISTORY on a one-station
    table and on each station's own screen, none on a shared multi-station screen."""
    for snap, own, station in ((CLASSIC_BETTING, None, 1), (MULTI_PLAY, 2, 2), (MULTI_BETTING, 3, 3)):
        hits = _hits(snap, own)
        mine = [h for h in hits if h.action == "history"]
        assert len(mine) == 1 and mine[0].station == station
    assert not [h for h in _hits(MULTI_BETTING) if h.action == "history"]


def test_open_panel_takes_every_touch_and_closes_on_any() -> None:
    """The panel is closed by touch: a touch anywhere (on a card, on a table
    button under it) sends history_close for this station, and nothing else."""
    snap = with_history(MULTI_PLAY, 2, history_rows(3))
    hits = _hits(snap, 2)
    assert {h.action for h in hits} == {"history_close"}
    for pos in ((5, 5), (640, 360), (640, 700)):
        hit = hit_test(pos, hits)
        assert hit is not None and hit.action == "history_close" and hit.station == 2


def test_only_the_own_stations_rows_are_drawn(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Another station's open panel never shows on this station's screen."""
    snap = with_history(MULTI_PLAY, 1, history_rows(3))
    hits = _hits(snap, 2)
    assert "history_close" not in {h.action for h in hits}
    assert "history" in {h.action for h in hits}


def test_reminder_says_time_and_net_and_any_touch_dismisses_it() -> None:
    """The reality check: the elapsed time and the session's net, dismissed by
    a touch anywhere (``reminder_ok`` for this station)."""
    from tests.ui.fixtures_player import with_reminder
    from ui.scenes.player_panel import reminder_lines

    snap = with_reminder(MULTI_PLAY, 2, 65, -1_250)
    st = snap.stations[1]
    assert reminder_lines(snap, st)[:2] == ["You have played for 1 h 05 min.", "This session you are down $12.50."]
    up = with_reminder(CLASSIC_BETTING, 1, 30, 2_500)
    assert reminder_lines(up, up.stations[0])[:2] == [
        "You have played for 30 minutes.",
        "This session you are up $25.00.",
    ]
    hits = _hits(snap, 2)
    assert {(h.action, h.station) for h in hits} == {("reminder_ok", 2)}
    assert "reminder_ok" not in {h.action for h in _hits(snap, 1)}


def test_service_button_calls_and_cancels_for_this_station() -> None:
    """A Service button that calls the attendant; while called it says so and
    the same button (a second touch) cancels."""
    import msgspec

    hits = _hits(MULTI_PLAY, 2)
    (svc,) = [h for h in hits if h.action == "service"]
    assert svc.station == 2
    called = msgspec.structs.replace(
        MULTI_PLAY, stations=[msgspec.structs.replace(st, service=st.station == 2) for st in MULTI_PLAY.stations]
    )
    said: list[str] = []
    from ui.widgets import Painter

    real = Painter.text

    def text(self: Painter, s: str, *a: object, **k: object) -> pygame.Rect:
        said.append(s)
        return real(self, s, *a, **k)  # type: ignore[arg-type]

    Painter.text = text  # type: ignore[method-assign]
    try:
        hits = _hits(called, 2)
    finally:
        Painter.text = real  # type: ignore[method-assign]
    assert "CALLED" in said and "Attendant called \u00b7 touch to cancel" in said
    assert [h.action for h in hits].count("service") == 1

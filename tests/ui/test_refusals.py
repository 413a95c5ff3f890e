"""Every refused press gets a message on the table, in the player's words."""

from __future__ import annotations

import msgspec
import pygame
import pytest

from cabinet.protocol.ipc import Cue
from cabinet.protocol.snapshot import StationView
from tests.ui.fixtures import ATTRACT, CLASSIC_BETTING, CLASSIC_INSURANCE, MULTI_TOLD_WHY
from ui.app import App
from ui.refusals import SHOW_MS, refusal_text
from ui.widgets import Painter


def test_refusal_lines_say_the_minimum_the_maximum_and_what_insurance_costs() -> None:
    """The minimum bet, the table maximum, the credits short and the insurance
    cost, from the snapshot the player sees."""
    assert refusal_text(MULTI_TOLD_WHY, 1, "deal") == "Minimum bet $5.00: add chips, then Deal"
    assert refusal_text(MULTI_TOLD_WHY, 3, "deal") == "Place a bet first: minimum $5.00"
    at_max = msgspec.structs.replace(
        CLASSIC_BETTING, stations=[msgspec.structs.replace(CLASSIC_BETTING.stations[0], bet_minor=10_000)]
    )
    assert refusal_text(at_max, 1, "bet_up", "no such spot, or over the maximum") == "Table maximum $100.00"
    broke = msgspec.structs.replace(
        CLASSIC_INSURANCE, stations=[msgspec.structs.replace(CLASSIC_INSURANCE.stations[0], credits_minor=100)]
    )
    assert refusal_text(broke, 1, "insure") == "Insurance costs $2.50: not enough credits"
    assert refusal_text(ATTRACT, 1, "cash_out") == "No credits to cash out"
    assert refusal_text(CLASSIC_BETTING, 2, "deal") == "Not available now"  # no such station


def _said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    real = Painter.text

    def text(self: Painter, s: str, *a: object, **k: object) -> pygame.Rect:
        said.append(s)
        return real(self, s, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Painter, "text", text)
    return said


@pytest.mark.parametrize("snap", [MULTI_TOLD_WHY, ATTRACT], ids=["table", "attract"])
def test_a_refused_cue_shows_on_the_station_then_goes(monkeypatch: pytest.MonkeyPatch, snap: object) -> None:
    """The engine's ``refused`` cue puts the line on the station's console
    (the invitation in attract) for ``SHOW_MS``, then the loop redraws without it."""
    said = _said(monkeypatch)
    now = [0]
    app = App(pygame.Surface((1280, 720)), None, clock_ms=lambda: now[0])
    app.feed([snap], 0)
    app.step(0)
    st: StationView = snap.stations[0]  # type: ignore[attr-defined]
    app.feed([Cue(name="refused", station=st.station, data={"action": "deal", "reason": "not legal"})], 10)
    said.clear()
    app.step(0)
    line = refusal_text(snap, st.station, "deal")  # type: ignore[arg-type]
    assert line in said
    assert app.frame_interval_ms(20) is not None  # a frame is due to take it away
    now[0] = SHOW_MS + 50
    said.clear()
    app.step(0)
    assert app.frames >= 3 and line not in said and not app.refusals


def test_refused_cash_out_double_and_moves_say_the_real_reason() -> None:
    """A refused Cash Out mid-round said "Cash out after the
    round", a promise the engine does not keep (nothing is cashed out when the round
    ends), and the same line came for a printer out of paper; Double on 14 at the classic
    table said "first two cards only" (the rule is 9, 10 or 11); Hit or Stand while the
    insurance question is open said "Not your turn yet"."""
    from tests.ui.fixtures import CLASSIC_ELEVEN

    mid = CLASSIC_ELEVEN
    assert mid.mode == "in_round" and mid.stations[0].credits_minor > 0
    assert refusal_text(mid, 1, "cash_out") == "Finish this round, then cash out"
    out_of_paper = msgspec.structs.replace(
        CLASSIC_BETTING,
        stations=[
            msgspec.structs.replace(
                CLASSIC_BETTING.stations[0], fault="Out of service: printer out of paper - call attendant"
            )
        ],
    )
    assert refusal_text(out_of_paper, 1, "cash_out") == "No ticket now: printer out of paper - call attendant"
    classic = msgspec.structs.replace(mid, double_totals=[9, 10, 11])
    assert refusal_text(classic, 1, "double") == "Double on a first two-card 9, 10 or 11 only"
    assert (
        refusal_text(msgspec.structs.replace(mid, double_totals=[]), 1, "double")
        == "Double on your first two cards only"
    )
    assert "decline" in CLASSIC_INSURANCE.stations[0].lamps
    for action in ("hit", "stand", "double", "split"):
        assert refusal_text(CLASSIC_INSURANCE, 1, action) == "Answer the insurance question first"


def test_spanish_refusals_say_u_before_once_and_name_the_button_in_spanish() -> None:
    """The Spanish double refusal read "9, 10 o 11" (Spanish writes
    "u" before a word that starts with an o sound: "once", "ocho"), and the catch-all
    refusal kept the action's English name ("Undo is not available now" in Spanish)."""
    from tests.ui.fixtures import CLASSIC_ELEVEN
    from ui import i18n

    classic = msgspec.structs.replace(CLASSIC_ELEVEN, double_totals=[9, 10, 11])
    i18n.use("es")
    try:
        assert (
            refusal_text(classic, 1, "double") == "Solo se dobla con un total de 9, 10 u 11 en las dos primeras cartas"
        )
        assert "9 o 10" in refusal_text(msgspec.structs.replace(classic, double_totals=[9, 10]), 1, "double")
        undo = refusal_text(CLASSIC_BETTING, 1, "undo")
        assert undo == "DESHACER no está disponible ahora", undo
    finally:
        i18n.use(i18n.DEFAULT)
    assert refusal_text(CLASSIC_BETTING, 1, "undo") == "UNDO is not available now"


def test_not_enough_credits_says_what_is_left_after_the_bets_already_on_the_spots():
    """$100 credits, the $100 chip already on spot 1, the
    chip again: the line said "$100.00 left" although the whole $100 was bet (credits
    are taken at the deal, so the meter still read $100)."""
    all_in = msgspec.structs.replace(
        CLASSIC_BETTING,
        stations=[msgspec.structs.replace(CLASSIC_BETTING.stations[0], credits_minor=10_000, bet_minor=10_000)],
        max_bet_minor=50_000,
    )
    assert refusal_text(all_in, 1, "chip") == "Not enough credits: $0.00 left to bet"
    some = msgspec.structs.replace(all_in, stations=[msgspec.structs.replace(all_in.stations[0], bet_minor=7_500)])
    assert refusal_text(some, 1, "chip") == "Not enough credits: $25.00 left to bet"

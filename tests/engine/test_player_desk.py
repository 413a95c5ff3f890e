"""Issue 17 "What a player expects": the player's own History panel, session
reminders and the Service call, at the player's own station only."""

from __future__ import annotations

import random

from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.settings import GameSettings
from cabinet.protocol.ipc import ACTIONS
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store


def _engine(path, stations=1):
    store = Store(path)
    eng = Engine(store, rng=random.Random(4), clock_ms=lambda: 0,
                 wall_s=lambda: 1_800_000_000.0)
    if stations > 1:
        eng.cab = Cabinet(new_state(GameSettings(variant="classic-multi", stations=stations)),
                          rng=random.Random(4), history=store)
    eng.step(PowerUp(0, 1_800_000_000.0))
    return eng


def _play(eng, station, n):
    eng.step(NoteStacked(station, 10_000, f"t{station}"))
    eng.step(IntentReceived(station, "bet_up"))
    for _ in range(n):
        eng.step(IntentReceived(station, "deal"))
        while eng.cab.mode == "in_round":
            legal = eng.cab.legal_actions(station)
            eng.step(IntentReceived(station, "decline" if "decline" in legal else "stand"))


def test_history_touch_opens_the_last_ten_rounds_of_this_station(tmp_path):
    """Issue 17: "the last 10 rounds of this station on a touch": the engine answers the
    "history" intent in that station's view only, newest first, with cards, stakes,
    result and net; "history_close" closes it."""
    assert {"history", "history_close"} <= ACTIONS
    eng = _engine(tmp_path / "j.db")
    _play(eng, 1, 12)
    assert eng.snapshot.stations[0].history is None
    eng.step(IntentReceived(1, "history"))
    rows = eng.snapshot.stations[0].history
    assert rows is not None and len(rows) == 10
    assert [r.round_id for r in rows] == list(range(12, 2, -1))
    kept = eng.store.recall(1, 10)
    for r, e in zip(rows, kept, strict=True):
        assert r.net_minor == e.returned_minor - e.wagered_minor
        assert r.wagered_minor == e.wagered_minor and r.returned_minor == e.returned_minor
        assert r.dealer == e.result["dealer"]["cards"]
        assert [c for h in r.hands for c in h.cards] == \
            [c for sp in e.result["spots"] for h in sp["hands"] for c in h["cards"]]
        assert sum(h.stake_minor for h in r.hands) == 100
        assert r.hands[0].outcome in ("win", "lose", "push", "bust", "blackjack")
    assert rows[0].when.count(":") == 1            # "HH:MM" of the round
    eng.step(IntentReceived(1, "history_close"))
    assert eng.snapshot.stations[0].history is None


def test_history_is_only_the_own_stations(tmp_path):
    """Issue 17: one station's history never shows on another station's view."""
    eng = _engine(tmp_path / "j.db", stations=2)
    eng.step(NoteStacked(1, 10_000, "a"))
    eng.step(NoteStacked(2, 10_000, "b"))
    eng.step(IntentReceived(1, "bet_up"))
    eng.step(IntentReceived(2, "bet_up"))
    eng.step(IntentReceived(2, "bet_up"))
    for i in range(2):
        if i:
            eng.step(IntentReceived(1, "rebet"))
            eng.step(IntentReceived(2, "rebet"))
        eng.step(IntentReceived(1, "deal"))
        eng.step(IntentReceived(2, "deal"))
        while eng.cab.mode == "in_round":
            n = eng.cab.round.prompt.seat
            legal = eng.cab.legal_actions(n)
            eng.step(IntentReceived(n, "decline" if "decline" in legal else "stand"))
    eng.step(IntentReceived(2, "history"))
    one, two = eng.snapshot.stations
    assert one.history is None
    assert two.history is not None and len(two.history) == 2
    assert all(sum(h.stake_minor for h in r.hands) == 200 for r in two.history)


def test_history_opens_during_a_round_and_changes_no_money(tmp_path):
    """Issue 17: the panel is a look, not a move: no credits, no lamps, play goes on."""
    eng = _engine(tmp_path / "j.db")
    _play(eng, 1, 1)
    eng.step(IntentReceived(1, "deal"))
    before = eng.cab.s.stations[0].credits_minor
    eng.step(IntentReceived(1, "history"))
    st = eng.snapshot.stations[0]
    assert st.history is not None and len(st.history) == 1
    assert eng.cab.s.stations[0].credits_minor == before
    assert eng.snapshot.mode in ("in_round", "betting")

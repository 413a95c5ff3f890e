"""A refused intent is told to the UIs (a ``refused`` cue naming the station,
the action and why), so the table can show the player a message for it."""

from __future__ import annotations

import random

from cabinet.core.events import IntentReceived, PowerUp
from cabinet.protocol.ipc import Cue
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store


def test_a_refused_intent_publishes_a_refused_cue_for_its_station(tmp_path):
    """Deal with no bet was only logged ("rejected deal from station 1: not
    legal in attract"); the UIs now get ``Cue("refused", station=1, data={action, reason})``."""
    eng = Engine(Store(tmp_path / "j.db"), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: 1.8e9)
    got: list[object] = []
    eng.listeners.append(got.append)
    eng.step(PowerUp(0, 1.8e9))
    got.clear()
    eng.step(IntentReceived(1, "deal", None))
    cues = [m for m in got if isinstance(m, Cue) and m.name == "refused"]
    assert len(cues) == 1
    assert cues[0].station == 1 and cues[0].data["action"] == "deal"
    assert "not legal" in cues[0].data["reason"]
    got.clear()
    eng.step(IntentReceived(1, "bet_up", None))  # no credits: Bet+ is refused too
    assert [m.data["action"] for m in got if isinstance(m, Cue) and m.name == "refused"] == ["bet_up"]

"""The snapshot and the cues never carry an undealt or face-down card, across
random rounds of every variant (issue: engine "Done when")."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from cabinet.core.effects import SendCue
from cabinet.core.settings import GameSettings
from cabinet.protocol.ipc import encode

from .helpers import Rig

SETTINGS = [GameSettings(), GameSettings(variant="american"), GameSettings(variant="classic-multi", stations=2)]


def _shown(snap) -> Counter[str]:
    cards = list(snap.dealer.cards)
    for s in snap.stations:
        for spot in s.spots:
            for h in spot.hands:
                cards += h.cards
    return Counter(cards)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(SETTINGS), st.integers(0, 10**6), st.lists(st.integers(0, 5), min_size=30, max_size=30))
def test_snapshot_holds_only_cards_a_player_may_see(settings_, seed, picks):
    rig = Rig(settings_, seed=seed)
    for n in range(1, len(rig.cab.s.stations) + 1):
        rig.note(5000, n)
        if rig.cab.uses_chips:
            rig.press("chip", n, 100)
            rig.press("place", n, 1)
        else:
            rig.press("bet_up", n)
    for n in range(1, len(rig.cab.s.stations) + 1):
        rig.press("deal", n)
    i = 0
    cues = list(rig.effects)
    while True:
        rnd = rig.cab.round
        snap = rig.cab.snapshot(i)
        blob = encode(snap).decode()
        if rnd is not None:
            dealt = Counter(map(str, rnd.shoe.cards[: rnd.shoe.position]))
            if rnd.dealer_hidden:
                hidden = str(rnd.dealer_cards[1])
                dealt[hidden] -= 1
                assert snap.dealer.face_down == 1
            assert _shown(snap) == +dealt  # exactly the face-up dealt cards
            undealt = Counter(map(str, rnd.shoe.cards[rnd.shoe.position :]))
            assert "shoe" not in blob
            for card in undealt:
                assert _shown(snap)[card] <= dealt[card]
        for e in cues:
            if isinstance(e, SendCue) and e.name == "card_dealt" and e.data.get("face_down"):
                assert e.data["card"] is None
        if rig.cab.mode != "in_round":
            break
        p = rnd.prompt
        legal = sorted(rig.cab.legal_actions(p.seat))
        cues = rig.press(legal[picks[i % len(picks)] % len(legal)], p.seat)
        i += 1
    assert json.loads(blob)["type"] == "snapshot"

"""The demo player against the real cabinet core, in memory: no processes, no sockets,
no timing, so a seeded shoe makes every round the same."""

from __future__ import annotations

import msgspec
import pytest

from cabinet.core.events import DisplayChanged, IntentReceived
from cabinet.core.settings import GameSettings
from cabinet.tools import demo_panel
from cabinet.tools.demo_player import DemoPlayer
from cabinet.tools.table_client import DemoError, rounds_dealt

from .helpers import Rig

#: The panel's buttons (the default wiring has no chip or spot buttons).
PANEL = {"deal", "hit", "stand", "double", "split", "insure", "bet_up", "bet_down", "cash_out"}


class CoreTable:
    """``TableWatch`` and ``SimControl`` in one, over a ``Rig``: a button press or a
    touch is one intent, and a snapshot is published when the table changed (as
    the engine does); rounds dealt are counted as ``TableWatch`` counts them.
    Records what the demo pressed and touched."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.seq = 0
        self.snapshot = rig.cab.snapshot(0)
        self.rounds_started = 0
        self.pressed: list[str] = []
        self.touched: list[str] = []

    def _handle(self, action: str, value: int | None = None, station: int = 1) -> None:
        prompt = self.rig.cab.round.prompt if self.rig.cab.round is not None else None
        if action == "stand" and prompt is not None and prompt.kind == "insurance":
            action = "decline"  # Stand answers "no insurance", as cabinet/shell/devices.py
        self.rig.effects = self.rig.cab.handle(IntentReceived(station, action, value))
        self.publish()

    def publish(self) -> None:
        """The snapshot after a change made to ``rig`` (none if nothing shows changed)."""
        snap = self.rig.cab.snapshot(self.seq + 1)
        if msgspec.structs.replace(snap, seq=0) != msgspec.structs.replace(self.snapshot, seq=0):
            self.rounds_started += rounds_dealt(self.snapshot, snap)
            self.seq, self.snapshot = self.seq + 1, snap

    # -- SimControl
    def press(self, action: str, station: int = 1) -> dict[str, object]:
        if action not in PANEL:
            raise DemoError(f"no {action} button")
        self.pressed.append(action)
        self._handle(action, station=station)
        return {"ok": True}

    # -- TableWatch
    def touch(self, action: str, value: int | None = None, station: int = 1) -> None:
        self.touched.append(action)
        self._handle(action, value, station)

    def wait_for(self, pred, timeout_s, what="the table"):
        if not pred(self.snapshot):
            raise DemoError(f"{what} (table: {self.snapshot.mode})")
        return self.snapshot

    def wait_newer(self, seq, timeout_s):
        return self.snapshot if self.seq > seq else None


@pytest.fixture(autouse=True)
def _no_refire_gap(monkeypatch):
    """No real panel here: nothing to wait out between two presses of one button."""
    monkeypatch.setattr(demo_panel, "SAME_BUTTON_GAP_S", 0.0)


def _player(variant: str, seed: int) -> tuple[DemoPlayer, CoreTable]:
    rig = Rig(GameSettings(variant=variant), seed=seed)
    rig.note(10_000)
    table = CoreTable(rig)
    table.snapshot = rig.cab.snapshot(0)
    return DemoPlayer(table, table, rounds=1, bet_minor=500, strategy=None, say=lambda _t: None, settle_s=0.0), table


@pytest.mark.parametrize("variant", ["american", "classic-multi"])
def test_no_extra_round_after_an_instant_blackjack(variant):
    """The demo player: a round that settles at once (a
    player blackjack against a 2) counts as dealt. The chip table lights Rebet after
    it; the demo used to take that for a Deal that did nothing, touch Rebet, deal a
    second round and log that one as round 1. Seed 14 deals AS TC against 2C."""
    player, table = _player(variant, seed=14)
    player.play_round(1)
    (log,) = player.result.rounds
    assert log.hands == [(["AS", "TC"], "BLACKJACK", "blackjack")]
    assert log.dealer[0] == "2C"
    assert log.decisions == []
    assert table.pressed.count("deal") == 1
    assert "rebet" not in table.touched
    assert log.net_minor == 750  # 3 to 2 on the $5 bet
    assert table.rig.cab.mode == "betting" and "rebet" in table.snapshot.stations[0].lamps


def test_a_round_with_decisions_follows_the_common_chart():
    """With no exact strategy the demo decides by the common chart
    (``cabinet.strategy.common``) on the core's hand totals, through the panel.
    Seed 2 deals 7D 7C against a 4: split (7,7 against 2-7), then stand on soft 18
    and on 17 against a 4."""
    player, table = _player("american", seed=2)
    player.play_round(1)
    (log,) = player.result.rounds
    assert log.decisions == ["split", "stand", "stand"]
    assert [(cards, total) for cards, total, _ in log.hands] == [(["7D", "AS"], "soft 18"), (["7D", "JC"], "17")]
    assert log.dealer[0] == "4S"
    assert table.pressed == ["bet_up"] * 5 + ["deal", "split", "stand", "stand"]


def test_a_round_dealt_straight_after_the_last_one_is_seen_dealt():
    """A shared table: station 2 bet and pressed Deal, then its screen went dark, so
    round 1 was dealt to station 1 alone; station 2's bet stays on its spot. When its
    screen draws again, station 2's Deal clears round 1 off the table and, with no
    other bet down, deals round 2 at once: the table goes from round 1's cards
    straight to round 2's, with no empty table between. Station 2's player sees its
    round dealt and plays it to the end (it used to wait for the other seats' Deal
    while the round waited for its decision)."""
    rig = Rig(GameSettings(variant="classic-multi", stations=2), seed=3)
    table = CoreTable(rig)
    rig.cab.handle(DisplayChanged(False))  # a screen per station, no table screen
    for n in (1, 2):
        rig.cab.handle(DisplayChanged(True, station=n))
        rig.note(10_000, n)
        rig.press("chip", n, 500)
        rig.press("place", n, 1)
    rig.press("deal", 2)  # station 2 ready, station 1 betting
    assert rig.cab.mode == "betting" and rig.cab.s.stations[1].ready
    rig.cab.handle(DisplayChanged(False, station=2))  # its UI killed
    rig.press("deal", 1)  # round 1: station 1 alone
    assert [st.in_round for st in rig.cab.s.stations] == [True, False]
    rig.play_out()
    rig.cab.handle(DisplayChanged(True, station=2))  # its UI started again
    table.publish()
    before = table.snapshot
    assert before.mode == "betting" and before.dealer.cards  # round 1 still shown
    assert rig.cab.s.stations[1].bets_minor == [500] and not rig.cab.s.stations[0].bets_minor[0]
    player = DemoPlayer(
        table, table, rounds=2, bet_minor=500, strategy=None, station_no=2, say=lambda _t: None, settle_s=0.0
    )
    player.play_round(2)
    (log,) = player.result.rounds
    assert rig.cab.s.round_id == 2 and rig.cab.mode == "betting"
    assert table.pressed == ["deal", "stand", "hit"]  # its $5 bet as it was; Stand: no insurance
    assert log.decisions == ["decline", "hit"]
    assert log.hands == [(["AS", "2H", "8C"], "soft 21", "win")]
    assert log.dealer == ["AC", "5C", "3C"] and log.net_minor == 500
    assert rig.meters(2).games_played == 1 and rig.meters(1).games_played == 1


class SlowTable(CoreTable):
    """A ``CoreTable`` where time passes while the player waits: ``later`` holds
    ``(seconds from now, change)`` of another station, made when a wait reaches it."""

    def __init__(self, rig: Rig, later: list) -> None:
        super().__init__(rig)
        self.later = sorted(later, key=lambda x: x[0])
        self.now_s = 0.0

    def wait_for(self, pred, timeout_s, what="the table"):
        deadline = self.now_s + timeout_s
        while not pred(self.snapshot):
            if not self.later or self.later[0][0] > deadline:
                raise DemoError(f"waited {timeout_s:.0f} s for {what} (table: {self.snapshot.mode})")
            self.now_s, change = self.later.pop(0)
            change()
            self.publish()
        return self.snapshot


def test_a_player_waits_out_another_stations_round_before_betting():
    """A shared table: station 2 plays a round alone when station 1's player comes to
    bet. That round takes 20 s (station 2's player settles and saves a screenshot in
    it, up to 15 s under load): station 1's player waits for it to end, then bets and
    plays its own round."""
    rig = Rig(GameSettings(variant="classic-multi", stations=2), seed=3)
    for n in (1, 2):
        rig.note(10_000, n)
    rig.press("chip", 2, 500)
    rig.press("place", 2, 1)
    rig.press("deal", 2)  # no other bet down: dealt at once
    assert [st.in_round for st in rig.cab.s.stations] == [False, True]
    assert rig.cab.mode == "in_round"
    table = SlowTable(rig, [(20.0, rig.play_out)])
    player = DemoPlayer(
        table, table, rounds=1, bet_minor=500, strategy=None, station_no=1, say=lambda _t: None, settle_s=0.0
    )
    player.play_round(1)
    (log,) = player.result.rounds
    assert table.now_s == 20.0 and rig.cab.s.round_id == 2
    assert rig.meters(1).games_played == 1 and rig.meters(2).games_played == 1
    assert log.hands and all(len(cards) >= 2 for cards, _, _ in log.hands)

"""Either process may die; money and the round live in the engine.

- Killing the UI (SIGKILL) mid-round changes nothing in the engine: the
  journal's meters and credits stay the same, the engine keeps serving, and a
  restarted UI draws the same round (the same cards, pixel for pixel once
  settled).
- Killing the engine (SIGKILL) mid-round makes the UI show its "lost
  connection" overlay; a restarted engine resumes the round from the journal,
  the UI reconnects by itself and play goes on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from cabinet.protocol.snapshot import Snapshot
from cabinet.tools.demo_player import DemoPlayer
from cabinet.tools.demo_strategy import DECISIONS
from cabinet.tools.table_client import DemoError, SimControl, TableWatch

from .table_procs import TableProcs

pytestmark = pytest.mark.timeout(180)


def _cards(s: Snapshot) -> tuple[list[str], list[list[str]]]:
    return s.dealer.cards, [h.cards for st in s.stations for sp in st.spots for h in sp.hands]


def _meters(journal: Path) -> dict:  # type: ignore[type-arg]
    out = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(journal), "--json"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(out.stdout)["stations"]  # type: ignore[no-any-return]


def _red_fraction(path: Path) -> float:
    """Share of saturated red pixels (the "lost connection" overlay's header band)."""
    img = Image.open(path).convert("RGB").resize((200, 120))
    data = img.tobytes()
    n = len(data) // 3
    red = sum(1 for i in range(0, len(data), 3) if data[i] > 180 and data[i + 1] < 80 and data[i + 2] < 80)
    return red / n


def _to_decision(player: DemoPlayer, watch: TableWatch) -> Snapshot:
    """Insert a note, bet and deal until a round waits for the player's decision."""
    player.insert_note(2_000)
    for _ in range(5):
        player.watch.wait_for(lambda s: s.mode == "betting", 10.0, "betting")
        player.place_bet()
        player.press("deal", timeout_s=5.0)
        snap = watch.wait_for(
            lambda s: s.mode != "in_round" or bool(set(DECISIONS) & set(s.stations[0].lamps)), 10.0, "a decision"
        )
        if snap.mode == "in_round":
            return snap
    raise DemoError("five naturals in a row?")


def _links(procs: TableProcs) -> tuple[TableWatch, SimControl, DemoPlayer]:
    watch = TableWatch(procs.sock, authenticate=True).start()
    sim = SimControl(procs.sim_sock)
    return watch, sim, DemoPlayer(watch, sim, bet_minor=200, strategy=None, say=lambda _t: None)


def test_killing_the_ui_mid_round_changes_nothing_and_a_new_ui_redraws_the_round(tmp_path: Path) -> None:
    procs = TableProcs(tmp_path)
    watch = sim = watch2 = None
    try:
        procs.start_engine()
        procs.start_ui()
        watch, sim, player = _links(procs)
        before = _to_decision(player, watch)
        shot_before = procs.shot()
        meters_before = _meters(procs.journal)

        procs.kill("ui")
        time.sleep(1.0)  # let the engine notice the dropped client
        assert procs.engine is not None and procs.engine.running
        # the station's screen went dark (no presses, no notes); the round, the cards and
        # the credits are as they were
        after = watch.snapshot
        assert after is not None and after.mode == "in_round"
        assert _cards(after) == _cards(before)
        assert after.stations[0].credits_minor == before.stations[0].credits_minor
        assert after.stations[0].lamps == [], after.stations[0].lamps
        assert _meters(procs.journal) == meters_before
        watch2 = TableWatch(procs.sock, name="second").start()  # still serving, the same round
        assert watch2.snapshot is not None and _cards(watch2.snapshot) == _cards(before)
        assert watch2.snapshot.stations[0].credits_minor == before.stations[0].credits_minor

        procs.start_ui()
        # the new screen draws, the engine counts the station drawn again and lights its
        # buttons: the table to compare is the one after that
        watch.wait_for(
            lambda s: s.stations[0].lamps == before.stations[0].lamps, 60.0, "the station's buttons lit again"
        )
        time.sleep(0.5)  # the lit table drawn (the UI draws each new snapshot)
        shot_after = procs.shot()
        diff = ImageChops.difference(Image.open(shot_before).convert("RGB"), Image.open(shot_after).convert("RGB"))
        bbox = diff.getbbox()
        changed = 0 if bbox is None else sum(1 for v in diff.convert("L").tobytes() if v > 40)
        assert changed < 0.01 * 800 * 480, f"redrawn table differs in {changed} pixels ({bbox})"

        # and the round plays on from the restarted UI's table
        player.finish_round([])
        end = watch.wait_for(lambda s: s.mode != "in_round", 10.0, "the round's end")
        # the same cards play on (a pair may have been split: each card then heads a hand)
        dealt = _cards(before)[1][0][:2]
        hands = _cards(end)[1]
        assert hands[0][0] == dealt[0] and _cards(end)[0][0] == _cards(before)[0][0]
        assert dealt[1] in (hands[0][1], *(h[0] for h in hands[1:])), (dealt, hands)
    finally:
        for link in (sim, watch, watch2):
            if link is not None:
                link.close()
        procs.stop()


def test_killing_the_engine_suspends_the_ui_and_a_restarted_engine_resumes_the_round(tmp_path: Path) -> None:
    procs = TableProcs(tmp_path)
    watch = sim = None
    try:
        procs.start_engine()
        procs.start_ui()
        watch, sim, player = _links(procs)
        before = _to_decision(player, watch)
        red_before = _red_fraction(procs.shot())
        sim.close()
        watch.close()
        watch = sim = None

        procs.kill("engine")
        assert procs.ui is not None
        assert procs.ui.running
        time.sleep(0.5)
        suspended = procs.shot()
        assert _red_fraction(suspended) > red_before + 0.03, "no lost-connection overlay"
        assert "engine link down" in (tmp_path / "ui.log").read_text()

        procs.start_engine()
        watch, sim, player = _links(procs)
        assert _cards(watch.snapshot) == _cards(before)  # type: ignore[arg-type]
        assert watch.snapshot.mode == "in_round"  # type: ignore[union-attr]
        deadline = time.monotonic() + 60
        while _red_fraction(procs.shot()) > red_before + 0.03:  # the UI reconnects by itself
            assert time.monotonic() < deadline, "the UI did not reconnect"
            time.sleep(0.3)

        player.finish_round([])
        end = watch.wait_for(lambda s: s.mode != "in_round", 10.0, "the round's end")
        assert end.mode in ("betting", "attract")
        assert procs.ui.running
    finally:
        for link in (sim, watch):
            if link is not None:
                link.close()
        procs.stop()


def test_a_clean_stop_removes_both_sockets(tmp_path: Path) -> None:
    from .crash_harness import EngineProc

    eng = EngineProc(tmp_path)
    eng.start()
    sim_sock = Path(str(eng.sock) + ".sim")
    token = eng.sock.with_name(eng.sock.name + ".token")
    assert eng.sock.exists() and sim_sock.exists() and token.exists()
    eng.stop()  # SIGTERM, as systemd stops it
    assert not eng.sock.exists() and not sim_sock.exists() and not token.exists()

"""The small ones (help bullets, the dealer's lone Ace, replay
input cap, plurals, the hello role check, sound without a sound card)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from cabinet.core.settings import GameSettings
from cabinet.game import Shoe, ShoeExhausted
from cabinet.protocol.ipc import PROTOCOL
from cabinet.tools.replay import ScenarioError, run_scenario

from .helpers import Rig
from .test_ui_server import _readmsg, _with_engine


def test_dealer_lone_ace_reads_1_or_11(monkeypatch):
    """The dealer's lone Ace reads "1 or 11", not "11"."""
    monkeypatch.setattr(
        "cabinet.core.play.Shoe.shuffled",
        staticmethod(
            lambda decks, rng=None, penetration_percent=None: Shoe.from_codes(["10S", "AC", "9H", "7S", "2C"], decks)
        ),
    )
    rig = Rig(GameSettings(variant="classic-multi"))
    rig.note(10_000)
    rig.press("chip", 1, 500)
    rig.press("place", 1, 1)
    rig.press("deal")
    assert rig.cab.snapshot(1).dealer.total_text == "1 or 11"


def test_shoe_ran_out_after_one_card_is_singular():
    """ "ran out after 1 card", not "1 cards"."""
    shoe = Shoe.from_codes(["AS"], 1)
    shoe.draw()
    with pytest.raises(ShoeExhausted, match=r"ran out after 1 card$"):
        shoe.draw()


def test_replay_ran_out_of_decisions_names_them_in_the_singular():
    """ "ran out after 1 decision"."""
    scen = {
        "variant": "classic",
        "seats": [{"seat": 1, "bets": [100]}],
        "shoe": ["10S", "6H", "2C", "3D", "4C", "5C", "6C"],
        "decisions": ["hit"],
    }
    with pytest.raises(ScenarioError, match=r"ran out after 1 decision;"):
        run_scenario(scen)


@pytest.mark.timeout(60)
def test_replay_of_an_endless_file_stops_with_one_line_and_status_2():
    """``cabinet replay /dev/zero`` gives a clear error and exit 2, fast."""
    r = subprocess.run(
        [sys.executable, "-m", "cabinet.tools.cli", "replay", "/dev/zero"], capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "larger than" in r.stderr, r.stderr


def test_a_ui_claiming_the_engine_role_is_refused(tmp_path):
    """A client whose hello says ``role: "engine"`` gets an error and is dropped."""

    async def body(eng, path):
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "engine"}).encode() + b"\n")
        await writer.drain()
        m = await _readmsg(reader)
        assert m["type"] == "error" and m["code"] == "role" and '"ui"' in m["message"]
        assert await _readmsg(reader) is None  # dropped: no snapshot
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))

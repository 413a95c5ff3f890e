"""``parsheet_main`` and ``simulate_main``, the report and the chart PNG."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cabinet.strategy.cli import parsheet_main, simulate_main


def test_parsheet_prints_rtp_and_writes_report(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert parsheet_main(["classic", "--out", str(tmp_path), "--rounds", "2000",
                          "--workers", "1", "--seed", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "RTP: 99.8895 %" in out
    assert "House edge: 0.1105 %" in out
    report = (tmp_path / "parsheet-classic.md").read_text()
    for needle in ("RTP: 99.8895 %", "House edge: 0.1105 %", "strategy-classic.png",
                   "Dealer outcome by up card", "Simulation of the real game code",
                   "blackjack-cabinet"):
        assert needle in report
    figures = json.loads((tmp_path / "parsheet-classic.json").read_text())
    assert figures["simulation"]["rounds"] == 2000
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame
    img = pygame.image.load(str(tmp_path / "strategy-classic.png"))
    w, h = img.get_size()
    assert w > 400 and h > 900


def test_simulate_main_reproduces_with_seed(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    args = ["classic", "--rounds", "3000", "--seed", "9", "--no-progress"]
    assert simulate_main(args + ["--workers", "2", "--json", str(tmp_path / "a.json")]) == 0
    out = capsys.readouterr().out
    assert "95 % CI" in out and "Exact RTP 99.8895 %" in out and "player blackjack" in out
    assert simulate_main(args + ["--workers", "1", "--json", str(tmp_path / "b.json")]) == 0
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert a["net_hist_half_bets"] == b["net_hist_half_bets"] and a["seed"] == "9"


def test_bad_variant_is_an_argparse_error() -> None:
    with pytest.raises(SystemExit) as e:
        parsheet_main(["poker"])
    assert e.value.code == 2

"""``parsheet_main`` and ``simulate_main``, the report and the chart PNG."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from cabinet.strategy import compiled
from cabinet.strategy.cli import parsheet_main, sim_lines, simulate_main
from cabinet.strategy.simulate import SimResult


def test_parsheet_prints_rtp_and_writes_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        parsheet_main(
            ["classic", "--out", str(tmp_path), "--rounds", "2000", "--workers", "1", "--seed", "3", "--no-progress"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "RTP: 99.8895 %" in out
    assert "House edge: 0.1105 %" in out
    report = (tmp_path / "parsheet-classic.md").read_text()
    for needle in (
        "RTP: 99.8895 %",
        "House edge: 0.1105 %",
        "strategy-classic.png",
        "Dealer outcome by up card",
        "Simulation of the real game code",
        "blackjack-cabinet",
    ):
        assert needle in report
    figures = json.loads((tmp_path / "parsheet-classic.json").read_text())
    assert figures["simulation"]["rounds"] == 2000
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    img = pygame.image.load(str(tmp_path / "strategy-classic.png"))
    w, h = img.get_size()
    assert w > 400 and h > 900


def test_simulate_main_reproduces_with_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
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


# -- output paths are checked before the long work ------------------------------------


class _WorkStarted(Exception):
    pass


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the exact analysis (the start of the long work) runs."""
    from cabinet.strategy import cli

    def analyse(*_: object, **__: object) -> None:
        raise _WorkStarted

    monkeypatch.setattr(cli, "analyse", analyse)


def test_parsheet_out_that_is_a_file_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    f = tmp_path / "a-file"
    f.write_text("keep me\n")
    assert parsheet_main(["classic", "--out", str(f), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == f"cabinet parsheet: --out {f}: exists and is not a directory\n"
    assert f.read_text() == "keep me\n"
    # a directory below a file cannot be created either
    assert parsheet_main(["classic", "--out", str(f / "sub")]) == 2
    assert capsys.readouterr().err == (
        f"cabinet parsheet: --out {f / 'sub'}: cannot create the directory: Not a directory\n"
    )


def test_parsheet_out_whose_report_name_is_taken_by_a_directory_fails_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    (tmp_path / "strategy-classic.png").mkdir()
    assert parsheet_main(["classic", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"cabinet parsheet: --out {tmp_path}: strategy-classic.png exists and cannot be overwritten\n"
    )


def test_parsheet_creates_the_out_directory_before_the_work(tmp_path: Path, no_work: None) -> None:
    out = tmp_path / "new" / "sheets"
    with pytest.raises(_WorkStarted):
        parsheet_main(["classic", "--out", str(out)])
    assert out.is_dir() and list(out.iterdir()) == []  # the write probe left nothing


def test_parsheet_bad_out_fails_at_once_from_the_command_line(tmp_path: Path) -> None:
    # End to end: before the fix this ran ~4 s of analysis and ~50 s of simulation
    # and then died with a FileNotFoundError traceback (status 1).
    f = tmp_path / "a-file"
    f.write_text("")
    r = subprocess.run(
        [sys.executable, "-m", "cabinet.tools.cli", "parsheet", "classic", "--out", str(f)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"cabinet parsheet: --out {f}: exists and is not a directory\n"


def test_simulate_json_that_cannot_be_written_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    assert simulate_main(["classic", "--json", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"cabinet simulate: --json {tmp_path}: is a directory\n"
    f = tmp_path / "a-file"
    f.write_text("")
    assert simulate_main(["classic", "--json", str(f / "x.json")]) == 2
    assert capsys.readouterr().err == (f"cabinet simulate: --json {f / 'x.json'}: {f}: exists and is not a directory\n")


# -- rounds: the default is stated, and one round is refused ---------------------------


def test_simulate_help_states_the_default_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        simulate_main(["--help"])
    assert e.value.code == 0
    assert "rounds to simulate, at least 2 (default 1,000,000)" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("main", [simulate_main, parsheet_main])
def test_one_round_is_refused_as_it_has_no_interval(
    main: Callable[[list[str]], int], capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    with pytest.raises(SystemExit) as e:
        main(["classic", "--rounds", "1"])
    assert e.value.code == 2
    assert "argument --rounds: must be at least 2 (the 95 % interval needs 2 rounds), got 1" in capsys.readouterr().err


def test_sim_lines_give_no_verdict_without_an_interval() -> None:
    one = SimResult("classic", 200, rounds=1, net_minor=200, net_sq=4, wagered_minor=200, net_hist={2: 1})
    exact = SimpleNamespace(rtp=0.998895)
    lines = sim_lines(one, exact, "1", 0.5, 1)  # type: ignore[arg-type]
    assert lines[1] == "RTP: 200.0000 %  (no 95 % interval from fewer than 2 rounds)"
    assert lines[3] == "Exact RTP 99.8895 % (no interval to compare it with)"
    assert not any("OUTSIDE" in line or "inside" in line for line in lines)
    two = SimResult("classic", 200, rounds=2, net_minor=0, net_sq=8, wagered_minor=400, net_hist={2: 1, -2: 1})
    lines = sim_lines(two, exact, "1", 0.5, 1)  # type: ignore[arg-type]
    lo, hi = two.ci95
    assert lines[1] == f"RTP: 100.0000 %  (95 % CI {lo * 100:.4f} % - {hi * 100:.4f} %)"
    assert lines[3] == "Exact RTP 99.8895 % is inside the 95 % interval"


# -- --compiled: the optional mypyc copy --------------------------------------


def test_simulate_compiled_without_a_current_copy_fails_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    """``--compiled`` with no compiled copy (or one older than the
    sources) says how to build it, at once, and runs nothing."""
    from cabinet.strategy import cli

    missing = tmp_path / "none"
    monkeypatch.setattr(compiled, "COMPILED_DIR", missing)
    monkeypatch.setattr(cli, "COMPILED_DIR", missing)
    assert simulate_main(["classic", "--compiled"]) == 2
    assert capsys.readouterr().err == (
        f"cabinet simulate: --compiled: {missing} is missing or older than the sources; build it with `make compiled`\n"
    )
    missing.mkdir()
    (missing / compiled.STAMP).write_text("0" * 64 + "\n")  # built from other sources
    assert simulate_main(["classic", "--compiled"]) == 2


def test_the_compiled_copy_is_current_only_for_the_sources_it_was_built_from(tmp_path: Path) -> None:
    """The stamp is the hash of every ``cabinet/**/*.py``; one byte changed
    anywhere makes the copy stale."""
    (tmp_path / "cabinet" / "game").mkdir(parents=True)
    src = tmp_path / "cabinet" / "game" / "round.py"
    src.write_text("x = 1\n")
    before = compiled.sources_hash(tmp_path)
    src.write_text("x = 2\n")
    assert compiled.sources_hash(tmp_path) != before
    assert len(before) == 64
    out = tmp_path / "out"
    out.mkdir()
    (out / compiled.STAMP).write_text(compiled.sources_hash() + "\n")
    assert compiled.is_current(out) and not compiled.running_compiled()
    (out / compiled.STAMP).write_text(before + "\n")
    assert not compiled.is_current(out)


def _simulate_cli(*args: str) -> list[str]:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "simulate",
            "classic",
            "--rounds",
            "3000",
            "--seed",
            "9",
            "--workers",
            "2",
            "--no-progress",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return r.stdout.splitlines()[1:]  # all but the timing line


@pytest.mark.skipif(not compiled.is_current(), reason="no current compiled copy (make compiled)")
def test_the_compiled_copy_prints_what_the_pure_code_prints() -> None:
    """Where a current compiled copy exists, ``--compiled`` prints every
    tally and the RTP exactly as the pure code does."""
    assert _simulate_cli("--compiled") == _simulate_cli()

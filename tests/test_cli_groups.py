"""The ``cabinet`` command line's groups (``cabinet audit meters``, ``cabinet sim host``...),
the flat names that still run them (``cabinet meters``, ``cabinet sim-host``: scripts,
systemd units), and ``cabinet --version``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.shell import program_check
from cabinet.tools import cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("flat", "group", "sub"),
    [
        ("meters", "audit", "meters"),
        ("recall", "audit", "recall"),
        ("events", "audit", "events"),
        ("doctor", "service", "doctor"),
        ("install", "service", "install"),
        ("upgrade-journal", "service", "upgrade-journal"),
        ("sim-device", "sim", "device"),
        ("sim-devices", "sim", "devices"),
        ("sim-host", "sim", "host"),
        ("sim-send", "sim", "send"),
        ("parsheet", "math", "parsheet"),
        ("simulate", "math", "simulate"),
        ("rng-dump", "math", "rng-dump"),
        ("replay", "math", "replay"),
        ("release", "release", "build"),
        ("release-key", "release", "key"),
    ],
)
def test_each_flat_name_is_its_grouped_command(flat: str, group: str, sub: str) -> None:
    assert cli.grouped([flat, "--x", "1"]) == [group, sub, "--x", "1"]
    assert cli.command_of([group, sub, "--x", "1"]) == flat


def test_every_flat_command_has_a_group_or_is_at_the_top() -> None:
    flat = set(cli.ALIASES) | set(cli.TOP)
    assert flat == {
        "run",
        "engine",
        "meters",
        "recall",
        "events",
        "doctor",
        "install",
        "upgrade-journal",
        "sim-device",
        "sim-devices",
        "sim-host",
        "sim-send",
        "parsheet",
        "simulate",
        "rng-dump",
        "replay",
        "release",
        "release-key",
    }
    assert set(cli.PASS_THROUGH) <= flat and set(cli.PIPE_VIEWS) <= flat


def test_grouped_and_top_commands_are_left_as_they_are() -> None:
    for argv in (["sim", "host", "--machines", "2"], ["run", "--headless"], ["engine"], ["audit"], []):
        assert cli.grouped(argv) == argv
    assert cli.command_of(["run", "--headless"]) == "run"
    assert cli.command_of(["audit"]) is None
    assert cli.command_of(["audit", "bogus"]) is None


def test_release_is_the_group_unless_an_option_follows() -> None:
    assert cli.grouped(["release", "build", "--key", "k"]) == ["release", "build", "--key", "k"]
    assert cli.grouped(["release", "--key", "k", "--out", "d"]) == ["release", "build", "--key", "k", "--out", "d"]
    assert cli.grouped(["release", "--help"]) == ["release", "--help"]
    assert cli.grouped(["release"]) == ["release"]


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "recall", "--journal", "j.sqlite3", "--station", "2", "--limit", "3"],
        ["recall", "--journal", "j.sqlite3", "--station", "2", "--limit", "3"],
    ],
)
def test_a_grouped_command_and_its_flat_name_parse_alike(argv: list[str]) -> None:
    args = cli._build_parser().parse_args(cli.grouped(argv))
    assert (args.command, args.journal, args.station, args.limit) == ("recall", "j.sqlite3", 2, 3)


def _listed(help_text: str) -> list[str]:
    """The command names a help lists (each at four spaces, its help beside or below)."""
    return [ln.split()[0] for ln in help_text.splitlines() if ln.startswith("    ") and not ln.startswith("     ")]


def test_the_help_lists_the_groups_and_hides_the_flat_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["--help"])
    assert e.value.code == 0
    listed = _listed(capsys.readouterr().out)
    assert listed == ["run", "engine", "audit", "service", "sim", "math", "release"]
    with pytest.raises(SystemExit):
        cli.main(["sim", "--help"])
    listed = _listed(capsys.readouterr().out)
    assert listed == ["device", "devices", "host", "send"]


def test_a_group_without_its_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["audit"])
    assert e.value.code == 2
    assert "cabinet audit" in capsys.readouterr().err


def test_a_view_runs_by_either_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``cabinet audit meters`` and ``cabinet meters`` read the same journal the same way
    (here one that is not a journal: the same refusal, status 2)."""
    bad = tmp_path / "not-a-journal.sqlite3"
    bad.write_text("not sqlite")
    assert cli.main(["audit", "meters", "--journal", str(bad)]) == 2
    grouped_err = capsys.readouterr().err
    assert cli.main(["meters", "--journal", str(bad)]) == 2
    assert capsys.readouterr().err == grouped_err
    assert "not a readable cabinet journal" in grouped_err


def test_a_pass_through_command_runs_by_either_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["math", "rng-dump", "--help"])
    assert e.value.code == 0
    grouped_help = capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["rng-dump", "--help"])
    assert capsys.readouterr().out == grouped_help != ""


def test_version_in_a_checkout_says_development_build(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.splitlines() == [
        f"cabinet {version('blackjack-cabinet')}",
        f"program ID: blackjack-cabinet {version('blackjack-cabinet')}",
        "manifest digest: none (development build: not started from a signed release, no program check)",
    ]


def test_version_of_a_release_gives_its_program_id_and_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    digest = "ab" * 32
    monkeypatch.setattr(
        program_check,
        "this_program",
        lambda: program_check.ProgramCheck("verified", "blackjack-cabinet 9.9.9", digest),
    )
    lines = cli.version_text().splitlines()
    assert lines[1:] == ["program ID: blackjack-cabinet 9.9.9", f"manifest digest: {digest} (verified)"]
    monkeypatch.setattr(
        program_check,
        "this_program",
        lambda: program_check.ProgramCheck("mismatch", "blackjack-cabinet 9.9.9", digest, "site-packages/x.pth: added"),
    )
    assert cli.version_text().splitlines()[2] == (
        f"manifest digest: {digest} (the program check FAILED: site-packages/x.pth: added)"
    )


def test_version_as_the_console_command() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("cabinet ") and "program ID: blackjack-cabinet" in r.stdout


@pytest.mark.parametrize(("value", "says"), [("-1", "must be 1 or more, got -1"), ("abc", "expected a whole number")])
def test_a_view_limit_below_one_or_not_a_number_is_refused(value, says, capsys):
    from cabinet.tools.cli import main

    with pytest.raises(SystemExit) as e:
        main(["recall", "--limit", value])
    assert e.value.code == 2 and says in capsys.readouterr().err

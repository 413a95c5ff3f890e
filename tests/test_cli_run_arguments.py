"""``cabinet run``'s arguments refused before anything starts, each in one line with exit
status 2 (``--language fr``, say: not "the table UI did not start" with status 1
and a log naming an environment file nobody had written)."""

from __future__ import annotations

import pytest

from cabinet.protocol.languages import check_station_languages
from cabinet.tools import cli


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["run", "--language", "fr"],
            "cabinet run: --language: expected one of en, es (optionally with a territory: es_ES), got 'fr'",
        ),
        (
            ["run", "--stations", "3", "--language", "en,es,en,es"],
            "cabinet run: --language: 4 languages for 3 stations: give one language for all of them, "
            "or one per station (at most 3)",
        ),
        (["run", "--stations", "2", "--language", "en,xx"], "got 'xx'"),
    ],
)
def test_a_bad_language_is_refused_in_one_line_before_the_run(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CABINET_DATA_DIR", str(tmp_path))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1, err
    assert not list(tmp_path.iterdir())  # nothing started, nothing written


def test_the_language_check_takes_one_or_one_per_station():
    assert check_station_languages("es", 3) == ""
    assert check_station_languages("en,es,es_ES", 3) == ""
    assert check_station_languages("es-MX", 1) == ""
    assert "2 languages for 1 station:" in check_station_languages("en,es", 1)


@pytest.mark.parametrize("rounds", ["-1", "0"])
def test_rounds_below_one_get_the_same_one_rule(rounds, capsys, tmp_path, monkeypatch):
    """``--rounds -1`` and ``--rounds 0`` break the same rule and say the same rule."""
    monkeypatch.setenv("CABINET_DATA_DIR", str(tmp_path))
    assert cli.main(["run", "--headless", "--rounds", rounds]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"cabinet run: --rounds must be 1 or more, got {rounds}", err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("size", "says"),
    [
        ("10x10", "cabinet run: --size 10x10 is too small: at least 320x240"),
        ("9000x5000", "cabinet run: --size 9000x5000 is too large: at most 7680x4320"),
        ("big", "cabinet run: --size 'big': give WIDTHxHEIGHT, e.g. 1280x720"),
    ],
)
def test_a_size_out_of_range_says_so_and_a_bad_one_says_the_format(size, says, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CABINET_DATA_DIR", str(tmp_path))
    assert cli.main(["run", "--headless", "--size", size]) == 2
    assert capsys.readouterr().err.strip() == says


def test_too_many_languages_say_the_two_ways_once_each():
    """The count error names the two lists that are taken, each once."""
    assert check_station_languages("en,es,en,es", 3) == (
        "4 languages for 3 stations: give one language for all of them, or one per station (at most 3)"
    )
    assert check_station_languages("en,es", 1) == ("2 languages for 1 station: give one language")


def test_meters_print_on_an_ascii_only_stdout(tmp_path):
    """``cabinet meters`` on a terminal that takes ASCII only (``PYTHONIOENCODING=ascii``):
    the lines printed, their middle dots as ``-``, no traceback."""
    import os
    import subprocess
    import sys

    from cabinet.core.machine import new_state
    from cabinet.core.settings import GameSettings
    from cabinet.shell.store import Store

    journal = tmp_path / "j.db"
    store = Store(journal)
    store.commit(new_state(GameSettings()), None, [], 1_800_000_000.0)
    store.close()
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(journal)], capture_output=True, env=env, timeout=60
    )
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode("ascii")
    assert "Traceback" not in r.stderr.decode()
    assert "Station 1" in out and " - " in out, out


@pytest.mark.timeout(120)
def test_a_run_on_a_journal_another_engine_holds_says_why_the_engine_did_not_start(tmp_path):
    """The engine's own one-line reason (the journal is in use) is in the run's
    message, not only in its log."""
    import subprocess
    import sys
    import time

    folder = tmp_path / "j"
    folder.mkdir(mode=0o700)
    journal = folder / "journal.db"
    cabinet = [sys.executable, "-m", "cabinet"]
    holder = subprocess.Popen(
        [*cabinet, "engine", "--devices", "none", "--journal", str(journal), "--socket", str(folder / "s.sock")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert holder.stdout is not None
        deadline = time.monotonic() + 60
        while "engine ready" not in (holder.stdout.readline() or "") and time.monotonic() < deadline:
            pass
        r = subprocess.run(
            [*cabinet, "run", "--headless", "--journal", str(journal), "--out", str(tmp_path / "run")],
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        holder.terminate()
        holder.wait(timeout=30)
    assert r.returncode == 1
    assert f"cabinet run: the engine did not start: engine: journal {journal} is in use by another engine" in r.stderr

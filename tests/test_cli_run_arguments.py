"""``cabinet run``'s arguments refused before anything starts, each in one line with exit
status 2 (new-user trial, session 7: ``--language fr`` said only "the table UI did not
start" with status 1, its log naming an environment file nobody had written)."""

from __future__ import annotations

import pytest

from cabinet.protocol.languages import check_station_languages
from cabinet.tools import cli


@pytest.mark.parametrize(("argv", "says"), [
    (["run", "--language", "fr"], "cabinet run: --language: expected one of en, es (optionally "
                                  "with a territory: es_ES), got 'fr'"),
    (["run", "--stations", "3", "--language", "en,es,en,es"],
     "cabinet run: --language: 4 languages for 3 stations: give one for every station, or one "
     "per station"),
    (["run", "--stations", "2", "--language", "en,xx"], "got 'xx'"),
])
def test_a_bad_language_is_refused_in_one_line_before_the_run(argv, says, capsys, tmp_path,
                                                              monkeypatch):
    monkeypatch.setenv("CABINET_DATA_DIR", str(tmp_path))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1, err
    assert not list(tmp_path.iterdir())           # nothing started, nothing written


def test_the_language_check_takes_one_or_one_per_station():
    assert check_station_languages("es", 3) == ""
    assert check_station_languages("en,es,es_ES", 3) == ""
    assert check_station_languages("es-MX", 1) == ""
    assert "2 languages for 1 station:" in check_station_languages("en,es", 1)

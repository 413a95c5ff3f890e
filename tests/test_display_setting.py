"""The cabinet's screens setting: ``[display] screens = "per-station"|"shared"``
in ``cabinet.toml``, told to the UIs in every snapshot; ``cabinet run --screens``; the
systemd unit's environment file."""

from __future__ import annotations

import random
import shlex
from pathlib import Path

import pytest

from cabinet.core.events import PowerUp
from cabinet.shell.config import check_config
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store
from cabinet.tools import install, launcher
from cabinet.tools.station_screens import display_toml, shot_takers, ui_command
from confspec import ConfigError
from tests.test_systemd_units import SYSTEMD, one, parse_unit


def test_display_screens_is_read_and_checked() -> None:
    """``[display] screens`` is ``per-station`` unless set; ``shared`` is taken;
    anything else is refused naming the key and the choices."""
    assert check_config({}).display.screens == "per-station"
    assert check_config({"display": {"screens": "shared"}}).display.screens == "shared"
    with pytest.raises(ConfigError, match=r"display\.screens.*per-station, shared"):
        check_config({"display": {"screens": "wide"}})
    with pytest.raises(ConfigError, match="display"):
        check_config({"display": {"panels": 3}})


def test_the_engine_tells_the_uis_its_screens_setting(tmp_path: Path) -> None:
    """Every snapshot carries the engine's ``screens`` (``Snapshot.screens``)."""
    store = Store(tmp_path / "journal.db")
    try:
        eng = Engine(store, rng=random.Random(1))
        eng.screens = "shared"
        eng.step(PowerUp(0, 1.8e9))
        assert eng.snapshot is not None and eng.snapshot.screens == "shared"
    finally:
        store.close()


def test_cabinet_run_screens_shared_config_and_ui_command() -> None:
    """``cabinet run --screens shared`` writes the setting into the run's config
    and starts its one UI with ``--screens shared`` (no own-station layout); each station's
    screenshots are named for it, from that one UI."""
    assert display_toml("per-station") == ""
    assert display_toml("shared") == '[display]\nscreens = "shared"\n'
    assert check_config({"display": {"screens": "shared"}}).display.screens == "shared"
    with pytest.raises(ValueError):
        display_toml("wide")
    argv = ui_command("py", Path("/s/ui.sock"), 1, 3, "1920x540", Path("/f"), None, shared=True)
    assert argv[argv.index("--screens") + 1] == "shared" and "--own-station" not in argv

    class FakeShots:
        def settled(self, name: str, prefix: str | None = None) -> str:
            return f"{prefix}{name}"

        def grab(self, pattern: str, name: str, prefix: str | None = None) -> str:
            return f"{prefix}{name}:{pattern}"

    settle, grabs = shot_takers([FakeShots()], 3, shared=True)
    assert [s("mid-round") for s in settle] == ["station1-mid-round", "station2-mid-round", "station3-mid-round"]
    assert grabs[2]("*.png", "x") == "station3-x:*.png"


def test_cabinet_run_refuses_an_unknown_screens_value(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``--screens`` other than per-station/shared: a line and status 2."""
    assert launcher.main(display="wide", out=str(tmp_path)) == 2
    assert "--screens must be one of per-station, shared" in capsys.readouterr().err


def test_the_one_table_ui_unit_reads_an_optional_environment_file() -> None:
    """``cabinet-ui.service`` reads ``/etc/cabinet/ui.env`` if there is one
    (``CABINET_SCREENS=shared`` for the shared screen) and leaves the choice to the
    config otherwise (no ``--screens`` on its command line)."""
    unit = parse_unit(SYSTEMD / "cabinet-ui.service")
    assert one(unit, "Service", "EnvironmentFile") == f"-{install.CONFIG_DIR}/ui.env"
    assert "--screens" not in shlex.split(one(unit, "Service", "ExecStart"))

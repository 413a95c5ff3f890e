"""``cabinet engine`` refuses a bad config with the key named, and exits (never
hangs) when its devices cannot start."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cabinet.core.errors import ConfigError
from cabinet.shell.config import load_config


@pytest.mark.parametrize(
    "text,where",
    [
        ("devices = 5", "devices"),
        ("colour = 'red'", "colour"),
        ("[devices]\nbill_acceptr = 'id003'", "devices.bill_acceptr"),
        ("[devices]\nbill_acceptor = 'bogus'", "devices.bill_acceptor"),
        ("[devices]\nbill_poll_interval_s = -1", "devices.bill_poll_interval_s"),
        ("[devices]\nbill_poll_interval_s = 'fast'", "devices.bill_poll_interval_s"),
        ("wiring = 5", "wiring"),
        ("not toml ==", "c.toml"),
    ],
)
def test_bad_config_names_the_key(tmp_path, text, where):
    f = tmp_path / "c.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert where in str(e.value)


def test_good_config_loads(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("[devices]\nbill_acceptor = 'none'\nbill_poll_interval_s = 0.1\n")
    assert load_config(f).devices.bill_acceptor == "none"


@pytest.mark.timeout(60)
def test_engine_that_cannot_start_its_devices_exits_with_the_reason(tmp_path):
    # No lgpio off the Pi: hardware mode cannot start.
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "hardware",
            "--journal",
            str(tmp_path / "j.db"),
            "--socket",
            str(tmp_path / "s"),
        ],
        capture_output=True,
        text=True,
        timeout=45,
    )
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1].startswith("engine: cannot start:")


@pytest.mark.timeout(60)
def test_config_that_is_not_utf8_is_one_line_for_the_engine_and_doctor(tmp_path):
    """A config file that is not UTF-8 (saved in Latin-1): the engine exits 2 with one
    ``config:`` line naming the file, ``cabinet doctor`` fails it; no traceback."""
    f = tmp_path / "c.toml"
    f.write_bytes("# caf\xe9\n[devices]\nbill_acceptor = 'none'\n".encode("latin-1"))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--config",
            str(f),
            "--journal",
            str(tmp_path / "j.db"),
            "--socket",
            str(tmp_path / "s"),
        ],
        capture_output=True,
        text=True,
        timeout=45,
    )
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith("config: ") and str(f) in lines[0] and "UTF-8" in lines[0]
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "doctor",
            "--devices",
            "none",
            "--config",
            str(f),
            "--journal",
            str(tmp_path / "j.db"),
        ],
        capture_output=True,
        text=True,
        timeout=45,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"FAIL  config {f}" in r.stdout and "UTF-8" in r.stdout, r.stdout

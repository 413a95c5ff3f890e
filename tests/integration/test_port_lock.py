"""A second engine on serial ports another engine holds exits at once with one line
naming the port and the holder (status 2), instead of retrying the ports forever."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .crash_harness import EngineProc, TwinProc

pytestmark = [pytest.mark.timeout(120)]


def test_second_engine_on_the_same_ports_exits_2_naming_port_and_holder(tmp_path: Path) -> None:
    twins = TwinProc(tmp_path)
    twins.start()
    first = EngineProc(tmp_path, twins)
    try:
        first.start()
        assert first.proc is not None
        other = tmp_path / "other"
        other.mkdir(mode=0o700)
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "cabinet",
                "engine",
                "--journal",
                str(other / "journal.db"),
                "--socket",
                str(other / "ui.sock"),
                "--twins",
                str(twins.dir),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        said = [ln for ln in second.stderr.splitlines() if ln.startswith("engine:")]
        assert second.returncode == 2, second.stderr[-2000:]
        assert len(said) == 1 and second.stderr.strip().endswith(said[0]), second.stderr
        assert f"serial port {twins.dir / 'bill-acceptor'} (station 1 bill acceptor)" in said[0]
        assert f"in use by process {first.proc.pid} (python -m cabinet engine" in said[0]
        assert first.proc.poll() is None  # the first engine runs on
    finally:
        first.stop()
        twins.stop()

"""Issue 11: no one in where they don't belong (the engine's socket, journal and program)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cabinet.ipc import PROTOCOL


def _start_engine(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CABINET_LOG": "INFO"}
    proc = subprocess.Popen([sys.executable, "-m", "cabinet", "engine", "--devices", "none",
                             "--journal", str(tmp_path / "state" / "j.db"),
                             "--socket", str(tmp_path / "run" / "ui.sock"), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "engine ready" in line:
            return proc
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("engine did not start")


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.mark.timeout(60)
def test_hello_then_close_does_not_kill_the_engine(tmp_path):
    """Issue 11.11: connect, send a hello, close: the engine must survive (no SIGPIPE)."""
    proc = _start_engine(tmp_path)
    try:
        for _ in range(5):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(tmp_path / "run" / "ui.sock"))
            s.sendall(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui"}).encode()
                      + b"\n")
            s.close()
            time.sleep(0.3)
        assert proc.poll() is None, "engine died"
    finally:
        _stop(proc)
    assert proc.returncode == 0

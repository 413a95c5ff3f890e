"""The ``cabinet`` command's read-only views end quietly on a closed pipe, without
changing the signals of a process that calls ``cli.main`` in-process (a test run:
SIGPIPE left at its default there killed the whole pytest run on a later socket write)."""

from __future__ import annotations

import signal
import subprocess
import sys

from cabinet.tools.cli import main
from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child


def test_an_in_process_view_keeps_the_callers_sigpipe_ignore(tmp_path) -> None:
    before = signal.getsignal(signal.SIGPIPE)
    assert before == signal.SIG_IGN  # Python's own start-up setting
    assert main(["rng-dump", "--bytes", "64", str(tmp_path / "r.bin")]) == 0
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN


def test_the_command_ends_quietly_when_its_reader_goes_away() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m cabinet rng-dump --bytes 0 - | head -c 10 >/dev/null",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "BrokenPipe" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_engine_ends_quietly_on_sigterm_with_a_ui_client_connected(tmp_path) -> None:
    """SIGTERM with a UI client still connected: exit 0, "engine stopped" logged, no
    traceback (the client's connection is closed, not left to be cancelled)."""
    import socket
    import time

    sock_path = tmp_path / "ui.sock"
    p = Child(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--journal",
            str(tmp_path / "j.db"),
            "--socket",
            str(sock_path),
        ],
        name="engine",
    )
    client = socket.socket(socket.AF_UNIX)
    try:
        p.wait_for("engine ready", START_DEADLINE_S)
        client.connect(str(sock_path))
        client.sendall(b'{"type": "hello"}\n')
        time.sleep(0.5)
        p.signal(signal.SIGTERM)
        code = p.wait_exit(STOP_DEADLINE_S)
    finally:
        client.close()
        p.kill()
    err = p.text("stderr")
    assert code == 0, err
    assert "Traceback" not in err and "CancelledError" not in err, err
    assert err.strip().splitlines()[-1].endswith("engine stopped"), err

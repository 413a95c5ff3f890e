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


def _chown_away_or_fake(monkeypatch, path: Path) -> None:
    """Make ``path`` someone else's: chown it to nobody when root, else pretend we are another uid."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:
        real = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: real + 1)


def test_socket_folder_made_first_by_another_user_is_refused(tmp_path, monkeypatch):
    """Issue 11.17: a ``blackjack-cabinet`` folder in the temp dir that another user
    created first (mode 0777, theirs) is refused, not used for the socket."""
    from cabinet.paths import private_dir
    hijack = tmp_path / "blackjack-cabinet"
    hijack.mkdir()
    os.chmod(hijack, 0o777)
    _chown_away_or_fake(monkeypatch, hijack)
    with pytest.raises(PermissionError, match="not by us"):
        private_dir(hijack, group_ok=True)


def test_socket_folder_open_to_others_or_a_symlink_is_refused(tmp_path):
    """Issue 11.17: our own folder with mode 0777, or a symlink to one, is refused too."""
    from cabinet.paths import private_dir
    loose = tmp_path / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    with pytest.raises(PermissionError, match="0777"):
        private_dir(loose, group_ok=True)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(PermissionError, match="symlink"):
        private_dir(link)


def test_default_socket_fallback_is_checked_by_the_engine(tmp_path, monkeypatch):
    """Issue 11.17: the engine refuses to serve from a hijacked fallback folder."""
    import asyncio
    import random

    from cabinet.runtime import Engine
    from cabinet.store import Store
    from cabinet.ui_server import UIServer
    hijack = tmp_path / "blackjack-cabinet"
    hijack.mkdir()
    os.chmod(hijack, 0o777)
    eng = Engine(Store(tmp_path / "j.db"), rng=random.Random(1))
    _chown_away_or_fake(monkeypatch, hijack)
    server = UIServer(eng, hijack / "ui.sock")
    with pytest.raises(PermissionError):
        asyncio.run(server.start())
    assert not (hijack / "ui.sock").exists()
    eng.store.close()


def test_journal_and_socket_are_owner_only_whatever_the_umask(tmp_path):
    """Issue 11.15: with a umask of 0 the journal (and its WAL), its new folder and the
    socket folder are still owner-only; the socket is 0660 in a 0700 folder."""
    old = os.umask(0)
    try:
        proc = _start_engine(tmp_path)
        try:
            state, run = tmp_path / "state", tmp_path / "run"
            assert oct(os.stat(state).st_mode & 0o777) == "0o700"
            assert oct(os.stat(run).st_mode & 0o777) == "0o700"
            for f in state.iterdir():
                assert os.stat(f).st_mode & 0o077 == 0, f"{f.name} is open to others"
            assert (state / "j.db-wal").exists()
        finally:
            _stop(proc)
    finally:
        os.umask(old)


def test_existing_world_readable_journal_is_tightened(tmp_path):
    """Issue 11.15: a journal left 0644 by an older version is made 0600 at open."""
    from cabinet.store import Store
    Store(tmp_path / "j.db").close()
    os.chmod(tmp_path / "j.db", 0o644)
    Store(tmp_path / "j.db").close()
    assert os.stat(tmp_path / "j.db").st_mode & 0o777 == 0o600


def test_default_state_folder_is_tightened(tmp_path, monkeypatch):
    """Issue 11.15: the default state folder (systemd's StateDirectory, 0755) is made 0700
    by the engine; the journal inside it is 0600."""
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, 0o755)
    monkeypatch.setenv("CABINET_DATA_DIR", str(data))
    env_proc = subprocess.Popen([sys.executable, "-m", "cabinet", "engine", "--devices", "none",
                                 "--socket", str(tmp_path / "run" / "ui.sock")],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert env_proc.stdout is not None
        for _ in range(200):
            if "engine ready" in env_proc.stdout.readline():
                break
        assert os.stat(data).st_mode & 0o777 == 0o700
        assert os.stat(data / "journal.db").st_mode & 0o777 == 0o600
    finally:
        _stop(env_proc)

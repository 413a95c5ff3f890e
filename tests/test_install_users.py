"""Separate users: the installer makes the engine's user and the table UI's, gives the
journal folder to the engine's, and the UI's user can reach the UI socket and nothing
else of the engine's (not the journal, not its key).

Needs root (``useradd``, ``runuser``): throwaway users are made for the test and
removed after it; without root the test is skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cabinet.protocol.ipc import PROTOCOL
from cabinet.shell.store import Store
from cabinet.tools import install
from cabinet.tools.install import Installer
from cabinet.tools.install_users import Accounts
from cabinet.tools.launcher import Child
from tests.procs import START_DEADLINE_S

ROOT = Path(__file__).resolve().parents[1]

#: The system's Python (standard library only), which any user may run.
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0
    or SYSTEM_PYTHON is None
    or not all(shutil.which(c) for c in ("useradd", "userdel", "runuser", "setpriv")),
    reason="needs root, useradd/userdel/runuser/setpriv and /usr/bin/python3",
)


def _run(argv, check):
    subprocess.run(list(argv), check=check, capture_output=True)


def _as(user: str, code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` run by ``user`` (no capabilities) in the system's Python."""
    pre = ["env", *(f"{k}={v}" for k, v in (env or {}).items())]
    return subprocess.run(
        ["runuser", "-u", user, "--", *pre, str(SYSTEM_PYTHON), "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
    )


@pytest.fixture
def accounts():
    tag = f"{os.getpid() % 100000}"
    acc = Accounts(engine=f"cbteng{tag}", ui=f"cbtui{tag}", engine_groups=(), ui_groups=())
    yield acc
    for name in (acc.engine, acc.ui):
        subprocess.run(["userdel", name], capture_output=True)
        subprocess.run(["groupdel", name], capture_output=True)


@pytest.mark.timeout(240)
def test_the_ui_user_cannot_open_the_journal_or_key_but_reaches_the_socket(accounts):
    root = Path(tempfile.mkdtemp(prefix="cabinet-users-"))  # pytest's tmp is root-only
    root.chmod(0o755)
    engine = None
    try:
        Installer(root, ROOT, None).all(start=False)  # the files, as --root does
        inst = Installer(root, ROOT, _run)
        inst.accounts = accounts
        inst.users()  # the real commands
        state = root / str(install.STATE_DIR).lstrip("/")
        journal = state / "journal.sqlite3"
        Store(journal).close()  # journal and key, made by root
        inst.state()  # ...given to the engine's user
        key = journal.with_name(journal.name + ".key")
        assert key.is_file() and journal.is_file()

        # the socket's folder as systemd's RuntimeDirectory= makes it: the engine's, 0750
        run = root / "run/cabinet"
        run.mkdir(parents=True)
        shutil.chown(run, accounts.engine, accounts.engine)
        run.chmod(0o750)
        sim = state / "sim"
        sock = run / "ui.sock"
        env = {**os.environ, "CABINET_SOCKET_GROUP": accounts.ui, "CABINET_LOG": "INFO"}
        # The engine as its user. This venv's interpreter may sit where only root may
        # enter (a home folder): the engine gets the one capability to read and search
        # there (not to write, nor to chown: the socket's group must be one of its own).
        as_engine = [
            "setpriv",
            f"--reuid={accounts.engine}",
            f"--regid={accounts.engine}",
            "--init-groups",
            "--inh-caps=+dac_read_search",
            "--ambient-caps=+dac_read_search",
            "--",
        ]
        engine = Child(
            "engine",
            [
                *as_engine,
                sys.executable,
                "-m",
                "cabinet",
                "engine",
                "--journal",
                str(journal),
                "--socket",
                str(sock),
                "--devices",
                "sim",
                "--sim-dir",
                str(sim),
            ],
            env=env,
            log=root / "engine.log",
        )
        assert engine.wait_line("engine ready", START_DEADLINE_S) is not None, (root / "engine.log").read_text()[-2000:]

        for path in (journal, key):
            r = _as(accounts.ui, f"open({str(path)!r}, 'rb').read(1)")
            assert r.returncode == 1 and "PermissionError" in r.stderr, (path, r.stderr)
            r = _as(accounts.engine, f"print(len(open({str(path)!r}, 'rb').read()) > 0)")
            assert r.stdout.strip() == "True", r.stderr  # the engine's user can
        r = _as(accounts.ui, f"import os; print(os.listdir({str(state)!r}))")
        assert "PermissionError" in r.stderr

        hello = (
            "import json, socket; s = socket.socket(socket.AF_UNIX); "
            f"s.connect({str(sock)!r}); tok = open({str(sock) + '.token'!r}).read().strip(); "
            "s.sendall(json.dumps({'type': 'hello', 'protocol': " + str(PROTOCOL) + ", 'role': 'ui', "
            "'token': tok}).encode() + b'\\n'); f = s.makefile('rb'); "
            "print(json.loads(f.readline())['type'])"
        )
        r = _as(accounts.ui, hello)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() in {"hello", "snapshot"}, r.stdout
    finally:
        if engine is not None:
            engine.stop()
        shutil.rmtree(root)

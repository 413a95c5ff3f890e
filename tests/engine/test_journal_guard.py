"""Issue 11: the journal's guards: one engine per journal (11.5), ..."""

from __future__ import annotations

import fcntl
import subprocess
import sys

import pytest

from cabinet.shell.paths import lock_file


@pytest.mark.timeout(60)
def test_second_engine_on_a_journal_is_refused_with_one_line(tmp_path):
    """Issue 11.5: a second ``cabinet engine`` on a journal whose lock is held exits 2
    with one line, before it opens the journal or any socket."""
    journal = tmp_path / "j.db"
    sock = tmp_path / "ui.sock"
    with open(lock_file(journal), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            r = subprocess.run([sys.executable, "-m", "cabinet", "engine", "--devices", "none",
                                "--journal", str(journal), "--socket", str(sock)],
                               capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail("the second engine ran on a locked journal")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "in use by another engine" in lines[0] and str(journal) in lines[0]
    assert not journal.exists() and not sock.exists()

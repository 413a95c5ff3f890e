"""The journal's guards: one engine per journal (11.5), ..."""

from __future__ import annotations

import fcntl
import subprocess
import sys

import pytest

from cabinet.shell.paths import lock_file


@pytest.mark.timeout(60)
def test_second_engine_on_a_journal_is_refused_with_one_line(tmp_path):
    """A second ``cabinet engine`` on a journal whose lock is held exits 2
    with one line, before it opens the journal or any socket."""
    journal = tmp_path / "j.db"
    sock = tmp_path / "ui.sock"
    with open(lock_file(journal), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            r = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "cabinet",
                    "engine",
                    "--devices",
                    "none",
                    "--journal",
                    str(journal),
                    "--socket",
                    str(sock),
                ],
                capture_output=True,
                text=True,
                timeout=20,
            )
        except subprocess.TimeoutExpired:
            pytest.fail("the second engine ran on a locked journal")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "in use by another engine" in lines[0] and str(journal) in lines[0]
    assert not journal.exists() and not sock.exists()


def _engine(tmp_path, journal, *extra):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--journal",
            str(journal),
            "--socket",
            str(tmp_path / "ui.sock"),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )


def _one_line(r):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, (r.returncode, r.stderr)
    return lines[0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", [0o777, 0o755])
def test_journal_folder_others_can_enter_is_refused_and_doctor_fails_it(tmp_path, mode):
    """A journal folder others may enter (the journal, its key and the live round are in
    it) is refused with one line, nothing created in it; ``cabinet doctor`` fails it."""
    folder = tmp_path / "data"
    folder.mkdir()
    folder.chmod(mode)
    line = _one_line(_engine(tmp_path, folder / "j.db"))
    assert f"{folder}: mode {mode:04o} lets others in" in line, line
    assert list(folder.iterdir()) == []
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "doctor", "--journal", str(folder / "j.db"), "--devices", "none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and f"FAIL  journal {folder}" in r.stdout, r.stdout
    assert f"its folder {folder} has mode {mode:04o}: others can enter it" in r.stdout, r.stdout


@pytest.mark.timeout(60)
def test_existing_file_that_is_not_a_journal_is_refused_and_left_as_it_is(tmp_path):
    """``--journal`` at a file of the user's that is not a journal: one line, exit 2, the
    file untouched and not renamed (the salvage is for a journal that was ours)."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 200)
    line = _one_line(_engine(tmp_path, notes))
    assert str(notes) in line and "not a cabinet journal" in line
    assert notes.read_text() == "my notes\n" * 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.timeout(60)
def test_journal_in_a_folder_that_does_not_exist_is_refused(tmp_path):
    """``--journal /missing/dir/j.db``: one line, exit 2, no folder made (a typo is not
    a new cabinet)."""
    journal = tmp_path / "missing" / "dir" / "j.db"
    line = _one_line(_engine(tmp_path, journal))
    assert str(journal.parent) in line and "does not exist" in line
    assert not (tmp_path / "missing").exists()

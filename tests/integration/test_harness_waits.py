"""The process harnesses' waits: a child that never says it is ready (or dies) fails the
wait within its deadline, and the error carries what the child printed, so a suite on a
loaded machine neither hangs nor fails without saying why."""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path

import pytest

from tests import procs

from . import crash_harness
from .crash_harness import EngineProc, TwinProc

pytestmark = pytest.mark.timeout(60)

#: What the stand-in engine writes to stderr before it hangs without a ready line.
COMPLAINT = "engine: the journal is locked by pid 4242"


def _silent_python(tmp_path: Path, exit_status: int | None = None) -> Path:
    """A stand-in for ``python``: a complaint on stderr and nothing on stdout, then it
    hangs; with ``exit_status``, a line on stdout that is not the ready line and exit."""
    script = tmp_path / "python"
    end = "exec sleep 600" if exit_status is None else f'echo "starting"\nexit {exit_status}'
    script.write_text(f'#!/bin/sh\necho "{COMPLAINT}" >&2\n{end}\n')
    script.chmod(0o755)
    return script


def _start_in_thread(start, join_s: float) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start()
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            errors.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(join_s)
    return t, errors


@pytest.mark.parametrize("which", ["engine", "twins"])
def test_a_child_that_never_says_ready_fails_within_the_deadline_with_its_output(tmp_path, monkeypatch, which):
    monkeypatch.setattr(sys, "executable", str(_silent_python(tmp_path)))
    monkeypatch.setattr(crash_harness, "READY_TIMEOUT_S", 2.0)
    proc: EngineProc | TwinProc = EngineProc(tmp_path) if which == "engine" else TwinProc(tmp_path)
    t0 = time.monotonic()
    try:
        t, errors = _start_in_thread(proc.start, 15.0)
        hung = t.is_alive()
    finally:
        if proc.proc is not None:
            proc.proc.kill()
            proc.proc.wait(10)
    assert not hung, f"{which} start still waiting after 15 s (its deadline is 2 s)"
    assert time.monotonic() - t0 < 12
    (err,) = errors
    assert isinstance(err, procs.ChildTimeout), repr(err)
    assert COMPLAINT in str(err) and "still running" in str(err)


def test_a_child_that_dies_before_ready_fails_at_once_with_its_output(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(_silent_python(tmp_path, exit_status=2)))
    eng = EngineProc(tmp_path)
    t0 = time.monotonic()
    with pytest.raises(procs.ChildExited) as got:
        eng.start()
    assert time.monotonic() - t0 < 10  # not the start deadline
    assert COMPLAINT in str(got.value) and "starting" in str(got.value)
    assert "exited with status 2" in str(got.value)


def test_wait_for_looks_only_at_lines_after_the_last_match(tmp_path):
    child = procs.Child(["sh", "-c", "echo 'shot 1'; echo 'shot 2'; exec sleep 600"], name="ui")
    try:
        assert child.wait_for("shot", 20) == "shot 1"
        assert child.wait_for(re.compile(r"shot \d"), 20) == "shot 2"
        with pytest.raises(procs.ChildTimeout, match="shot 2"):  # the tail shows both
            child.wait_for("shot", 0.5)
    finally:
        child.stop()
    assert not child.running


def test_wait_exit_and_wait_until_fire_and_name_the_child(tmp_path):
    child = procs.Child(["sh", "-c", "echo 'waiting for the pty' >&2; exec sleep 600"], name="sim-host")
    try:
        with pytest.raises(procs.ChildTimeout, match="waiting for the pty"):
            child.wait_exit(0.5)
        with pytest.raises(procs.ChildTimeout, match=r"(?s)the host link.*waiting for the pty"):
            procs.wait_until(lambda: False, 0.3, "the host link", child)
        assert procs.wait_until(lambda: 7, 0.3, "seven", child) == 7
    finally:
        assert child.stop() == -15
    dead = procs.Child(["sh", "-c", "echo bye >&2; exit 3"], name="engine")
    assert dead.wait_exit(20) == 3 and dead.text("stderr") == "bye\n"
    with pytest.raises(procs.ChildExited, match="(?s)status 3.*bye"):
        procs.wait_until(lambda: False, 20, "the table", dead)

"""Every failing test says what its child processes printed.

The children a test started through ``tests.procs.Child`` (the engine, the UI, the
twins, the host twin) are listed per test; when the test fails, whatever failed (an
assertion on the table, a wait that timed out), their last lines of stdout and stderr
are a section of its report. A ``subprocess.run(..., timeout=)`` that timed out
(``subprocess.TimeoutExpired``) adds what that child printed before it was killed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Generator
from typing import Any

import pytest

from tests import procs


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    procs.forget_started()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    if procs.started:
        report.sections.append((f"child processes ({call.when})", procs.report()))
    exc = call.excinfo.value if call.excinfo is not None else None
    if isinstance(exc, subprocess.TimeoutExpired):
        report.sections.append(("timed-out child", procs.timeout_output(exc)))

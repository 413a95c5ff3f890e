"""Every package type-checks under ``mypy --strict`` and the tree lints and is formatted clean
(``make lint``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(900)
def test_every_package_is_strictly_typed():
    """``mypy --strict cabinet confspec drivers ui``; third-party packages without type
    information are listed as such in pyproject.toml."""
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "cabinet", "confspec", "drivers", "ui"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=840,
    )  # cold cache, loaded machine
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.timeout(120)
def test_the_whole_tree_lints_clean():
    """ruff over every package, the tests and the benchmarks (``make lint``)."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    r = subprocess.run(
        [ruff, "check", "cabinet", "confspec", "drivers", "ui", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert r.returncode == 0, r.stdout


@pytest.mark.timeout(120)
def test_the_whole_tree_is_formatted():
    """``ruff format --check`` over every package, the tests and the benchmarks (``make lint``)."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    r = subprocess.run(
        [ruff, "format", "--check", "cabinet", "confspec", "drivers", "ui", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert r.returncode == 0, r.stdout

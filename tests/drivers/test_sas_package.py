"""The SAS package stays pure, strictly typed and lint clean (its docstring's long poll
table: ``test_sas_poll_docs.py``)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAS = ROOT / "drivers" / "sas"
FORBIDDEN = {
    "serial",
    "termios",
    "time",
    "threading",
    "random",
    "os",
    "socket",
    "select",
    "asyncio",
    "cabinet",
    "gpiozero",
    "logging",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_sas_package_does_no_io() -> None:
    """Sans-I/O: no serial, termios, clock, threads, randomness or engine imports."""
    files = sorted(SAS.rglob("*.py"))
    assert len(files) >= 8
    for path in files:
        bad = {m for m in _imports(path) if m.split(".")[0] in FORBIDDEN}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.timeout(900)
def test_sas_package_is_strictly_typed() -> None:
    """``mypy --strict drivers/sas`` is clean."""
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "drivers/sas"], cwd=ROOT, capture_output=True, text=True, timeout=840
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.timeout(120)
def test_sas_package_lints_clean() -> None:
    """Ruff is clean on the package and its tests."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "drivers").glob("test_sas_*.py"))
    r = subprocess.run([ruff, "check", "drivers/sas", *tests], cwd=ROOT, capture_output=True, text=True, timeout=110)
    assert r.returncode == 0, r.stdout

"""The optional mypyc-compiled copy of the simulator: where it is, whether it is current.

Owns: ``COMPILED_DIR``, ``sources_hash``, ``is_current``, ``running_compiled``.
``bench/build_compiled.py`` (``make compiled``) builds the copy: the package's
``.py`` files with the rules core and the simulator compiled beside them; run
with ``PYTHONPATH=build/compiled`` (``cabinet simulate --compiled`` does that
for you) the same code runs compiled, with the same tallies to the bit.
The package itself, the cabinet and the tests stay pure Python.
Reads files only; imports nothing of the package.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The source tree's root (the directory holding ``cabinet/``)."""

COMPILED_DIR = ROOT / "build" / "compiled"
"""Where ``bench/build_compiled.py`` puts the copy by default."""

STAMP = "SOURCES.sha256"
"""The file in the copy naming the sources it was built from (``sources_hash``)."""


def sources_hash(root: Path = ROOT) -> str:
    """SHA-256 (hex) over every ``cabinet/**/*.py`` path and content under ``root``."""
    h = hashlib.sha256()
    for p in sorted((root / "cabinet").rglob("*.py")):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def is_current(out: Path | None = None) -> bool:
    """True when ``out`` (default ``COMPILED_DIR``) holds a build of the present sources."""
    stamp = (COMPILED_DIR if out is None else out) / STAMP
    return stamp.is_file() and stamp.read_text().strip() == sources_hash()


def running_compiled() -> bool:
    """True when this process runs the compiled rules core (an extension module)."""
    from cabinet.game import round as round_module

    return not str(round_module.__file__).endswith(".py")

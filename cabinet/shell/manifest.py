"""The program's own files: where it runs from and which files are its source.

Owns: ``PACKAGES``, ``install_root`` and ``program_files`` (what the installer lays
down from a checkout and what SAS long poll 0x21 signs in a development build). The
program check of an installed cabinet is ``cabinet.shell.program_check``. I/O: lists
files.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The program's packages.
PACKAGES = ("cabinet", "confspec", "drivers", "ui")


def install_root() -> Path:
    """The folder this program runs from (holds ``PACKAGES``: ``cabinet/``, ``drivers/``...)."""
    return Path(__file__).resolve().parents[2]


def program_files(root: Path) -> list[str]:
    """The covered files under ``root``: ``.py`` files of ``PACKAGES``, as sorted
    POSIX paths relative to ``root`` (``__pycache__`` left out)."""
    found = []
    for pkg in PACKAGES:
        base = root / pkg
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in filenames:
                if name.endswith(".py"):
                    found.append((Path(dirpath) / name).relative_to(root).as_posix())
    return sorted(found)

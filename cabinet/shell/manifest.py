"""Program integrity: the SHA-256 manifest of the installed program files.

Owns: ``write_manifest`` (the build/installer step, ``cabinet manifest``) and
``check_manifest`` (the engine at boot, before any device is enabled; issue
11.18). The manifest is ``cabinet/MANIFEST.sha256`` under the install root
(the folder holding ``cabinet/``, ``confspec/``, ``drivers/`` and ``ui/``): a
first line ``# program <program id>`` and then one ``<sha256 hex>  <path>`` line
per ``.py`` file of those packages (``sha256sum -c`` reads it). The
program's digest is the SHA-256 of the manifest file itself: with the
program ID it is what the maintenance menu and the snapshot show.

A checkout without a manifest runs "unverified" (development, tests); a
manifest that does not match the files (one changed, missing or added)
tilts the cabinet until the program is reinstalled. I/O: a shell module
(reads and writes files).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = "MANIFEST.sha256"
#: The packages whose ``.py`` files the manifest covers.
PACKAGES = ("cabinet", "confspec", "drivers", "ui")


@dataclass(frozen=True, slots=True)
class ProgramCheck:
    """The outcome of ``check_manifest``.

    Attributes:
        status: ``verified``, ``unverified`` (no manifest) or ``mismatch``.
        program_id: e.g. ``"blackjack-cabinet 0.1.0"`` (from the manifest; the
            package version when there is none).
        digest: SHA-256 hex of the manifest file; ``""`` when there is none.
        detail: what did not match (``"cabinet/core/machine.py changed"``...), or a
            note for ``unverified``; ``""`` when verified.
    """

    status: str
    program_id: str
    digest: str
    detail: str = ""


def install_root() -> Path:
    """The folder this program runs from (holds ``PACKAGES``: ``cabinet/``, ``drivers/``...)."""
    return Path(__file__).resolve().parents[2]


def default_program_id() -> str:
    """``"blackjack-cabinet <version>"`` from the installed package metadata."""
    try:
        from importlib.metadata import version
        return f"blackjack-cabinet {version('blackjack-cabinet')}"
    except Exception:                       # not installed as a distribution
        return "blackjack-cabinet (unknown version)"


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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(65536), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(root: Path | None = None, program_id: str | None = None) -> ProgramCheck:
    """Write ``<root>/cabinet/MANIFEST.sha256`` over the program files (atomically).

    Args:
        root: the install root (default ``install_root()``).
        program_id: the ID to record (default ``default_program_id()``).

    Returns: the ``verified`` check of what was written (ID and digest).

    Raises:
        OSError: a file cannot be read or the manifest cannot be written.
    """
    root = root or install_root()
    pid = program_id or default_program_id()
    lines = [f"# program {pid}\n"] + [f"{_sha256(root / rel)}  {rel}\n"
                                      for rel in program_files(root)]
    text = "".join(lines).encode()
    path = root / "cabinet" / MANIFEST_NAME
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return ProgramCheck("verified", pid, hashlib.sha256(text).hexdigest())


def check_manifest(root: Path | None = None) -> ProgramCheck:
    """Compare the program files under ``root`` with its manifest. Never raises:
    an unreadable or malformed manifest is a ``mismatch``.

    Returns: ``unverified`` without a manifest; ``mismatch`` naming the first
    changed, missing or added file; else ``verified``.
    """
    root = root or install_root()
    path = root / "cabinet" / MANIFEST_NAME
    if not path.exists():
        return ProgramCheck("unverified", default_program_id(), "",
                            f"unverified program: no {MANIFEST_NAME} (a development checkout)")
    try:
        text = path.read_bytes()
        lines = text.decode().splitlines()
        if not lines or not lines[0].startswith("# program "):
            raise ValueError("no '# program' line")
        pid = lines[0].removeprefix("# program ").strip()
        want: dict[str, str] = {}
        for line in lines[1:]:
            digest, sep, rel = line.partition("  ")
            if not sep or len(digest) != 64:
                raise ValueError(f"bad line {line[:60]!r}")
            want[rel] = digest
    except (OSError, ValueError) as e:
        return ProgramCheck("mismatch", "unknown", "", f"{MANIFEST_NAME} unreadable: {e}")
    digest = hashlib.sha256(text).hexdigest()
    have = program_files(root)
    for rel in have:
        if rel not in want:
            return ProgramCheck("mismatch", pid, digest, f"{rel} is not in the manifest")
    for rel, sha in want.items():
        p = root / rel
        try:
            if _sha256(p) != sha:
                return ProgramCheck("mismatch", pid, digest, f"{rel} changed")
        except OSError:
            return ProgramCheck("mismatch", pid, digest, f"{rel} is missing")
    return ProgramCheck("verified", pid, digest)

"""The program check: the installed venv against the release's signed manifest.

Owns: ``check_release`` (the engine at boot, ``cabinet doctor``, the installer
before it switches to a new release), ``boot`` (what ``systemd/cabinet-boot.py``
runs before ``cabinet engine``: the check before any other file of the venv runs)
and ``current`` (its outcome, or a development build).

A release (``cabinet.tools.release``) carries ``cabinet-release.json``, signed with
the release key (Ed25519, ``.sig`` beside it): for each target (``aarch64-cp311``...)
the SHA-256 of every file the release's wheels put in ``site-packages`` (the
program, its dependencies, their ``.pth`` and ``.so`` files). The installer puts
the manifest and its signature in the venv; the public key the cabinet trusts is
``TRUSTED_KEY``. The check passes only if the signature verifies with that key and
``site-packages`` holds exactly those files with those digests (pip's own records
in ``*.dist-info`` aside): a ``.pyc``, ``.pth`` or module added, changed or missing
fails it. The engine runs ``python -I -S -B`` (no user site, no ``.pth`` before the
check, no ``.pyc`` written), so no file of the venv runs before it is checked. A
failed check is a ``program_mismatch`` tilt; the program ID and the digest (the
SHA-256 of the signed manifest) are what the menu, the snapshot and SAS long poll
0x21 use. Run any other way (``make run``, the tests) the program is a
``development`` build: no check, and said so. I/O: reads files.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cabinet.shell.ed25519 import public_key_from_pem, verify

RELEASE_MANIFEST = "cabinet-release.json"
SIGNATURE = RELEASE_MANIFEST + ".sig"
#: The public key of the releases this cabinet accepts (installed by the first one).
TRUSTED_KEY = Path("/etc/cabinet/release.pub")
#: The installer's record of each install, update and rollback (one JSON object a
#: line: ``seq``, ``action``, ``program_id``, ``digest``, ``previous``, ``wall_s``).
HISTORY = Path("/opt/cabinet-releases/history.jsonl")
#: Put in every release venv's ``site-packages`` by the installer and in the signed
#: map by the release: no Python run from the venv (``cabinet doctor`` as root, the
#: installer's display check) writes a ``.pyc`` there, which the check would refuse.
NO_BYTECODE_PTH = ("cabinet-no-bytecode.pth", b"import sys; sys.dont_write_bytecode = True\n")
#: Files pip writes into a ``*.dist-info`` folder that are not in the wheel (metadata,
#: never imported).
PIP_RECORDS = frozenset({"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"})


@dataclass(frozen=True, slots=True)
class ProgramCheck:
    """The outcome of a program check.

    Attributes:
        status: ``verified``, ``development`` (not run from a release) or ``mismatch``.
        program_id: e.g. ``"blackjack-cabinet 0.1.0"``.
        digest: SHA-256 hex of the signed manifest; ``""`` when there is none.
        detail: what failed (``"site-packages/evil.pth: not in the release"``), or a
            note for ``development``; ``""`` when verified.
        rom_files: the files SAS long poll 0x21 signs (the signed manifest when
            verified; empty: the program's own source files).
    """

    status: str
    program_id: str
    digest: str
    detail: str = ""
    rom_files: tuple[Path, ...] = field(default=())


def default_program_id() -> str:
    """``"blackjack-cabinet <version>"`` from the installed package metadata."""
    try:
        from importlib.metadata import version

        return f"blackjack-cabinet {version('blackjack-cabinet')}"
    except Exception:  # not installed as a distribution
        return "blackjack-cabinet (unknown version)"


def development() -> ProgramCheck:
    """A run that did not start from a release (a checkout: ``make run``, the tests)."""
    return ProgramCheck(
        "development",
        default_program_id(),
        "",
        "development build: not started from a signed release, no program check",
    )


def target(machine: str | None = None, version: tuple[int, int] | None = None) -> str:
    """``"<machine>-cp<major><minor>"`` (``"aarch64-cp311"``): the key of a site map."""
    v = version or sys.version_info[:2]
    return f"{machine or platform.machine()}-cp{v[0]}{v[1]}"


def site_packages(venv: Path) -> Path:
    """``<venv>/lib/pythonX.Y/site-packages``.

    Raises:
        FileNotFoundError: not exactly one there.
    """
    found = sorted(venv.glob("lib/python3.*/site-packages"))
    if len(found) != 1:
        raise FileNotFoundError(f"{venv}: {len(found)} site-packages folders, expected one")
    return found[0]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def release_root(venv: Path) -> Path:
    """The root a release venv is installed in: ``<root>`` of a venv at
    ``<root>/opt/cabinet-releases/<release>/venv`` (``/`` on a cabinet; a scratch root
    in tests or an image being built); ``/`` for any other venv."""
    real = venv.resolve()
    if real.name == "venv" and real.parent.parent.name == "cabinet-releases" and real.parents[2].name == "opt":
        return real.parents[3]
    return Path("/")


def trusted_key_for(venv: Path) -> Path:
    """``TRUSTED_KEY`` under ``release_root(venv)``."""
    return release_root(venv) / TRUSTED_KEY.relative_to("/")


def check_release(venv: Path, key_path: Path | None = None, machine: str | None = None) -> ProgramCheck:
    """Check ``venv`` against its signed manifest with the trusted key. Never raises.

    Args:
        venv: the venv folder (holds ``RELEASE_MANIFEST``, ``SIGNATURE``, ``lib/``).
        key_path: the trusted public key (PEM); default ``trusted_key_for(venv)``.
        machine: ``platform.machine()`` of the cabinet (default: this one's).

    Returns: ``verified``, or ``mismatch`` naming the first thing that failed.
    """
    manifest_path = venv / RELEASE_MANIFEST
    key_path = key_path or trusted_key_for(venv)
    try:
        key = public_key_from_pem(key_path.read_text())
    except (OSError, ValueError, UnicodeError) as e:
        return ProgramCheck("mismatch", "unknown", "", f"no trusted release key ({key_path}: {e})")
    try:
        text = manifest_path.read_bytes()
        sig = (venv / SIGNATURE).read_bytes()
    except OSError as e:
        return ProgramCheck("mismatch", "unknown", "", f"no signed release manifest: {e.strerror}: {e.filename}")
    digest = hashlib.sha256(text).hexdigest()
    if not verify(key, text, sig):
        return ProgramCheck(
            "mismatch",
            "unknown",
            digest,
            f"{RELEASE_MANIFEST}: the signature does not verify with the trusted key {key_path}",
        )
    try:
        release = json.loads(text)
        pid = str(release["program_id"])
        site = site_packages(venv)
        tgt = target(machine, (3, int(site.parent.name.removeprefix("python3."))))
        want: dict[str, str] = release["site_packages"][tgt]
    except (ValueError, KeyError, TypeError, OSError) as e:
        return ProgramCheck(
            "mismatch", "unknown", digest, f"{RELEASE_MANIFEST}: not usable here: {type(e).__name__}: {e}"
        )
    detail = compare_site(site, want)
    if detail:
        return ProgramCheck("mismatch", pid, digest, detail)
    return ProgramCheck("verified", pid, digest, "", (manifest_path,))


def compare_site(site: Path, want: dict[str, str]) -> str:
    """``""`` if ``site`` holds exactly the files of ``want`` (relative POSIX path →
    SHA-256 hex) with those digests, besides ``PIP_RECORDS``; else the first
    difference. A symbolic link counts as an unexpected file."""
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(site):
        dirnames.sort()
        here = Path(dirpath)
        for name in sorted(filenames) + [d for d in dirnames if (here / d).is_symlink()]:
            path = here / name
            rel = path.relative_to(site).as_posix()
            if rel in want and not path.is_symlink():
                seen.add(rel)
                try:
                    if sha256_file(path) != want[rel]:
                        return f"site-packages/{rel} changed"
                except OSError as e:
                    return f"site-packages/{rel} unreadable: {e.strerror}"
            elif not (here.name.endswith(".dist-info") and name in PIP_RECORDS):
                kind = {".pth": "a .pth file", ".pyc": "a .pyc file", ".so": "a .so file"}.get(path.suffix, "a file")
                return f"site-packages/{rel}: {kind} that is not in the release"
    missing = sorted(set(want) - seen)
    return f"site-packages/{missing[0]} is missing" if missing else ""


def this_program() -> ProgramCheck:
    """The program this interpreter runs, checked now: its venv against the signed
    manifest when the venv holds one (a release install), else ``development()``
    (``cabinet --version``)."""
    venv = Path(sys.prefix)
    installed = sys.prefix != sys.base_prefix and (venv / RELEASE_MANIFEST).exists()
    return check_release(venv) if installed else development()


#: The check ``boot`` made, for the engine (``current``).
_BOOT: ProgramCheck | None = None


def current() -> ProgramCheck:
    """The check made at this process's start by ``boot``, else ``development()``."""
    return _BOOT if _BOOT is not None else development()


def boot() -> ProgramCheck:
    """Check the venv this interpreter runs from (``sys.executable``'s; under ``-S``
    nothing has read its ``pyvenv.cfg``: this sets ``sys.prefix`` to it), then put its
    ``site-packages`` on the path (its ``.pth`` files processed only if the check
    passed) and the system's (Pi OS's ``python3-lgpio``; no ``.pth``); ``current``
    returns the outcome from then on. A failed check still lets the engine start: it
    tilts on ``program_mismatch`` and shows why."""
    import site

    global _BOOT
    venv = Path(sys.executable).parent.parent
    _BOOT = check_release(venv)
    sys.prefix = sys.exec_prefix = str(venv)
    try:
        site_dir = str(site_packages(venv))
    except FileNotFoundError:
        site_dir = ""
    if _BOOT.status == "verified":
        site.addsitedir(site_dir)
    elif site_dir and site_dir not in sys.path:
        sys.path.append(site_dir)
    if _system_site_packages(venv):
        for d in site.getsitepackages([sys.base_prefix]):
            if os.path.isdir(d) and d not in sys.path:
                sys.path.append(d)
    return _BOOT


def _system_site_packages(venv: Path) -> bool:
    try:
        cfg = (venv / "pyvenv.cfg").read_text()
    except OSError:
        return False
    return any(line.replace(" ", "").lower() == "include-system-site-packages=true" for line in cfg.splitlines())

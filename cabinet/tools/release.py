"""``make release`` / ``cabinet release``: one signed file a cabinet installs offline.

Owns: the release file's layout (``build``) and its checks (``open_release``).
``dist/cabinet-<version>.tar`` holds:

- ``source/``: what the installer lays down in ``/opt/cabinet`` (units, config
  examples, docs) and the program's source, so a first install can run from it;
- ``wheels/``: the program's wheel and every dependency's, for each ``TARGETS``
  entry (Raspberry Pi OS bookworm, Python 3.11, and trixie, 3.13, on aarch64; the
  same on x86_64), plus pip's own wheel (the venv is made without pip);
- ``cabinet-release.json``: program ID, the SHA-256 of every other file of the tar,
  each target's wheels and the SHA-256 of every file they put in ``site-packages``
  (what the engine's program check compares, ``cabinet.shell.program_check``);
- ``cabinet-release.json.sig``: its Ed25519 signature by the release key.

lgpio is not in it: PyPI has no cp313 wheel; Pi OS's ``python3-lgpio`` is used (the
venv sees the system's packages). I/O: files and ``pip`` (PyPI, at build time).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cabinet.shell.ed25519 import verify
from cabinet.shell.program_check import NO_BYTECODE_PTH, RELEASE_MANIFEST, SIGNATURE

FORMAT = 1
#: Target → (pip platform tags, Python version): Pi OS bookworm (glibc 2.36, Python
#: 3.11) and trixie (glibc 2.41, Python 3.13), arm64 (the Pi) and x86_64.
TARGETS: dict[str, tuple[tuple[str, ...], str]] = {
    f"{m}-cp{v.replace('.', '')}": (
        (*(f"manylinux_2_{g}_{m}" for g in range(36, 16, -1)), f"manylinux2014_{m}", f"linux_{m}"),
        v,
    )
    for m in ("aarch64", "x86_64")
    for v in ("3.11", "3.13")
}
#: What ``source/`` holds: the program's packages and what ``/opt/cabinet`` gets.
SOURCE_DIRS = ("cabinet", "confspec", "drivers", "ui", "systemd", "docs")
SOURCE_FILES = ("pyproject.toml", "README.md", "Makefile")

#: Fetches one target's wheels: ``fetch(program_wheel, target, dest)`` fills ``dest``
#: (``target`` ``"pip"``: pip's own wheel).
Fetch = Callable[[Path, str, Path], None]
#: Builds the program's wheel from a source tree into a folder: ``wheel(tree, dest)``.
Wheel = Callable[[Path, Path], Path]


class ReleaseError(Exception):
    """A release file that is refused (unsigned, wrongly signed, altered, malformed)."""


@dataclass(frozen=True, slots=True)
class Release:
    """A release whose signature and files were checked (``open_release``).

    Attributes:
        path: the release file.
        manifest: the signed ``cabinet-release.json`` bytes; ``signature`` its signature.
        info: the manifest, parsed.
        digest: SHA-256 hex of ``manifest`` (the program digest).
    """

    path: Path
    manifest: bytes
    signature: bytes
    info: dict[str, object]
    digest: str

    @property
    def program_id(self) -> str:
        return str(self.info["program_id"])

    @property
    def version(self) -> str:
        return str(self.info["version"])


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def source_files(source: Path) -> list[str]:
    """The checkout's files for ``source/`` (POSIX, sorted): ``SOURCE_DIRS`` less
    caches and bytecode, and ``SOURCE_FILES``."""
    out = [f for f in SOURCE_FILES if (source / f).is_file()]
    for name in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(source / name):
            dirnames[:] = [d for d in dirnames if d not in {"__pycache__", ".pytest_cache"}]
            for fn in filenames:
                if not fn.endswith((".pyc", ".tmp")) and fn != "MANIFEST.sha256":
                    out.append((Path(dirpath) / fn).relative_to(source).as_posix())
    return sorted(out)


def wheel_site_files(wheel: Path) -> dict[str, str]:
    """What installing ``wheel`` puts in ``site-packages``: path → SHA-256 hex (the
    ``.data/purelib`` and ``.data/platlib`` parts included; ``RECORD``, which pip
    rewrites, and the parts installed elsewhere left out)."""
    out: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            if name.endswith("/"):
                continue
            top, _, rest = name.partition("/")
            if top.endswith(".data"):
                scheme, _, rest = rest.partition("/")
                if scheme not in ("purelib", "platlib"):
                    continue
                name = rest
            elif top.endswith(".dist-info") and rest == "RECORD":
                continue
            out[name] = _sha256(z.read(info))
    return out


def pip_fetch(program_wheel: Path, target: str, dest: Path) -> None:
    """``pip download`` from PyPI: the binary wheels of ``program_wheel``'s
    dependencies for ``target`` (no source builds).

    Raises:
        subprocess.CalledProcessError: pip failed (says why on stderr).
    """
    if target == "pip":
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--only-binary=:all:",
                "--no-deps",
                "--dest",
                str(dest),
                "pip",
            ],
            check=True,
        )
        return
    platforms, version = TARGETS[target]
    argv = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--only-binary=:all:",
        "--python-version",
        version,
        "--implementation",
        "cp",
        "--abi",
        f"cp{version.replace('.', '')}",
        "--abi",
        "abi3",
        "--abi",
        "none",
        "--find-links",
        str(program_wheel.parent),
        "--dest",
        str(dest),
    ]
    for p in platforms:
        argv += ["--platform", p]
    subprocess.run([*argv, str(program_wheel)], check=True)


def pip_wheel(tree: Path, dest: Path) -> Path:
    """``pip wheel`` of the program in ``tree`` (PyPI for setuptools); the wheel's path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest), str(tree)], check=True
    )
    return next(dest.glob("*.whl"))


def build(
    source: Path,
    key_path: Path,
    out_dir: Path,
    fetch: Fetch = pip_fetch,
    targets: tuple[str, ...] = tuple(TARGETS),
    wheel: Wheel = pip_wheel,
) -> Path:
    """Build and sign ``<out_dir>/cabinet-<version>.tar``; returns its path.

    Raises:
        OSError, ValueError: the key or the checkout; subprocess.CalledProcessError:
        pip (the wheel build or a download).
    """
    import tomllib

    from cabinet.tools.release_sign import load_private_key, sign

    key = load_private_key(key_path)
    with open(source / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    name, version = str(project["name"]), str(project["version"])
    members: dict[str, bytes] = {}
    for rel in source_files(source):
        members[f"source/{rel}"] = (source / rel).read_bytes()
    wheels_of: dict[str, list[str]] = {}
    site: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="cabinet-release-") as tmp:
        own, tree = Path(tmp) / "own", Path(tmp) / "tree"
        for rel, data in members.items():  # the wheel from exactly these files
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_bytes(data)
        program_wheel = wheel(tree / "source", own)
        pip_dir = Path(tmp) / "pip"
        pip_dir.mkdir()
        fetch(program_wheel, "pip", pip_dir)
        pip_wheel = next(pip_dir.glob("pip-*.whl"))
        members[f"wheels/{pip_wheel.name}"] = pip_wheel.read_bytes()
        for tgt in targets:
            dest = Path(tmp) / tgt
            dest.mkdir()
            fetch(program_wheel, tgt, dest)
            found = sorted(dest.glob("*.whl"))
            if program_wheel.name not in {w.name for w in found}:
                found.append(program_wheel)
            wheels_of[tgt] = [f"wheels/{w.name}" for w in sorted(found)]
            site[tgt] = {NO_BYTECODE_PTH[0]: _sha256(NO_BYTECODE_PTH[1])}
            for w in found:
                members[f"wheels/{w.name}"] = w.read_bytes()
                site[tgt].update(wheel_site_files(w))
    info = {
        "format": FORMAT,
        "name": name,
        "version": version,
        "program_id": f"{name} {version}",
        "requirement": f"{name}=={version}",
        "pip": f"wheels/{pip_wheel.name}",
        "targets": wheels_of,
        "site_packages": site,
        "files": {n: _sha256(d) for n, d in sorted(members.items())},
    }
    manifest = json.dumps(info, indent=1, sort_keys=True).encode() + b"\n"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"cabinet-{version}.tar"
    tmp_out = out.with_name(out.name + ".tmp")
    with tarfile.open(tmp_out, "w", format=tarfile.PAX_FORMAT) as tar:
        for n, data in [(RELEASE_MANIFEST, manifest), (SIGNATURE, sign(key, manifest)), *sorted(members.items())]:
            ti = tarfile.TarInfo(n)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 0
            tar.addfile(ti, io.BytesIO(data))
    os.replace(tmp_out, out)
    return out


def _members(tar: tarfile.TarFile) -> dict[str, tarfile.TarInfo]:
    out: dict[str, tarfile.TarInfo] = {}
    for m in tar.getmembers():
        parts = Path(m.name).parts
        if not m.isfile() or m.name.startswith("/") or ".." in parts or m.name in out:
            raise ReleaseError(f"{m.name!r}: not a plain file of a release")
        out[m.name] = m
    return out


def open_release(path: Path, public_key: bytes) -> Release:
    """Read the release file at ``path`` and check it: the manifest's signature with
    ``public_key`` (32 raw bytes), then every file's SHA-256 (none missing, none extra).

    Raises:
        ReleaseError: why it is refused (nothing has been written anywhere).
    """
    try:
        with tarfile.open(path, "r:") as tar:
            members = _members(tar)
            if RELEASE_MANIFEST not in members or SIGNATURE not in members:
                raise ReleaseError(f"{path}: not a signed release (no {RELEASE_MANIFEST} and {SIGNATURE})")

            def read(name: str) -> bytes:
                f = tar.extractfile(members[name])
                assert f is not None
                return f.read()

            manifest, signature = read(RELEASE_MANIFEST), read(SIGNATURE)
            if not verify(public_key, manifest, signature):
                raise ReleaseError(
                    f"{path}: the signature does not verify with the cabinet's "
                    "release key: not a release of this cabinet's vendor, or altered"
                )
            info = json.loads(manifest)
            files: dict[str, str] = info["files"]
            extra = set(members) - set(files) - {RELEASE_MANIFEST, SIGNATURE}
            if extra:
                raise ReleaseError(f"{path}: {sorted(extra)[0]} is not in the signed manifest")
            for name, sha in files.items():
                if name not in members or _sha256(read(name)) != sha:
                    raise ReleaseError(f"{path}: {name} is missing or altered")
    except (OSError, tarfile.TarError, ValueError, KeyError, TypeError) as e:
        raise ReleaseError(f"{path}: not a readable release: {e}") from None
    return Release(path, manifest, signature, info, _sha256(manifest))


def extract(release: Release, dest: Path) -> None:
    """Write the release's files (``source/``, ``wheels/``) under ``dest``, each checked
    again against the signed manifest as it is written.

    Raises:
        ReleaseError: the file changed since ``open_release``; OSError: cannot write.
    """
    files = release.info["files"]
    assert isinstance(files, dict)
    with tarfile.open(release.path, "r:") as tar:
        for name, m in _members(tar).items():
            if name not in files:
                continue
            f = tar.extractfile(m)
            assert f is not None
            data = f.read()
            if _sha256(data) != files[name]:
                raise ReleaseError(f"{release.path}: {name} changed while installing")
            out = dest / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)


def main(key: str, out: str, source: str | None, targets: tuple[str, ...] = tuple(TARGETS)) -> int:
    """``cabinet release``: exit status 0 (prints the file and its digest), 1 with why."""
    from cabinet.shell.manifest import install_root

    try:
        path = build(Path(source) if source else install_root(), Path(key), Path(out), targets=targets)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"cabinet release: {e}", file=sys.stderr)
        return 1
    with tarfile.open(path) as tar:
        f = tar.extractfile(RELEASE_MANIFEST)
        assert f is not None
        digest = _sha256(f.read())
    print(f"{path}: {path.stat().st_size // 1024} KiB, program SHA-256 {digest}")
    return 0

"""``cabinet install RELEASE`` and ``cabinet install --rollback``: a signed release,
installed with no network.

Owns: ``RELEASES`` (the kept releases) and the release install: the release file's
signature is checked with the key the cabinet trusts (``TRUSTED_KEY``, written by the
first install from ``--public-key``) before anything changes; then the steps of
``cabinet.tools.install`` run with the release's ``source/`` and, instead of a venv
from PyPI, a venv of the release's own (``RELEASES/<digest>/venv``, made with
``pip --no-index --find-links`` from its wheels, its ``site-packages`` checked
against the signed manifest) that ``/opt/cabinet/.venv`` then points at. The
journal is never touched. The release before is kept (``current``/``previous``):
``--rollback`` reinstalls it, and a step that fails puts it back and starts it.
Each install, update and rollback is a line of ``history.jsonl`` that the engine
journals at its next start (``program_installed``). I/O: files, subprocesses.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from cabinet.shell import program_check
from cabinet.shell.ed25519 import public_key_from_pem
from cabinet.shell.manifest import PACKAGES
from cabinet.shell.program_check import (
    NO_BYTECODE_PTH,
    RELEASE_MANIFEST,
    SIGNATURE,
    TRUSTED_KEY,
    check_release,
    site_packages,
    target,
)
from cabinet.tools import install
from cabinet.tools.install import PREFIX, VENV, Installer, Probe, Report
from cabinet.tools.release import Release, ReleaseError, extract, open_release

RELEASES = PurePosixPath("/opt/cabinet-releases")
HISTORY = PurePosixPath(str(program_check.HISTORY))
#: The one ``Installer`` step this module replaces the checkout's with.
Run = Callable[[Sequence[str], bool], None]


class ReleaseInstaller(Installer):
    """The ``Installer`` steps for a checked ``Release`` unpacked at ``staging``:
    the program from its wheels into a venv of its own, ``source/`` only for the
    units, config examples and docs."""

    DIRS = install.EXTRA_DIRS

    def __init__(
        self,
        root: Path,
        release: Release,
        staging: Path,
        run: Run | None,
        probe: Probe | None = None,
        machine: str | None = None,
    ) -> None:
        super().__init__(root, staging / "source", run, probe)
        self.release, self.staging = release, staging
        self.machine = machine or platform.machine()
        self.name = release.digest[:16]

    def program(self) -> None:
        super().program()
        for pkg in PACKAGES:  # a checkout install's program: the venv has it now
            old = self.at(PREFIX / pkg)
            if old.is_dir():
                shutil.rmtree(old)
                self.report.done.append(f"removed {PREFIX / pkg} (the program is in the venv)")

    def venv(self) -> None:
        """``RELEASES/<digest>/venv`` made (once) from the release's wheels, checked,
        and ``VENV`` pointed at it."""
        vdir = RELEASES / self.name / "venv"
        here = self.at(vdir)
        key = self.at(PurePosixPath(str(TRUSTED_KEY)))
        if here.is_dir() and check_release(here, key, self.machine).status == "verified":
            self.report.kept.append(f"{vdir}: matches the signed manifest")
        else:
            if here.exists():
                shutil.rmtree(here)
            self._mkdirs(here.parent)
            tgt = target(self.machine)
            targets = self.release.info["targets"]
            assert isinstance(targets, dict)
            if tgt not in targets:
                raise OSError(
                    f"the release has no wheels for this cabinet ({tgt}); it has {', '.join(sorted(targets))}"
                )
            self.command(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(here))
            # exactly the target's signed wheels: no index, no resolver, no bytecode
            self.command(
                str(here / "bin" / "python"),
                "-I",
                str(self.staging / str(self.release.info["pip"]) / "pip"),
                "install",
                "--quiet",
                "--no-index",
                "--no-deps",
                "--no-compile",
                "--no-cache-dir",
                "--ignore-installed",
                "--disable-pip-version-check",
                *(str(self.staging / w) for w in targets[tgt]),
            )
            here.mkdir(parents=True, exist_ok=True)
            if self.run_cmd is not None:
                name, data = NO_BYTECODE_PTH
                (site_packages(here) / name).write_bytes(data)
            (here / RELEASE_MANIFEST).write_bytes(self.release.manifest)
            (here / SIGNATURE).write_bytes(self.release.signature)
            if self.run_cmd is not None:
                check = check_release(here, key, self.machine)
                if check.status != "verified":
                    raise OSError(f"the new venv does not match the signed manifest: {check.detail}")
            self.report.done.append(f"{vdir}: {self.release.program_id} from its wheels, no index")
        link = self.at(VENV)
        if link.is_symlink() and os.readlink(link) == str(vdir):
            return
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)  # a checkout install's venv
        tmp = link.with_name(".venv.new")
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(str(vdir))
        os.replace(tmp, link)
        self.report.done.append(f"{VENV} -> {vdir}")

    def display(self) -> None:
        """The release venv's SDL has the video driver ``cabinet-ui.service`` sets."""
        driver = install.unit_environment(self.source / "systemd" / "cabinet-ui.service").get("SDL_VIDEODRIVER")
        if driver:
            self.command(
                str(self.at(RELEASES / self.name / "venv" / "bin" / "python")),
                "-m",
                "ui.sdl_drivers",
                "--require",
                driver,
            )

    def trust(self, key_pem: str) -> None:
        """``TRUSTED_KEY`` written at the first install (0644: the engine reads it)."""
        trusted = self.at(PurePosixPath(str(TRUSTED_KEY)))
        if not trusted.exists():
            self._mkdirs(trusted.parent)
            trusted.write_text(key_pem)
            os.chmod(trusted, 0o644)
            self.report.done.append(f"wrote {TRUSTED_KEY} (the release key this cabinet trusts)")

    def keep(self) -> str:
        """The release file kept, ``current`` and ``previous`` updated, releases
        older than those two removed; returns the action (``install``, ``update``,
        ``repair``) for the history."""
        base = self.at(RELEASES)
        self._copy(self.release.path, base / self.name / "release.tar", 0o644, quiet=True)
        current = _read(base / "current")
        if current != self.name:
            if current:
                (base / "previous").write_text(current + "\n")
            (base / "current").write_text(self.name + "\n")
        keep = {self.name, _read(base / "previous")}
        for d in sorted(base.iterdir()):
            if d.is_dir() and d.name not in keep:
                shutil.rmtree(d)
                self.report.done.append(f"removed {RELEASES / d.name} (older than the previous release)")
        return "install" if not current else "update" if current != self.name else "repair"

    def all(self, start: bool = True) -> Report:
        """Every step (``steps``); the start is ``install_release``'s, after the release
        is kept."""
        for step in self.steps():
            step()
        return self.report


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _trusted_key(root: Path, given: str | None) -> tuple[bytes, str]:
    """The key to check a release with: the cabinet's, else ``--public-key``.

    Raises:
        ReleaseError: none, or a ``--public-key`` that is not the cabinet's.
    """
    trusted = root / TRUSTED_KEY.relative_to("/")
    try:
        pem = trusted.read_text() if trusted.exists() else Path(given).read_text() if given else ""
        if not pem:
            raise ReleaseError(
                f"first install: give the vendor's release key (--public-key FILE); no {TRUSTED_KEY} yet"
            )
        if given and trusted.exists() and public_key_from_pem(Path(given).read_text()) != public_key_from_pem(pem):
            raise ReleaseError(
                f"--public-key {given} is not the key this cabinet trusts "
                f"({TRUSTED_KEY}): a release is accepted only with that one"
            )
        return public_key_from_pem(pem), pem
    except (OSError, ValueError) as e:
        raise ReleaseError(f"release key: {e}") from None


def install_release(
    root: Path,
    release_path: Path,
    public_key: str | None,
    run: Run | None,
    probe: Probe | None = None,
    start: bool = True,
    action: str = "",
    machine: str | None = None,
) -> tuple[Report, str]:
    """Check and install ``release_path``; returns the report and the action taken.
    A failing step after the check puts the previous release back and starts it.

    Raises:
        ReleaseError: refused before anything changed; OSError,
        subprocess.CalledProcessError: a step failed (the previous release is back).
    """
    key, pem = _trusted_key(root, public_key)
    release = open_release(release_path, key)
    base = root / RELEASES.relative_to("/")
    previous = _read(base / "current")
    with tempfile.TemporaryDirectory(prefix="cabinet-release-") as tmp:
        extract(release, Path(tmp))
        inst = ReleaseInstaller(root, release, Path(tmp), run, probe, machine)
        try:
            inst.trust(pem)
            inst.all()
            done = inst.keep()
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
            old = base / previous / "release.tar"
            if previous and previous != inst.name and old.is_file():
                print(
                    f"cabinet install: a step failed: putting back the previous release ({previous})", file=sys.stderr
                )
                install_release(root, old, None, run, probe, start, "rollback", machine)
            elif start:
                inst.start()  # whatever is there runs (a tilt says why)
            raise
    action = action or done
    if action != "repair" or inst.report.done:
        record(root, action, release, previous)
    if start:
        inst.start()
        inst.summary()
    return inst.report, action


def record(root: Path, action: str, release: Release, previous: str) -> None:
    """One line of ``HISTORY``: what was installed over what, when (Unix seconds)."""
    path = root / HISTORY.relative_to("/")
    seq = len(path.read_text().splitlines()) + 1 if path.exists() else 1
    line = {
        "seq": seq,
        "action": action,
        "program_id": release.program_id,
        "digest": release.digest,
        "previous": previous,
        "wall_s": round(time.time(), 3),
    }
    with open(path, "a") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def main(root: str | None, release: str | None, public_key: str | None, rollback: bool, start: bool = True) -> int:
    """``cabinet install RELEASE`` / ``--rollback``: exit status 0, 1 (a step failed,
    the previous release back), 2 (refused: nothing changed)."""
    if root is None and os.geteuid() != 0:
        print("cabinet install: run as root (sudo), or try it with --root DIR", file=sys.stderr)
        return 1
    from cabinet.tools.install_status import commands, print_report

    run, probe = commands(root)
    base = Path(root or "/").resolve()
    if rollback:
        prev = _read(base / RELEASES.relative_to("/") / "previous")
        if not prev:
            print("cabinet install --rollback: no previous release kept", file=sys.stderr)
            return 2
        release = str(base / RELEASES.relative_to("/") / prev / "release.tar")
    assert release is not None
    try:
        report, action = install_release(
            base, Path(release), public_key, run, probe, start, "rollback" if rollback else ""
        )
    except ReleaseError as e:
        print(f"cabinet install: refused: {e}\ncabinet install: nothing was changed", file=sys.stderr)
        return 2
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        print(f"cabinet install: {e}", file=sys.stderr)
        return 1
    print(f"{action}: {release}")
    return print_report(report, root)

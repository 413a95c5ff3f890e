"""A release, built here, installed there without a network.

``cabinet.tools.release.build`` (``make release``) with stand-in wheels (no PyPI in
the tests) and ``cabinet.tools.release_install`` into a scratch root, with a command
runner that makes the venv and unpacks the wheels as pip would (no root, no
systemd): the signature is checked before anything changes, an install twice gives
the same tree, an update keeps the journal and the previous release, a rollback
brings it back, a failing step puts it back and starts it, and each is in the
history the engine journals."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cabinet.shell.ed25519 import public_key_from_pem, verify
from cabinet.shell.program_check import check_release, target
from cabinet.tools import release_install
from cabinet.tools.release import TARGETS, ReleaseError, build, open_release
from cabinet.tools.release_install import install_release
from cabinet.tools.release_sign import generate_key, public_pem

ROOT = Path(__file__).resolve().parents[1]
HERE = target()


def _wheel(dest: Path, name: str, tag: str, files: dict[str, bytes]) -> Path:
    path = dest / f"{name}-1.0-{tag}.whl"
    with zipfile.ZipFile(path, "w") as z:
        for n, data in files.items():
            z.writestr(n, data)
        z.writestr(f"{name}-1.0.dist-info/METADATA", f"Name: {name}\nVersion: 1.0\n")
        z.writestr(f"{name}-1.0.dist-info/RECORD", "")
    return path


def _program_wheel(tree: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    return _wheel(
        dest, "blackjack_cabinet", "py3-none-any", {"cabinet/__init__.py": (tree / "cabinet/__init__.py").read_bytes()}
    )


def _fetch(flavour: str):
    def fetch(program_wheel: Path, tgt: str, dest: Path) -> None:
        if tgt == "pip":
            _wheel(dest, "pip", "py3-none-any", {"pip/__init__.py": b""})
            return
        _wheel(
            dest,
            "dep",
            tgt,
            {
                "dep/__init__.py": f"FLAVOUR = {flavour!r}\n".encode(),
                "dep.pth": b"import dep\n",
                "dep-1.0.data/platlib/_dep.so": tgt.encode(),
                "dep-1.0.data/scripts/dep-tool": b"#!python\n",
            },
        )

    return fetch


class FakeRun:
    """Runs nothing: records each command; makes a venv's folders for ``-m venv`` and
    unpacks wheels into its ``site-packages`` for ``pip install`` (as pip would);
    raises ``CalledProcessError`` for a command containing ``fail_on``."""

    def __init__(self, fail_on: str = "") -> None:
        self.argv: list[list[str]] = []
        self.fail_on = fail_on

    def __call__(self, argv, check):
        self.argv.append(list(argv))
        if self.fail_on and self.fail_on in " ".join(argv):
            raise subprocess.CalledProcessError(1, argv)
        if argv[1:3] == ["-m", "venv"]:
            venv = Path(argv[-1])
            (venv / f"lib/python3.{sys.version_info[1]}/site-packages").mkdir(parents=True)
            (venv / "pyvenv.cfg").write_text("include-system-site-packages = true\n")
        elif "install" in argv and argv[2].endswith("/pip"):
            site = next(Path(argv[0]).parents[1].glob("lib/python3.*/site-packages"))
            for whl in (a for a in argv if a.endswith(".whl")):
                with zipfile.ZipFile(whl) as z:
                    for member in z.namelist():
                        top, _, rest = member.partition("/")
                        out = member
                        if top.endswith(".data"):
                            scheme, _, out = rest.partition("/")
                            if scheme != "platlib":
                                continue
                        (site / out).parent.mkdir(parents=True, exist_ok=True)
                        (site / out).write_bytes(z.read(member))
                    info = next(x for x in z.namelist() if x.endswith(".dist-info/METADATA"))
                    (site / info).with_name("INSTALLER").write_text("pip\n")


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Two releases (A, B: different dependency bytes) signed with one key, B also
    signed with another key, and the key files."""
    d = tmp_path_factory.mktemp("release")
    generate_key(d / "key.pem", d / "key.pub")
    generate_key(d / "other.pem", d / "other.pub")
    out = {}
    for name, key, flavour in (("a", "key", "a"), ("b", "key", "b"), ("foreign", "other", "b")):
        path = build(ROOT, d / f"{key}.pem", d / name, fetch=_fetch(flavour), wheel=_program_wheel)
        out[name] = path
    return d, out


def test_the_verifier_agrees_with_cryptography():
    key = Ed25519PrivateKey.generate()
    pub = public_key_from_pem(public_pem(key))
    for n in (0, 1, 63, 64, 1000):
        msg = os.urandom(n)
        sig = key.sign(msg)
        assert verify(pub, msg, sig)
        assert not verify(pub, msg + b"\0", sig)
        for i in (0, 31, 32, 63):
            bad = bytearray(sig)
            bad[i] ^= 0x01
            assert not verify(pub, msg, bytes(bad))
    assert not verify(pub[:31], b"", key.sign(b""))


def test_a_release_holds_each_target_signed(releases):
    d, rel = releases
    r = open_release(rel["a"], public_key_from_pem((d / "key.pub").read_text()))
    assert r.program_id == "blackjack-cabinet 0.1.0" and rel["a"].name == "cabinet-0.1.0.tar"
    assert (
        sorted(r.info["targets"])
        == sorted(TARGETS)
        == ["aarch64-cp311", "aarch64-cp313", "x86_64-cp311", "x86_64-cp313"]
    )
    site = r.info["site_packages"]["aarch64-cp313"]
    assert site["dep.pth"] == hashlib.sha256(b"import dep\n").hexdigest()
    assert site["_dep.so"] == hashlib.sha256(b"aarch64-cp313").hexdigest()
    assert "dep-tool" not in site and "dep-1.0.dist-info/RECORD" not in site
    assert "cabinet/__init__.py" in site
    names = tarfile.open(rel["a"]).getnames()
    assert "source/systemd/cabinet-boot.py" in names and "source/cabinet/shell/main.py" in names
    assert not any(n.endswith(".pyc") or "__pycache__" in n for n in names)


def _tree(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = (
            os.readlink(p) if p.is_symlink() else "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        )
    return out


def _tampered(src: Path, dest: Path, name: str, data: bytes | None) -> Path:
    """A copy of the release file with member ``name`` replaced (``None``: left out)."""
    with tarfile.open(src) as tin, tarfile.open(dest, "w") as tout:
        for m in tin.getmembers():
            if m.name != name:
                tout.addfile(m, tin.extractfile(m))
            elif data is not None:
                m.size = len(data)
                tout.addfile(m, io.BytesIO(data))
    return dest


def test_an_unsigned_foreign_or_altered_release_is_refused_and_nothing_changes(releases, tmp_path, capsys):
    d, rel = releases
    root = tmp_path / "root"
    root.mkdir()
    key = str(d / "key.pub")
    cases = {
        "unsigned": _tampered(rel["a"], tmp_path / "u.tar", "cabinet-release.json.sig", None),
        "foreign": rel["foreign"],
        "altered": _tampered(rel["a"], tmp_path / "x.tar", "source/systemd/cabinet-boot.py", b"evil\n"),
    }
    for why, path in cases.items():
        assert release_install.main(str(root), str(path), key, False, start=False) == 2, why
        err = capsys.readouterr().err
        assert "refused" in err and "nothing was changed" in err, why
        assert list(root.iterdir()) == [], why
    assert "no cabinet-release.json and cabinet-release.json.sig" in str(
        pytest.raises(
            ReleaseError,
            open_release,
            _tampered(rel["a"], tmp_path / "n.tar", "cabinet-release.json", None),
            public_key_from_pem((d / "key.pub").read_text()),
        ).value
    )
    assert release_install.main(str(root), str(rel["a"]), None, False, start=False) == 2
    assert "first install: give the vendor's release key" in capsys.readouterr().err


def test_install_twice_gives_the_same_tree_and_a_summary(releases, tmp_path, capsys):
    d, rel = releases
    root = tmp_path / "root"
    report, action = install_release(root, rel["a"], str(d / "key.pub"), FakeRun(), start=False)
    assert action == "install"
    name = open_release(rel["a"], public_key_from_pem((d / "key.pub").read_text())).digest[:16]
    venv = root / "opt/cabinet-releases" / name / "venv"
    assert os.readlink(root / "opt/cabinet/.venv") == f"/opt/cabinet-releases/{name}/venv"
    assert check_release(venv).status == "verified", check_release(venv).detail
    assert (root / "etc/cabinet/release.pub").read_text() == (d / "key.pub").read_text()
    first = _tree(root)
    run = FakeRun()
    report, action = install_release(root, rel["a"], None, run, start=False)
    assert _tree(root) == first and report.done == [] and action == "repair"
    assert f"/opt/cabinet-releases/{name}/venv: matches the signed manifest" in report.kept
    assert not any("pip" in " ".join(a) for a in run.argv)  # the venv is not made again
    assert len((root / "opt/cabinet-releases/history.jsonl").read_text().splitlines()) == 1


def test_update_keeps_the_journal_and_the_previous_release_then_rollback(releases, tmp_path):
    d, rel = releases
    root = tmp_path / "root"
    install_release(root, rel["a"], str(d / "key.pub"), FakeRun(), start=False)
    state = root / "var/lib/cabinet"
    (state / "journal.db").write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    (state / "journal.db.key").write_bytes(os.urandom(32))
    kept = _tree(state)
    releases_dir = root / "opt/cabinet-releases"
    a = (releases_dir / "current").read_text().strip()
    _report, action = install_release(root, rel["b"], None, FakeRun(), start=False)
    b = (releases_dir / "current").read_text().strip()
    assert action == "update" and b != a and (releases_dir / "previous").read_text().strip() == a
    assert _tree(state) == kept
    assert (
        "FLAVOUR = 'b'"
        in next((releases_dir / b / "venv").glob("lib/python3.*/site-packages/dep/__init__.py")).read_text()
    )
    assert release_install.main(str(root), None, None, True, start=False) == 0
    assert (releases_dir / "current").read_text().strip() == a
    assert (releases_dir / "previous").read_text().strip() == b
    assert os.readlink(root / "opt/cabinet/.venv") == f"/opt/cabinet-releases/{a}/venv"
    assert _tree(state) == kept
    history = (releases_dir / "history.jsonl").read_text().splitlines()
    assert [json.loads(h)["action"] for h in history] == ["install", "update", "rollback"]


def test_a_failing_step_puts_the_previous_release_back_and_starts_it(releases, tmp_path):
    d, rel = releases
    root = tmp_path / "root"
    install_release(root, rel["a"], str(d / "key.pub"), FakeRun(), start=False)
    releases_dir = root / "opt/cabinet-releases"
    a = (releases_dir / "current").read_text().strip()
    b = open_release(rel["b"], public_key_from_pem((d / "key.pub").read_text())).digest[:16]
    run = FakeRun(fail_on=f"{b}/venv/bin/python -m ui.sdl_drivers")
    with pytest.raises(subprocess.CalledProcessError):
        install_release(root, rel["b"], None, run, start=True)
    assert (releases_dir / "current").read_text().strip() == a
    assert os.readlink(root / "opt/cabinet/.venv") == f"/opt/cabinet-releases/{a}/venv"
    assert check_release(releases_dir / a / "venv").status == "verified"
    said = [" ".join(x) for x in run.argv]
    assert said[-1] == "systemctl restart --no-block cabinet.target"  # never left stopped
    assert said.index("systemctl stop cabinet.target cabinet-ui.service cabinet-engine.service") < len(said) - 1
    history = (releases_dir / "history.jsonl").read_text().splitlines()
    assert [json.loads(h)["action"] for h in history] == ["install", "rollback"]


def test_release_key_writes_a_private_key_only_its_owner_reads_and_never_overwrites(tmp_path, capsys):
    from cabinet.tools.cli import main

    private, public = tmp_path / "release-key.pem", tmp_path / "release.pub"
    assert main(["release-key", str(private), str(public)]) == 0
    assert private.stat().st_mode & 0o777 == 0o600
    first = private.read_bytes()
    assert len(public_key_from_pem(public.read_text())) == 32
    assert main(["release-key", str(private), str(public)]) == 1
    assert "never overwritten" in capsys.readouterr().out and private.read_bytes() == first


def test_release_key_makes_its_folder_on_a_fresh_machine(tmp_path):
    """The Makefile's default key file, ``~/.config/cabinet/release-key.pem``, on a
    machine without that folder: made, owner-only."""
    from cabinet.tools.cli import main

    private = tmp_path / "home/.config/cabinet/release-key.pem"
    public = tmp_path / "out/release.pub"
    assert main(["release", "key", str(private), str(public)]) == 0
    assert private.parent.stat().st_mode & 0o777 == 0o700 and private.stat().st_mode & 0o777 == 0o600
    assert len(public_key_from_pem(public.read_text())) == 32

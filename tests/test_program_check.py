"""The program check of an installed cabinet holds against anyone without the release key.

An installed release, as ``cabinet install RELEASE`` leaves it (a venv at
``<root>/opt/cabinet-releases/<release>/venv`` holding the program and the
dependencies the engine loads, the signed ``cabinet-release.json`` in it, the trusted
key at ``<root>/etc/cabinet/release.pub``), started the way ``cabinet-engine.service``
starts it (``python -I -S -B systemd/cabinet-boot.py engine``): verified, it runs with
the manifest's digest and program ID; the manifest deleted, regenerated without the
key, one program line edited, a ``.pyc`` put beside an untouched ``.py`` or a ``.pth``
added: it tilts on ``program_mismatch`` at boot, and the ``.pth`` never ran."""

from __future__ import annotations

import hashlib
import json
import os
import py_compile
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cabinet.protocol.ipc import PROTOCOL
from cabinet.shell.program_check import (
    PIP_RECORDS,
    RELEASE_MANIFEST,
    SIGNATURE,
    check_release,
    target,
    trusted_key_for,
)
from cabinet.tools.release_sign import public_pem
from tests.procs import START_DEADLINE_S, Child

ROOT = Path(__file__).resolve().parents[1]
#: What the engine imports with ``--devices none`` besides the program and the stdlib.
DEPENDENCIES = ("msgspec", "platformdirs", "typing_extensions", "gpiozero", "colorzero", "serial")
CHEAT = (
    'st.meters.add("bills_in_minor", amount)',
    'st.meters.add("bills_in_minor", amount); st.credits_minor += amount',
)


def _site_map(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file() and not (p.parent.name.endswith(".dist-info") and p.name in PIP_RECORDS)
    }


def _sign(venv: Path, key: Ed25519PrivateKey, site_map: dict[str, str]) -> bytes:
    info = {"format": 1, "program_id": "blackjack-cabinet 9.9.9", "site_packages": {target(): site_map}}
    text = json.dumps(info, indent=1, sort_keys=True).encode()
    (venv / RELEASE_MANIFEST).write_bytes(text)
    (venv / SIGNATURE).write_bytes(key.sign(text))
    return text


@pytest.fixture
def installed(tmp_path):
    """(root, venv, key, site-packages) of a signed release installed under ``tmp_path``."""
    root = tmp_path / "root"
    venv = root / "opt/cabinet-releases/0123456789abcdef/venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3.*/site-packages"))
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for pkg in ("cabinet", "confspec", "drivers", "ui"):
        shutil.copytree(ROOT / pkg, site / pkg, ignore=ignore)
    here = Path(next(p for p in sys.path if p.endswith("site-packages") and Path(p, "msgspec").is_dir()))
    for dep in DEPENDENCIES:
        for src in [here / dep, here / f"{dep}.py", *here.glob(f"{dep}-*.dist-info")]:
            if src.is_dir():
                shutil.copytree(src, site / src.name, ignore=ignore)
            elif src.is_file():
                shutil.copy2(src, site / src.name)
    key = Ed25519PrivateKey.generate()
    _sign(venv, key, _site_map(site))
    (root / "etc/cabinet").mkdir(parents=True)
    (root / "etc/cabinet/release.pub").write_text(public_pem(key))
    return root, venv, key, site


def _boot(venv: Path, tmp_path: Path) -> tuple[dict, str]:
    """Start the engine as the unit does, take its first snapshot, stop it."""
    state, run = tmp_path / "state", tmp_path / "run"
    state.mkdir(mode=0o700, exist_ok=True)
    run.mkdir(mode=0o700, exist_ok=True)
    sock = run / "ui.sock"
    proc = Child(
        [
            str(venv / "bin/python"),
            "-I",
            "-S",
            "-B",
            str(ROOT / "systemd/cabinet-boot.py"),
            "engine",
            "--devices",
            "none",
            "--journal",
            str(state / "j.db"),
            "--socket",
            str(sock),
        ],
        cwd=tmp_path,
        env={**os.environ, "CABINET_LOG": "INFO"},
        name="engine",
        merge_stderr=True,
    )
    try:
        proc.wait_for("engine ready", START_DEADLINE_S)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(sock))
        s.sendall(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui"}).encode() + b"\n")
        f = s.makefile("r")
        while (msg := json.loads(f.readline()))["type"] != "snapshot":
            pass
        s.close()
    finally:
        proc.stop()
    return msg, proc.text()


@pytest.mark.timeout(120)
def test_an_intact_release_boots_verified_with_the_signed_digest(installed, tmp_path):
    root, venv, _key, _site = installed
    assert trusted_key_for(venv) == root / "etc/cabinet/release.pub"
    snap, log = _boot(venv, tmp_path)
    digest = hashlib.sha256((venv / RELEASE_MANIFEST).read_bytes()).hexdigest()
    assert snap["mode"] == "attract", log
    assert (snap["program_id"], snap["program_digest"]) == ("blackjack-cabinet 9.9.9", digest)
    assert f"verified, SHA-256 {digest}" in log


@pytest.mark.timeout(120)
def test_the_manifest_deleted_tilts(installed, tmp_path):
    _root, venv, _key, _site = installed
    (venv / RELEASE_MANIFEST).unlink()
    snap, log = _boot(venv, tmp_path)
    assert snap["mode"] == "tilt", log
    assert "no signed release manifest" in log


@pytest.mark.timeout(120)
def test_a_line_edited_tilts_naming_the_file(installed, tmp_path):
    _root, venv, _key, site = installed
    money_in = site / "cabinet/core/money_in.py"
    cheat = money_in.read_text().replace(*CHEAT, 1)
    assert cheat != money_in.read_text()
    money_in.write_text(cheat)
    snap, log = _boot(venv, tmp_path)
    assert snap["mode"] == "tilt", log
    assert "site-packages/cabinet/core/money_in.py changed" in log


@pytest.mark.timeout(120)
def test_a_manifest_regenerated_without_the_key_tilts(installed, tmp_path):
    """The edited file's new digest in a manifest signed by another key (or the old
    signature kept): the signature check refuses it."""
    _root, venv, _key, site = installed
    money_in = site / "cabinet/core/money_in.py"
    money_in.write_text(money_in.read_text().replace(*CHEAT, 1))
    _sign(venv, Ed25519PrivateKey.generate(), _site_map(site))
    snap, log = _boot(venv, tmp_path)
    assert snap["mode"] == "tilt", log
    assert "the signature does not verify with the trusted key" in log


@pytest.mark.timeout(120)
def test_a_pyc_beside_an_untouched_py_tilts(installed, tmp_path):
    """A cheating ``.pyc`` stamped with the real ``.py``'s size and time (Python would
    load it): refused as a file not in the release, before it could run."""
    _root, venv, _key, site = installed
    money_in = site / "cabinet/core/money_in.py"
    honest, st = money_in.read_text(), money_in.stat()
    money_in.write_text(honest.replace(*CHEAT, 1))
    pyc = Path(py_compile.compile(str(money_in), doraise=True))
    money_in.write_text(honest)
    os.utime(money_in, ns=(st.st_atime_ns, st.st_mtime_ns))
    snap, log = _boot(venv, tmp_path)
    assert snap["mode"] == "tilt", log
    assert f"site-packages/cabinet/core/__pycache__/{pyc.name}: a .pyc file that is not in the release" in log


@pytest.mark.timeout(120)
def test_a_pth_file_tilts_and_never_runs(installed, tmp_path):
    _root, venv, _key, site = installed
    ran = tmp_path / "pth-ran"
    (site / "zz-evil.pth").write_text(f"import pathlib; pathlib.Path({str(ran)!r}).write_text('ran')\n")
    snap, log = _boot(venv, tmp_path)
    assert snap["mode"] == "tilt", log
    assert "site-packages/zz-evil.pth: a .pth file that is not in the release" in log
    assert not ran.exists()


def test_the_check_names_a_missing_file_another_target_and_a_foreign_key(installed):
    root, venv, key, site = installed
    assert check_release(venv).status == "verified"
    (site / "ui/sound.py").unlink()
    assert check_release(venv).detail == "site-packages/ui/sound.py is missing"
    other = check_release(venv, machine="riscv64")
    assert other.status == "mismatch" and "KeyError" in other.detail
    (root / "etc/cabinet/release.pub").write_text(public_pem(Ed25519PrivateKey.generate()))
    assert "does not verify with the trusted key" in check_release(venv).detail
    (root / "etc/cabinet/release.pub").unlink()
    assert check_release(venv).detail.startswith("no trusted release key")


@pytest.mark.timeout(120)
def test_each_install_update_and_rollback_is_journaled_once(installed, tmp_path):
    """The installer's history beside the release: journaled at the next start as
    ``program_installed``, each line once however often the engine starts; the
    maintenance menu's Event log names it."""
    import sqlite3

    from cabinet.core.maintenance.event_log import event_line

    root, venv, _key, _site = installed
    history = root / "opt/cabinet-releases/history.jsonl"
    lines = [
        {
            "seq": 1,
            "action": "install",
            "program_id": "blackjack-cabinet 9.9.8",
            "digest": "aa" * 32,
            "previous": "",
            "wall_s": 1.7e9,
        },
        {
            "seq": 2,
            "action": "update",
            "program_id": "blackjack-cabinet 9.9.9",
            "digest": "bb" * 32,
            "previous": "aaaaaaaaaaaaaaaa",
            "wall_s": 1.7e9 + 60,
        },
    ]
    history.write_text("".join(json.dumps(h) + "\n" for h in lines))
    _boot(venv, tmp_path)
    with history.open("a") as f:
        f.write(json.dumps({**lines[0], "seq": 3, "action": "rollback"}) + "\n")
    _boot(venv, tmp_path)
    db = sqlite3.connect(tmp_path / "state/j.db")
    rows = [
        json.loads(d) for (d,) in db.execute("SELECT data FROM events WHERE kind = 'program_installed' ORDER BY id")
    ]
    assert [(r["seq"], r["action"], r["program_id"]) for r in rows] == [
        (1, "install", "blackjack-cabinet 9.9.8"),
        (2, "update", "blackjack-cabinet 9.9.9"),
        (3, "rollback", "blackjack-cabinet 9.9.8"),
    ]
    line = event_line({"wall_s": 1.7e9, "kind": "program_installed", "station": 0, "amount_minor": 0, "data": rows[1]})
    assert line.endswith("program installed · cabinet · update blackjack-cabinet 9.9.9, SHA-256 bbbbbbbbbbbbbbbb")


def test_sas_rom_signature_runs_over_the_signed_manifest_of_a_verified_release(monkeypatch, tmp_path):
    """Long poll 0x21 signs what the menu's digest names: the signed manifest of a
    verified release; a development build: its own source files, in manifest order."""
    from cabinet.shell import main, program_check
    from cabinet.shell.host_view import SasStation
    from cabinet.shell.manifest import install_root, program_files

    monkeypatch.setattr(sys, "setswitchinterval", lambda s: None)  # the engine's, not the tests'
    stations = {1: SasStation(port="socket://127.0.0.1:1", address=1)}
    dev = main._host_links(stations)
    assert dev is not None and dev.program_files == [install_root() / p for p in program_files(install_root())]
    signed = tmp_path / RELEASE_MANIFEST
    monkeypatch.setattr(
        program_check,
        "_BOOT",
        program_check.ProgramCheck("verified", "blackjack-cabinet 9.9.9", "ab" * 32, "", (signed,)),
    )
    links = main._host_links(stations)
    assert links is not None and links.program_files == [signed]

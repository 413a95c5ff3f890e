"""``cabinet install`` into a scratch root.

The installer lays down the program, the config, the journal folder, the units (and
enables them as ``systemctl enable`` would), the udev rules and ``consoleblank=0``;
run twice it gives the same tree; run again from a newer checkout
(the update path) it keeps the journal, the operator's config and edited udev
rules and removes files the new version dropped. (A checkout install is a development
build; a cabinet installs a signed release: tests/test_release.py.)
With ``--root`` it runs no command (user, venv, systemctl): they are listed as
skipped, so none of this needs root."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cabinet.tools import install
from cabinet.tools.install import Installer

ROOT = Path(__file__).resolve().parents[1]
CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 rootwait consoleblank=600\n"


def tree(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every path under ``root``: (kind, permission bits, content SHA-256 or link target)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            st = p.lstat()
            if p.is_symlink():
                out[rel] = ("link", 0, os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir", st.st_mode & 0o7777, "")
            else:
                out[rel] = ("file", st.st_mode & 0o7777, hashlib.sha256(p.read_bytes()).hexdigest())
    return out


def _pi_root(path: Path) -> Path:
    (path / "boot/firmware").mkdir(parents=True)
    (path / "boot/firmware/cmdline.txt").write_text(CMDLINE)
    getty = path / "etc/systemd/system/getty.target.wants/getty@tty1.service"
    getty.parent.mkdir(parents=True)
    getty.symlink_to("/lib/systemd/system/getty@.service")
    (path / "run/systemd/system").mkdir(parents=True)  # booted with systemd as init
    return path


def _install(root: Path, source: Path = ROOT) -> tuple[int, str]:
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "install", "--root", str(root), "--source", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return r.returncode, r.stdout + r.stderr


@pytest.mark.timeout(240)
def test_install_twice_gives_the_same_tree(tmp_path):
    """Safe to run twice: the second run changes nothing and says so."""
    root = _pi_root(tmp_path / "root")
    rc, out = _install(root)
    assert rc == 0, out
    first = tree(root)
    rc, out2 = _install(root)
    assert rc == 0, out2
    assert tree(root) == first
    assert "kept /opt/cabinet:" in out2 and "all up to date" in out2
    assert "wrote" not in out2 and "enabled" not in out2 and "removed" not in out2


@pytest.mark.timeout(120)
def test_install_lays_down_units_config_journal_folder_and_cmdline(tmp_path):
    """What the Pi needs, where the units look for it."""
    root = _pi_root(tmp_path / "root")
    rc, out = _install(root)
    assert rc == 0, out
    units = root / "etc/systemd/system"
    for unit in install.UNITS:
        assert (units / unit).read_bytes() == (ROOT / "systemd" / unit).read_bytes()
    links = {p.relative_to(units).as_posix(): os.readlink(p) for p in units.rglob("*") if p.is_symlink()}
    assert links == {
        "multi-user.target.wants/cabinet.target": "/etc/systemd/system/cabinet.target",
        "cabinet.target.wants/cabinet-engine.service": "/etc/systemd/system/cabinet-engine.service",
        "cabinet.target.wants/cabinet-ui.service": "/etc/systemd/system/cabinet-ui.service",
    }  # and the login prompt on tty1 is gone
    assert (root / "etc/udev/rules.d/99-cabinet.rules").read_bytes() == (ROOT / "systemd/99-cabinet.rules").read_bytes()
    config = root / "etc/cabinet/cabinet.toml"
    assert config.read_bytes() == (ROOT / "systemd/cabinet.toml.example").read_bytes()
    assert config.stat().st_mode & 0o777 == 0o640
    assert (root / "var/lib/cabinet").stat().st_mode & 0o777 == 0o700
    line = (root / "boot/firmware/cmdline.txt").read_text()  # no kernel console on the UART (BCM 14/15)
    assert line == (
        "console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 rootwait consoleblank=0 vt.global_cursor_default=0\n"
    )
    assert "removed console=serial0,115200 (reboot)" in out
    prefix = root / "opt/cabinet"
    assert (prefix / "cabinet/shell/main.py").read_bytes() == (ROOT / "cabinet/shell/main.py").read_bytes()
    assert (prefix / "pyproject.toml").is_file() and not (prefix / "tests").exists()
    assert not (prefix / "cabinet/MANIFEST.sha256").exists()  # a checkout install is unsigned
    for cmd in (
        "useradd --system",
        "usermod --groups video,render,input,audio,tty cabinet-ui",
        "usermod --groups gpio,dialout,i2c,cabinet-ui cabinet",
        "chown -R cabinet:cabinet",
        "-m venv",
        "pip install --quiet --upgrade --editable",
        "systemctl daemon-reload",
        "udevadm control --reload",
        "systemctl restart --no-block cabinet.target",
    ):
        assert any(cmd in line and line.startswith("skipped (--root):") for line in out.splitlines()), cmd


@pytest.mark.timeout(240)
def test_update_from_a_newer_checkout_keeps_the_journal_config_and_edited_rules(tmp_path):
    """The update path: the journal (and its WAL) byte for byte, the operator's
    config and edited udev rules kept (the new rules beside them as ``.new``); a module
    the new version dropped is removed, and a new one added."""
    root = _pi_root(tmp_path / "root")
    assert _install(root)[0] == 0
    journal = root / "var/lib/cabinet"
    (journal / "journal.db").write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    (journal / "journal.db-wal").write_bytes(os.urandom(512))
    kept = {p.name: p.read_bytes() for p in journal.iterdir()}
    config = root / "etc/cabinet/cabinet.toml"
    config.write_text('[devices]\nbill_acceptor = "none"\n')
    rules = root / "etc/udev/rules.d/99-cabinet.rules"
    rules.write_text(rules.read_text().replace("BILL*", "JCM00417"))
    edited_rules = rules.read_bytes()
    newer = tmp_path / "newer"
    shutil.copytree(
        ROOT,
        newer,
        ignore=shutil.ignore_patterns(".venv", ".git", "tests", "bench", "out", "__pycache__", "*.egg-info"),
    )
    (newer / "cabinet/tools/rng_dump.py").unlink()
    (newer / "cabinet/tools/new_tool.py").write_text('"""A module of the newer version."""\n')
    (newer / "systemd/99-cabinet.rules").write_text("# newer rules\n")
    rc, out = _install(root, newer)
    assert rc == 0, out
    assert {p.name: p.read_bytes() for p in journal.iterdir()} == kept
    assert config.read_text() == '[devices]\nbill_acceptor = "none"\n'
    assert rules.read_bytes() == edited_rules
    assert rules.with_name("99-cabinet.rules.new").read_text() == "# newer rules\n"
    prefix = root / "opt/cabinet"
    assert not (prefix / "cabinet/tools/rng_dump.py").exists()
    assert "removed /opt/cabinet/cabinet/tools/rng_dump.py" in out
    assert (prefix / "cabinet/tools/new_tool.py").is_file()


def test_real_runs_stop_first_make_the_venv_once_and_restart_last(tmp_path):
    """Without --root the commands run in order: the engine stops (it
    commits) before its files change, the venv is made only when missing, and
    cabinet.target restarts at the end; a stop that fails (first install) is fine."""
    ran: list[tuple[str, bool]] = []
    inst = Installer(_pi_root(tmp_path / "root"), ROOT, lambda argv, check: ran.append((" ".join(argv), check)))
    inst.all()
    cmds = [c for c, _ in ran]
    assert cmds[0].startswith("systemctl stop cabinet.target") and ran[0][1] is False
    assert cmds[-1] == "systemctl restart --no-block cabinet.target"
    assert sum("-m venv" in c for c in cmds) == 1
    unchecked = {c for c, check in ran if not check}  # each may fail on a first install
    assert unchecked == {
        cmds[0],
        "systemctl reset-failed cabinet-engine.service cabinet-ui.service",
        f"{tmp_path}/root/opt/cabinet/.venv/bin/python -m pip uninstall --quiet --yes pygame",
    }
    py = tmp_path / "root/opt/cabinet/.venv/bin/python"
    py.parent.mkdir(parents=True)
    py.write_text("")
    ran.clear()
    Installer(tmp_path / "root", ROOT, lambda argv, check: ran.append((" ".join(argv), check))).all(start=False)
    assert not any("-m venv" in c for c, _ in ran)
    assert not any("restart" in c for c, _ in ran)


def test_without_a_pi_boot_partition_console_blanking_is_left_and_said(tmp_path):
    """No cmdline.txt (a PC, a container): nothing written there, said why."""
    inst = Installer(tmp_path, ROOT, None)
    inst.cmdline()
    assert not (tmp_path / "boot").exists()
    assert inst.report.skipped == ["no cmdline.txt (not a Raspberry Pi boot partition): console blanking left as it is"]
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot/cmdline.txt").write_text("console=tty1 quiet\n")  # before Bookworm
    inst.cmdline()
    assert (
        tmp_path / "boot/cmdline.txt"
    ).read_text() == "console=tty1 quiet consoleblank=0 vt.global_cursor_default=0\n"


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("systemctl") is None, reason="systemctl not found: apt-get install systemd")
def test_enable_links_are_the_ones_systemctl_enable_makes(tmp_path):
    """The installer's own enable links = ``systemctl --root enable``'s."""
    ours = _pi_root(tmp_path / "ours")
    assert _install(ours)[0] == 0
    theirs = tmp_path / "theirs"
    (theirs / "etc/systemd/system").mkdir(parents=True)
    for unit in install.UNITS:
        shutil.copy(ROOT / "systemd" / unit, theirs / "etc/systemd/system" / unit)
    enabled = [u for u in install.UNITS if "@." not in u]  # a template is enabled per instance
    r = subprocess.run(
        ["systemctl", f"--root={theirs}", "enable", *enabled], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr

    def links(root: Path) -> dict[str, str]:
        base = root / "etc/systemd/system"
        return {
            p.relative_to(base).as_posix(): os.readlink(p)
            for p in base.rglob("*")
            if p.is_symlink() and "cabinet" in p.name
        }

    assert links(ours) == links(theirs) != {}


@pytest.mark.timeout(120)
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None,
    reason="needs root and runuser to drop to an unprivileged user",
)
def test_install_into_a_scratch_root_needs_no_root_privileges():
    """``cabinet install --root`` as user nobody, with the system's python3
    straight from the checkout (``python3 -m cabinet install``: the bootstrap needs no
    venv and nothing outside the standard library)."""
    root = Path(tempfile.mkdtemp(prefix="cabinet-install-"))  # pytest's tmp is root-only
    os.chown(root, 65534, 65534)
    # a world-readable copy of the checkout: the clone itself may sit in a folder only
    # root can enter (``mktemp -d``), which a fresh Pi's clone does not
    checkout = Path(tempfile.mkdtemp(prefix="cabinet-checkout-")) / "src"
    shutil.copytree(
        ROOT,
        checkout,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "__pycache__", "*.egg-info", ".mypy_cache", "out"),
    )
    checkout.parent.chmod(0o755)
    checkout.chmod(0o755)  # copytree copied the clone folder's mode
    # the system's python3 from the checkout, as on a fresh Pi (no venv yet)
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no /usr/bin/python3")
    try:
        r = subprocess.run(
            [
                str(shutil.which("runuser")),
                "-u",
                "nobody",
                "--",
                python,
                "-m",
                "cabinet",
                "install",
                "--root",
                str(root),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd="/",
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"},
        )
        assert r.returncode == 0, r.stdout + r.stderr
        assert (root / "opt/cabinet/cabinet/shell/main.py").read_bytes() == (
            checkout / "cabinet/shell/main.py"
        ).read_bytes()
        assert "skipped (--root): useradd" in r.stdout
    finally:
        shutil.rmtree(root)
        shutil.rmtree(checkout.parent)


def test_the_install_guide_says_what_the_installer_does():
    """The install guide's "Installing on a Raspberry Pi" names the
    installer's own paths, the update, the journal backup (with its key) and each unit."""
    from cabinet.shell.paths import key_file

    guide = (ROOT / "docs" / "guide" / "install.md").read_text()
    section = guide.split("\n## Installing on a Raspberry Pi\n", 1)[1].split("\n## ", 1)[0]
    for text in (
        "python3 -m cabinet install",
        "make install-pi",
        "--root DIR",
        "**Update.**",
        "**Backup of the journal.**",
        ".backup",
        "consoleblank=0",
        "getty@tty1",
        str(install.PREFIX),
        str(install.VENV),
        str(install.CONFIG),
        str(install.STATE_DIR),
        str(key_file(Path(str(install.STATE_DIR)) / "journal.db")),
        *install.UNITS,
    ):
        assert text in section, text
    assert "WatchdogSec=10" in section and "WatchdogSec=10" in (ROOT / "systemd/cabinet-engine.service").read_text()


def test_a_tight_umask_still_gives_a_readable_program(tmp_path):
    """Under root's umask 077 the folders it makes are 0755 and the files
    0644 (else the ``cabinet`` user could not read its own program)."""
    old = os.umask(0o077)
    try:
        Installer(tmp_path, ROOT, None).all(start=False)
    finally:
        os.umask(old)
    for rel in ("opt", "opt/cabinet", "opt/cabinet/cabinet/shell", "etc/systemd/system/cabinet.target.wants"):
        assert (tmp_path / rel).stat().st_mode & 0o777 == 0o755, rel
    assert (tmp_path / "opt/cabinet/cabinet/shell/main.py").stat().st_mode & 0o777 == 0o644


def test_a_fresh_install_names_only_files_it_installed_and_the_engine_reads_them(tmp_path):
    """The installed ``cabinet.toml`` names a wiring file: the installer puts the
    default pin map there (only if there is none), so the engine reads what it names
    and gets ``drivers.pins``' defaults; ``cabinet doctor`` on that config passes it."""
    from cabinet.shell.config import load_config
    from drivers.wiring import Wiring, load_wiring

    root = _pi_root(tmp_path / "root")
    rc, out = _install(root)
    assert rc == 0, out
    config = load_config(root / "etc/cabinet/cabinet.toml")
    named = [config.wiring_for(n) for n in (1, 2, 3) if config.wiring_for(n)]
    assert named == [str(install.WIRING)]
    wiring = root / install.WIRING.relative_to("/")
    assert load_wiring(wiring) == Wiring()
    assert wiring.stat().st_mode & 0o777 == 0o640
    wiring.write_text("[key_switch]\n")  # the operator's own map is kept
    rc, out = _install(root)
    assert rc == 0 and wiring.read_text() == "[key_switch]\n", out
    assert f"kept {install.WIRING}" in out


def _probe(states: dict[str, list[str]], log: list[str]):
    """A fake ``systemctl show`` / ``journalctl``: each unit's states in turn (the last repeats)."""

    def probe(argv):
        log.append(" ".join(argv))
        if argv[0] == "journalctl":
            return 0, "config: /etc/cabinet/wiring.toml: cannot read: No such file or directory\n"
        unit = argv[-1]
        seq = states[unit]
        state = seq.pop(0) if len(seq) > 1 else seq[0]
        active, sub, result, status = state.split()
        return 0, f"ActiveState={active}\nSubState={sub}\nResult={result}\nExecMainStatus={status}\n"

    return probe


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.t += s


def test_the_start_never_blocks_and_ends_with_what_runs(tmp_path):
    """The restart is queued (``--no-block``: a unit that cannot start never holds up
    the installer), the installer waits at most ``START_WAIT_S`` for the units to settle
    and then says which run and which do not, with the failed unit's last log lines."""
    ran: list[str] = []
    log: list[str] = []
    clock = _Clock()
    probe = _probe(
        {
            "cabinet-engine.service": [
                "activating auto-restart success 0",
                "activating start success 0",
                "failed failed start-limit-hit 2",
            ],
            "cabinet-ui.service": ["inactive dead success 0"],
        },
        log,
    )
    inst = Installer(
        _pi_root(tmp_path / "root"),
        ROOT,
        lambda argv, check: ran.append(" ".join(argv)),
        probe=probe,
        clock=clock.now,
        sleep=clock.sleep,
    )
    report = inst.all()
    assert ran[-1] == "systemctl restart --no-block cabinet.target"
    assert "systemctl reset-failed cabinet-engine.service cabinet-ui.service" in ran
    assert 0 < sum(clock.sleeps) <= install.START_WAIT_S
    assert report.running == []
    assert report.not_running == [
        "cabinet-engine.service: failed (start-limit-hit, exit status 2); its log ends:\n"
        "    config: /etc/cabinet/wiring.toml: cannot read: No such file or directory",
        "cabinet-ui.service: inactive (dead): it starts with the engine",
    ]


def test_a_unit_still_starting_after_the_wait_is_said_not_waited_for(tmp_path):
    clock = _Clock()
    probe = _probe(
        {"cabinet-engine.service": ["activating start success 0"], "cabinet-ui.service": ["active running success 0"]},
        [],
    )
    inst = Installer(
        _pi_root(tmp_path / "root"), ROOT, lambda argv, check: None, probe=probe, clock=clock.now, sleep=clock.sleep
    )
    report = inst.all()
    assert install.START_WAIT_S <= sum(clock.sleeps) <= install.START_WAIT_S + 2
    assert report.running == ["cabinet-ui.service: active (running)"]
    assert report.not_running == [
        f"cabinet-engine.service: still activating (start) after "
        f"{install.START_WAIT_S} s: journalctl -u cabinet-engine.service -f"
    ]


def test_on_a_pi_lgpio_comes_from_the_os_and_the_venv_sees_it(tmp_path):
    """PyPI's lgpio has no wheel for Raspberry Pi OS trixie's Python 3.13 (building it
    needs swig, a compiler and liblgpio): the installer installs Pi OS's
    ``python3-lgpio`` with apt and makes the venv with the system's packages visible;
    pip installs the program without the ``[pi]`` extra. An existing venv made without
    them is switched to see them; off a Pi (no boot partition) apt is not run, and said."""
    ran: list[str] = []
    root = _pi_root(tmp_path / "root")
    Installer(root, ROOT, lambda argv, check: ran.append(" ".join(argv))).all(start=False)
    apt = ran.index("apt-get install --yes --no-install-recommends python3-lgpio")
    venv = next(i for i, c in enumerate(ran) if " -m venv " in c)
    assert apt < venv and ran[venv].endswith(f"-m venv --system-site-packages {root}/opt/cabinet/.venv")
    pip = [c for c in ran if "-m pip install" in c]
    assert pip == [
        f"{root}/opt/cabinet/.venv/bin/python -m pip install --quiet --upgrade --editable {root}/opt/cabinet"
    ]
    cfg = root / "opt/cabinet/.venv/pyvenv.cfg"  # a venv from an older install
    cfg.parent.mkdir(parents=True, exist_ok=True)
    (cfg.parent / "bin").mkdir(exist_ok=True)
    (cfg.parent / "bin/python").write_text("")
    cfg.write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.13.5\n")
    ran.clear()
    inst = Installer(root, ROOT, lambda argv, check: ran.append(" ".join(argv)))
    inst.all(start=False)
    assert not any(" -m venv " in c for c in ran)
    assert cfg.read_text() == "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.13.5\n"
    assert "/opt/cabinet/.venv: sees the system's packages (python3-lgpio)" in inst.report.done
    ran.clear()
    pc = Installer(tmp_path / "pc", ROOT, lambda argv, check: ran.append(" ".join(argv)))
    pc.all(start=False)
    assert not any(c.startswith("apt-get") for c in ran)
    assert (
        "not a Raspberry Pi (no cmdline.txt): python3-lgpio not installed, "
        "--devices hardware will not find the GPIO" in pc.report.skipped
    )


def test_the_display_driver_of_the_ui_unit_is_checked_in_the_installed_sdl(tmp_path):
    """After pip, the installer asks the venv's SDL (``ui.sdl_drivers``) for the video
    driver ``cabinet-ui.service`` sets (``SDL_VIDEODRIVER``); a driver it lacks is a
    failed install step, said before the cabinet restarts on a black screen."""
    ran: list[tuple[str, bool]] = []
    root = _pi_root(tmp_path / "root")
    Installer(root, ROOT, lambda argv, check: ran.append((" ".join(argv), check))).all()
    cmds = [c for c, _ in ran]
    check = f"{root}/opt/cabinet/.venv/bin/python -m ui.sdl_drivers --require kmsdrm"
    assert (check, True) in ran
    assert cmds.index(check) > max(i for i, c in enumerate(cmds) if "pip install" in c)
    assert cmds.index(check) < cmds.index("systemctl restart --no-block cabinet.target")


def test_on_a_pi_with_python3_lgpio_installed_apt_is_not_needed(tmp_path):
    """Offline: Pi OS already has ``python3-lgpio`` (dpkg says installed): no apt-get,
    which would fail without a network, and said."""
    ran: list[str] = []
    root = _pi_root(tmp_path / "root")
    status = root / "var/lib/dpkg/status"
    status.parent.mkdir(parents=True)
    status.write_text(
        "Package: python3-lgpio\nStatus: install ok installed\nVersion: 0.2.2-1\n\n"
        "Package: python3-serial\nStatus: deinstall ok config-files\n"
    )
    inst = Installer(root, ROOT, lambda argv, check: ran.append(" ".join(argv)))
    inst.packages()
    assert ran == [] and inst.report.kept == ["python3-lgpio (installed; apt not needed offline)"]
    status.write_text("Package: python3-lgpio\nStatus: deinstall ok config-files\n")
    inst.packages()
    assert ran == ["apt-get install --yes --no-install-recommends python3-lgpio"]


def test_in_a_chroot_without_systemd_the_install_completes_and_systemd_reads_it_at_boot(tmp_path):
    """An image being built (a chroot, or a root under qemu-user: systemd is not the
    init system, no ``/run/systemd/system``, sd_booted(3)): ``systemctl daemon-reload``
    and ``udevadm control --reload`` fail there ("System has not been booted with
    systemd"), so they and the start are left to the boot, and said; the units are
    installed and enabled all the same."""
    ran: list[str] = []

    def run(argv, check):
        ran.append(" ".join(argv))
        if check and argv[0] in ("systemctl", "udevadm"):
            raise subprocess.CalledProcessError(1, argv)

    root = _pi_root(tmp_path / "root")
    shutil.rmtree(root / "run/systemd")
    report = Installer(root, ROOT, run).all()
    assert not [c for c in ran if c.startswith(("systemctl daemon-reload", "udevadm", "systemctl restart"))]
    assert install.NO_SYSTEMD in report.skipped
    wants = root / "etc/systemd/system/cabinet.target.wants/cabinet-engine.service"
    assert os.readlink(wants) == "/etc/systemd/system/cabinet-engine.service"

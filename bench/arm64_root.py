"""The cabinet proven in an arm64 Debian root (bookworm, trixie) under qemu-user-static.

Usage (as root, on an x86_64 Debian with ``debootstrap`` and ``qemu-user-static``)::

    nice -n 19 python3 bench/arm64_root.py bookworm    # then: trixie
    python3 bench/arm64_root.py trixie --release cabinet-0.1.0.release   # install a release

Per suite, each step timed and bounded, its output in ``bench/results/arm64_SUITE.log``:

1. **root**: ``debootstrap --arch=arm64 --foreign --variant=minbase`` (Debian's packages:
   ``INCLUDE``), then its second stage run on arm64 binaries in a ``chroot`` through a
   ``binfmt_misc`` entry for ``qemu-aarch64-static`` (flag ``F``: the interpreter is
   opened at registration, so it works inside the root; the entry is removed at the end).
   Built once into ``CACHE/SUITE-base`` (outside the repo), copied afresh for each run.
   ``proot -q qemu-aarch64-static`` was tried first and cannot run a second stage:
   proot 5.1 does not translate ``faccessat2`` (glibc's ``test -x``), so every
   ``[ -x FILE ]`` in a maintainer script is false.
2. **wheelhouse**: ``pip download --only-binary=:all:`` of the project's dependencies for
   linux/aarch64 and the suite's CPython, outside the root (``CACHE/wheels-cpXY``).
3. **the root made a Pi**: ``/boot/firmware/cmdline.txt`` (what the installer takes for
   a Raspberry Pi: its apt step and the kernel command line run) and Pi OS's
   ``python3-lgpio`` (not in Debian; Pi OS's archive is not reachable here): a
   stand-in package of that name, so apt has it installed and the Pi path runs offline.
4. **install**, with no network (``unshare --net``), twice (the second run must change
   nothing but the manifest): ``python3 -m cabinet install --no-start`` from the
   committed tree (``git archive HEAD``) with pip pointed at the wheelhouse
   (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``); or, with ``--release FILE``, ``cabinet install
   FILE``. ``--no-start``: systemd is not PID 1 in a chroot.
5. **checks** (no network): the venv's SDL video drivers (``ui.sdl_drivers``; the unit's
   ``SDL_VIDEODRIVER`` must be there), ``cabinet doctor``, the engine started by the
   command and environment of ``cabinet-engine.service`` (as its user, in its working
   directory; ``--devices sim`` instead of ``hardware``: no devices are attached), the UI
   by those of ``cabinet-ui.service`` with SDL's ``offscreen`` driver until it saves a
   frame (``--screenshot-dir``), and ``systemd-analyze verify`` on the installed units.

Exit status 0 when every step passed. I/O: everything (root only).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("ARM64_ROOTS", "/work/arm64-roots"))
MIRROR = "http://deb.debian.org/debian"
PYTHON = {"bookworm": "3.11", "trixie": "3.13"}
#: Debian packages in the root besides minbase: the Python Pi OS has, the venv, and
#: systemd and udev (the installer calls systemctl and udevadm; the units are verified).
INCLUDE = ("python3", "python3-venv", "systemd", "udev")
#: glibc 2.36 (bookworm), 2.41 (trixie): manylinux tags up to 2.34 fit both.
PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_17_aarch64", "manylinux_2_28_aarch64", "manylinux_2_34_aarch64")
#: Build backend of ``pip install --editable`` (pyproject's build-system), offline too.
BUILD = ("setuptools>=68", "wheel")
BINFMT = Path("/proc/sys/fs/binfmt_misc")
BINFMT_NAME = "qemu-aarch64-bench"
#: ELF64 little-endian, e_machine 0xb7 (AArch64): the magic and mask of Debian's
#: qemu-user-static binfmt entry.
BINFMT_LINE = (
    r":{name}:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    r"\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff"
    r"\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F"
)
#: The environment in the root: nothing of the host's (its pip settings) leaks in.
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SRC_IN_ROOT = "/root/cabinet-src"
WHEELS_IN_ROOT = "/root/wheelhouse"
SHOTS_IN_ROOT = "/tmp/ui-shots"


#: pip's line for each of the host's extra index folders that has no such project.
NOISE = "is ignored: it is neither a file nor a directory"


class Log:
    """Writes to stdout and the log file; ``failed`` collects the steps that failed."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = path.open("w")
        self.failed: list[str] = []
        self.t0 = time.monotonic()

    def __call__(self, text: str) -> None:
        print(text, flush=True)
        self.f.write(text + "\n")
        self.f.flush()

    def step(
        self,
        name: str,
        argv: list[str],
        timeout_s: float,
        ok: tuple[int, ...] = (0,),
        env: dict[str, str] | None = None,
        tail: int = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` bounded by ``timeout_s``, log its time, status and last ``tail`` lines."""
        self(f"\n== {name}\n$ {shlex.join(argv)}")
        t = time.monotonic()
        try:
            r = subprocess.run(
                argv, capture_output=True, text=True, timeout=timeout_s, env={**os.environ, **(env or {})}
            )
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            self("\n".join(out.splitlines()[-tail:]))
            self(f"-- {name}: TIMEOUT after {timeout_s:.0f} s")
            self.failed.append(name)
            return subprocess.CompletedProcess(argv, -1, out, "")
        lines = [ln for ln in (r.stdout + r.stderr).splitlines() if NOISE not in ln]
        if len(lines) > tail:
            self(f"[... {len(lines) - tail} lines ...]")
        self("\n".join(lines[-tail:]))
        status = "ok" if r.returncode in ok else "FAILED"
        self(f"-- {name}: {status} (exit {r.returncode}) in {time.monotonic() - t:.1f} s")
        if r.returncode not in ok:
            self.failed.append(name)
        return r


class Root:
    """An arm64 root at ``path`` with /proc, /sys, /dev mounted; commands run in it
    through ``chroot`` (and the binfmt entry), optionally with no network."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.mounts: list[Path] = []

    def mount(self) -> None:
        for d, argv in (
            ("proc", ["mount", "-t", "proc", "proc"]),
            ("sys", ["mount", "--rbind", "/sys"]),
            ("dev", ["mount", "--rbind", "/dev"]),
        ):
            target = self.path / d
            if target.is_symlink():
                target.unlink()
            target.mkdir(exist_ok=True)
            subprocess.run([*argv, str(target)], check=True)
            self.mounts.append(target)

    def umount(self) -> None:
        for target in reversed(self.mounts):
            subprocess.run(["umount", "-R", "-l", str(target)], check=False)
        self.mounts.clear()

    def cmd(self, script: str, offline: bool = True) -> list[str]:
        """``sh -c script`` inside the root (``unshare --net``: no network but loopback)."""
        argv = [
            "env",
            "-i",
            f"PATH={PATH}",
            "HOME=/root",
            "LANG=C.UTF-8",
            "chroot",
            str(self.path),
            "/bin/sh",
            "-c",
            script,
        ]
        return (["unshare", "--net"] + argv) if offline else argv


def remove(path: Path) -> None:
    """``rmtree(path)`` once nothing is mounted under it (a bound /dev would go with it).

    Raises:
        RuntimeError: a mount under ``path`` would not come off.
    """
    if not path.exists():
        return
    real = str(path.resolve())
    for _ in range(2):
        mounted = [
            ln.split()[1]
            for ln in Path("/proc/mounts").read_text().splitlines()
            if ln.split()[1] == real or ln.split()[1].startswith(real + "/")
        ]
        if not mounted:
            shutil.rmtree(path)
            return
        for m in sorted(mounted, key=len, reverse=True):
            subprocess.run(["umount", "-R", "-l", m], capture_output=True)
    raise RuntimeError(f"{path}: still mounted under it, not removed")


def binfmt_register(log: Log) -> bool:
    """The binfmt entry for arm64 ELF (registered here if absent); True if this call made it."""
    if not (BINFMT / "register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], check=False)
    if not (BINFMT / "register").exists():
        log("binfmt_misc: not available (mount failed): arm64 binaries cannot run here")
        return False
    if (BINFMT / BINFMT_NAME).exists():
        return False
    (BINFMT / "register").write_text(BINFMT_LINE.format(name=BINFMT_NAME))
    log(f"binfmt_misc: {BINFMT_NAME} -> /usr/bin/qemu-aarch64-static (flag F) registered")
    return True


def binfmt_unregister() -> None:
    entry = BINFMT / BINFMT_NAME
    if entry.exists():
        entry.write_text("-1")


def build_base(log: Log, suite: str, base: Path) -> bool:
    """Debian ``suite`` arm64 at ``base`` (kept once complete: ``base/.complete``)."""
    if (base / ".complete").is_file():
        log(f"root: cached {base} ({(base / '.complete').read_text().strip()})")
        return True
    tmp = base.with_name(base.name + ".tmp")
    t = time.monotonic()
    if (tmp / "debootstrap" / "debootstrap").is_file() and not os.path.ismount(tmp / "proc"):
        log(f"root: {tmp} holds a first stage: resumed at the second")
    else:
        remove(tmp)
        r = log.step(
            "root: debootstrap --foreign (download and unpack, on the host)",
            [
                "debootstrap",
                "--arch=arm64",
                "--foreign",
                "--variant=minbase",
                "--include=" + ",".join(INCLUDE),
                suite,
                str(tmp),
                MIRROR,
            ],
            1200,
            tail=5,
        )
        if r.returncode:
            return False
    root = Root(tmp)
    root.mount()
    try:
        r = log.step(
            "root: debootstrap --second-stage (arm64 under qemu-user)",
            root.cmd("/debootstrap/debootstrap --second-stage", offline=False),
            5400,
            tail=10,
        )
    finally:
        root.umount()
    if r.returncode:
        return False
    (tmp / ".complete").write_text(
        f"built in {time.monotonic() - t:.0f} s on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
    )
    tmp.rename(base)
    return True


def mirror_ip() -> str:
    """The Debian mirror's address as the host resolves it (the root is shown unable to reach it)."""
    import socket

    return socket.gethostbyname(MIRROR.split("/")[2])


def requirements() -> list[str]:
    """The project's dependencies (pyproject), less the Pi-only extra (lgpio: apt)."""
    with open(REPO / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def wheelhouse(log: Log, py: str) -> Path:
    """Wheels for linux/aarch64 CPython ``py`` (binary only), downloaded on the host."""
    tag = "cp" + py.replace(".", "")
    dest = CACHE / f"wheels-{tag}"
    dest.mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        py,
        "--abi",
        tag,
        "--abi",
        "abi3",
        "--abi",
        "none",
        *(a for p in PLATFORMS for a in ("--platform", p)),
        "--dest",
        str(dest),
        *requirements(),
        *BUILD,
    ]
    log.step(f"wheelhouse: linux/aarch64 {tag} (host, network)", argv, 600)
    wheels = sorted(p.name for p in dest.glob("*.whl"))
    size = sum(p.stat().st_size for p in dest.glob("*.whl"))
    log(f"wheelhouse: {len(wheels)} wheels, {size / 1e6:.1f} MB:\n  " + "\n  ".join(wheels))
    return dest


def stand_in_lgpio(log: Log, root: Path) -> None:
    """A ``python3-lgpio`` stand-in package installed in the root (dpkg, offline): apt
    then finds Pi OS's package installed. It holds no module: lgpio is not exercised."""
    pkg = root / "root" / "python3-lgpio-stand-in"
    (pkg / "DEBIAN").mkdir(parents=True, exist_ok=True)
    (pkg / "DEBIAN" / "control").write_text(
        "Package: python3-lgpio\nVersion: 0~stand-in\nArchitecture: all\n"
        "Maintainer: bench <bench@localhost>\nDescription: stand-in for Raspberry Pi OS's "
        "python3-lgpio\n (not in Debian; the Pi OS archive is not reachable from the bench)\n"
    )
    subprocess.run(
        ["dpkg-deb", "--build", str(pkg), str(root / "root" / "python3-lgpio.deb")], check=True, capture_output=True
    )


def prepare(log: Log, root: Root, wheels: Path) -> None:
    """The checkout's committed tree and the wheelhouse copied in; the root made a Pi."""
    src = root.path / SRC_IN_ROOT.lstrip("/")
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "HEAD"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    head = subprocess.run(
        ["git", "-C", str(REPO), "log", "--oneline", "-1"], check=True, capture_output=True, text=True
    ).stdout.strip()
    log(f"source: git archive HEAD ({head}) -> {SRC_IN_ROOT}")
    shutil.copytree(wheels, root.path / WHEELS_IN_ROOT.lstrip("/"))
    boot = root.path / "boot" / "firmware"
    boot.mkdir(parents=True, exist_ok=True)
    (boot / "cmdline.txt").write_text(
        "console=serial0,115200 console=tty1 root=PARTUUID=0-02 rootfstype=ext4 fsck.repair=yes rootwait\n"
    )
    log("pi: /boot/firmware/cmdline.txt written (Raspberry Pi OS's, as first booted)")
    stand_in_lgpio(log, root.path)
    log.step("pi: python3-lgpio stand-in (dpkg -i, offline)", root.cmd("dpkg -i /root/python3-lgpio.deb"), 300, tail=5)


def install(log: Log, root: Root, release: str | None, public_key: str | None, run: int) -> None:
    """The installer, offline: from the source tree with pip on the wheelhouse, or a release."""
    if release:
        key = f" --public-key /root/{Path(public_key).name}" if public_key else ""
        # as README says for a first install: the release's own source/ runs it
        script = (
            f"rm -rf /root/release && mkdir /root/release && cd /root/release && "
            f"tar -xf /root/{Path(release).name} source && cd source && "
            f"python3 -m cabinet install --no-start{key} /root/{Path(release).name}"
        )
    else:
        script = (
            f"cd {SRC_IN_ROOT} && PIP_NO_INDEX=1 PIP_FIND_LINKS={WHEELS_IN_ROOT} "
            f"PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m cabinet install --no-start"
        )
    log.step(f"install #{run} (no network)", root.cmd(script), 2400, tail=80)


def unit(root: Path, name: str) -> tuple[dict[str, str], str, str, str]:
    """A unit's ``Environment``, ``ExecStart``, ``User`` and ``WorkingDirectory``."""
    env: dict[str, str] = {}
    exec_start = user = workdir = ""
    for line in (root / "etc/systemd/system" / name).read_text().splitlines():
        key, _, value = line.strip().partition("=")
        if key == "Environment":
            for word in shlex.split(value):
                k, _, v = word.partition("=")
                env[k] = v
        elif key == "ExecStart":
            exec_start = value.lstrip("-")
        elif key == "User":
            user = value
        elif key == "WorkingDirectory":
            workdir = value
    return env, exec_start, user, workdir


def as_unit(
    root: Path, name: str, env_over: dict[str, str], argv_edit: tuple[str, str] = ("", ""), extra: str = ""
) -> str:
    """The shell line that runs unit ``name``'s ExecStart as its user, in its directory, with
    its environment (``env_over`` on top; ``argv_edit``: one replacement in the command)."""
    env, exec_start, user, workdir = unit(root, name)
    env.update(env_over)
    command = exec_start.replace(*argv_edit) if argv_edit[0] else exec_start
    assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return (f"cd {workdir} && exec runuser -u {user} -- env {assigns} {command} {extra}").strip()


def checks(log: Log, root: Root) -> None:
    """SDL drivers, doctor, engine + UI frame, systemd-analyze verify (all offline)."""
    r = root.path
    py = "/opt/cabinet/.venv/bin/python"
    log.step(
        "venv: pygame and SDL",
        root.cmd(
            f"cd /opt/cabinet && {py} -c 'import sys, pygame; print(sys.version.split()[0], "
            f'pygame.__file__, pygame.version.ver, "SDL", pygame.get_sdl_version())\''
        ),
        300,
    )
    driver = unit(r, "cabinet-ui.service")[0].get("SDL_VIDEODRIVER", "kmsdrm")
    log.step(
        "venv: SDL video drivers (python -m ui.sdl_drivers)",
        root.cmd(f"cd /opt/cabinet && {py} -m ui.sdl_drivers"),
        300,
    )
    log.step(
        f"venv: SDL has {driver} (python -m ui.sdl_drivers --require {driver})",
        root.cmd(f"cd /opt/cabinet && {py} -m ui.sdl_drivers --require {driver}"),
        300,
    )
    engine_and_ui(log, root, ui=True)
    doctor(log, root)
    units = " ".join(
        f"/etc/systemd/system/{u}"
        for u in ("cabinet-engine.service", "cabinet-engine-stopped.service", "cabinet-ui.service", "cabinet.target")
    )
    log.step(
        "systemd-analyze verify (installed units)",
        root.cmd(f"systemctl --version | head -1; systemd-analyze verify {units}"),
        600,
    )


def doctor(log: Log, root: Root) -> None:
    """``cabinet doctor`` by the engine unit's command, user and environment."""
    log.step(
        "cabinet doctor --devices none (the engine unit's user and environment; after the engine: its journal)",
        root.cmd(
            as_unit(root.path, "cabinet-engine.service", {}, ("engine --devices hardware", "doctor --devices none"))
        ),
        900,
        tail=60,
    )


def engine_and_ui(log: Log, root: Root, ui: bool) -> None:
    """The engine by its unit's command (``--devices sim``) until its UI socket is up,
    with ``ui``: the UI by its unit's until it saves a frame; both stopped."""
    r = root.path
    # the engine's runtime directories (systemd's RuntimeDirectory=), as the unit makes them
    for d in ("run/cabinet", "run/cabinet/lgpio"):
        (r / d).mkdir(parents=True, exist_ok=True)
        os.chmod(r / d, 0o750)
    log.step(
        "runtime directories (RuntimeDirectory=)", root.cmd("chown cabinet:cabinet /run/cabinet /run/cabinet/lgpio"), 60
    )
    engine_line = as_unit(r, "cabinet-engine.service", {}, ("--devices hardware", "--devices sim"))
    log(f"\n== engine (cabinet-engine.service's ExecStart, --devices sim)\n$ {engine_line}")
    engine_log = r / "tmp" / "engine.log"
    sock = r / "run/cabinet/ui.sock"
    sock.unlink(missing_ok=True)  # a socket left by a stopped engine is not this one's
    t = time.monotonic()
    engine = subprocess.Popen(
        root.cmd(engine_line), stdout=engine_log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )
    while not sock.exists() and engine.poll() is None and time.monotonic() - t < 600:
        time.sleep(1)
    if sock.exists():
        log(f"-- engine: ui socket up in {time.monotonic() - t:.1f} s")
    else:
        log(f"-- engine: FAILED, no ui socket (exit {engine.poll()}) after {time.monotonic() - t:.0f} s")
        log.failed.append("engine")
    try:
        if sock.exists() and ui:
            shots = r / SHOTS_IN_ROOT.lstrip("/")
            shots.mkdir(parents=True, exist_ok=True)
            os.chmod(shots, 0o777)
            ui_line = as_unit(
                r,
                "cabinet-ui.service",
                {"SDL_VIDEODRIVER": "offscreen", "SDL_AUDIODRIVER": "dummy"},
                extra=f"--screenshot-dir {SHOTS_IN_ROOT}",
            )
            log(f"\n== ui (cabinet-ui.service's ExecStart, SDL offscreen) until a frame is saved\n$ {ui_line}")
            ui_log = r / "tmp" / "ui.log"
            t = time.monotonic()
            ui = subprocess.Popen(
                root.cmd(ui_line), stdout=ui_log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
            )

            def frames() -> list[Path]:  # not the UI's temporary ".NAME.tmp.png"
                return sorted(p for p in shots.glob("*.png") if not p.name.startswith("."))

            while not frames() and ui.poll() is None and time.monotonic() - t < 600:
                time.sleep(1)
            pngs = frames()
            alive = ui.poll() is None
            if pngs:
                time.sleep(2)
                out = CACHE / f"{r.name}-frame.png"
                shutil.copy(pngs[0], out)
                head = pngs[0].read_bytes()[16:24]
                w, h = int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")
                log(
                    f"-- ui: frame {pngs[0].name} ({w}x{h}, {pngs[0].stat().st_size} bytes) "
                    f"saved in {time.monotonic() - t:.1f} s; copied to {out}"
                )
            else:
                log(f"-- ui: FAILED, no frame (exit {ui.poll()}) after {time.monotonic() - t:.0f} s")
                log.failed.append("ui")
            stop(ui)
            log(f"-- ui: {'stopped by SIGTERM' if alive else 'had exited'}, exit {ui.returncode}")
            log("ui log (last lines):\n" + "\n".join(ui_log.read_text(errors="replace").splitlines()[-15:]))
    finally:
        stop(engine)
        log(f"-- engine: stopped by SIGTERM, exit {engine.returncode}")
        log("engine log (last lines):\n" + "\n".join(engine_log.read_text(errors="replace").splitlines()[-15:]))


#: Run in the root by its system Python, as root, the journal opened read-only: the
#: number of events, the SHA-256 of the first N of them (every column, in id order; N
#: the argument, all without one), the key file's SHA-256 and the program_installed events.
JOURNAL_PRINT = """
import hashlib, json, sqlite3, sys
db = sqlite3.connect("file:/var/lib/cabinet/journal.db?mode=ro", uri=True)
rows = db.execute("SELECT id, seq, wall_s, kind, station, amount_minor, data FROM events ORDER BY id").fetchall()
n = int(sys.argv[1]) if len(sys.argv) > 1 else len(rows)
h = hashlib.sha256(json.dumps(rows[:n]).encode()).hexdigest()
key = hashlib.sha256(open("/var/lib/cabinet/journal.db.key", "rb").read()).hexdigest()
print(f"journal: {len(rows)} events; first {n}: SHA-256 {h}; key SHA-256 {key}")
for r in rows:
    if r[3] == "program_installed":
        d = json.loads(r[6]); print(f"  event {r[0]} program_installed {d.get('action')} {d.get('program_id')}")
"""


def journal(log: Log, root: Root, label: str, first: int | None = None) -> tuple[int, str, str]:
    """The journal's event count, the digest of its first ``first`` events (all by
    default) and its key's digest, as read in the root."""
    (root.path / "root" / "journal_print.py").write_text(JOURNAL_PRINT)
    arg = "" if first is None else f" {first}"
    r = log.step(f"journal {label}", root.cmd(f"python3 /root/journal_print.py{arg}"), 300)
    for line in r.stdout.splitlines():
        if line.startswith("journal: "):
            words = line.split()
            return int(words[1]), words[6].rstrip(";"), words[-1]
    return -1, "", ""


def update_and_rollback(log: Log, root: Root, update: str) -> None:
    """``cabinet install UPDATE`` then ``cabinet install --rollback`` by the installed
    venv's command (offline), each followed by the engine and ``cabinet doctor``; the
    journal's events before each must be there unchanged after it, with its key."""
    cabinet = "/opt/cabinet/.venv/bin/cabinet"
    n0, h0, k0 = journal(log, root, "before the update")
    for what, script in (
        ("update", f"{cabinet} install --no-start /root/{Path(update).name}"),
        ("rollback", f"{cabinet} install --no-start --rollback"),
    ):
        log.step(f"{what} (no network)", root.cmd(f"cd / && {script}"), 2400, tail=40)
        engine_and_ui(log, root, ui=False)
        doctor(log, root)
        n, h, k = journal(log, root, f"after the {what} and the engine's start", n0)
        kept = n >= n0 and h == h0 and k == k0
        log(
            f"-- journal after the {what}: {n} events (before: {n0}); the first {n0} "
            f"{'unchanged' if h == h0 else 'CHANGED'}, key {'unchanged' if k == k0 else 'CHANGED'}"
            f": {'kept' if kept else 'NOT KEPT'}"
        )
        if not kept:
            log.failed.append(f"journal kept ({what})")
        n0, h0, k0 = journal(log, root, f"after the {what}")


def kill_in_root(path: Path) -> None:
    """SIGKILL every process left running in the root (``runuser`` makes its own session,
    so a process group signal misses what it started)."""
    real = str(path.resolve())
    for proc in Path("/proc").iterdir():
        try:
            where = os.readlink(proc / "root") if proc.name.isdigit() else ""
            if where == real or where.startswith((real + "/", real + " (deleted)")):
                os.kill(int(proc.name), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def stop(p: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group, then SIGKILL after 30 s."""
    if p.poll() is not None:
        return
    os.killpg(p.pid, signal.SIGTERM)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", choices=sorted(PYTHON))
    ap.add_argument(
        "--release",
        metavar="FILE",
        help="install this release (cabinet install FILE) instead of the committed tree with pip on a wheelhouse",
    )
    ap.add_argument(
        "--public-key", metavar="FILE", help="with --release: the release key's public half (a first install)"
    )
    ap.add_argument(
        "--update",
        metavar="FILE",
        help="with --release: then update to this release and roll back, the journal checked to be kept",
    )
    ap.add_argument("--log", type=Path, default=None, help="default: bench/results/arm64_SUITE.log")
    ap.add_argument("--keep", action="store_true", help="keep the run's root (CACHE/SUITE-run)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("arm64_root: run as root (chroot, mount, binfmt_misc)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("arm64_root: SIGTERM"))  # unmounts first
    log = Log(args.log or REPO / "bench" / "results" / f"arm64_{args.suite}.log")
    host = os.uname()
    log(
        f"arm64 Debian {args.suite} root, Python {PYTHON[args.suite]}; host {host.machine} "
        f"{host.release}, {os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    for tool in ("debootstrap", "qemu-aarch64-static"):
        v = subprocess.run(
            [
                "dpkg-query",
                "-W",
                "-f=${Package} ${Version}",
                "debootstrap" if tool == "debootstrap" else "qemu-user-static",
            ],
            capture_output=True,
            text=True,
        ).stdout
        log(f"host: {v}")
    made = binfmt_register(log)
    base, run_root = CACHE / f"{args.suite}-base", CACHE / f"{args.suite}-run"
    try:
        if not build_base(log, args.suite, base):
            return 1
        wheels = wheelhouse(log, PYTHON[args.suite])
        remove(run_root)
        t = time.monotonic()
        subprocess.run(["cp", "-a", str(base), str(run_root)], check=True)
        log(f"root: copied {base.name} -> {run_root.name} in {time.monotonic() - t:.1f} s")
        root = Root(run_root)
        root.mount()
        try:
            log.step(
                "root: arm64 userland",
                root.cmd(
                    "uname -m; . /etc/os-release; echo $PRETTY_NAME; python3 --version; "
                    "dpkg --print-architecture; "
                    f"if python3 -c 'import socket; socket.create_connection((\"{mirror_ip()}\", 80), 5)' "
                    "2>/tmp/net.err; then echo 'the mirror is REACHABLE'; exit 1; fi; "
                    "tail -1 /tmp/net.err; echo 'no network: the mirror cannot be reached'"
                ),
                300,
            )
            prepare(log, root, wheels)
            for f in (args.release, args.public_key, args.update):
                if f:
                    shutil.copy(f, run_root / "root" / Path(f).name)
            install(log, root, args.release, args.public_key, 1)
            install(log, root, args.release, args.public_key, 2)
            log.step(
                "installed: venv and Pi files",
                root.cmd(
                    "cat /opt/cabinet/.venv/pyvenv.cfg; /opt/cabinet/.venv/bin/python -m pip list "
                    "--disable-pip-version-check 2>/dev/null | head -40; cat /boot/firmware/cmdline.txt; "
                    "ls -l /etc/cabinet /etc/systemd/system/cabinet.target.wants; id cabinet"
                ),
                300,
            )
            checks(log, root)
            if args.release and args.update:
                update_and_rollback(log, root, args.update)
        finally:
            kill_in_root(run_root)
            root.umount()
            if not args.keep:
                remove(run_root)
    finally:
        if made:
            binfmt_unregister()
    log(
        f"\ntotal {time.monotonic() - log.t0:.0f} s; "
        + (f"FAILED: {', '.join(log.failed)}" if log.failed else "every step passed")
    )
    return 1 if log.failed else 0


if __name__ == "__main__":
    sys.exit(main())

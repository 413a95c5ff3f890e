"""One engine per serial port: a lock held for the engine's lifetime.

Owns: ``lock_ports`` (a ``fcntl.flock`` per serial device, on a lock file named
after the device's number, so every path to one device is one lock) and
``PortInUse`` (the one line the engine exits 2 with). The drivers open their ports
with pyserial's ``exclusive=True`` too, but they close and reopen a lost port, so a
second engine could slip in between; this lock is held from start to exit.
I/O: the lock folder (``/run/lock`` when writable, else the user runtime or temp
folder) and ``/proc`` (the holder's command line).
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path


class PortInUse(Exception):
    """A serial port is locked by another process; ``str()`` is one line naming the
    port, what it is for, and the holder when known."""


def lock_dir() -> Path:
    """Where the port locks live: ``/run/lock`` (shared by every user on Debian) when
    writable, else ``$XDG_RUNTIME_DIR``, else the temp folder."""
    run = Path("/run/lock")
    if run.is_dir() and os.access(run, os.W_OK):
        return run
    return Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())


def _lock_name(path: str) -> str | None:
    """The lock file's name for the device at ``path``: by device number, so a
    ``/dev/serial/by-id`` link and its ``/dev/ttyUSB0`` are one lock; None for a
    path that is no character device (a pyserial URL, a device not plugged in)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISCHR(st.st_mode):
        return None
    return f"cabinet-serial-{os.major(st.st_rdev)}-{os.minor(st.st_rdev)}.lock"


def _holder(fd: int) -> str:
    """What the lock file says about its holder: ``process PID (command)``, or ``""``."""
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    pid = text.split(" ", 1)[0]
    if not pid.isdigit():
        return ""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        args = []
    cmd = " ".join([os.path.basename(args[0]), *args[1:]]).strip() if args else ""
    return f"process {pid}" + (f" ({cmd[:60]})" if cmd else "")


def lock_ports(ports: Mapping[str, str], folder: Path | None = None) -> list[int]:
    """Lock every serial device of ``ports`` (what it is for -> its path) for this
    process; keep the returned descriptors open while the engine runs (closing them,
    or the process ending, releases the locks).

    A path that is no character device is skipped (nothing to lock yet).

    Raises:
        PortInUse: another process holds one of them (the ones taken are released).
    """
    folder = folder or lock_dir()
    held: list[int] = []
    seen: set[str] = set()
    try:
        for what, path in ports.items():
            name = _lock_name(path)
            if name is None or name in seen:
                continue
            seen.add(name)
            target = folder / name
            try:
                fd = os.open(target, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            except PermissionError:  # another user's lock file
                fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd) or "another process"
                os.close(fd)
                raise PortInUse(
                    f"serial port {path} ({what}) is in use by {holder}: one engine per port; stop the other first"
                ) from None
            held.append(fd)
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()} {what} {path}\n".encode(), 0)
            except OSError:  # read-only: the lock still holds
                pass
    except BaseException:
        for fd in held:
            os.close(fd)
        raise
    return held

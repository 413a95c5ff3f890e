"""A pseudo-terminal pair standing in for a USB-serial adapter (STYLE.md rule 31).

Owns: creating the pty pair, the stable symlink path the driver opens, and
"unplug"/"replug" (close the pair, make a new one behind the same path).
Must not import: serial, gpiozero, cabinet.*.

The device simulator reads and writes the *master* fd; the driver opens ``path``
(the slave, or a symlink to it) with pyserial.  The link keeps its own slave fd open
so the master never sees a hang-up while the driver is between opens.
"""

from __future__ import annotations

import os
import pty
import select
import threading
import tty
from pathlib import Path
from typing import Self


class PtyLink:
    """One pty pair, optionally published under a stable symlink.

    Args:
        link_path: if given, a symlink to the slave tty is (re)created here, so the
            driver can be configured with a path that survives ``replug``.  If None,
            ``path`` is the slave tty itself and changes on ``replug``.

    Attributes:
        path: what the driver should open.

    Thread-safety: ``read``/``write`` may be called from the simulator thread while
    another thread calls ``unplug``/``replug``; they then fail softly (return b"" /
    drop the bytes).
    """

    def __init__(self, link_path: str | os.PathLike[str] | None = None) -> None:
        self._lock = threading.Lock()
        self._link_path = Path(link_path) if link_path is not None else None
        self._master = -1
        self._slave = -1
        self.path = ""
        self.replug()

    @property
    def plugged(self) -> bool:
        """True while the pair exists."""
        return self._master >= 0

    def replug(self) -> None:
        """Create a fresh pair (closing any old one) and point ``path`` at it."""
        with self._lock:
            self._close_locked()
            master, slave = pty.openpty()
            tty.setraw(master)
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            tty_path = os.ttyname(slave)
            if self._link_path is None:
                self.path = tty_path
            else:
                tmp = self._link_path.with_name(self._link_path.name + ".tmp")
                tmp.unlink(missing_ok=True)
                tmp.symlink_to(tty_path)
                os.replace(tmp, self._link_path)
                self.path = str(self._link_path)

    def unplug(self) -> None:
        """Close the pair: the driver's next read/write raises ``SerialException``."""
        with self._lock:
            self._close_locked()
            if self._link_path is not None:
                self._link_path.unlink(missing_ok=True)

    def close(self) -> None:
        """Same as ``unplug``; idempotent."""
        self.unplug()

    def _close_locked(self) -> None:
        for fd in (self._master, self._slave):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = -1

    def read(self, timeout_s: float) -> bytes:
        """Wait up to ``timeout_s`` seconds for bytes from the driver; b"" if none."""
        fd = self._master
        if fd < 0:
            threading.Event().wait(timeout_s)
            return b""
        try:
            ready, _, _ = select.select([fd], [], [], timeout_s)
            if not ready:
                return b""
            return os.read(fd, 4096)
        except (OSError, ValueError):
            return b""

    def write(self, data: bytes) -> None:
        """Send bytes to the driver; silently dropped while unplugged."""
        with self._lock:
            fd = self._master
            if fd < 0:
                return
            view = memoryview(data)
            while view:
                try:
                    n = os.write(fd, view)
                except BlockingIOError:
                    select.select([], [fd], [], 0.05)
                    continue
                except OSError:
                    return
                view = view[n:]


class PtyDevice:
    """Base of a simulated serial device: a thread serving ``self.link``.

    Subclasses set ``link`` (a ``PtyLink``), ``_stop`` (a ``threading.Event``),
    ``_thread`` (``None`` until started) and ``THREAD_NAME``, and **must**
    override ``_run`` (the device loop, returning once ``_stop`` is set).
    """

    THREAD_NAME = "sim-device"
    link: PtyLink
    _stop: threading.Event
    _thread: threading.Thread | None

    def _run(self) -> None:
        raise NotImplementedError

    @property
    def path(self) -> str:
        """The tty path the driver should open."""
        return self.link.path

    def start(self) -> Self:
        """Start the device thread; returns self."""
        self._thread = threading.Thread(target=self._run, name=self.THREAD_NAME, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread and close the pty."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.link.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

"""The host twin's end of one SAS line: a pseudo-terminal whose slave the EGM opens.

Owns: creating the pty pair (raw both ends), the optional stable symlink to the slave,
bounded reads and writes on the master, and flushing polls the EGM never read.
Must not import: serial, cabinet.*.

Unlike ``pty_link.PtyLink`` (a device answering a driver), the host writes without
being asked: while no cabinet has the port open nobody reads, so a write that cannot
go out within ``timeout_s`` is dropped (a real host's UART does not block either), and
``flush_unread`` empties the slave's input queue so a cabinet that opens the port late
does not read minutes of stale polls.  The host keeps its own slave fd open, so the
master never sees a hang-up while the cabinet is between opens.
"""

from __future__ import annotations

import contextlib
import os
import select
import termios
import threading
import tty
from pathlib import Path


class HostPty:
    """One pty pair for one EGM.

    Args:
        link_path: if given, a symlink to the slave tty is created here.

    Attributes:
        tty: the slave's device path (``/dev/pts/N``): what the EGM opens.
        path: ``link_path`` if given, else ``tty``.
    """

    def __init__(self, link_path: str | os.PathLike[str] | None = None) -> None:
        self._lock = threading.Lock()
        self._master, self._slave = os.openpty()
        tty.setraw(self._master)
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.tty = os.ttyname(self._slave)
        self._link = Path(link_path) if link_path is not None else None
        if self._link is not None:
            tmp = self._link.with_name(self._link.name + ".tmp")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.tty)
            os.replace(tmp, self._link)
        self.path = str(self._link) if self._link is not None else self.tty

    def write(self, data: bytes, timeout_s: float = 0.05) -> bool:
        """Send ``data`` to the EGM; False (rest dropped) if it could not within ``timeout_s``."""
        view = memoryview(data)
        with self._lock:
            while view:
                if self._master < 0:
                    return False
                try:
                    view = view[os.write(self._master, view) :]
                except BlockingIOError:
                    _, ready, _ = select.select([], [self._master], [], timeout_s)
                    if not ready:
                        return False
                except OSError:
                    return False
        return True

    def read(self, timeout_s: float) -> bytes:
        """Bytes from the EGM, waiting up to ``timeout_s``; b"" if none came."""
        fd = self._master
        if fd < 0:
            return b""
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, timeout_s))
            return os.read(fd, 4096) if ready else b""
        except (BlockingIOError, InterruptedError):
            return b""
        except (OSError, ValueError):
            return b""

    def flush_unread(self) -> None:
        """Discard host bytes the EGM has not read yet (the slave's input queue)."""
        with contextlib.suppress(OSError, termios.error):
            if self._slave >= 0:
                termios.tcflush(self._slave, termios.TCIFLUSH)

    def close(self) -> None:
        """Close both ends and remove the symlink; idempotent."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = -1
        if self._link is not None:
            with contextlib.suppress(OSError):
                if self._link.is_symlink():
                    self._link.unlink()

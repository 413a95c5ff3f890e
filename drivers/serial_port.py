"""Opening serial ports the one way the cabinet does it (protocols.md section 5).

Owns: ``open_serial`` (``serial.serial_for_url`` with ``exclusive=True``), the
``SerialLike`` protocol the drivers are written against (so tests may pass fakes), and
mapping pyserial's exceptions onto ``drivers.errors``.
Must not import: cabinet.*, gpiozero.  Only drivers/ may import ``serial``.
"""

from __future__ import annotations

import logging
import os
import stat
import termios
from typing import Any, Protocol

import serial

from drivers.errors import DeviceBusyError, DeviceOfflineError

log = logging.getLogger(__name__)

PORT_ERRORS: tuple[type[BaseException], ...] = (serial.SerialException, OSError, termios.error)
"""Exceptions I/O on a vanished port raises (SerialException, EIO, termios.error from tcflush)."""


class SerialLike(Protocol):
    """The part of ``serial.Serial`` the drivers use."""

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...

    @property
    def in_waiting(self) -> int: ...


def open_serial(
    url: str,
    *,
    baudrate: int = 9600,
    parity: str = "N",
    stopbits: int = 1,
    bytesize: int = 8,
    timeout_s: float = 0.02,
) -> SerialLike:
    """Open ``url`` (a device path, a pty, or any pyserial URL) exclusively.

    Args:
        url: e.g. "/dev/serial/by-id/usb-JCM...", a pty path, "loop://".
        baudrate: bits per second.
        parity: "N", "E" or "O" (ID-003 uses "E").
        stopbits: 1 or 2.
        bytesize: 7 or 8.
        timeout_s: read timeout in seconds for each ``read`` call.

    Raises:
        DeviceBusyError: another process holds the exclusive lock.
        DeviceOfflineError: the port does not exist or cannot be opened.
    """
    settings = dict(
        baudrate=baudrate,
        parity=parity,
        stopbits=stopbits,
        bytesize=bytesize,
        timeout=timeout_s,
        write_timeout=1.0,
        exclusive=True,
    )
    try:
        try:
            return serial.serial_for_url(url, **settings)  # type: ignore[no-any-return]
        except termios.error:
            if parity == "N" or not is_pty(url):
                raise
            # Linux ptys cannot store PARENB and newer kernels answer EINVAL when it is
            # requested again on a reopened pty; a pty ignores parity anyway (protocols.md 5).
            log.info("%s is a pseudo-terminal: opening without parity", url)
            settings["parity"] = "N"
            return serial.serial_for_url(url, **settings)  # type: ignore[no-any-return]
    except serial.SerialException as exc:
        if "exclusively lock" in str(exc):
            raise DeviceBusyError(f"{url}: {exc}") from exc
        raise DeviceOfflineError(f"{url}: {exc}") from exc
    except (OSError, ValueError, termios.error) as exc:
        raise DeviceOfflineError(f"{url}: {exc}") from exc


def is_pty(path: str) -> bool:
    """True if ``path`` (after symlinks) is a Unix98 pseudo-terminal slave."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISCHR(st.st_mode) and 136 <= os.major(st.st_rdev) <= 143


def close_quietly(port: Any) -> None:
    """Close ``port`` (a pyserial port or ``None``), ignoring ``PORT_ERRORS``: the device
    may already be gone (a USB adapter pulled out)."""
    if port is not None:
        try:
            port.close()
        except PORT_ERRORS:
            pass

"""Driver exception tree: one root and a few leaves.

Owns: the exceptions raised by drivers/ (never by the engine). ``ConfigError``
is ``confspec.ConfigError``, the one configuration error of the drivers and the
cabinet (re-exported here; not a ``DriverError``: nothing catches a bad setting
as a device failure). Fault numbers live in one table, ``cabinet.core.errors.FAULTS``.
Must not import: cabinet.*, gpiozero, serial.

Every leaf also inherits the builtin that fits (gpiozero's pattern), so callers may
catch either ``ProtocolError`` or ``ValueError``, and ``ConfigError`` is a ``ValueError``.
"""

from __future__ import annotations

from confspec import ConfigError

__all__ = ["ConfigError", "DeviceBusyError", "DeviceOfflineError", "DriverError", "ProtocolError"]


class DriverError(Exception):
    """Root of every exception raised by drivers/ (except ``ConfigError``)."""


class ProtocolError(DriverError, ValueError):
    """A device sent bytes that break its protocol (bad CRC, bad length, bad fixed bits)."""


class DeviceOfflineError(DriverError, ConnectionError):
    """The device's port cannot be opened, vanished, or stopped answering."""


class DeviceBusyError(DriverError, RuntimeError):
    """The port is exclusively locked by another process."""

"""Driver exception tree: one root, a few leaves, each with a numeric fault code.

Owns: the exceptions raised by drivers/ (never by the engine).
Must not import: cabinet.*, gpiozero, serial.

Every leaf also inherits the builtin that fits (gpiozero's pattern), so callers may
catch either ``ConfigError`` or ``ValueError``.  ``fault_code`` is a stable number for
service-mode screens and the event log.
"""

from __future__ import annotations


class DriverError(Exception):
    """Root of every exception raised by drivers/."""

    fault_code: int = 100


class ConfigError(DriverError, ValueError):
    """A wiring or driver setting is missing or invalid; the message names the field."""

    fault_code = 110


class ProtocolError(DriverError, ValueError):
    """A device sent bytes that break its protocol (bad CRC, bad length, bad fixed bits)."""

    fault_code = 120


class DeviceOfflineError(DriverError, ConnectionError):
    """The device's port cannot be opened, vanished, or stopped answering."""

    fault_code = 130


class DeviceBusyError(DriverError, RuntimeError):
    """The port is exclusively locked by another process."""

    fault_code = 140

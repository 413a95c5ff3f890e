"""Simulated twins of the cabinet's devices (same bytes, same pin levels).

Public surface: ``start_sim_devices``/``SimDevices`` (all twins together),
``SimId003Device``, ``SimPrinterDevice``, ``PulseSource``, ``PtyLink``.
Must not import: serial, cabinet.*.
"""

from drivers.sim.id003_device import SimId003Device
from drivers.sim.printer_device import SimPrinterDevice
from drivers.sim.pty_link import PtyLink
from drivers.sim.pulse_source import PulseSource
from drivers.sim.twins import SimDevices, start_sim_devices

__all__ = [
    "PtyLink",
    "PulseSource",
    "SimDevices",
    "SimId003Device",
    "SimPrinterDevice",
    "start_sim_devices",
]

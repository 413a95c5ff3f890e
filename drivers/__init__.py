"""Cabinet device drivers, each kind behind one interface with a simulated twin.

The engine depends on ``drivers.interfaces`` (contracts and callback types),
``drivers.events`` (what drivers report), ``drivers.voucher`` and ``drivers.factory``
(the one place choosing "hardware" or "sim").  Importing this package does not import
gpiozero or pyserial; those stay inside the driver modules.

Modules: interfaces, events, errors, voucher, pins, wiring, debounce, gpio_panel,
id003_codec (sans-I/O), id003_host (sans-I/O host state machine), id003_acceptor
(its pyserial loop), pulse_acceptor, serial_port, ticket_format
(pure), ticket_printer, factory; sim/ (pty_link, id003_device, printer_device, itf,
pulse_source, twins, cli).
Must not import: cabinet.*, ui.*.
"""

from drivers.errors import (
    ConfigError,
    DeviceBusyError,
    DeviceOfflineError,
    DriverError,
    ProtocolError,
)
from drivers.interfaces import (
    BillAcceptor,
    ButtonPanel,
    CreditCallback,
    DecideCallback,
    EventSink,
    LampBank,
    OpenTransaction,
    PrinterState,
    PrinterStatus,
    PrintResult,
    TicketPrinter,
)
from drivers.voucher import Voucher

__all__ = [
    "BillAcceptor",
    "ButtonPanel",
    "ConfigError",
    "CreditCallback",
    "DecideCallback",
    "DeviceBusyError",
    "DeviceOfflineError",
    "DriverError",
    "EventSink",
    "LampBank",
    "OpenTransaction",
    "PrintResult",
    "PrinterState",
    "PrinterStatus",
    "ProtocolError",
    "TicketPrinter",
    "Voucher",
]

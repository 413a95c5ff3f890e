"""The cabinet's exception tree and fault codes.

Owns: ``CabinetError`` and its leaf (STYLE.md 5.26), and ``FAULTS``, the one
table of fault numbers shown in maintenance and logged with every tilt.
``ConfigError`` is ``confspec.ConfigError``, the one configuration error of the
cabinet and its drivers (re-exported here for the core's callers).
Imports nothing from the project but ``confspec`` and ``cabinet.protocol.faults``
(``FaultCode``, the codes themselves).
"""

from __future__ import annotations

from typing import TypeVar

from cabinet.protocol.faults import FaultCode
from confspec import ConfigError

__all__ = [
    "FAULTS",
    "STORAGE_FAULT",
    "CabinetError",
    "ConfigError",
    "InvariantError",
    "StoreError",
    "fault_text",
    "present",
]

T = TypeVar("T")


def N_(text: str) -> str:
    """Marks a fault's words for ``pybabel extract`` (the player's screen says
    them in its language); returns them unchanged."""
    return text


class CabinetError(Exception):
    """Root of every error the cabinet raises on purpose."""


class StoreError(CabinetError, OSError):
    """The journal could not be read or written."""


class InvariantError(CabinetError, RuntimeError):
    """The cabinet's state lacks what a money path relies on: a bug, never a
    player's or a device's doing (those are ``Rejected``). Raised instead of an
    ``assert``, which ``python -O`` would drop."""


def present(value: T | None, what: str) -> T:
    """``value``, or ``InvariantError`` naming ``what`` when it is ``None``."""
    if value is None:
        raise InvariantError(f"{what} is missing")
    return value


#: Fault codes shown in maintenance and written to the event log: the one table of
#: fault numbers (unique; one row per ``FaultCode``, every code the device bridge and
#: the engine set: tests/engine/test_fault_table.py).
FAULTS: dict[str, tuple[int, str]] = {
    FaultCode.RAM_ERROR: (100, N_("RAM error: critical memory failed its check; RAM clear required")),
    FaultCode.AUDIT_MISMATCH: (101, N_("Self-audit failed: credits do not balance the meters")),
    FaultCode.ROUND_VOID: (102, N_("A round could not be resumed intact and was voided")),
    FaultCode.DOOR_MAIN: (200, N_("Main door open")),
    FaultCode.DOOR_CASHBOX: (201, N_("Cash box door open")),
    FaultCode.DOOR_LOGIC: (202, N_("Logic door open")),
    FaultCode.BILL_JAM: (300, N_("Bill acceptor jam")),
    FaultCode.BILL_STACKER_FULL: (301, N_("Bill stacker full")),
    FaultCode.BILL_STACKER_OPEN: (302, N_("Bill stacker removed")),
    FaultCode.BILL_CHEAT: (303, N_("Bill acceptor cheat detected")),
    FaultCode.BILL_FAILURE: (304, N_("Bill acceptor failure")),
    FaultCode.BILL_OFFLINE: (305, N_("Bill acceptor not responding")),
    FaultCode.NOTE_IN_STACKER: (306, N_("Note in the cash box, not credited: attendant key credits it")),
    FaultCode.NOTE_IN_PATH: (307, N_("Possible note in the bill path: attendant review")),
    FaultCode.BILL_LINK_CONFIG: (308, N_("Bill acceptor link garbled: check baud rate and parity (9600 8E1)")),
    FaultCode.BILL_PAUSE: (309, N_("Bill acceptor paused: a second note was inserted; remove it")),
    FaultCode.BILL_UNKNOWN_ESCROW_CODE: (310, N_("Bill acceptor read a note of unknown value: returned")),
    FaultCode.BILL_BAD_BARCODE: (311, N_("Voucher barcode unreadable: returned")),
    FaultCode.BILL_VEND_VALID_UNATTRIBUTED: (
        312,
        N_("Note stacked without a known escrow, not credited: review the cash box"),
    ),
    FaultCode.BILL_LINE_STUCK: (313, N_("Pulse acceptor line stuck active")),
    FaultCode.BILL_PULSE_WIDTH: (314, N_("Pulse acceptor pulse of the wrong width")),
    FaultCode.BILL_UNKNOWN_PULSE_COUNT: (315, N_("Pulse acceptor pulse count of no known value")),
    FaultCode.PRINTER_OFFLINE: (400, N_("Printer offline")),
    FaultCode.PRINTER_PAPER_OUT: (401, N_("Printer out of paper")),
    FaultCode.PRINTER_COVER_OPEN: (402, N_("Printer cover open")),
    FaultCode.PRINTER_FAILURE: (403, N_("Printer failure")),
    FaultCode.STORAGE_FAILURE: (500, N_("Storage fault: play stopped")),
    FaultCode.PROGRAM_MISMATCH: (501, N_("Program files do not match the manifest: reinstall")),
    FaultCode.DISPLAY_DARK: (600, N_("Station screen not drawing: station out of service")),
    FaultCode.ENGINE_FAULT: (900, N_("Engine fault")),
}


#: The storage tilt's fault: the engine cannot write its journal and refuses every event
#: but the operator key (``cabinet.shell.engine``); what clears it is the technician's
#: (README "Fault codes"), the player reads only the fault and "call an attendant".
STORAGE_FAULT = FaultCode.STORAGE_FAILURE


def fault_text(code: str) -> str:
    """``"300 Bill acceptor jam"``: the code number and its words."""
    num, text = FAULTS.get(code, (999, code.replace("_", " ")))
    return f"{num} {text}"

"""The cabinet's exception tree and fault codes.

Owns: ``CabinetError`` and its leaf (STYLE.md 5.26), and ``FAULTS``, the one
table of fault numbers shown in maintenance and logged with every tilt.
``ConfigError`` is ``confspec.ConfigError``, the one configuration error of the
cabinet and its drivers (re-exported here for the core's callers).
Imports nothing from the project but ``confspec``.
"""

from __future__ import annotations

from typing import TypeVar

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
#: fault numbers (unique; every code the device bridge and the engine set is here:
#: tests/engine/test_fault_table.py).
FAULTS: dict[str, tuple[int, str]] = {
    "ram_error": (100, N_("RAM error: critical memory failed its check; RAM clear required")),
    "audit_mismatch": (101, N_("Self-audit failed: credits do not balance the meters")),
    "round_void": (102, N_("A round could not be resumed intact and was voided")),
    "door_main": (200, N_("Main door open")),
    "door_cashbox": (201, N_("Cash box door open")),
    "door_logic": (202, N_("Logic door open")),
    "bill_jam": (300, N_("Bill acceptor jam")),
    "bill_stacker_full": (301, N_("Bill stacker full")),
    "bill_stacker_open": (302, N_("Bill stacker removed")),
    "bill_cheat": (303, N_("Bill acceptor cheat detected")),
    "bill_failure": (304, N_("Bill acceptor failure")),
    "bill_offline": (305, N_("Bill acceptor not responding")),
    "note_in_stacker": (306, N_("Note in the cash box, not credited: attendant key credits it")),
    "note_in_path": (307, N_("Possible note in the bill path: attendant review")),
    "bill_link_config": (308, N_("Bill acceptor link garbled: check baud rate and parity (9600 8E1)")),
    "bill_pause": (309, N_("Bill acceptor paused: a second note was inserted; remove it")),
    "bill_unknown_escrow_code": (310, N_("Bill acceptor read a note of unknown value: returned")),
    "bill_bad_barcode": (311, N_("Voucher barcode unreadable: returned")),
    "bill_vend_valid_unattributed": (312, N_("Note stacked without a known escrow, not credited: review the cash box")),
    "bill_line_stuck": (313, N_("Pulse acceptor line stuck active")),
    "bill_pulse_width": (314, N_("Pulse acceptor pulse of the wrong width")),
    "bill_unknown_pulse_count": (315, N_("Pulse acceptor pulse count of no known value")),
    "printer_offline": (400, N_("Printer offline")),
    "printer_paper_out": (401, N_("Printer out of paper")),
    "printer_cover_open": (402, N_("Printer cover open")),
    "printer_failure": (403, N_("Printer failure")),
    "storage_failure": (500, N_("Storage fault: play stopped")),
    "program_mismatch": (501, N_("Program files do not match the manifest: reinstall")),
    "display_dark": (600, N_("Station screen not drawing: station out of service")),
    "engine_fault": (900, N_("Engine fault")),
}


#: The storage tilt's fault: the engine cannot write its journal and refuses every event
#: but the operator key (``cabinet.shell.engine``); what clears it is the technician's
#: (README "Fault codes"), the player reads only the fault and "call an attendant".
STORAGE_FAULT = "storage_failure"


def fault_text(code: str) -> str:
    """``"300 Bill acceptor jam"``: the code number and its words."""
    num, text = FAULTS.get(code, (999, code.replace("_", " ")))
    return f"{num} {text}"

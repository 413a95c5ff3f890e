"""The cabinet's exception tree and fault codes.

Owns: ``CabinetError`` and its leaf (STYLE.md 5.26), and ``FAULTS``, the one
table of fault numbers shown in maintenance and logged with every tilt.
``ConfigError`` is ``confspec.ConfigError``, the one configuration error of the
cabinet and its drivers (re-exported here for the core's callers).
Imports nothing from the project but ``confspec``.
"""

from __future__ import annotations

from confspec import ConfigError

__all__ = ["FAULTS", "CabinetError", "ConfigError", "StoreError", "fault_text"]


class CabinetError(Exception):
    """Root of every error the cabinet raises on purpose."""


class StoreError(CabinetError, OSError):
    """The journal could not be read or written."""


#: Fault codes shown in maintenance and written to the event log: the one table of
#: fault numbers (unique; every code the device bridge and the engine set is here:
#: tests/engine/test_fault_table.py).
FAULTS: dict[str, tuple[int, str]] = {
    "ram_error": (100, "RAM error: critical memory failed its check; RAM clear required"),
    "audit_mismatch": (101, "Self-audit failed: credits do not balance the meters"),
    "round_void": (102, "A round could not be resumed intact and was voided"),
    "door_main": (200, "Main door open"),
    "door_cashbox": (201, "Cash box door open"),
    "door_logic": (202, "Logic door open"),
    "bill_jam": (300, "Bill acceptor jam"),
    "bill_stacker_full": (301, "Bill stacker full"),
    "bill_stacker_open": (302, "Bill stacker removed"),
    "bill_cheat": (303, "Bill acceptor cheat detected"),
    "bill_failure": (304, "Bill acceptor failure"),
    "bill_offline": (305, "Bill acceptor not responding"),
    "note_in_stacker": (306, "Note in the cash box, not credited: attendant key credits it"),
    "note_in_path": (307, "Possible note in the bill path, not credited: attendant review"),
    "bill_link_config": (308, "Bill acceptor link garbled: check baud rate and parity (9600 8E1)"),
    "bill_pause": (309, "Bill acceptor paused: a second note was inserted; remove it"),
    "bill_unknown_escrow_code": (310, "Bill acceptor read a note of unknown value: returned"),
    "bill_bad_barcode": (311, "Voucher barcode unreadable: returned"),
    "bill_vend_valid_unattributed": (312, "Note stacked without a known escrow, not credited: "
                                     "review the cash box"),
    "bill_line_stuck": (313, "Pulse acceptor line stuck active"),
    "bill_pulse_width": (314, "Pulse acceptor pulse of the wrong width"),
    "bill_unknown_pulse_count": (315, "Pulse acceptor pulse count of no known value"),
    "printer_offline": (400, "Printer offline"),
    "printer_paper_out": (401, "Printer out of paper"),
    "printer_cover_open": (402, "Printer cover open"),
    "printer_failure": (403, "Printer failure"),
    "storage_failure": (500, "Journal storage failed: play stopped; restart or operator "
                        "key to clear once storage works"),
    "program_mismatch": (501, "Program files do not match the manifest: reinstall"),
    "engine_fault": (900, "Engine fault"),
}


def fault_text(code: str) -> str:
    """``"300 Bill acceptor jam"``: the code number and its words."""
    num, text = FAULTS.get(code, (999, code.replace("_", " ")))
    return f"{num} {text}"

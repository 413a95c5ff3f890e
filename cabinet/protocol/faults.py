"""The cabinet's fault codes: one enum every layer of the cabinet names them by.

Owns: ``FaultCode``. Its values are the strings the journal, the event log, the
snapshot and the casino host mapping have always carried, so an old journal
loads unchanged and a member compares equal to its string (``StrEnum``). The
fault numbers and words are ``cabinet.core.errors.FAULTS``; which device report
becomes which code is ``cabinet.shell.devices`` (the drivers report their own
device codes, ``drivers.events.DeviceFault.code``, and never import the cabinet).
Lives in ``cabinet.protocol`` because the core, the shell and the UI may all
import it (tests/test_layers.py).
"""

from __future__ import annotations

import enum


class FaultCode(enum.StrEnum):
    """A fault that tilts the cabinet or takes a station out of service."""

    RAM_ERROR = "ram_error"
    AUDIT_MISMATCH = "audit_mismatch"
    ROUND_VOID = "round_void"
    DOOR_MAIN = "door_main"
    DOOR_CASHBOX = "door_cashbox"
    DOOR_LOGIC = "door_logic"
    BILL_JAM = "bill_jam"
    BILL_STACKER_FULL = "bill_stacker_full"
    BILL_STACKER_OPEN = "bill_stacker_open"
    BILL_CHEAT = "bill_cheat"
    BILL_FAILURE = "bill_failure"
    BILL_OFFLINE = "bill_offline"
    NOTE_IN_STACKER = "note_in_stacker"
    NOTE_IN_PATH = "note_in_path"
    BILL_LINK_CONFIG = "bill_link_config"
    BILL_PAUSE = "bill_pause"
    BILL_UNKNOWN_ESCROW_CODE = "bill_unknown_escrow_code"
    BILL_BAD_BARCODE = "bill_bad_barcode"
    BILL_VEND_VALID_UNATTRIBUTED = "bill_vend_valid_unattributed"
    BILL_LINE_STUCK = "bill_line_stuck"
    BILL_PULSE_WIDTH = "bill_pulse_width"
    BILL_UNKNOWN_PULSE_COUNT = "bill_unknown_pulse_count"
    PRINTER_OFFLINE = "printer_offline"
    PRINTER_PAPER_OUT = "printer_paper_out"
    PRINTER_COVER_OPEN = "printer_cover_open"
    PRINTER_FAILURE = "printer_failure"
    STORAGE_FAILURE = "storage_failure"
    PROGRAM_MISMATCH = "program_mismatch"
    DISPLAY_DARK = "display_dark"
    ENGINE_FAULT = "engine_fault"

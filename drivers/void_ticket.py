"""The printer's test ticket (the Diagnostics page's printer test).

Owns: ``render_test_ticket``, the ESC/POS layout of a ticket marked VOID / TEST:
no amount, no validation number, no barcode, so it can never be redeemed or taken
for a voucher (research/cabinet-features.md I: "printer test ticket (marked
VOID/TEST, no money)"). Must not import: serial, gpiozero, cabinet.*.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from datetime import datetime

from drivers.ticket_format import LINE_WIDTH

#: The ticket's heading lines (the screen and the README say the same).
TEST_HEADING = ("*** TEST TICKET ***", "VOID - NO CASH VALUE")


def render_test_ticket(
    venue: str, machine_number: str, when: datetime, lines: Sequence[str] = (), *, width: int = LINE_WIDTH
) -> bytes:
    """Lay out a test ticket as ESC/POS bytes, ending with a full cut.

    Args:
        venue: site name (first line).
        machine_number: the cabinet's machine number.
        when: local date and time printed.
        lines: further lines (the program ID, the printer's status), each cut to
            ``width`` characters.

    Returns:
        The job bytes, starting with ESC @ (initialise). No barcode.
    """
    from escpos.printer import Dummy  # its profile database loads slowly: only here

    p = Dummy()
    with contextlib.redirect_stdout(io.StringIO()):
        p.hw("INIT")
        p.set(align="center", bold=True, double_height=True, double_width=True)
        p.textln(venue[: width // 2])
        p.set(align="center", bold=True, double_height=True)
        for heading in TEST_HEADING:
            p.textln(heading)
        p.set(align="left")
        p.textln(f"DATE {when:%Y-%m-%d}".ljust(width - 14) + f"TIME {when:%H:%M:%S}")
        p.textln(f"MACHINE # {machine_number}")
        for line in lines:
            p.textln(line[:width])
        p.set(align="center", bold=True, double_height=True)
        p.textln(TEST_HEADING[1])
        p.set_with_default()
        p.cut()
    return bytes(p.output)

"""Pure voucher layout: ``Voucher`` -> ESC/POS bytes (protocols.md 4.1, 4.3).

Owns: the ticket layout, amount in figures and in words, and the ESC/POS byte
constants the printer driver and simulator share.  Bytes are built with
python-escpos's ``Dummy`` printer (no I/O); nothing here touches a port.
Must not import: serial, gpiozero, cabinet.*.
"""

from __future__ import annotations

import contextlib
import io
import textwrap

from drivers.voucher import Voucher, format_validation_number

LINE_WIDTH = 42  # characters of font A on 80 mm paper

# Real-time and status commands (Epson ESC/POS; protocols.md 4.2).
DLE_EOT = b"\x10\x04"
CLEAR_BUFFER = b"\x10\x14\x08\x01\x03\x14\x01\x06\x02\x08"  # DLE DC4 fn=8: drop unprinted data
GS_R_PAPER = b"\x1dr\x01"  # in-order "transmit paper sensor status": our job-done marker

_ONES = (
    "ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN ELEVEN TWELVE THIRTEEN "
    "FOURTEEN FIFTEEN SIXTEEN SEVENTEEN EIGHTEEN NINETEEN"
).split()
_TENS = "_ _ TWENTY THIRTY FORTY FIFTY SIXTY SEVENTY EIGHTY NINETY".split()
_SCALES = ((10**9, "BILLION"), (10**6, "MILLION"), (1000, "THOUSAND"))

_CURRENCIES: dict[str, tuple[str, str, str, str, str]] = {
    # code: symbol, major singular, major plural, minor singular, minor plural
    "USD": ("$", "DOLLAR", "DOLLARS", "CENT", "CENTS"),
    "CAD": ("$", "DOLLAR", "DOLLARS", "CENT", "CENTS"),
    "AUD": ("$", "DOLLAR", "DOLLARS", "CENT", "CENTS"),
    "EUR": ("EUR ", "EURO", "EUROS", "CENT", "CENTS"),
    "GBP": ("GBP ", "POUND", "POUNDS", "PENNY", "PENCE"),
}


def _under_thousand(n: int) -> str:
    words = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words.append(f"{_ONES[hundreds]} HUNDRED")
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_TENS[tens] + (f"-{_ONES[ones]}" if ones else ""))
    elif rest or not hundreds:
        words.append(_ONES[rest])
    return " ".join(words)


def number_in_words(n: int) -> str:
    """``1234`` -> ``"ONE THOUSAND TWO HUNDRED THIRTY-FOUR"``.

    Raises:
        ValueError: n < 0 or n >= 10**12.
    """
    if not 0 <= n < 10**12:
        raise ValueError(f"{n} out of range")
    if n < 1000:
        return _under_thousand(n)
    parts = []
    for scale, name in _SCALES:
        count, n = divmod(n, scale)
        if count:
            parts.append(f"{_under_thousand(count)} {name}")
    if n:
        parts.append(_under_thousand(n))
    return " ".join(parts)


def _currency(code: str) -> tuple[str, str, str, str, str]:
    return _CURRENCIES.get(code, (f"{code} ", code, code, "", ""))


def amount_in_words(amount_minor: int, currency: str = "USD") -> str:
    """``2550`` -> ``"TWENTY-FIVE DOLLARS AND 50 CENTS"`` (protocols.md 4.1 item 4).

    Args:
        amount_minor: amount in minor units (cents), >= 0.
        currency: ISO 4217 code; 2 minor digits assumed.
    """
    _, one, many, minor_one, minor_many = _currency(currency)
    major, minor = divmod(amount_minor, 100)
    text = f"{number_in_words(major)} {one if major == 1 else many}"
    if minor_many:
        text += f" AND {minor:02d} {minor_one if minor == 1 else minor_many}"
    return text


def amount_in_figures(amount_minor: int, currency: str = "USD") -> str:
    """``123456`` -> ``"$1,234.56"``."""
    symbol = _currency(currency)[0]
    major, minor = divmod(amount_minor, 100)
    return f"{symbol}{major:,}.{minor:02d}"


def render_voucher(voucher: Voucher, *, width: int = LINE_WIDTH) -> bytes:
    """Lay out one voucher as ESC/POS bytes, ending with a full cut.

    Contents (protocols.md 4.1): venue (and its address lines), ticket type, validation number (text and
    Interleaved 2 of 5 barcode, ``GS k`` function B), date and time, ticket
    sequence number, machine number, amount in figures and in words, expiry.

    Args:
        voucher: what to print.
        width: characters per line for wrapping the words.

    Returns:
        The job bytes, starting with ESC @ (initialise).
    """
    # Imported here: python-escpos loads its printer-profile database on import
    # (about 0.3 s), which the engine's start need not wait for.
    from escpos.printer import Dummy

    p = Dummy()
    with contextlib.redirect_stdout(io.StringIO()):  # escpos prints a notice on barcode()
        p.hw("INIT")
        p.set(align="center", bold=True, double_height=True, double_width=True)
        p.textln(voucher.venue[: width // 2])
        if voucher.address_lines:
            p.set(align="center")
            for line in voucher.address_lines:
                p.textln(line[:width])
        p.set(align="center", bold=True, double_height=True)
        p.textln(voucher.ticket_type)
        p.set(align="center", bold=True)
        p.textln("VALIDATION " + format_validation_number(voucher.validation_number))
        p.barcode(voucher.validation_number, "ITF", height=80, width=2, pos="OFF", function_type="B")
        p.ln()
        p.set(align="left")
        issued = voucher.issued_at
        p.textln(f"DATE {issued:%Y-%m-%d}".ljust(width - 14) + f"TIME {issued:%H:%M:%S}")
        p.textln(f"TICKET # {voucher.sequence:07d}".ljust(width - 16) + f"MACHINE # {voucher.machine_number}")
        p.set(align="center", bold=True, double_height=True, double_width=True)
        p.textln(amount_in_figures(voucher.amount_minor, voucher.currency))
        p.set(align="center")
        for line in textwrap.wrap(amount_in_words(voucher.amount_minor, voucher.currency), width):
            p.textln(line)
        if voucher.expires_at is None:
            p.textln("THIS TICKET DOES NOT EXPIRE")
        else:
            p.textln(f"VOID AFTER {voucher.expires_at:%Y-%m-%d %H:%M}")
        p.set(align="center", bold=True)
        p.textln(format_validation_number(voucher.validation_number))
        p.set_with_default()
        p.cut()
    return bytes(p.output)

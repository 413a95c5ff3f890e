"""ESC/POS ticket printer driver over serial (protocols.md 4.2-4.4).

Owns: real-time status polling (``DLE EOT 1..4``) with replies validated by their
fixed bits before use, the print sequence (status check -> send job -> wait for the
in-order ``GS r 1`` marker -> status) and the DONE/FAILED/UNKNOWN verdict, and
reopening the port after it vanished.  Layout comes from ``ticket_format``.
Must not import: cabinet.*, gpiozero.  Transport comes from ``drivers.serial_port``.

Why not python-escpos's ``Serial``/``paper_status``: it reports "paper adequate" when
the printer says nothing (protocols.md 4.3) and opens ports without ``exclusive``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from drivers.errors import DriverError, ProtocolError
from drivers.interfaces import PrinterState, PrinterStatus, PrintResult, TicketPrinter
from drivers.serial_port import PORT_ERRORS, SerialLike, close_quietly, open_serial
from drivers.ticket_format import CLEAR_BUFFER, DLE_EOT, GS_R_PAPER, render_voucher
from drivers.voucher import Voucher

log = logging.getLogger(__name__)

Opener = Callable[[str], SerialLike]


def valid_status_byte(value: int) -> bool:
    """DLE EOT replies have bits 0x02 and 0x10 set and 0x01, 0x80 clear (protocols.md 4.2)."""
    return value & 0x93 == 0x12


def valid_paper_sensor_byte(value: int) -> bool:
    """GS r 1 replies have bits 0x10 and 0x80 clear (Epson)."""
    return value & 0x90 == 0


def _open_printer(url: str) -> SerialLike:
    return open_serial(url, baudrate=9600, parity="N", timeout_s=0.02)


class EscPosTicketPrinter(TicketPrinter):
    """A thermal TITO printer speaking ESC/POS on a serial port.

    Args:
        url: port path or pyserial URL (opened exclusively).
        status_timeout_s: wait this long for each status byte.
        print_timeout_s: wait this long for the job-done marker after sending a job.
        reopen_interval_s: minimum seconds between attempts to reopen a lost port.
        opener: opens the port (tests may pass fakes).
        render: voucher -> job bytes (default ``ticket_format.render_voucher``).

    Thread-safety: calls are serialised by an internal lock; each blocks for up to
    ``4 * status_timeout_s`` (status) or ``print_timeout_s`` + that (print).
    """

    def __init__(
        self,
        url: str,
        *,
        status_timeout_s: float = 0.3,
        print_timeout_s: float = 8.0,
        reopen_interval_s: float = 1.0,
        opener: Opener = _open_printer,
        render: Callable[[Voucher], bytes] = render_voucher,
    ) -> None:
        self.url = url
        self.status_timeout_s = status_timeout_s
        self.print_timeout_s = print_timeout_s
        self.reopen_interval_s = reopen_interval_s
        self._opener = opener
        self._render = render
        self._port: SerialLike | None = None
        self._last_open_attempt = -1e9
        self._lock = threading.RLock()

    # --- lifecycle ---------------------------------------------------------------------

    def open(self) -> None:
        """Open the port now.

        Raises:
            DeviceOfflineError: the port cannot be opened.
            DeviceBusyError: another process holds it.
        """
        with self._lock:
            self._close_port()
            self._last_open_attempt = time.monotonic()
            self._port = self._opener(self.url)

    def close(self) -> None:
        """Close the port.  Idempotent."""
        with self._lock:
            self._close_port()

    def _close_port(self) -> None:
        port, self._port = self._port, None
        close_quietly(port)

    def _ensure_open(self) -> bool:
        if self._port is not None:
            return True
        if time.monotonic() - self._last_open_attempt < self.reopen_interval_s:
            return False
        try:
            self.open()
        except DriverError as exc:
            log.info("printer still offline: %s", exc)
            return False
        return True

    # --- status ------------------------------------------------------------------------

    def _read_byte(self, timeout_s: float) -> int | None:
        assert self._port is not None
        deadline = time.monotonic() + timeout_s
        while True:
            data = self._port.read(1)
            if data:
                return data[0]
            if time.monotonic() >= deadline:
                return None

    def _query(self, n: int) -> int:
        """Send DLE EOT n and return the validated reply byte.

        Raises:
            ProtocolError: no reply or a reply failing the fixed-bit check (twice).
        """
        assert self._port is not None
        for _ in range(2):
            self._port.reset_input_buffer()
            self._port.write(DLE_EOT + bytes((n,)))
            value = self._read_byte(self.status_timeout_s)
            if value is not None and valid_status_byte(value):
                return value
        raise ProtocolError(f"no valid reply to DLE EOT {n}")

    def status(self) -> PrinterStatus:
        """Read printer, offline-cause, error and paper-sensor status.  Never raises.

        Returns OFFLINE when the port is gone, the printer is silent, or a reply fails
        validation (an unverified reply is never trusted).
        """
        with self._lock:
            if not self._ensure_open():
                return PrinterStatus(PrinterState.OFFLINE, detail="port not open")
            try:
                printer, cause, error, paper = (self._query(n) for n in (1, 2, 3, 4))
            except ProtocolError as exc:
                return PrinterStatus(PrinterState.OFFLINE, detail=str(exc))
            except PORT_ERRORS as exc:
                self._close_port()
                return PrinterStatus(PrinterState.OFFLINE, detail=f"port lost: {exc}")
        low = bool(paper & 0x0C)
        detail = f"status {printer:02x} {cause:02x} {error:02x} {paper:02x}"
        if paper & 0x60 or cause & 0x20:
            state = PrinterState.PAPER_OUT
        elif cause & 0x04:
            state = PrinterState.COVER_OPEN
        elif error & 0x6C or cause & 0x40:
            state = PrinterState.ERROR
        elif printer & 0x08:
            state = PrinterState.OFFLINE
        elif low:
            state = PrinterState.PAPER_LOW
        else:
            state = PrinterState.READY
        return PrinterStatus(state, paper_low=low, detail=detail)

    # --- printing ----------------------------------------------------------------------

    def print_voucher(self, voucher: Voucher) -> PrintResult:
        """Print one voucher (protocols.md 4.4).

        FAILED if the printer is not ready before anything is sent.  DONE if the whole
        job was processed (the in-order ``GS r 1`` marker came back) and the printer
        is not in error.  UNKNOWN otherwise (timeout, paper out or port lost mid-job):
        the unprinted rest is cleared from the printer's buffer so that it cannot come
        out later, after the engine has turned the voucher into a handpay.
        """
        return self.print_job(self._render(voucher), f"voucher {voucher.sequence}")

    def print_job(self, job: bytes, what: str = "job") -> PrintResult:
        """Print ESC/POS ``job`` bytes (a voucher, or a test ticket of
        ``drivers.void_ticket``) and say how it went, as ``print_voucher`` does;
        ``what`` names it in the log."""
        job = job + GS_R_PAPER
        with self._lock:
            before = self.status()
            if not before.can_print:
                log.warning("not printing %s: %s", what, before)
                return PrintResult.FAILED
            assert self._port is not None
            try:
                self._port.reset_input_buffer()
                self._port.write(job)
            except PORT_ERRORS as exc:
                log.warning("port lost while sending %s: %s", what, exc)
                self._close_port()
                return PrintResult.UNKNOWN
            try:
                marker = self._read_byte(self.print_timeout_s)
            except PORT_ERRORS:
                self._close_port()
                return PrintResult.UNKNOWN
            if marker is None or not valid_paper_sensor_byte(marker):
                self._abandon_job()
                return PrintResult.UNKNOWN
            after = self.status()
            if after.state in (PrinterState.ERROR, PrinterState.COVER_OPEN, PrinterState.OFFLINE):
                return PrintResult.UNKNOWN
            return PrintResult.DONE

    def _abandon_job(self) -> None:
        if self._port is None:
            return
        try:
            self._port.write(CLEAR_BUFFER)
            self._port.reset_input_buffer()
        except PORT_ERRORS:
            self._close_port()

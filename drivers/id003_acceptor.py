"""ID-003 bill acceptor driver: a pyserial loop around the sans-I/O ``id003_host``.

Owns: the port (open, reconnect with backoff, reply timeouts), the poll thread, and
performing what ``id003_host.Id003Host`` asks (write a frame and read its reply,
wait a poll interval, call ``decide``/``credit``/``sink``).  The protocol itself --
protocols.md 1.7 (start-up), 1.8 (credit exactly once) and 1.9 (failure handling)
-- is the host's: frames are built and parsed by ``id003_codec``.
Must not import: cabinet.*, gpiozero.  Transport comes from ``drivers.serial_port``.

Threading: one background poll thread per driver (``start``).  ``decide``, ``credit``
and ``sink`` are called on that thread.  ``set_accepting`` and ``close`` may be called
from any thread.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from drivers import id003_codec as c
from drivers import id003_host as h
from drivers.errors import DeviceOfflineError, DriverError
from drivers.events import (
    Device,
    DeviceFault,
    DeviceOffline,
    DeviceOnline,
)
from drivers.interfaces import (
    BillAcceptor,
    CreditCallback,
    DecideCallback,
    EventSink,
    OpenTransaction,
)
from drivers.serial_port import PORT_ERRORS, SerialLike, close_quietly, open_serial

log = logging.getLogger(__name__)

Opener = Callable[[str], SerialLike]


def _open_id003(url: str) -> SerialLike:
    return open_serial(url, baudrate=9600, parity="E", timeout_s=0.02)


class Id003BillAcceptor(BillAcceptor):
    """JCM ID-003 validator over a serial port (9600 8E1).

    Wiring: the validator's RS-232 (or TTL via level shifter) to a USB-serial adapter;
    configure ``url`` with a stable path (``/dev/serial/by-id/...``).

    Args:
        url: port path or pyserial URL, opened with ``exclusive=True``.
        decide: engine callback at escrow (see ``interfaces.DecideCallback``).
        credit: engine callback at VEND VALID (see ``interfaces.CreditCallback``).
        sink: receives every other event (``interfaces.EventSink``).  For
            ``BillFoundInStacker`` and ``BillPossiblyInPath`` it must return only
            once the engine journaled them and raise otherwise: the driver then
            keeps the transaction (and does not RESET) and reports it again.
        open_transaction: the engine's journaled-but-unclosed escrow after a restart,
            or None.  It is this driver's transaction from the start: a
            VEND VALID or power-up status found pending is attributed to it
            (``recovered=True``); the same item still in escrow is STACKed again
            under it (never a second transaction); anything else retires it
            (``BillReturned``).  ``credited=True``: a repeated VEND VALID is only
            ACKed and a power-up "bill in stacker" owes nothing.
        escrow_table_minor: fallback escrow code -> value (minor units) if the device's
            currency assignment (0x8A) cannot be read.  Default: US table.
        enabled_denominations_minor: values the validator may accept; None = all.
            Others are refused by the validator itself (0xC0 mask).
        accept_vouchers: allow barcode tickets (0xC6/0xC7).
        poll_interval_s: time between status polls (protocols.md: ~0.2 s).
        reply_timeout_s: wait this long for a reply before counting a failure.
        offline_after_failures: consecutive unanswered polls before the device is
            declared offline (default 3: offline within ~1 s).
        backoff_s: (first, max) reconnect delay in seconds; doubles on each failure.
        opener: opens the port (tests may pass fakes); default ``open_serial`` 8E1.
        new_transaction_id: returns a fresh unique id; default 16 random hex digits.

    Events sent to ``sink``: ``TransactionClosed``, ``BillReturned``, ``BillRejected``,
    ``BillFoundInStacker``, ``VendValidRepeated``, ``DeviceOnline``, ``DeviceOffline``,
    ``DeviceFault`` (codes from ``id003_codec.FAULT_NAMES`` plus
    "vend_valid_unattributed", "unknown_escrow_code", "invalid_command",
    "setting_not_echoed"), ``DeviceFaultCleared``.
    """

    def __init__(
        self,
        url: str,
        *,
        decide: DecideCallback,
        credit: CreditCallback,
        sink: EventSink,
        open_transaction: OpenTransaction | None = None,
        escrow_table_minor: Mapping[int, int] | None = None,
        enabled_denominations_minor: Iterable[int] | None = None,
        accept_vouchers: bool = True,
        poll_interval_s: float = 0.2,
        reply_timeout_s: float = 0.25,
        offline_after_failures: int = 3,
        backoff_s: tuple[float, float] = (0.1, 2.0),
        opener: Opener = _open_id003,
        new_transaction_id: Callable[[], str] = lambda: secrets.token_hex(8),
    ) -> None:
        self.url = url
        self._decide = decide
        self._credit = credit
        self._sink = sink
        self.poll_interval_s = poll_interval_s
        self.reply_timeout_s = reply_timeout_s
        self._backoff_s = backoff_s
        self._opener = opener
        self._host = h.Id003Host(
            open_transaction=open_transaction,
            escrow_table_minor=escrow_table_minor,
            enabled_denominations_minor=enabled_denominations_minor,
            accept_vouchers=accept_vouchers,
            offline_after_failures=offline_after_failures,
            new_transaction_id=new_transaction_id,
        )
        self._port: SerialLike | None = None
        #: the firmware version read at the last start-up ("": not reported)
        self.firmware = ""
        self._online = False
        self._offline_reported = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- public API --------------------------------------------------------------------

    def start(self) -> None:
        """Start the poll thread; it opens the port and runs the start-up sequence."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="id003-poll", daemon=True)
        self._thread.start()

    def set_accepting(self, accepting: bool) -> None:
        """Thread-safe: enable (True) or inhibit (False) acceptance at the next idle poll."""
        with self._lock:
            self._host.want_accepting = accepting

    def report_state(self) -> None:
        """Send the current state now (``BillAcceptor.report_state``), from the last poll."""
        if not self._online:
            self._emit(DeviceOffline(Device.BILL_ACCEPTOR, "not connected"))
        elif self._host.fault is not None:
            self._emit(DeviceFault(Device.BILL_ACCEPTOR, self._host.fault, ""))
        else:
            self._emit(DeviceOnline(Device.BILL_ACCEPTOR, "reported again"))

    @property
    def online(self) -> bool:
        """True after a completed start-up and until the port is lost."""
        return self._online

    @property
    def escrow_table_minor(self) -> dict[int, int]:
        """Escrow code -> value in use (minor units): the device's, else the fallback."""
        return self._host.escrow_table_minor

    @property
    def crc_errors(self) -> int:
        """Frames dropped for a bad CRC so far."""
        return self._host.crc_errors

    @property
    def _txn(self) -> h.Transaction | None:
        """The item between escrow and its close, if any (tests read it)."""
        return self._host.txn

    def close(self) -> None:
        """Stop polling and close the port.  Never touches credits.  Idempotent."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
        self._close_port()

    # --- synchronous steps (also used by tests) ----------------------------------------

    def connect(self) -> None:
        """Open the port and run the start-up sequence (protocols.md 1.7).

        Raises:
            DeviceOfflineError: port missing or the validator does not answer.
            DeviceBusyError: port locked by another process.
        """
        self._close_port()
        self._port = self._opener(self.url)
        self._host.link_reset()
        try:
            self._port.reset_input_buffer()
            self._drive(self._host.start_up())
        except PORT_ERRORS as exc:
            self._close_port()
            raise DeviceOfflineError(f"{self.url}: {exc}") from exc
        except DriverError:
            self._close_port()
            raise
        self._online = True
        self._offline_reported = False
        try:  # shown on the Diagnostics page
            firmware = self.read_version()
        except DriverError:
            firmware = ""
        except PORT_ERRORS:  # the port went: the next poll finds it offline
            firmware = ""
        self.firmware = firmware
        self._emit(DeviceOnline(Device.BILL_ACCEPTOR, f"escrow table {self.escrow_table_minor}", firmware))

    def read_version(self) -> str:
        """The validator's firmware version (VERSION REQUEST 0x88, protocols.md 1.4),
        after ``connect`` and with no poll thread running (``cabinet doctor``).

        Returns: the reply's ASCII text (non-printable bytes as ``?``), ``""`` when the
        validator answers something else.

        Raises:
            DeviceOfflineError: port not open, or no reply within ``reply_timeout_s``.
        """
        self._send(c.encode_frame(c.Command.VERSION_REQUEST))
        frame = self._read_frame()
        if frame is None:
            raise DeviceOfflineError(f"{self.url}: no reply to VERSION REQUEST")
        if frame.code != c.Command.VERSION_REQUEST:
            return ""
        return "".join(chr(b) if 32 <= b < 127 else "?" for b in frame.data).strip()

    @property
    def fault(self) -> str | None:
        """The fault code of the last status read (``id003_codec.FAULT_NAMES``), or None."""
        return self._host.fault

    def poll_once(self) -> None:
        """Poll once and act on the reply.

        Raises:
            DeviceOfflineError: port vanished or too many unanswered polls.
        """
        try:
            self._drive(self._host.poll())
        except DriverError:
            raise
        except PORT_ERRORS as exc:
            raise DeviceOfflineError(f"{self.url}: {exc}") from exc

    # --- poll thread -------------------------------------------------------------------

    def _run(self) -> None:
        delay = self._backoff_s[0]
        while not self._stop.is_set():
            if self._port is None:
                try:
                    self.connect()
                    delay = self._backoff_s[0]
                except Exception as exc:  # DriverError, or a callback raising in start-up
                    self._mark_offline(str(exc))
                    self._stop.wait(delay)
                    delay = min(delay * 2, self._backoff_s[1])
                    continue
            try:
                self.poll_once()
            except DeviceOfflineError as exc:
                self._mark_offline(str(exc))
                continue
            except DriverError as exc:
                log.warning("ID-003: %s", exc)
            except Exception:  # a callback blew up: keep the money loop alive
                log.exception("ID-003 poll failed")
            self._stop.wait(self.poll_interval_s)

    def _mark_offline(self, reason: str) -> None:
        self._close_port()
        self._online = False
        if not self._offline_reported:
            self._offline_reported = True
            if self._host.garbled:
                # bytes arrive but never a valid frame: its own fault.
                self._emit(
                    DeviceFault(
                        Device.BILL_ACCEPTOR,
                        "link_garbled",
                        f"bytes arrive but no valid frame ({self.crc_errors} CRC errors so "
                        f"far): check 9600 baud, 8 data bits, even parity, 1 stop bit",
                    )
                )
            else:
                self._emit(DeviceOffline(Device.BILL_ACCEPTOR, reason))

    def _close_port(self) -> None:
        port, self._port = self._port, None
        close_quietly(port)

    def _emit(self, event: object) -> None:
        try:
            self._sink(event)  # type: ignore[arg-type]
        except Exception:
            log.exception("event sink raised for %r", event)

    # --- performing the host's actions -------------------------------------------------

    def _drive(self, action: h.Action) -> None:
        """Perform ``action`` and every one after it until the host's step is finished.

        An action that raises is handed back to the host (``Id003Host.fail``), which
        raises it on out of the step unless the protocol handles it (a ``decide``
        that raised returns the item).
        """
        host = self._host
        while not isinstance(action, h.Finished):
            try:
                if isinstance(action, h.Send) and action.reply:
                    self._send(action.frame)
                    reply = self._read_frame()
                else:
                    result = self._perform(action)
            except Exception as exc:
                action = host.fail(exc)
                continue
            if isinstance(action, h.Send) and action.reply:
                action = host.receive(reply)
            else:
                action = host.resume(result)

    def _perform(self, action: h.Action) -> object:
        """Everything but a ``Send`` that awaits a reply; returns what ``resume`` takes."""
        if isinstance(action, h.Send):
            self._send(action.frame)
        elif isinstance(action, h.Sleep):
            self._stop.wait(self.poll_interval_s)
        elif isinstance(action, h.Emit):
            self._emit(action.event)
        elif isinstance(action, h.Journal):
            self._sink(action.event)
        elif isinstance(action, h.Decide):
            return self._decide(action.event)
        elif isinstance(action, h.Credit):
            self._credit(action.event)
        return None

    def _send(self, frame: bytes) -> None:
        """Write ``frame`` after discarding the input waiting: the host is the master
        and each command gets one reply (protocols.md 1.4), so a frame already there
        is a late reply to an earlier command, never this one's."""
        if self._port is None:
            raise DeviceOfflineError("port closed")
        self._port.reset_input_buffer()
        self._port.write(frame)

    def _read_frame(self) -> c.Frame | None:
        """The first valid frame within ``reply_timeout_s``, or None."""
        assert self._port is not None
        deadline = time.monotonic() + self.reply_timeout_s
        while True:
            chunk = self._port.read(max(1, self._port.in_waiting))
            if chunk:
                frame = self._host.decode(chunk)
                if frame is not None:
                    return frame
            if time.monotonic() >= deadline:
                return None

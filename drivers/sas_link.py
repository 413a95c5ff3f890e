"""The SAS host link of one EGM: the serial port, one thread, and the pure responder.

Owns: ``SasLink`` (opens the port at 19,200 8N1 with the wakeup bit as PARMRK bytes,
feeds ``drivers.sas.egm.EgmResponder``, writes each reply at once, hands host commands,
exception ACKs and link changes to the engine, reopens a lost port with backoff, and
computes the 0x21 ROM signature in a background thread) and ``program_chunks`` (reads
the program files for it).
Must not import: cabinet.*.  Only drivers/ may import ``serial``.

Threads: the link thread is the only one touching the port and the responder.  The
engine calls ``update(view)`` from its own thread (an atomic reference swap, applied
before the next poll is answered).  ``on_output`` runs ON THE LINK THREAD: it must
return at once (post to a queue, set a flag); a callback that blocks delays every reply
past the protocol's 20 ms, and one that raises is logged and counted, never fatal.

Port settings (research/sas.md "Physical and link layer"; drivers/sas/__init__.py):
- real UART: SPACE parity with ``INPCK|PARMRK`` (and ``IGNPAR``/``ISTRIP`` clear), so a
  byte sent with the wakeup bit is a parity error and the kernel delivers ``FF 00 b``,
  a literal ``FF`` as ``FF FF``.
- pseudo-terminal (simulation, tests; detected by device major number, or forced with
  ``pty=True``): raw, no PARMRK: the host twin writes the encoded stream itself and a
  line discipline with PARMRK would double its FFs.
"""

from __future__ import annotations

import logging
import queue
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from drivers.errors import DriverError
from drivers.sas.egm import EgmResponder, ExceptionAcked, LinkChanged, Output, RomSignatureRequested
from drivers.sas.egm_replies import Wall
from drivers.sas.egm_tito import HostDataRejected
from drivers.sas.egm_view import EgmView, HostCommand
from drivers.sas.rom_signature import RomSignature
from drivers.serial_port import PORT_ERRORS, SerialLike, close_quietly, is_pty, open_serial

log = logging.getLogger(__name__)

BAUD = 19200
#: At most one "line errors" warning per this many seconds (the counts since the last).
LINE_ERROR_LOG_S = 60.0
#: The codec's drop reasons that are line errors (a bad cable, a wrong baud rate or
#: parity), and ``marker`` (an ``FF x`` the PARMRK convention does not allow).
LINE_ERRORS = ("crc", "truncated", "length", "stray", "marker")
#: Bytes of a program file read per ROM signature step (about 1 ms of CRC in CPython:
#: the link thread gets the interpreter back between steps).
ROM_CHUNK = 4096

_OPEN_ERRORS: tuple[type[BaseException], ...] = (DriverError, *PORT_ERRORS)

EngineOutput = HostCommand | ExceptionAcked | LinkChanged


def program_chunks(paths: Sequence[Path], chunk_size: int = ROM_CHUNK) -> Iterator[bytes]:
    """The program image for the 0x21 signature: each file's bytes, in the given
    (manifest) order, in chunks of at most ``chunk_size``.  A file that cannot be read
    is logged and left out (the signature then differs: the host sees a mismatch)."""
    for path in paths:
        try:
            with open(path, "rb") as f:
                while chunk := f.read(chunk_size):
                    yield chunk
        except OSError as exc:
            log.error("SAS ROM signature: %s cannot be read (%s): left out", path, exc)


def set_wakeup_mode(fd: int, pty: bool) -> None:
    """Set the input flags for the wakeup bit on an open port (see the module docstring).

    Raises:
        termios.error: the fd is not a terminal.
    """
    attrs = termios.tcgetattr(fd)
    iflag = attrs[0] & ~(
        termios.IGNPAR | termios.ISTRIP | termios.IXON | termios.IXOFF | termios.INLCR | termios.IGNCR | termios.ICRNL
    )
    if pty:
        iflag &= ~(termios.PARMRK | termios.INPCK)
    else:
        iflag |= termios.PARMRK | termios.INPCK
    attrs[0] = iflag
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def local_wall() -> Wall:
    """The machine's local date and time as (year, month, day, hour, minute, second)."""
    t = time.localtime()
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, min(t.tm_sec, 59))


class LineErrorLog:
    """When to log line errors: the first at once, then at most one line per
    ``every_ms`` with what was counted since the last line.  No clock: ``now_ms`` in."""

    def __init__(self, every_ms: int) -> None:
        self.every_ms = every_ms
        self._logged: dict[str, int] = {}
        self._last_ms: int | None = None

    def due(self, counts: dict[str, int], now_ms: int) -> dict[str, int] | None:
        """The errors by kind since the last line when a line is due now, else None."""
        new = {k: n - self._logged.get(k, 0) for k, n in counts.items() if n > self._logged.get(k, 0)}
        if not new or (self._last_ms is not None and now_ms - self._last_ms < self.every_ms):
            return None
        self._logged, self._last_ms = dict(counts), now_ms
        return new


class SasLink:
    """One EGM's SAS link on one serial port (see the module docstring).

    Status (read from any thread): ``up``, ``port_open``, ``last_poll_wall_s``,
    ``polls``, ``counts``, ``line_errors``, ``reply_delays_ms``.  Line errors are
    logged as one warning per ``LINE_ERROR_LOG_S`` at most.
    """

    def __init__(
        self,
        port_url: str,
        address: int,
        on_output: Callable[[EngineOutput], None],
        program_files: Sequence[Path] = (),
        *,
        wall_clock: Callable[[], Wall] = local_wall,
        pty: bool | None = None,
        read_timeout_s: float = 0.01,
        backoff_s: tuple[float, float] = (0.2, 5.0),
        link_timeout_ms: int | None = None,
        opener: Callable[..., SerialLike] = open_serial,
    ) -> None:
        """Args:
            port_url: a device path, a pty, or any pyserial URL.
            address: SAS address 1..127 (the views' address wins once they come).
            on_output: gets each ``HostCommand``, ``ExceptionAcked`` and
                ``LinkChanged``, on the link thread: must not block (module docstring).
            program_files: the program manifest's files, in manifest order (0x21).
            wall_clock: the cabinet's local date and time for 0x7E (the engine may pass
                one that adds the host's clock offset).
            pty: force pty (raw) or UART (PARMRK) mode; None: detect.
            read_timeout_s: the port read timeout (how often the link looks at the clock).
            backoff_s: (first, max) delay between attempts to reopen a lost port.
            link_timeout_ms: no poll for this long = link down (default 5 s).

        Raises:
            ValueError: address outside 1..127.
        """
        kw = {} if link_timeout_ms is None else {"link_timeout_ms": link_timeout_ms}
        self._responder = EgmResponder(address, **kw)
        self._url = port_url
        self._on_output = on_output
        self._program_files = tuple(program_files)
        self._wall_clock = wall_clock
        self._pty = pty
        self._read_timeout_s = read_timeout_s
        self._backoff_s = backoff_s
        self._opener = opener
        self._port: SerialLike | None = None
        self._latest: EgmView | None = None
        self._applied: EgmView | None = None
        self._rom_results: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
        self._rom_generation = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_poll_wall_s: float | None = None
        self._open_failures = 0
        self._link_counts = dict(
            opens=0, port_errors=0, writes=0, callback_errors=0, view_errors=0, rom_signatures=0, host_data_rejected=0
        )
        self._line_log = LineErrorLog(int(LINE_ERROR_LOG_S * 1000))
        #: the last 1,000 delays from the read that completed a poll to its reply written, ms
        self.reply_delays_ms: deque[float] = deque(maxlen=1000)

    # --- control ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the link thread (opens the port; a missing port is retried, not raised)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"sas-link-{self._responder.codec.address}", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop the thread and close the port."""
        self._stop.set()
        self._rom_generation += 1
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        self._close()

    def update(self, view: EgmView) -> None:
        """Answer from ``view`` from the next poll on (thread-safe: a reference swap)."""
        self._latest = view

    # --- status ----------------------------------------------------------------------------

    @property
    def up(self) -> bool:
        """True while the host polls this EGM (no 5 s gap)."""
        return self._responder.up

    @property
    def port_open(self) -> bool:
        """True while the port is open."""
        return self._port is not None

    @property
    def last_poll_wall_s(self) -> float | None:
        """``time.time()`` of the last poll to our address, None before the first."""
        return self._last_poll_wall_s

    @property
    def polls(self) -> int:
        """Polls to our address seen."""
        return self._responder.polls

    @property
    def counts(self) -> dict[str, int]:
        """Codec drops (crc, truncated...), responder and link counters, in one dict."""
        return {**self._responder.codec.counts, **self._responder.counts, **self._link_counts}

    @property
    def line_errors(self) -> dict[str, int]:
        """Line errors counted since start, by kind (``LINE_ERRORS``)."""
        codec = self._responder.codec
        counts = {k: int(codec.counts.get(k, 0)) for k in LINE_ERRORS if k != "marker"}
        counts["marker"] = int(codec.wakeup.marker_errors)
        return counts

    def _log_line_errors(self, now_ms: int) -> None:
        new = self._line_log.due(self.line_errors, now_ms)
        if new:
            log.warning(
                "SAS link %s: line errors %s (totals since start: %s): check the "
                "cable, %d baud and the wakeup bit (parity)",
                self._url,
                ", ".join(f"{k} {n}" for k, n in new.items()),
                ", ".join(f"{k} {n}" for k, n in self.line_errors.items() if n),
                BAUD,
            )

    # --- the link thread -------------------------------------------------------------------

    def _run(self) -> None:
        delay = self._backoff_s[0]
        while not self._stop.is_set():
            if self._port is None:
                if not self._open():
                    deadline = time.monotonic() + delay
                    while not self._stop.is_set() and time.monotonic() < deadline:
                        self._dispatch(self._responder.tick(self._now_ms()))
                        self._stop.wait(min(0.25, max(0.0, deadline - time.monotonic())))
                    delay = min(delay * 2, self._backoff_s[1])
                    continue
                delay = self._backoff_s[0]
            try:
                self._serve_once()
            except PORT_ERRORS as exc:
                self._link_counts["port_errors"] += 1
                log.warning("SAS link %s: port error (%s): reopening", self._url, exc)
                self._close()
            except Exception:
                self._link_counts["port_errors"] += 1
                log.exception("SAS link %s: unexpected error: reopening", self._url)
                self._close()

    @staticmethod
    def _now_ms() -> int:
        return time.monotonic_ns() // 1_000_000

    def _open(self) -> bool:
        try:
            pty = is_pty(self._url) if self._pty is None else self._pty
            port = self._opener(self._url, baudrate=BAUD, parity="N" if pty else "S", timeout_s=self._read_timeout_s)
            fileno = getattr(port, "fileno", None)
            if fileno is not None:
                try:
                    set_wakeup_mode(fileno(), pty)
                except (termios.error, OSError, ValueError) as exc:
                    log.warning("SAS link %s: cannot set the wakeup mode (%s)", self._url, exc)
        except _OPEN_ERRORS as exc:
            self._open_failures += 1
            # The first failure is a warning; the retries (every few seconds) stay quiet.
            log.log(
                logging.WARNING if self._open_failures == 1 else logging.DEBUG,
                "SAS link %s: cannot open (%s); retrying with backoff",
                self._url,
                exc,
            )
            return False
        self._open_failures = 0
        self._port = port
        self._responder.reset_line()
        self._link_counts["opens"] += 1
        log.info("SAS link %s open (%s mode)", self._url, "pty" if pty else "UART PARMRK")
        return True

    def _close(self) -> None:
        port, self._port = self._port, None
        close_quietly(port)

    def _serve_once(self) -> None:
        port = self._port
        assert port is not None
        data = port.read(1)
        if data:
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
        got = time.perf_counter()
        self._apply_inbox()
        responder = self._responder
        polls = responder.polls
        now = self._now_ms()
        outs = responder.receive(data, now, self._wall_clock()) if data else responder.tick(now)
        wrote = False
        for out in outs:
            if isinstance(out, bytes):
                port.write(out)  # one write per reply: no gap between its bytes
                self._link_counts["writes"] += 1
                wrote = True
        if wrote:
            self.reply_delays_ms.append((time.perf_counter() - got) * 1000.0)
        if responder.polls != polls:
            self._last_poll_wall_s = time.time()
        self._dispatch(outs)
        if data:
            self._log_line_errors(now)

    def _apply_inbox(self) -> None:
        view = self._latest
        if view is not None and view is not self._applied:
            self._applied = view
            try:
                self._responder.update(view)
            except ValueError as exc:
                self._link_counts["view_errors"] += 1
                log.error("SAS link %s: view refused (%s)", self._url, exc)
        while True:
            try:
                seed, signature = self._rom_results.get_nowait()
            except queue.Empty:
                break
            self._responder.rom_signature_ready(seed, signature)

    def _dispatch(self, outs: list[Output]) -> None:
        for out in outs:
            if isinstance(out, bytes):
                continue
            if isinstance(out, RomSignatureRequested):
                self._start_rom_signature(out.seed)
                continue
            if isinstance(out, HostDataRejected):  # logged here, the engine need not hear
                self._link_counts["host_data_rejected"] += 1
                log.warning(
                    "SAS link %s: refused long poll 0x%02X (answered %s): %s",
                    self._url,
                    out.command,
                    out.reply,
                    out.reason,
                )
                continue
            if isinstance(out, LinkChanged):
                log.log(
                    logging.INFO if out.up else logging.WARNING,
                    "SAS link %s: host %s",
                    self._url,
                    "online" if out.up else "offline (no poll for 5 s)",
                )
            elif isinstance(out, HostCommand):
                log.info("SAS link %s: host command %s (0x%02X)", self._url, out.name, out.command)

            try:
                self._on_output(out)
            except Exception:
                self._link_counts["callback_errors"] += 1
                log.exception("SAS link %s: on_output raised for %r", self._url, out)

    # --- ROM signature (background) --------------------------------------------------------

    def _start_rom_signature(self, seed: int) -> None:
        self._rom_generation += 1
        generation = self._rom_generation
        log.info(
            "SAS link %s: host asked for the ROM signature (seed 0x%04X) over %d files",
            self._url,
            seed,
            len(self._program_files),
        )
        threading.Thread(
            target=self._rom_worker, args=(seed, generation), name="sas-rom-signature", daemon=True
        ).start()

    def _rom_worker(self, seed: int, generation: int) -> None:
        sig = RomSignature(seed)
        for chunk in program_chunks(self._program_files):
            if generation != self._rom_generation:
                return  # a newer request (or stop) replaced this one
            sig.feed(chunk)
            time.sleep(0)  # hand the interpreter to the link thread between chunks
        if generation == self._rom_generation:
            self._link_counts["rom_signatures"] += 1
            log.info(
                "SAS link %s: ROM signature 0x%04X (seed 0x%04X, %d bytes)", self._url, sig.value, seed, sig.bytes_done
            )
            self._rom_results.put((seed, sig.value))

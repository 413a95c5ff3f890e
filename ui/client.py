"""Engine client: Unix-socket connection, hello, reconnect with backoff, intents out.

Owns: the UI end of the socket. A daemon thread connects, sends
``Hello(protocol=PROTOCOL, role="ui", token=...)`` with the engine's token
read afresh from its token file at each connect (``ipc.token_path``; without
it the engine treats us as an observer and refuses intents; a
``not_authorized`` reply drops the link so the next connect reads the token
again), reads JSON lines and queues every
decoded message (``Snapshot``, ``Cue``, ``Error``...) plus ``Link`` markers
when the connection comes or goes. A malformed line is logged and skipped;
an over-long line, a protocol mismatch, ``Goodbye`` or EOF drop the
connection and the thread reconnects with exponential backoff. The UI
thread drains the queue with ``poll()`` and sends with ``send()``.
Imports only ``cabinet.protocol.ipc``/``cabinet.protocol.snapshot`` from the engine side.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cabinet.protocol.ipc import (
    PROTOCOL,
    Error,
    Frame,
    Goodbye,
    Hello,
    Intent,
    LineBuffer,
    Message,
    MessageError,
    decode,
    encode,
    token_path,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Link:
    """The connection came up (``up=True``) or went down."""

    up: bool
    reason: str = ""


Event = Message | Link


class EngineClient:
    """Keeps a connection to the engine open, forever, until ``stop()``.

    Args:
        path: the engine's Unix socket path.
        name: sent in ``Hello.name``.
        notify: called from the socket thread after anything is queued (the
            app uses it to wake its loop); must be thread-safe and quick.
        backoff_initial_s: first retry delay after a failure, in seconds.
        backoff_max_s: cap on the retry delay, in seconds.
        read_timeout_s: socket read timeout; bounds how long ``stop()`` waits.
        token_file: the engine's token file (default ``ipc.token_path(path)``).
    """

    def __init__(
        self,
        path: str,
        *,
        name: str = "table-ui",
        notify: Callable[[], None] | None = None,
        backoff_initial_s: float = 0.1,
        backoff_max_s: float = 2.0,
        read_timeout_s: float = 0.5,
        token_file: str | Path | None = None,
    ) -> None:
        self.path = path
        self.name = name
        self.token_file = Path(token_file) if token_file is not None else token_path(path)
        self._notify = notify or (lambda: None)
        self._b0 = backoff_initial_s
        self._bmax = backoff_max_s
        self._read_timeout_s = read_timeout_s
        self._q: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.connects = 0  # successful connections so far (tests, bench)

    # -- UI thread -----------------------------------------------------------

    def start(self) -> None:
        """Start the socket thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="engine-client", daemon=True)
            self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Close the connection and join the thread (waits at most ``timeout_s``)."""
        self._stop.set()
        self._close("stopping")
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def send(self, intent: Intent | Frame) -> bool:
        """Send an intent (or a ``Frame`` heartbeat) now; False when not connected (the
        intent is dropped: the player sees play suspended and presses again)."""
        data = encode(intent)
        with self._lock:
            sock = self._sock
            if sock is None:
                return False
            try:
                sock.sendall(data)
                return True
            except OSError as e:
                log.warning("send failed: %s", e)
                return False

    def poll(self) -> list[Event]:
        """Everything received since the last call, in order (never blocks)."""
        out: list[Event] = []
        while True:
            try:
                out.append(self._q.get_nowait())
            except queue.Empty:
                return out

    # -- socket thread ----------------------------------------------------------

    def _put(self, ev: Event) -> None:
        self._q.put(ev)
        self._notify()

    def _close(self, reason: str) -> None:
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _run(self) -> None:
        delay = self._b0
        while not self._stop.is_set():
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(1.0)
                sock.connect(self.path)
                sock.sendall(encode(Hello(protocol=PROTOCOL, role="ui", name=self.name, token=self._token())))
                sock.settimeout(self._read_timeout_s)
            except OSError as e:
                log.debug("connect to %s failed: %s", self.path, e)
                self._stop.wait(delay)
                delay = min(self._bmax, delay * 2)
                continue
            with self._lock:
                self._sock = sock
            self.connects += 1
            delay = self._b0
            self._put(Link(True))
            reason = self._read(sock)
            self._close(reason)
            if not self._stop.is_set():
                log.info("engine link down: %s", reason)
                self._put(Link(False, reason))
            self._stop.wait(delay)

    def _token(self) -> str:
        """The engine's current token, or "" (an observer) when the file cannot be read."""
        try:
            return self.token_file.read_text().strip()
        except OSError as e:
            log.warning("no engine token (%s): connecting as an observer, intents refused", e)
            return ""

    def _read(self, sock: socket.socket) -> str:
        """Read until the connection ends; returns why it ended."""
        buf = LineBuffer()
        while not self._stop.is_set():
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError as e:
                return f"read error: {e}"
            if not data:
                return "engine closed the connection"
            try:
                lines = buf.feed(data)
            except MessageError as e:
                return f"bad stream: {e}"
            for line in lines:
                if not line.strip():
                    continue
                try:
                    msg = decode(line)
                except MessageError as e:
                    log.warning("ignored a bad line from the engine: %s", e)
                    continue
                if isinstance(msg, Hello):
                    if msg.protocol != PROTOCOL:
                        return f"engine speaks protocol {msg.protocol}, we speak {PROTOCOL}"
                    continue
                if isinstance(msg, Goodbye):
                    return f"engine said goodbye: {msg.reason}"
                self._put(msg)
                if isinstance(msg, Error) and msg.code == "not_authorized":
                    # the engine restarted with a new token, or we read none: try again
                    return f"engine refused us as the display: {msg.message}"
        return "stopping"

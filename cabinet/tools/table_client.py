"""The demo player's two links to a running engine: the table as a UI client
sees it, and the simulation's control socket.

Owns: ``TableWatch`` (a second UI client: ``Hello`` role ``ui``, keeps the latest
snapshot; with the engine's token its touches count, as the display's do),
``SimControl`` (JSON-line commands to the engine's sim control socket: notes,
panel buttons, the operator key, doors, the printer twin's tickets) and
``DemoError``. Reused by the end-to-end tests and ``bench/table_ui.py``.

Threads: a ``TableWatch`` reads its socket on a daemon thread; everything else
runs on the caller's thread. Every wait has a timeout.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cabinet.protocol.ipc import (
    PROTOCOL,
    Hello,
    Intent,
    LineBuffer,
    MessageError,
    decode,
    encode,
    token_path,
)
from cabinet.protocol.snapshot import Snapshot


class DemoError(RuntimeError):
    """The table did not do what the demo expected within its timeout."""


def rounds_dealt(before: Snapshot | None, after: Snapshot) -> int:
    """How many rounds were dealt between snapshot ``before`` (``None``: the first
    one) and the next one, ``after``: the rise of the engine's round number (a Deal
    may clear a settled round and deal the next in one snapshot, so the dealer's
    cards need not leave the table between two rounds)."""
    return 0 if before is None else max(0, after.round_id - before.round_id)


# -- the two connections ------------------------------------------------------------------


class TableWatch:
    """A read-only UI client: keeps the latest snapshot (``on_snapshot`` also gets
    when each arrived).

    Args:
        path: the engine's UI socket.
        name: sent in ``Hello.name``.
        on_snapshot: called on the reader thread with each snapshot and its
            arrival time (``time.perf_counter()`` seconds).
        authenticate: send the engine's token (read from ``ipc.token_path(path)``)
            so ``touch`` intents count; without it the engine refuses them
            (an observer).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        name: str = "demo-player",
        on_snapshot: Callable[[Snapshot, float], None] | None = None,
        authenticate: bool = False,
    ) -> None:
        self.path = str(path)
        self.name = name
        self.authenticate = authenticate
        self.on_snapshot = on_snapshot
        self.snapshot: Snapshot | None = None
        self._cond = threading.Condition()
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.closed = False
        #: rounds dealt since the first snapshot (``rounds_dealt``; counted on the
        #: reader thread, so a round that settles at once is counted even when a
        #: waiter wakes late).
        self.rounds_started = 0
        self._send_lock = threading.Lock()

    def start(self, timeout_s: float = 10.0) -> TableWatch:
        """Connect, say hello and wait for the first snapshot.

        Raises:
            DemoError: no snapshot within ``timeout_s``.
            OSError: the socket (or, with ``authenticate``, the token file) cannot be reached.
        """
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout_s)
        s.connect(self.path)
        token = token_path(self.path).read_text().strip() if self.authenticate else ""
        s.sendall(encode(Hello(protocol=PROTOCOL, role="ui", name=self.name, token=token)))
        s.settimeout(None)
        self._sock = s
        self._thread = threading.Thread(target=self._read, name="table-watch", daemon=True)
        self._thread.start()
        self.wait_for(lambda snap: True, timeout_s, "the first snapshot")
        return self

    def touch(self, action: str, value: int | None = None, station: int = 1) -> None:
        """Send an intent as the touch screen would (chip tables only: the default
        wiring has no chip or spot buttons)."""
        assert self._sock is not None
        with self._send_lock:  # players of several stations may share one watch
            self._sock.sendall(encode(Intent(station=station, action=action, value=value)))

    def close(self) -> None:
        self.closed = True
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        if self._thread is not None:
            self._thread.join(2.0)

    def _read(self) -> None:
        assert self._sock is not None
        buf = LineBuffer()
        try:
            while data := self._sock.recv(65536):
                for line in buf.feed(data):
                    try:
                        msg = decode(line)
                    except MessageError:
                        continue
                    if isinstance(msg, Snapshot):
                        now = time.perf_counter()
                        if self.on_snapshot is not None:
                            self.on_snapshot(msg, now)
                        with self._cond:
                            self.rounds_started += rounds_dealt(self.snapshot, msg)
                            self.snapshot = msg
                            self._cond.notify_all()
        except (OSError, MessageError):
            pass
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    @property
    def seq(self) -> int:
        return self.snapshot.seq if self.snapshot is not None else -1

    def wait_for(self, pred: Callable[[Snapshot], bool], timeout_s: float, what: str = "the table") -> Snapshot:
        """The first snapshot (the current one included) for which ``pred`` holds.

        Raises:
            DemoError: not within ``timeout_s`` seconds, or the engine went away.
        """
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                snap = self.snapshot
                if snap is not None and pred(snap):
                    return snap
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    mode = snap.mode if snap is not None else "no snapshot"
                    raise DemoError(f"waited {timeout_s:.0f} s for {what} (table: {mode})")
                self._cond.wait(left)

    def wait_newer(self, seq: int, timeout_s: float) -> Snapshot | None:
        """The next snapshot after ``seq``, or ``None`` when none came in time."""
        try:
            return self.wait_for(lambda s: s.seq > seq, timeout_s, "a new snapshot")
        except DemoError:
            return None


class SimControl:
    """The engine's sim control socket (JSON lines, one reply per command)."""

    def __init__(self, path: str | Path, timeout_s: float = 10.0) -> None:
        self.path = str(path)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout_s)
        self._sock.connect(self.path)
        self._file = self._sock.makefile("rw")
        self._lock = threading.Lock()

    def __call__(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Send one command; returns the reply.

        Raises:
            DemoError: the engine refused it (``ok`` false) or closed the socket.
        """
        with self._lock:
            try:
                self._file.write(json.dumps(cmd) + "\n")
                self._file.flush()
                line = self._file.readline()
            except OSError as e:
                raise DemoError(f"sim control: {e}") from None
        if not line:
            raise DemoError("sim control socket closed")
        reply = dict(json.loads(line))
        if not reply.get("ok"):
            raise DemoError(f"sim control refused {cmd}: {reply.get('error')}")
        return reply

    def press(self, action: str, station: int = 1) -> dict[str, Any]:
        """Press the mock panel button ``action`` of ``station``'s panel."""
        return self({"cmd": "press", "action": action, "station": station})

    def close(self) -> None:
        try:
            self._file.close()
            self._sock.close()
        except OSError:
            pass

"""The engine's Unix-socket server for the table UI.

Owns: accepting UI clients, the ``hello`` handshake with the protocol
version, sending the current snapshot on connect and every snapshot and cue
after, and turning client ``intent`` lines into ``IntentReceived`` events.
Malformed, oversized or out-of-place messages get an ``error`` reply and
change nothing; a client that floods is disconnected; nothing a client sends
can crash the engine (issue: engine "IPC"). I/O: a shell module.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

from cabinet.events import IntentReceived
from cabinet.ipc import (
    PROTOCOL,
    Cue,
    Error,
    Goodbye,
    Hello,
    Intent,
    LineBuffer,
    MessageError,
    decode,
    encode,
)
from cabinet.paths import private_dir
from cabinet.runtime import Engine
from cabinet.snapshot import Snapshot

log = logging.getLogger("cabinet.ui_server")

#: Messages a client may send per second before it is cut off.
FLOOD_LIMIT_PER_S = 100
#: A client whose send queue grows past this many messages is too slow and dropped.
MAX_QUEUE = 500


class _Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.greeted = False
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.window_start = time.monotonic()
        self.window_count = 0

    def send(self, data: bytes) -> None:
        if self.queue.qsize() > MAX_QUEUE:
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(data)


class UIServer:
    """Serves ``engine`` to UI clients on ``socket_path`` (mode 0660).

    Args:
        engine: the running engine (its ``listeners`` get our broadcast).
        socket_path: where the socket file goes; a stale file is replaced.
    """

    def __init__(self, engine: Engine, socket_path: str | Path) -> None:
        self.engine = engine
        self.path = Path(socket_path)
        self.clients: set[_Client] = set()
        self.server: asyncio.AbstractServer | None = None
        engine.listeners.append(self._broadcast)

    async def start(self) -> None:
        """Listen. The socket's folder must be ours and closed to others (0700, or
        0750 for a UI user in our group); one made here is 0700.

        Raises:
            PermissionError: the folder is someone else's or open to others
                (issue 11.17: a hijacked fallback folder in the temp dir).
        """
        private_dir(self.path.parent, group_ok=True)
        if self.path.exists():
            self.path.unlink()
        self.server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        os.chmod(self.path, 0o660)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            for c in list(self.clients):
                c.send(encode(Goodbye(reason="engine stopping")))
                c.queue.put_nowait(None)
            await asyncio.sleep(0)
            try:
                await asyncio.wait_for(self.server.wait_closed(), 1.0)
            except TimeoutError:
                pass
            self.path.unlink(missing_ok=True)    # a clean stop leaves no stale socket

    def _broadcast(self, msg: Snapshot | Cue) -> None:
        data = encode(msg)
        for c in self.clients:
            if c.greeted:
                c.send(data)

    async def _writer(self, c: _Client) -> None:
        try:
            while True:
                data = await c.queue.get()
                if data is None:
                    break
                c.writer.write(data)
                await c.writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            c.writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        c = _Client(reader, writer)
        self.clients.add(c)
        wtask = asyncio.create_task(self._writer(c))
        buf = LineBuffer()
        try:
            while True:
                data = await reader.read(4096)
                if not data:
                    break
                try:
                    lines = buf.feed(data)
                except MessageError as e:
                    c.send(encode(Error(code="too_long", message=str(e))))
                    break
                if not self._rate_ok(c, len(lines)):
                    c.send(encode(Error(code="flood", message="too many messages; goodbye")))
                    log.warning("UI client flooded: disconnected")
                    break
                for line in lines:
                    if line.strip() and not self._on_line(c, line):
                        raise ConnectionAbortedError
        except (ConnectionError, OSError):
            pass
        finally:
            self.clients.discard(c)
            c.queue.put_nowait(None)
            await asyncio.gather(wtask, return_exceptions=True)

    @staticmethod
    def _rate_ok(c: _Client, n: int) -> bool:
        now = time.monotonic()
        if now - c.window_start >= 1.0:
            c.window_start, c.window_count = now, 0
        c.window_count += n
        return c.window_count <= FLOOD_LIMIT_PER_S

    def _on_line(self, c: _Client, line: bytes) -> bool:
        """Handle one line; False to drop the client."""
        try:
            msg = decode(line)
        except MessageError as e:
            c.send(encode(Error(code="malformed", message=str(e))))
            return True
        if not c.greeted:
            if not isinstance(msg, Hello):
                c.send(encode(Error(code="hello_first", message="send hello first")))
                return True
            if msg.protocol != PROTOCOL:
                c.send(encode(Error(code="protocol",
                                    message=f"protocol {msg.protocol}, engine speaks {PROTOCOL}")))
                return False
            c.greeted = True
            c.send(encode(Hello(protocol=PROTOCOL, role="engine", name="cabinet")))
            if self.engine.snapshot is not None:
                c.send(encode(self.engine.snapshot))
            return True
        if isinstance(msg, Intent):
            self.engine.post(IntentReceived(msg.station, msg.action, msg.value))
        elif isinstance(msg, Goodbye):
            return False
        elif not isinstance(msg, Hello):
            c.send(encode(Error(code="not_allowed",
                                message=f"a UI may not send {type(msg).__name__.lower()}")))
        return True

"""The engine's Unix-socket server for the table UI.

Owns: accepting UI clients, the ``hello`` handshake with the protocol
version, sending the current snapshot on connect and every snapshot and cue
after, and turning client ``intent`` lines into ``IntentReceived`` events.
Malformed, oversized or out-of-place messages get an ``error`` reply and
change nothing; a client that floods is disconnected; nothing a client sends
can crash the engine (issue: engine "IPC"). I/O: a shell module.

Who may do what: only a client whose ``hello`` carries the token
the engine wrote to ``ipc.token_path(socket)`` (mode 0640, beside the socket,
new at every start) is the cabinet's display: it may send intents and
``frame`` heartbeats. Any other client is an observer: snapshots and cues
only, every intent refused with ``not_authorized``. Clients are limited
(``MAX_PENDING`` before hello, ``MAX_OBSERVERS``, ``MAX_DISPLAYS``); one that
sends no hello within ``HELLO_TIMEOUT_S``, or does not read what it is sent
(``MAX_QUEUE`` messages behind or a write stuck ``WRITE_TIMEOUT_S``) is
dropped. Each display has at most one intent waiting in the engine's queue,
so no number of clients can hold up a note's credit. The engine is told
(``DisplayChanged``), per screen, whether a display is drawing: a ``frame`` names the
station whose own screen it is (``station`` n) or none (the whole table, ``station``
0); no ``frame`` within ``ipc.DISPLAY_TIMEOUT_S`` of the last, or no display at all,
is dark.
"""

from __future__ import annotations

import asyncio
import grp
import logging
import os
import secrets
import time
from pathlib import Path

from cabinet.core.events import DisplayChanged, IntentReceived
from cabinet.protocol.ipc import (
    DISPLAY_TIMEOUT_S,
    PROTOCOL,
    Cue,
    Error,
    Frame,
    Goodbye,
    Hello,
    Intent,
    LineBuffer,
    MessageError,
    decode,
    encode,
    token_path,
)
from cabinet.protocol.snapshot import Snapshot
from cabinet.shell.engine import Engine
from cabinet.shell.paths import private_dir

log = logging.getLogger("cabinet.ui_server")

#: Messages a client may send per second before it is cut off.
FLOOD_LIMIT_PER_S = 100
#: A client whose send queue grows past this many messages is too slow and dropped.
MAX_QUEUE = 500
#: A write (drain) that does not finish in this many seconds drops the client.
WRITE_TIMEOUT_S = 10.0
#: A client that sends no hello within this many seconds is dropped.
HELLO_TIMEOUT_S = 5.0
#: Connections that have not said hello yet; a new one beyond drops the oldest.
MAX_PENDING = 8
#: Observers (hello without the token); one more is refused with ``busy``.
MAX_OBSERVERS = 8
#: Displays (hello with the token); one more is refused with ``busy``.
MAX_DISPLAYS = 4
#: How often the display watch looks at the frame heartbeats, seconds.
DISPLAY_CHECK_S = 0.5


class _Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.greeted = False
        self.trusted = False
        self.connected_s = time.monotonic()
        self.frame_s: float | None = None  # last Frame heartbeat (monotonic s)
        self.frame_station = 0  # what it draws: 0 the table, n station n
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.window_start = time.monotonic()
        self.window_count = 0
        self.dropped = False

    def send(self, data: bytes) -> None:
        if self.dropped:
            return
        if self.queue.qsize() > MAX_QUEUE:
            self.drop("does not read")
            return
        self.queue.put_nowait(data)

    def drop(self, why: str) -> None:
        """Cut the connection now, whatever is queued (a write stuck on a full
        socket buffer would otherwise never see a queued stop)."""
        if not self.dropped:
            self.dropped = True
            log.warning("UI client dropped: %s", why)
            self.writer.transport.abort()
            self.queue.put_nowait(None)


class UIServer:
    """Serves ``engine`` to UI clients on ``socket_path`` (mode 0660).

    Args:
        engine: the running engine (its ``listeners`` get our broadcast).
        socket_path: where the socket file goes; a stale file is replaced. Its
            token file is ``ipc.token_path(socket_path)`` (mode 0640).
        group: the table UI's group (``CABINET_SOCKET_GROUP``; the engine's user
            is in it): the socket's folder (0750), the socket and the token file are
            given to it, so a UI running as another user can connect and read the
            token, and nothing else of the engine's. ``None``: our own group.
    """

    def __init__(self, engine: Engine, socket_path: str | Path, group: str | None = None) -> None:
        self.engine = engine
        self.path = Path(socket_path)
        self.group = group
        self.token_file = token_path(self.path)
        self.token = ""
        self.clients: set[_Client] = set()
        self.server: asyncio.AbstractServer | None = None
        self.showing: dict[int, bool] = {}  # screen (0 or station) -> what the engine was told
        self._watch: asyncio.Task[None] | None = None
        #: Each connected client's handler, awaited at ``stop``.
        self._handlers: set[asyncio.Task[None]] = set()
        engine.listeners.append(self._broadcast)

    async def start(self) -> None:
        """Listen. The socket's folder must be ours and closed to others (0700, or
        0750 for a UI user in our group); one made here is 0700. Writes a fresh
        token file and tells the engine no display is showing yet.

        Raises:
            PermissionError: the folder is someone else's or open to others
                (a hijacked fallback folder in the temp dir), or
                ``group`` is unknown or not one of ours.
        """
        private_dir(self.path.parent, group_ok=True)
        self.token = self._write_token()
        if self.path.exists() or self.path.is_symlink():
            self.path.unlink()
        self.server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        os.chmod(self.path, 0o660)
        if self.group is not None:
            self._give_to_group(self.group)
        self._tell_display(False, 0)
        self._watch = asyncio.create_task(self._watch_display())

    def _give_to_group(self, group: str) -> None:
        """The socket's folder (0750), the socket and the token file to ``group``."""
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise PermissionError(f"socket group {group!r}: no such group") from None
        try:
            for path in (self.path.parent, self.path, self.token_file):
                os.chown(path, -1, gid, follow_symlinks=False)
            os.chmod(self.path.parent, 0o750)
        except PermissionError as e:
            raise PermissionError(
                f"socket group {group!r}: cannot give {e.filename} to it (is the engine's user in that group?)"
            ) from None

    def _write_token(self) -> str:
        """A new random token in a new 0640 file (umask-independent, never through a symlink)."""
        token = secrets.token_urlsafe(32)
        self.token_file.unlink(missing_ok=True)
        fd = os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640)
        try:
            os.fchmod(fd, 0o640)
            os.write(fd, token.encode() + b"\n")
        finally:
            os.close(fd)
        return token

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        if self.server is not None:
            self.server.close()
            for c in list(self.clients):
                c.send(encode(Goodbye(reason="engine stopping")))
                c.queue.put_nowait(None)
            await self._end_handlers()
            try:
                await asyncio.wait_for(self.server.wait_closed(), 1.0)
            except TimeoutError:
                pass
            self.path.unlink(missing_ok=True)  # a clean stop leaves no stale socket
            self.token_file.unlink(missing_ok=True)

    async def _end_handlers(self) -> None:
        """Let every client's handler end by itself (its writer sends the goodbye, then
        closes: the reader sees the end), then abort what is left; a handler left to
        be cancelled at the loop's close would log a ``CancelledError`` traceback
        (Python 3.11's ``asyncio.streams``)."""
        for grace_s in (1.0, 1.0):
            if not self._handlers:
                return
            await asyncio.wait(set(self._handlers), timeout=grace_s)
            for c in list(self.clients):
                c.writer.transport.abort()

    def _broadcast(self, msg: Snapshot | Cue) -> None:
        data = encode(msg)
        for c in list(self.clients):
            if c.greeted:
                c.send(data)

    # -- the display watch ------------------------------------------------

    def _drawing(self) -> set[int]:
        """The screens drawing now: 0 for the table's, n for station n's own."""
        now = time.monotonic()
        return {
            c.frame_station
            for c in self.clients
            if c.trusted and c.frame_s is not None and now - c.frame_s < DISPLAY_TIMEOUT_S
        }

    def _tell_displays(self) -> None:
        drawing = self._drawing()
        for screen in sorted(set(self.showing) | drawing):
            self._tell_display(screen in drawing, screen)

    def _tell_display(self, showing: bool, screen: int) -> None:
        if showing != self.showing.get(screen):
            self.showing[screen] = showing
            what = f"station {screen}'s display" if screen else "display"
            log.info("%s %s", what, "showing the table" if showing else "dark: notes and presses refused")
            self.engine.post(DisplayChanged(showing, screen))

    async def _watch_display(self) -> None:
        while True:
            await asyncio.sleep(DISPLAY_CHECK_S)
            self._tell_displays()
            now = time.monotonic()
            for c in list(self.clients):
                if not c.greeted and now - c.connected_s > HELLO_TIMEOUT_S:
                    c.drop(f"no hello within {HELLO_TIMEOUT_S:g} s")

    # -- one client -----------------------------------------------------------------------

    async def _writer(self, c: _Client) -> None:
        try:
            while True:
                data = await c.queue.get()
                if data is None:
                    break
                c.writer.write(data)
                await asyncio.wait_for(c.writer.drain(), WRITE_TIMEOUT_S)
        except TimeoutError:
            c.drop(f"a write took over {WRITE_TIMEOUT_S:g} s")
        except (ConnectionError, OSError):
            pass
        finally:
            c.writer.close()

    def _admit(self, c: _Client) -> None:
        pending = sorted((x for x in self.clients if not x.greeted and not x.dropped), key=lambda x: x.connected_s)
        while len(pending) >= MAX_PENDING:
            pending.pop(0).drop(f"over {MAX_PENDING} connections without hello")
        self.clients.add(c)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        c = _Client(reader, writer)
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        self._admit(c)
        wtask = asyncio.create_task(self._writer(c))
        buf = LineBuffer()
        try:
            while not c.dropped:
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
                    if not line.strip():
                        continue
                    ok, intent = self._on_line(c, line)
                    if not ok:
                        raise ConnectionAbortedError
                    if intent is not None:
                        # one intent of this client in the engine's queue at a time:
                        # clients cannot pile up ahead of a note waiting in escrow
                        await asyncio.gather(asyncio.wrap_future(self.engine.post(intent)), return_exceptions=True)
        except (ConnectionError, OSError):
            pass
        except Exception:  # a bug here must not end the engine
            log.exception("UI client handler failed")
        finally:
            self.clients.discard(c)
            c.queue.put_nowait(None)
            await asyncio.gather(wtask, return_exceptions=True)
            if c.trusted:
                self._tell_displays()
            if task is not None:
                self._handlers.discard(task)

    @staticmethod
    def _rate_ok(c: _Client, n: int) -> bool:
        now = time.monotonic()
        if now - c.window_start >= 1.0:
            c.window_start, c.window_count = now, 0
        c.window_count += n
        return c.window_count <= FLOOD_LIMIT_PER_S

    def _on_line(self, c: _Client, line: bytes) -> tuple[bool, IntentReceived | None]:
        """Handle one line; (False, _) to drop the client, (True, event) to post."""
        try:
            msg = decode(line)
        except MessageError as e:
            c.send(encode(Error(code="malformed", message=str(e))))
            return True, None
        if not c.greeted:
            if not isinstance(msg, Hello):
                c.send(encode(Error(code="hello_first", message="send hello first")))
                return True, None
            return self._on_hello(c, msg), None
        if isinstance(msg, Intent):
            if not c.trusted:
                c.send(
                    encode(
                        Error(
                            code="not_authorized",
                            message="this client only watches: intents need the display's token (hello.token)",
                        )
                    )
                )
                return True, None
            return True, IntentReceived(msg.station, msg.action, msg.value)
        if isinstance(msg, Frame):
            if c.trusted:
                c.frame_s = time.monotonic()
                c.frame_station = msg.station or 0
                self._tell_displays()
            else:
                c.send(encode(Error(code="not_authorized", message="only the display reports frames")))
            return True, None
        if isinstance(msg, Goodbye):
            return False, None
        if not isinstance(msg, Hello):
            c.send(encode(Error(code="not_allowed", message=f"a UI may not send {type(msg).__name__.lower()}")))
        return True, None

    def _on_hello(self, c: _Client, msg: Hello) -> bool:
        if msg.protocol != PROTOCOL:
            c.send(encode(Error(code="protocol", message=f"protocol {msg.protocol}, engine speaks {PROTOCOL}")))
            return False
        if msg.role != "ui":
            c.send(
                encode(
                    Error(
                        code="role",
                        message=f'role {msg.role!r} refused: only a UI (role "ui") may connect to this socket',
                    )
                )
            )
            return False
        trusted = bool(msg.token) and secrets.compare_digest(msg.token.encode(), self.token.encode())
        peers = [x for x in self.clients if x.greeted and x.trusted == trusted]
        limit = MAX_DISPLAYS if trusted else MAX_OBSERVERS
        if len(peers) >= limit:
            c.send(
                encode(
                    Error(code="busy", message=f"{limit} {'displays' if trusted else 'observers'} already connected")
                )
            )
            return False
        c.greeted, c.trusted = True, trusted
        c.send(encode(Hello(protocol=PROTOCOL, role="engine", name="cabinet")))
        if msg.token and not trusted:
            c.send(encode(Error(code="not_authorized", message="wrong token: connected as an observer")))
        if self.engine.snapshot is not None:
            c.send(encode(self.engine.snapshot))
        return True

"""A line-JSON control socket for the simulation (``cabinet sim-devices``' and the
host twin's): one request per line in, one JSON reply per line out.

Owns: ``LineJsonServer``. A bug in the answering function becomes an ``{"ok": false,
"error": ...}`` reply, never a dropped control link; a client that hangs up ends only
its own connection.
"""

from __future__ import annotations

import json
import socketserver
from collections.abc import Callable
from typing import Any

Answer = Callable[[bytes], dict[str, Any]]


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        answer: Answer = self.server.answer  # type: ignore[attr-defined]
        for raw in self.rfile:
            try:
                reply = answer(raw)
            except Exception as e:  # a twin or host bug must not drop the link
                reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            try:
                self.wfile.write((json.dumps(reply) + "\n").encode())
                self.wfile.flush()
            except OSError:
                return


class LineJsonServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Serve ``answer(line) -> reply`` on the Unix socket ``path`` (one thread per client;
    call ``serve_forever`` in a thread, ``shutdown`` and ``server_close`` to stop)."""

    daemon_threads = True

    def __init__(self, path: str, answer: Answer) -> None:
        self.answer = answer
        super().__init__(path, _Handler)

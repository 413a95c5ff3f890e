"""``cabinet sim-send SOCKET JSON...``: one line of JSON per argument to a control socket.

Owns: the technician's client for the simulation's line-JSON control sockets (the
engine's sim control ``ui.sock.sim``, ``cabinet sim-devices``' ``control.sock``, the
host twin's ``host.sock``): each argument is sent as one line, each reply printed as
one line. Status 0 when every reply came and none said ``"ok": false``, 1 when the
socket is gone or a reply is missing, 2 for an argument that is not a JSON object
(nothing is sent then), 3 when a command was refused (every message is still sent and
every reply printed; the refusals are repeated on stderr).
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Sequence

TIMEOUT_S = 15.0


def main(argv: Sequence[str]) -> int:
    """Run ``cabinet sim-send``; returns the exit status."""
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(
            "usage: cabinet sim-send SOCKET JSON [JSON ...]\n"
            "  e.g. cabinet sim-send /tmp/cabinet-run-XXXX/ui.sock.sim "
            '\'{"cmd": "key", "on": true}\'',
            file=sys.stderr,
        )
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    path, messages = argv[0], list(argv[1:])
    refused = 0
    for m in messages:
        try:
            if not isinstance(json.loads(m), dict):
                raise ValueError("not an object")
        except ValueError as e:
            print(f"cabinet sim-send: {m!r} is not a JSON object ({e})", file=sys.stderr)
            return 2
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(TIMEOUT_S)
            s.connect(path)
            f = s.makefile("rw", encoding="utf-8")
            for m in messages:
                f.write(m + "\n")
                f.flush()
                reply = f.readline()
                if not reply:
                    print("cabinet sim-send: the socket closed without a reply", file=sys.stderr)
                    return 1
                print(reply.rstrip("\n"), flush=True)
                if _refused(reply):
                    refused += 1
                    print(f"cabinet sim-send: refused: {m} -> {reply.strip()}", file=sys.stderr)
    except OSError as e:
        print(f"cabinet sim-send: {path}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 3 if refused else 0


def _refused(reply: str) -> bool:
    """A reply that is a JSON object with ``"ok": false``."""
    try:
        obj = json.loads(reply)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("ok") is False

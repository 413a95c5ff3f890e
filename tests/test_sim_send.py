"""``cabinet sim-send``: JSON lines to a control socket, replies printed (a
headless cabinet is driven through these sockets, so it needs a client)."""

from __future__ import annotations

import json
import socket
import threading

from cabinet.tools.sim_send import main


def _server(path: str, reply) -> threading.Thread:
    """A control socket at ``path`` answering each JSON line with ``reply(obj)``."""
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(1)

    def serve() -> None:
        conn, _ = srv.accept()
        with conn, conn.makefile("rw") as f:
            for line in f:
                f.write(json.dumps(reply(json.loads(line))) + "\n")
                f.flush()
        srv.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


def _echo_server(path: str) -> threading.Thread:
    return _server(path, lambda obj: {"ok": True, "got": obj})


def test_each_argument_is_one_line_and_each_reply_is_printed(tmp_path, capsys):
    path = str(tmp_path / "s.sock")
    _echo_server(path)
    assert main([path, '{"cmd": "key", "on": true}', '{"cmd": "note", "amount_minor": 500}']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["got"]["cmd"] for x in lines] == ["key", "note"]


def test_bad_json_sends_nothing_and_a_missing_socket_is_status_1(tmp_path, capsys):
    assert main([str(tmp_path / "none.sock"), "not json"]) == 2
    assert "is not a JSON object" in capsys.readouterr().err
    assert main([str(tmp_path / "none.sock"), "{}"]) == 1
    assert "none.sock" in capsys.readouterr().err


def test_a_refused_command_is_status_3_after_every_reply_is_printed(tmp_path, capsys):
    """A script could not tell ``{"ok": false}`` (the socket refused
    the command) from success: both exited 0."""
    path = str(tmp_path / "s.sock")
    _server(path, lambda obj: {"ok": True} if obj["cmd"] != "bogus" else {"ok": False, "error": "unknown cmd"})
    assert main([path, '{"cmd": "bogus"}', '{"cmd": "key", "on": true}']) == 3
    out = capsys.readouterr()
    assert [json.loads(x)["ok"] for x in out.out.splitlines()] == [False, True]
    assert "refused" in out.err and "unknown cmd" in out.err

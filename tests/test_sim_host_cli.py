"""``cabinet sim-host`` as a process (the host twin's CLI, and ``cabinet run``
starting it): it starts, writes its pty paths, answers its control socket, and stops
cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cabinet.tools.cli import _build_parser
from cabinet.tools.launcher import sas_port_of
from tests.drivers.sas_test_egm import TestEgm
from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child

pytestmark = pytest.mark.timeout(150)

ROOT = Path(__file__).resolve().parents[1]


def _ask(sock: Path, request: dict[str, object]) -> dict[str, object]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(20)
        s.connect(str(sock))
        s.sendall((json.dumps(request) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            assert chunk, "control socket closed"
            buf += chunk
    reply: dict[str, object] = json.loads(buf)
    return reply


def _until(predicate, timeout_s: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_sim_host_starts_answers_its_socket_and_stops_on_sigterm(tmp_path: Path) -> None:
    """``cabinet sim-host --machines 2 --dir D`` prints its ready line with each
    machine's pty, links D/sas-N to them, writes D/host.json, keeps D/host.sqlite3,
    serves line-delimited JSON on D/host.sock, and ends with status 0 on SIGTERM."""
    d = tmp_path / "host"
    proc = Child(
        [
            sys.executable,
            "-m",
            "cabinet",
            "sim-host",
            "--machines",
            "2",
            "--dir",
            str(d),
            "--poll-ms",
            "20",
            "--link-down-s",
            "1",
            "--meter-s",
            "0.5",
        ],
        name="sim-host",
        cwd=ROOT,
    )
    egm = None
    try:
        ready = proc.wait_for("sas host ready", START_DEADLINE_S)
        assert ready.startswith("sas host ready: machine 1 on /dev/pts/"), ready
        tty1 = sas_port_of(ready)
        assert tty1 is not None and os.path.realpath(d / "sas-1") == tty1
        assert f"({d / 'sas-2'})" in ready and f"control {d / 'host.sock'}" in ready
        info = json.loads((d / "host.json").read_text())
        assert info["machines"]["1"] == {"tty": tty1, "link": str(d / "sas-1")}
        assert info["database"] == str(d / "host.sqlite3")
        sock = d / "host.sock"

        egm = TestEgm(str(d / "sas-1"), 1, exceptions=(0x11, 0x12), credits=2500)
        assert _ask(sock, {"cmd": "send", "machine": 1, "poll": "0x01"}) == {"ok": True, "reply": {"kind": "ack"}}
        assert _ask(sock, {"cmd": "shut_down", "machine": 1}) == {"ok": True, "ack": True}
        reply = _ask(sock, {"cmd": "send", "machine": 1, "poll": "0x1A"})
        assert reply["reply"]["data"] == "00 00 25 00"  # type: ignore[index]
        _until(lambda: len(_ask(sock, {"cmd": "exceptions", "machine": 1})["exceptions"]) == 2)  # type: ignore[arg-type]
        seen = _ask(sock, {"cmd": "exceptions", "machine": 1})["exceptions"]
        assert [(e["code"], e["name"]) for e in seen] == [  # type: ignore[union-attr, index]
            (0x11, "slot_door_opened"),
            (0x12, "slot_door_closed"),
        ]
        status = _ask(sock, {"cmd": "status"})["machines"]
        assert [(m["address"], m["link_up"]) for m in status] == [(1, True), (2, False)]  # type: ignore[union-attr, index]
        assert _ask(sock, {"cmd": "meters", "machine": 1})["meters"]["current_credits"] == 2500  # type: ignore[index]
        view = _ask(sock, {"cmd": "view"})["view"]
        assert "slot_door_opened, slot_door_closed" in view  # type: ignore[operator]
        # bad requests get a one-line error and the host keeps serving
        assert _ask(sock, {"cmd": "send", "machine": 9, "poll": 1})["error"].startswith("send: no machine 9")  # type: ignore[union-attr]
        assert "not in the layout table" in _ask(sock, {"cmd": "send", "poll": "0x99"})["error"]  # type: ignore[operator]
        assert _ask(sock, {"cmd": "fly"})["ok"] is False
        assert _ask(sock, {"cmd": "pause"}) == {"ok": True}
        assert _ask(sock, {"cmd": "resume"}) == {"ok": True}
    finally:
        if egm is not None:
            egm.close()
        proc.signal(signal.SIGTERM)
        status = proc.wait_exit(STOP_DEADLINE_S)
    out, err = proc.text("stdout"), proc.text("stderr")
    assert status == 0, err
    assert "Traceback" not in err, err
    assert "sas host: machine 1 link up" in out and out.rstrip().endswith("sas host stopped")
    assert not (d / "host.sock").exists() and not (d / "sas-1").exists()
    import sqlite3

    with sqlite3.connect(d / "host.sqlite3") as con:
        assert list(con.execute("SELECT code FROM exceptions ORDER BY id")) == [(0x11,), (0x12,)]


def test_sim_host_refuses_bad_addresses(tmp_path: Path) -> None:
    """A bad address list is a clear error, status 2, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "cabinet", "sim-host", "--address", "1,200", "--dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "1..127" in proc.stderr and "Traceback" not in proc.stderr


def test_run_passes_the_host_pty_to_the_engine() -> None:
    """``cabinet run`` reads machine 1's pty from the host's ready line and the
    engine accepts ``--sas-port PORT [--sas-address N]``."""
    line = "sas host ready: machine 1 on /dev/pts/7 (/x/sas-1), machine 2 on /dev/pts/8 (/x/sas-2); control /x"
    assert sas_port_of(line) == "/dev/pts/7"
    assert sas_port_of("sas host ready: machine 11 on /dev/pts/9 (/x/sas-11)") is None
    args = _build_parser().parse_args(["engine", "--sas-port", "/dev/pts/7", "--sas-address", "3"])
    assert (args.sas_port, args.sas_address) == ("/dev/pts/7", 3)


def test_control_requests_in_process(tmp_path: Path) -> None:
    """The control socket's commands, one line of JSON each, against a test EGM."""
    from drivers.sas.crc import rom_signature
    from drivers.sim.sas_host import SasHost
    from drivers.sim.sas_host_cli import host_command
    from tests.drivers.sas_test_egm import PROGRAM

    with SasHost([1, 2], poll_interval_s=0.02, reply_timeout_s=0.15) as host:
        egm = TestEgm(host.tty(2), 2)
        try:
            _until(lambda: host.link_up(2))

            def ask(request: dict[str, object]) -> dict[str, object]:
                return host_command(host, json.dumps(request))

            assert ask({"cmd": "configure_bills", "machine": 2, "bills_minor": [500]}) == {"ok": True, "ack": True}
            assert ask({"cmd": "set_time", "machine": 2, "when": "2026-12-01T13:45:30"}) == {"ok": True, "ack": True}
            assert ask({"cmd": "handpay_reset", "machine": "0x02"}) == {"ok": True, "code": 0}
            assert ask({"cmd": "rom_signature", "machine": 2, "seed": 4660}) == {
                "ok": True,
                "signature": rom_signature(4660, PROGRAM),
            }
            with egm.lock:
                sent = {c: d for c, d, _ in egm.polls}
            assert sent[0x08] == bytes.fromhex("04000000 01") and sent[0x7F] == bytes.fromhex("12012026 134530")
            assert ask({"cmd": "send", "machine": 1, "poll": "0x01"}) == {"ok": True, "reply": {"kind": "none"}}
            assert ask({"cmd": "configure_bills", "machine": 2, "bills_minor": [300]})["error"] == (
                "configure_bills: no SAS bill denomination bit for 300 minor units"
            )
            assert host_command(host, "{not json")["error"].startswith("not JSON")  # type: ignore[union-attr]
            assert host_command(host, "[1]")["ok"] is False
            assert ask({"cmd": "send", "machine": 2, "poll": "0x1C", "data": "zz"})["ok"] is False
            assert ask({"cmd": "send", "machine": True, "poll": "0x1C"})["ok"] is False
        finally:
            egm.close()

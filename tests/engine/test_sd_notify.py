"""The engine unit is ``Type=notify`` with a watchdog.

The engine says ``READY=1`` only once its journal is checked and its devices are
started, then pings ``WATCHDOG=1`` from its asyncio event loop only: a loop that
blocks stops the pings (systemd then kills and restarts it), and they resume when
the loop runs again. A unix datagram socket of the test stands in for systemd."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from cabinet.core.events import Tick
from cabinet.shell.engine import Engine
from cabinet.shell.sd_notify import PINGS_PER_PERIOD, Notifier, watchdog_interval_s
from cabinet.shell.store import open_journal
from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child, wait_until


class FakeSystemd:
    """A ``$NOTIFY_SOCKET`` listener: every datagram with its arrival time (monotonic s)."""

    def __init__(self, address: str | bytes) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(0.2)
        self.got: list[tuple[float, str]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop:
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            self.got.append((time.monotonic(), data.decode()))

    def messages(self) -> list[str]:
        return [m for _, m in self.got]

    def wait_for(self, text: str, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if text in self.messages():
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


def test_without_notify_socket_nothing_is_sent_and_no_watchdog_runs():
    """A development run (no ``$NOTIFY_SOCKET``) sends nothing."""
    n = Notifier({"WATCHDOG_USEC": "3000000"})
    n.ready()
    n.ping()
    assert n.enabled is False and n.interval_s is None and n.sent == {}
    asyncio.run(asyncio.wait_for(n.watchdog(), 1))  # returns at once, no loop of pings


def test_watchdog_interval_follows_sd_watchdog_enabled():
    """``$WATCHDOG_USEC`` / 3; none for another process's ``$WATCHDOG_PID``."""
    assert watchdog_interval_s({"WATCHDOG_USEC": "15000000"}) == 15 / PINGS_PER_PERIOD
    assert watchdog_interval_s({"WATCHDOG_USEC": "15000000", "WATCHDOG_PID": str(os.getpid())}) == 5
    assert watchdog_interval_s({"WATCHDOG_USEC": "15000000", "WATCHDOG_PID": "1"}, pid=2) is None
    assert watchdog_interval_s({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval_s({"WATCHDOG_USEC": "soon"}) is None
    assert watchdog_interval_s({}) is None


@pytest.mark.timeout(150)
def test_engine_sends_ready_after_start_up_then_watchdog_pings(tmp_path):
    """``cabinet engine`` under a (fake) systemd: READY=1 comes after
    "engine ready" (journal checked, devices started) and before any ping, then
    WATCHDOG=1 every WATCHDOG_USEC/3; SIGTERM sends STOPPING=1. The socket is an
    abstract ``@`` name, as systemd's own is."""
    name = f"cabinet-test-notify-{os.getpid()}"
    fake = FakeSystemd(b"\0" + name.encode())
    env = dict(os.environ, NOTIFY_SOCKET="@" + name, WATCHDOG_USEC="300000", CABINET_LOG="WARNING")
    journal = tmp_path / "j.db"
    proc = Child(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--journal",
            str(journal),
            "--socket",
            str(tmp_path / "run" / "ui.sock"),
        ],
        name="engine",
        env=env,
    )
    try:
        assert proc.wait_for("engine ready", START_DEADLINE_S).startswith("engine ready")
        assert fake.wait_for("READY=1", 30), fake.messages()
        # pings 0.1 s apart on an idle engine; a loaded machine may space them out, so
        # wait for four of them rather than count those of one second
        wait_until(lambda: sum(m == "WATCHDOG=1" for m in fake.messages()) >= 4, 30, "four watchdog pings", proc)
        msgs = fake.messages()
        assert msgs[0] == "READY=1", msgs  # nothing before ready
        assert journal.exists()
        proc.signal(signal.SIGTERM)
        assert proc.wait_exit(STOP_DEADLINE_S) == 0
        assert fake.messages()[-1] == "STOPPING=1"
    finally:
        proc.kill()
        fake.close()


@pytest.mark.timeout(60)
def test_a_blocked_engine_loop_stops_the_pings_and_they_resume_after(tmp_path, monkeypatch):
    """An event whose handling blocks the loop for 1.5 s (with pings due
    every 0.1 s) gets no WATCHDOG=1 out while it blocks; the pings come back once the
    loop runs again. The same watchdog task as ``cabinet engine`` runs on the loop."""
    sock_path = tmp_path / "notify"
    fake = FakeSystemd(str(sock_path))
    monkeypatch.setenv("NOTIFY_SOCKET", str(sock_path))
    monkeypatch.setenv("WATCHDOG_USEC", "300000")
    block: dict[str, float] = {}

    async def scenario() -> None:
        store, _ = open_journal(tmp_path / "j.db")
        engine = Engine(store)
        marker = Tick(engine.clock_ms(), engine.wall_s())
        real_step = engine.step

        def step(event: object) -> object:
            if event is marker:  # this event's handling hangs the loop
                block["start"] = time.monotonic()
                time.sleep(1.5)
                block["end"] = time.monotonic()
            return real_step(event)  # type: ignore[arg-type]

        engine.step = step  # type: ignore[assignment,method-assign]
        stop, ready = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(engine.run(ready.set, stop))
        await ready.wait()
        notifier = Notifier()
        notifier.ready()
        pings = asyncio.create_task(notifier.watchdog())
        await asyncio.sleep(0.6)
        engine.post(marker)
        await asyncio.sleep(0.3)  # the loop is blocked in here
        await asyncio.sleep(1.0)
        stop.set()
        await task
        pings.cancel()
        store.close()

    try:
        asyncio.run(scenario())
    finally:
        fake.close()
    pings = [t for t, m in fake.got if m == "WATCHDOG=1"]
    assert fake.messages()[0] == "READY=1"
    before = [t for t in pings if t < block["start"]]
    during = [t for t in pings if block["start"] + 0.05 < t < block["end"]]
    after = [t for t in pings if t > block["end"]]
    assert len(before) >= 3, pings
    assert during == [], (block, pings)
    assert len(after) >= 4, (block, pings)  # resumed: ~10 in the second after
    gap = max(b - a for a, b in zip(pings, pings[1:], strict=False))
    assert gap >= 1.4  # the watchdog saw the 1.5 s stall


@pytest.mark.timeout(60)
def test_no_ready_when_the_devices_cannot_start(tmp_path):
    """READY=1 means the devices are up: an engine whose devices fail to start
    (hardware mode without lgpio) exits 1 without ever saying ready, so systemd counts
    a failed start, not a running cabinet."""
    sock_path = tmp_path / "notify"
    fake = FakeSystemd(str(sock_path))
    env = dict(os.environ, NOTIFY_SOCKET=str(sock_path), WATCHDOG_USEC="300000", CABINET_LOG="WARNING")
    try:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "cabinet",
                "engine",
                "--devices",
                "hardware",
                "--journal",
                str(tmp_path / "j.db"),
                "--socket",
                str(tmp_path / "run" / "s"),
            ],
            capture_output=True,
            text=True,
            timeout=45,
            env=env,
        )
        time.sleep(0.3)
    finally:
        fake.close()
    assert r.returncode == 1, r.stderr
    assert "READY=1" not in fake.messages() and "WATCHDOG=1" not in fake.messages()

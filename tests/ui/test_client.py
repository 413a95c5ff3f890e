"""Client and app against a tiny fake engine on a Unix socket (every wait bounded)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pygame
import pytest

from cabinet.protocol.ipc import (
    FRAME_HEARTBEAT_S,
    PROTOCOL,
    Cue,
    Frame,
    Goodbye,
    Hello,
    Intent,
    LineBuffer,
    decode,
    encode,
)
from tests.ui.fixtures import CLASSIC_BETTING, CLASSIC_INSURANCE
from ui.app import App
from ui.client import EngineClient, Link

pytestmark = pytest.mark.timeout(20)
TIMEOUT_S = 5.0


def wait_until(pred: Callable[[], bool], step: Callable[[], None] | None = None, timeout_s: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        if step is not None:
            step()
        else:
            time.sleep(0.005)


class FakeEngine:
    """Listens on ``path``; the test accepts and talks to one UI at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if path.exists():
            path.unlink()
        self.srv.bind(str(path))
        self.srv.listen(4)
        self.srv.settimeout(TIMEOUT_S)
        self.conn: socket.socket | None = None
        self.buf = LineBuffer()

    def accept(self) -> Hello:
        self.conn, _ = self.srv.accept()
        self.conn.settimeout(TIMEOUT_S)
        msg = self.read()
        assert isinstance(msg, Hello)
        return msg

    def read(self) -> object:
        assert self.conn is not None
        while True:
            pending = getattr(self, "_pending", [])
            if pending:
                return decode(pending.pop(0))
            data = self.conn.recv(65536)
            assert data, "UI closed the connection"
            self._pending = self.buf.feed(data)

    def send(self, msg: object) -> None:
        assert self.conn is not None
        self.conn.sendall(msg if isinstance(msg, bytes) else encode(msg))  # type: ignore[arg-type]

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.srv.close()
        if self.path.exists():
            self.path.unlink()


@pytest.fixture
def sock_path(tmp_path: Path) -> Path:
    return tmp_path / "ui.sock"


@pytest.fixture
def engine(sock_path: Path) -> Iterator[FakeEngine]:
    e = FakeEngine(sock_path)
    yield e
    e.close()


@pytest.fixture
def client(sock_path: Path) -> Iterator[EngineClient]:
    c = EngineClient(str(sock_path), backoff_initial_s=0.02, backoff_max_s=0.1, read_timeout_s=0.1)
    yield c
    c.stop()


def make_app(client: EngineClient, **kw: object) -> App:
    return App(pygame.Surface((800, 480)), client, **kw)  # type: ignore[arg-type]


def test_hello_then_snapshot_is_drawn_and_intents_go_out(engine: FakeEngine, client: EngineClient) -> None:
    app = make_app(client)
    client.start()
    hello = engine.accept()
    assert hello == Hello(protocol=PROTOCOL, role="ui", name="table-ui")
    engine.send(CLASSIC_BETTING)
    wait_until(lambda: app.snapshot is not None and app.frames > 0, lambda: app.step(5))
    assert app.connected and app.snapshot == CLASSIC_BETTING
    assert any(h.action == "deal" for h in app.hits)
    deal = next(h for h in app.hits if h.action == "deal")
    sent = app.handle_input(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=deal.rect.center, button=1))
    assert sent == [Intent(station=1, action="deal")]
    assert next(m for m in iter(engine.read, None) if not isinstance(m, Frame)) == Intent(station=1, action="deal")


def test_malformed_lines_are_skipped(engine: FakeEngine, client: EngineClient) -> None:
    app = make_app(client)
    client.start()
    engine.accept()
    engine.send(b"this is not json\n")
    engine.send(b'{"type": "nope"}\n')
    engine.send(b'{"type": "snapshot", "seq": "x"}\n')
    engine.send(b"\n")
    engine.send(CLASSIC_INSURANCE)
    wait_until(lambda: app.snapshot is not None, lambda: app.step(5))
    assert app.snapshot == CLASSIC_INSURANCE and app.connected


def test_reconnects_after_engine_restart(sock_path: Path, engine: FakeEngine, client: EngineClient) -> None:
    app = make_app(client)
    client.start()
    engine.accept()
    engine.send(CLASSIC_BETTING)
    wait_until(lambda: app.snapshot is not None, lambda: app.step(5))
    engine.close()  # the engine dies
    wait_until(lambda: not app.connected, lambda: app.step(5))
    app.step(5)
    assert app.frames >= 2  # the "lost connection" frame was drawn
    assert app.hits == []  # nothing to press while suspended
    again = FakeEngine(sock_path)  # the engine restarts, numbering from 1
    try:
        again.accept()
        fresh = msgspec.structs.replace(CLASSIC_INSURANCE, seq=1)
        again.send(fresh)
        wait_until(lambda: app.connected and app.snapshot == fresh, lambda: app.step(5))
        assert client.connects == 2
    finally:
        again.close()


def test_protocol_mismatch_and_goodbye_drop_the_link(engine: FakeEngine, client: EngineClient) -> None:
    seen: list[object] = []
    client.start()
    engine.accept()
    engine.send(Hello(protocol=PROTOCOL + 1, role="engine"))
    wait_until(lambda: any(isinstance(e, Link) and not e.up for e in seen), lambda: seen.extend(client.poll()))
    # it comes back and keeps trying; a goodbye drops it too
    engine.accept()
    engine.send(Goodbye(reason="shutting down"))
    n = len(seen)
    wait_until(lambda: any(isinstance(e, Link) and not e.up for e in seen[n:]), lambda: seen.extend(client.poll()))


def test_screenshot_cue_saves_a_png(engine: FakeEngine, client: EngineClient, tmp_path: Path) -> None:
    app = make_app(client)
    client.start()
    engine.accept()
    engine.send(CLASSIC_BETTING)
    shot = tmp_path / "shots" / "table.png"
    engine.send(Cue(name="screenshot", data={"path": str(shot)}))
    wait_until(shot.exists, lambda: app.step(5))
    assert pygame.image.load(str(shot)).get_size() == (800, 480)


def test_screenshot_dir_on_mode_change(tmp_path: Path) -> None:
    app = App(pygame.Surface((800, 480)), None, screenshot_dir=str(tmp_path))
    app.feed([CLASSIC_BETTING], 0)
    app.draw(0)
    app.feed([msgspec.structs.replace(CLASSIC_BETTING, seq=11, overlay="door_open", mode="door_open")], 10)
    app.draw(10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["000010-betting.png", "000011-door_open-door_open.png"]


def test_send_while_disconnected_is_dropped(client: EngineClient) -> None:
    assert client.send(Intent(station=1, action="deal")) is False


def test_cli_arguments() -> None:
    from ui.__main__ import build_parser, parse_size

    assert parse_size("800x480") == (800, 480)
    a = build_parser().parse_args(
        [
            "--socket",
            "/tmp/x.sock",
            "--size",
            "1080x1920",
            "--portrait",
            "--station",
            "2",
            "--screenshot-dir",
            "/tmp/s",
            "--fullscreen",
        ]
    )
    assert (a.socket, a.size, a.portrait, a.station, a.screenshot_dir, a.fullscreen) == (
        "/tmp/x.sock",
        (1080, 1920),
        True,
        2,
        "/tmp/s",
        True,
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--socket", "s", "--size", "big"])


def test_frame_heartbeat_after_the_first_frame_then_every_second(engine: FakeEngine, sock_path: Path) -> None:
    """The UI tells the engine the table is on screen: a Frame after the first
    frame drawn with a snapshot, then one per FRAME_HEARTBEAT_S, none before."""
    now = [0]
    client = EngineClient(str(sock_path), backoff_initial_s=0.02, read_timeout_s=0.1)
    app = make_app(client, clock_ms=lambda: now[0])
    try:
        client.start()
        engine.accept()
        wait_until(lambda: app.connected, lambda: app.step(5))
        for _ in range(5):
            app.step(0)
        engine.conn.settimeout(0.3)  # type: ignore[union-attr]
        with pytest.raises(TimeoutError):
            engine.read()  # no snapshot drawn yet: no frame
        engine.conn.settimeout(TIMEOUT_S)  # type: ignore[union-attr]
        engine.send(CLASSIC_BETTING)
        wait_until(lambda: app.snapshot is not None, lambda: app.step(5))
        assert engine.read() == Frame(seq=CLASSIC_BETTING.seq)
        sent_at = now[0]
        while now[0] - sent_at < FRAME_HEARTBEAT_S * 1000 - 100:
            now[0] += 100
            app.step(0)
        engine.conn.settimeout(0.3)  # type: ignore[union-attr]
        with pytest.raises(TimeoutError):
            engine.read()  # not yet
        engine.conn.settimeout(TIMEOUT_S)  # type: ignore[union-attr]
        now[0] += 200
        app.step(0)
        assert engine.read() == Frame(seq=CLASSIC_BETTING.seq)
    finally:
        client.stop()


def test_a_station_s_own_screen_names_its_station_in_its_frames(engine: FakeEngine, sock_path: Path) -> None:
    """A station's own screen draws that station only: its frames say which, so the
    engine takes notes and presses there only while that screen draws."""
    client = EngineClient(str(sock_path), backoff_initial_s=0.02, read_timeout_s=0.1)
    app = make_app(client, clock_ms=lambda: 0, station=2, own_station=True)
    try:
        client.start()
        engine.accept()
        wait_until(lambda: app.connected, lambda: app.step(5))
        engine.send(CLASSIC_BETTING)
        wait_until(lambda: app.snapshot is not None, lambda: app.step(5))
        assert engine.read() == Frame(seq=CLASSIC_BETTING.seq, station=2)
    finally:
        client.stop()


def test_hello_carries_the_engines_token(engine: FakeEngine, sock_path: Path) -> None:
    """The UI reads the token file beside the socket and sends it in its hello."""
    from cabinet.protocol.ipc import token_path

    token_path(sock_path).write_text("s3cret-token\n")
    client = EngineClient(str(sock_path), backoff_initial_s=0.02, read_timeout_s=0.1)
    try:
        client.start()
        assert engine.accept().token == "s3cret-token"
    finally:
        client.stop()


def test_refused_token_reconnects_with_the_fresh_one(engine: FakeEngine, sock_path: Path) -> None:
    """An engine that says not_authorized (the token changed under us) gets a
    new connection whose hello carries the token file's current text."""
    from cabinet.protocol.ipc import Error, token_path

    token_path(sock_path).write_text("old\n")
    client = EngineClient(str(sock_path), backoff_initial_s=0.02, read_timeout_s=0.1)
    try:
        client.start()
        assert engine.accept().token == "old"
        token_path(sock_path).write_text("new\n")
        engine.send(Error(code="not_authorized", message="wrong token"))
        assert engine.accept().token == "new"
    finally:
        client.stop()

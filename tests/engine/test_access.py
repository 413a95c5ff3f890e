"""No one in where they don't belong (the engine's socket, journal and program)."""

from __future__ import annotations

import copy
import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from cabinet.protocol.ipc import PROTOCOL
from tests.procs import START_DEADLINE_S, Child, ChildError


def _start_engine(tmp_path: Path, *extra: str) -> Child:
    """The engine on its default journal in ``tmp_path/state`` (a folder it makes)."""
    env = {**os.environ, "CABINET_LOG": "INFO", "CABINET_DATA_DIR": str(tmp_path / "state")}
    proc = Child(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--socket",
            str(tmp_path / "run" / "ui.sock"),
            *extra,
        ],
        name="engine",
        env=env,
        merge_stderr=True,
    )
    try:
        proc.wait_for("engine ready", START_DEADLINE_S)
    except ChildError:
        proc.kill()
        raise
    return proc


def _stop(proc: Child) -> None:
    proc.stop()


@pytest.mark.timeout(150)
def test_hello_then_close_does_not_kill_the_engine(tmp_path):
    """Connect, send a hello, close: the engine must survive (no SIGPIPE)."""
    proc = _start_engine(tmp_path)
    try:
        for _ in range(5):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(tmp_path / "run" / "ui.sock"))
            s.sendall(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui"}).encode() + b"\n")
            s.close()
            time.sleep(0.3)
        assert proc.running, "engine died"
    finally:
        _stop(proc)
    assert proc.proc.returncode == 0


def _chown_away_or_fake(monkeypatch, path: Path) -> None:
    """Make ``path`` someone else's: chown it to nobody when root, else pretend we are another uid."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:
        real = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: real + 1)


def test_socket_folder_made_first_by_another_user_is_refused(tmp_path, monkeypatch):
    """A ``blackjack-cabinet`` folder in the temp dir that another user
    created first (mode 0777, theirs) is refused, not used for the socket."""
    from cabinet.shell.paths import private_dir

    hijack = tmp_path / "blackjack-cabinet"
    hijack.mkdir()
    os.chmod(hijack, 0o777)
    _chown_away_or_fake(monkeypatch, hijack)
    with pytest.raises(PermissionError, match="not by us"):
        private_dir(hijack, group_ok=True)


def test_socket_folder_open_to_others_or_a_symlink_is_refused(tmp_path):
    """Our own folder with mode 0777, or a symlink to one, is refused too."""
    from cabinet.shell.paths import private_dir

    loose = tmp_path / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    with pytest.raises(PermissionError, match="0777"):
        private_dir(loose, group_ok=True)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(PermissionError, match="symlink"):
        private_dir(link)


def test_default_socket_fallback_is_checked_by_the_engine(tmp_path, monkeypatch):
    """The engine refuses to serve from a hijacked fallback folder."""
    import asyncio
    import random

    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store
    from cabinet.shell.ui_server import UIServer

    hijack = tmp_path / "blackjack-cabinet"
    hijack.mkdir()
    os.chmod(hijack, 0o777)
    eng = Engine(Store(tmp_path / "j.db"), rng=random.Random(1))
    _chown_away_or_fake(monkeypatch, hijack)
    server = UIServer(eng, hijack / "ui.sock")
    with pytest.raises(PermissionError):
        asyncio.run(server.start())
    assert not (hijack / "ui.sock").exists()
    eng.store.close()


def test_journal_and_socket_are_owner_only_whatever_the_umask(tmp_path):
    """With a umask of 0 the journal (and its WAL), its new folder and the
    socket folder are still owner-only; the socket is 0660 in a 0700 folder."""
    old = os.umask(0)
    try:
        proc = _start_engine(tmp_path)
        try:
            state, run = tmp_path / "state", tmp_path / "run"
            assert oct(os.stat(state).st_mode & 0o777) == "0o700"
            assert oct(os.stat(run).st_mode & 0o777) == "0o700"
            for f in state.iterdir():
                assert os.stat(f).st_mode & 0o077 == 0, f"{f.name} is open to others"
            assert (state / "journal.db-wal").exists()
        finally:
            _stop(proc)
    finally:
        os.umask(old)


def test_existing_world_readable_journal_is_tightened(tmp_path):
    """A journal left 0644 by an older version is made 0600 at open."""
    from cabinet.shell.store import Store

    Store(tmp_path / "j.db").close()
    os.chmod(tmp_path / "j.db", 0o644)
    Store(tmp_path / "j.db").close()
    assert os.stat(tmp_path / "j.db").st_mode & 0o777 == 0o600


def test_default_state_folder_is_tightened(tmp_path, monkeypatch):
    """The default state folder (systemd's StateDirectory, 0755) is made 0700
    by the engine; the journal inside it is 0600."""
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, 0o755)
    monkeypatch.setenv("CABINET_DATA_DIR", str(data))
    env_proc = Child(
        [sys.executable, "-m", "cabinet", "engine", "--devices", "none", "--socket", str(tmp_path / "run" / "ui.sock")],
        name="engine",
        merge_stderr=True,
    )
    try:
        env_proc.wait_for("engine ready", START_DEADLINE_S)
        assert os.stat(data).st_mode & 0o777 == 0o700
        assert os.stat(data / "journal.db").st_mode & 0o777 == 0o600
    finally:
        _stop(env_proc)


# -- the UI socket: who may send intents, how many may connect (in process) ---------------


async def _with_engine(tmp_path, body):
    from tests.engine.helpers import with_served_engine

    await with_served_engine(tmp_path, body)


async def _read(reader, timeout_s=5.0):
    import asyncio

    line = await asyncio.wait_for(reader.readline(), timeout_s)
    return json.loads(line) if line else None


async def _connect(path, token=None, role="ui"):
    import asyncio

    reader, writer = await asyncio.open_unix_connection(path)
    hello = {"type": "hello", "protocol": PROTOCOL, "role": role}
    if token is not None:
        hello["token"] = token
    writer.write(json.dumps(hello).encode() + b"\n")
    await writer.drain()
    return reader, writer


def _token(path) -> str:
    from cabinet.protocol.ipc import token_path

    return token_path(path).read_text().strip()


def _intent(action, value=None) -> bytes:
    return json.dumps({"type": "intent", "station": 1, "action": action, "value": value}).encode() + b"\n"


async def _until(pred, timeout_s=5.0):
    import asyncio

    deadline = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


def test_observer_cannot_drive_the_operator_menu(tmp_path):
    """With the key on, a second client without the display's token sends
    ten menu intents (enough for a RAM clear): each is refused with not_authorized and
    the menu, credits and meters stay as they were."""
    import asyncio

    from cabinet.core.events import KeyChanged, NoteStacked

    async def body(eng, server, path):
        await asyncio.wrap_future(eng.post(NoteStacked(1, 10_000, "t1")))
        await asyncio.wrap_future(eng.post(KeyChanged(True)))
        assert eng.cab.mode == "maintenance"
        page = copy.deepcopy(eng.cab.s.maintenance)
        reader, writer = await _connect(path)
        assert (await _read(reader))["type"] == "hello"
        assert (await _read(reader))["type"] == "snapshot"
        for action in ["menu_down"] * 6 + ["menu_select"] * 4:
            writer.write(_intent(action))
        await writer.drain()
        errors = []
        while len(errors) < 10:
            m = await _read(reader)
            if m["type"] == "error":
                errors.append(m["code"])
        assert errors == ["not_authorized"] * 10
        await asyncio.sleep(0.2)
        assert eng.cab.s.maintenance == page
        assert eng.cab.s.stations[0].credits_minor == 10_000
        assert eng.cab.s.stations[0].meters.bills_in_minor == 10_000
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_wrong_token_is_an_observer_and_the_display_drives(tmp_path):
    """A wrong token is told so and refused intents; the display (the
    token from the 0640 file beside the socket) moves the menu."""
    import asyncio
    import stat

    from cabinet.core.events import KeyChanged
    from cabinet.protocol.ipc import token_path

    async def body(eng, server, path):
        assert stat.S_IMODE(os.stat(token_path(path)).st_mode) == 0o640
        await asyncio.wrap_future(eng.post(KeyChanged(True)))
        reader, writer = await _connect(path, token="x" * 43)
        assert (await _read(reader))["type"] == "hello"
        assert (await _read(reader))["code"] == "not_authorized"
        writer.write(_intent("menu_down"))
        await writer.drain()
        while (m := await _read(reader))["type"] != "error":
            pass
        assert m["code"] == "not_authorized"
        before = copy.deepcopy(eng.cab.s.maintenance)
        r2, w2 = await _connect(path, token=_token(path))
        assert (await _read(r2))["type"] == "hello"
        w2.write(_intent("menu_down"))
        await w2.drain()
        await _until(lambda: eng.cab.s.maintenance != before)
        writer.close()
        w2.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_a_client_saying_it_is_the_engine_is_refused(tmp_path):
    """A hello with role engine is refused and the connection closed."""
    import asyncio

    async def body(eng, server, path):
        reader, writer = await _connect(path, token=_token(path), role="engine")
        assert (await _read(reader))["code"] == "role"
        assert await asyncio.wait_for(reader.read(), 5) == b""

    asyncio.run(_with_engine(tmp_path, body))


def test_connections_are_limited_and_silent_ones_dropped(tmp_path, monkeypatch):
    """40 silent connections never hold more than MAX_PENDING slots (the
    oldest go first), a silent one goes after HELLO_TIMEOUT_S, observers beyond
    MAX_OBSERVERS are refused busy, and the display still gets in."""
    import asyncio

    from cabinet.shell import ui_server

    monkeypatch.setattr(ui_server, "HELLO_TIMEOUT_S", 1.0)

    async def body(eng, server, path):
        silent = [await asyncio.open_unix_connection(path) for _ in range(40)]
        await asyncio.sleep(0.2)
        assert len(server.clients) <= ui_server.MAX_PENDING
        # the oldest were cut
        assert await asyncio.wait_for(silent[0][0].read(), 5) == b""
        t0 = time.monotonic()
        assert await asyncio.wait_for(silent[-1][0].read(), 5) == b""
        assert time.monotonic() - t0 < 3.0
        assert len(server.clients) == 0
        watchers = []
        for _ in range(ui_server.MAX_OBSERVERS):
            r, w = await _connect(path)
            assert (await _read(r))["type"] == "hello"
            watchers.append((r, w))
        r, w = await _connect(path)
        assert (await _read(r))["code"] == "busy"
        assert await asyncio.wait_for(r.read(), 5) == b""
        r, w = await _connect(path, token=_token(path))
        assert (await _read(r))["type"] == "hello"
        w.close()
        for _, w in watchers:
            w.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_a_client_that_never_reads_is_dropped(tmp_path):
    """A client that says hello and then never reads is dropped once its
    socket buffer is full and its queue passes MAX_QUEUE (as the docstring says)."""
    import asyncio

    from cabinet.protocol.ipc import Cue

    async def body(eng, server, path):
        reader, writer = await _connect(path)
        await _until(lambda: any(c.greeted for c in server.clients))
        for _ in range(3000):
            server._broadcast(Cue(name="flood", data={"pad": "x" * 2000}))
            await asyncio.sleep(0)
        await _until(lambda: not server.clients, timeout_s=15)
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_json_nested_a_thousand_deep_gets_an_error_reply(tmp_path):
    """A message nested 1,000 deep is answered "malformed" and the
    client stays connected (no RecursionError, no abrupt disconnect)."""
    import asyncio

    async def body(eng, server, path):
        reader, writer = await _connect(path, token=_token(path))
        assert (await _read(reader))["type"] == "hello"
        assert (await _read(reader))["type"] == "snapshot"
        writer.write(b'{"type":"cue","name":"x","data":{"a":' + b"[" * 1000 + b"]" * 1000 + b"}}\n")
        await writer.drain()
        m = await _read(reader)
        assert m["type"] == "error" and m["code"] == "malformed", m
        writer.write(b'{"type":"goodbye"}\n')
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b""

    asyncio.run(_with_engine(tmp_path, body))


def test_forty_busy_clients_do_not_hold_up_a_note(tmp_path):
    """40 clients each sending bet intents just under the flood limit do not
    delay a note's escrow decision (measured: under 1 s; the escrow wait is 5 s)."""
    import asyncio

    from cabinet.core.events import NoteEscrowed, NoteStacked
    from cabinet.shell.ui_server import FLOOD_LIMIT_PER_S

    async def body(eng, server, path):
        token = _token(path)
        stop = asyncio.Event()

        async def spam() -> None:
            r, w = await _connect(path, token=token)

            async def drain() -> None:
                while await r.read(65536):
                    pass

            reading = asyncio.create_task(drain())
            try:
                while not stop.is_set() and not reading.done():
                    w.write((_intent("bet_up") + _intent("bet_down")) * (FLOOD_LIMIT_PER_S // 20 - 1))
                    await w.drain()
                    await asyncio.sleep(0.1)
            except (ConnectionError, OSError):
                pass
            w.close()
            await asyncio.gather(reading, return_exceptions=True)

        eng.cab.display_showing = True  # no display needed here: only the delay counts
        await asyncio.wrap_future(eng.post(NoteStacked(1, 10_000, "t0")))  # bets change state
        tasks = [asyncio.create_task(spam()) for _ in range(40)]
        await asyncio.sleep(1.5)
        waits = []
        for n in range(3):
            t0 = time.monotonic()
            await asyncio.wait_for(asyncio.wrap_future(eng.post(NoteEscrowed(1, 2000, f"n{n}"))), 10)
            waits.append(time.monotonic() - t0)
            await asyncio.sleep(0.3)
        stop.set()
        await asyncio.gather(*tasks)
        assert max(waits) < 1.0, waits

    asyncio.run(_with_engine(tmp_path, body))


# -- 11.9: no money into a black screen --------------------------------------------------


def test_no_display_no_notes_and_the_acceptor_is_inhibited():
    """While no display shows the table the acceptor is disabled and a note
    in escrow is returned; once the display draws, notes are stacked again."""
    from cabinet.core.effects import ReturnNote, SetAcceptor, StackNote
    from cabinet.core.events import DisplayChanged, NoteEscrowed, PowerUp
    from cabinet.core.machine import Cabinet

    cab = Cabinet()
    cab.handle(PowerUp(0, 1e9))
    out = cab.handle(DisplayChanged(False))
    assert [e.enabled for e in out if isinstance(e, SetAcceptor)] == [False]
    out = cab.handle(NoteEscrowed(1, 2000, "a"))
    assert [e.reason for e in out if isinstance(e, ReturnNote)] == ["no display showing the table"]
    assert not any(isinstance(e, StackNote) for e in out)
    out = cab.handle(DisplayChanged(True))
    assert [e.enabled for e in out if isinstance(e, SetAcceptor)] == [True]
    assert any(isinstance(e, StackNote) for e in cab.handle(NoteEscrowed(1, 2000, "b")))


def test_engine_knows_when_the_display_draws(tmp_path, monkeypatch):
    """No UI at start: dark; the display's first frame: showing; no frame for
    DISPLAY_TIMEOUT_S: dark; frames again: showing; the display hangs up: dark. An
    observer's frames do not count."""
    import asyncio

    from cabinet.shell import ui_server

    monkeypatch.setattr(ui_server, "DISPLAY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(ui_server, "DISPLAY_CHECK_S", 0.1)
    frame = b'{"type":"frame","seq":1}\n'

    async def body(eng, server, path):
        await _until(lambda: eng.cab.display_showing is False)
        r0, w0 = await _connect(path)
        w0.write(frame)
        await w0.drain()
        assert (await _read(r0))["type"] == "hello"
        await asyncio.sleep(0.3)
        assert eng.cab.display_showing is False
        r, w = await _connect(path, token=_token(path))
        w.write(frame)
        await w.drain()
        await _until(lambda: eng.cab.display_showing is True)
        t0 = time.monotonic()
        await _until(lambda: eng.cab.display_showing is False)
        assert 0.8 < time.monotonic() - t0 < 2.0
        w.write(frame)
        await w.drain()
        await _until(lambda: eng.cab.display_showing is True)
        w.close()
        await _until(lambda: eng.cab.display_showing is False, timeout_s=0.9)
        w0.close()

    asyncio.run(_with_engine(tmp_path, body))


# -- 11.18: program integrity -------------------------------------------------------------


def _install_copy(tmp_path: Path) -> Path:
    """The program as installed: its packages (cabinet/, confspec/, drivers/, ui/) copied
    to a folder of its own."""
    import shutil

    from cabinet.shell.manifest import PACKAGES

    root = Path(__file__).resolve().parents[2]
    inst = tmp_path / "inst"
    for pkg in PACKAGES:
        shutil.copytree(root / pkg, inst / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return inst


def _boot_snapshot(inst: Path, journal: Path, sock: Path) -> tuple[dict, str]:
    """Start the engine of ``inst``, take its first snapshot as an observer, stop it."""
    env = {**os.environ, "PYTHONPATH": str(inst), "CABINET_LOG": "INFO"}
    journal.parent.mkdir(mode=0o700, exist_ok=True)
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
            str(sock),
        ],
        cwd=inst,
        env=env,
        name="engine",
        merge_stderr=True,
    )
    try:
        proc.wait_for("engine ready", START_DEADLINE_S)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(sock))
        s.sendall(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui"}).encode() + b"\n")
        f = s.makefile("r")
        while (msg := json.loads(f.readline()))["type"] != "snapshot":
            pass
        s.close()
    finally:
        _stop(proc)
    return msg, proc.text()


@pytest.mark.timeout(120)
def test_a_checkout_runs_as_a_development_build(tmp_path):
    """Not started from a signed release (a copy of the checkout): the engine runs, says
    "development build" in its log, and the snapshot has no digest (the installed
    cabinet's check: tests/test_program_check.py)."""
    inst = _install_copy(tmp_path)
    snap, log = _boot_snapshot(inst, tmp_path / "state" / "j.db", tmp_path / "run" / "ui.sock")
    assert snap["mode"] == "attract"
    assert snap["program_digest"] == ""
    assert "development build: not started from a signed release" in log


def test_program_fault_is_not_cleared_from_the_menu():
    """ "Clear engine faults" in the maintenance menu leaves a program
    mismatch; only a boot whose manifest matches (DeviceCleared("program")) clears it.
    The main page shows the program ID and digest."""
    from cabinet.core.events import DeviceCleared, DeviceFaulted, KeyChanged, PowerUp
    from cabinet.core.machine import Cabinet
    from cabinet.core.state import MaintState

    cab = Cabinet()
    cab.program_id, cab.program_digest, cab.program_status = "blackjack-cabinet 9", "ab" * 32, "mismatch"
    cab.handle(PowerUp(0, 1e9))
    cab.handle(DeviceFaulted("program", "program_mismatch", "program integrity: x changed"))
    assert cab.mode == "tilt"
    cab.handle(KeyChanged(True))
    assert (
        cab.snapshot(1).maintenance.lines[-1]
        == "Program: blackjack-cabinet 9 · SHA-256 abababab...abababab · DOES NOT MATCH: reinstall"
    )
    cab.s.maintenance = MaintState(page="faults")
    from cabinet.core.events import IntentReceived

    cab.handle(IntentReceived(1, "menu_select"))
    assert "program_mismatch" in cab.s.faults
    cab.handle(KeyChanged(False))
    cab.handle(DeviceCleared("program"))
    assert cab.mode != "tilt" and not cab.s.faults


def test_journal_through_a_symlink_is_refused(tmp_path):
    """The journal is never opened through a symlink (it could point
    anywhere, e.g. at a file another user reads)."""
    from cabinet.core.errors import StoreError
    from cabinet.shell.store import Store

    (tmp_path / "elsewhere.db").write_bytes(b"")
    (tmp_path / "j.db").symlink_to(tmp_path / "elsewhere.db")
    with pytest.raises(StoreError, match="symlink"):
        Store(tmp_path / "j.db")

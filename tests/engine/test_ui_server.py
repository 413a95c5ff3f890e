"""The UI socket: hello, snapshot on connect, intents, and refusal of bad clients."""

from __future__ import annotations

import asyncio
import json
import os
import stat

import pytest

from cabinet.protocol.ipc import PROTOCOL, token_path
from cabinet.shell.ui_server import FLOOD_LIMIT_PER_S
from tests.engine.helpers import with_served_engine

pytestmark = pytest.mark.timeout(30)


async def _with_engine(tmp_path, body):
    await with_served_engine(tmp_path, body, server_too=False)


async def _readmsg(reader):
    line = await asyncio.wait_for(reader.readline(), 5)
    return json.loads(line) if line else None


async def _hello(path):
    """Connect as the display: the hello carries the engine's token."""
    reader, writer = await asyncio.open_unix_connection(path)
    token = token_path(path).read_text().strip()
    writer.write(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui", "token": token}).encode() + b"\n")
    await writer.drain()
    assert (await _readmsg(reader))["type"] == "hello"
    return reader, writer


def test_hello_then_snapshot_then_intents(tmp_path):
    async def body(eng, path):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o660
        reader, writer = await _hello(path)
        snap = await _readmsg(reader)
        assert snap["type"] == "snapshot" and snap["mode"] == "attract"
        assert "shoe" not in json.dumps(snap)
        from cabinet.core.events import NoteStacked

        writer.write(b'{"type":"frame"}\n')  # the display draws: the buttons count
        await writer.drain()
        await asyncio.wrap_future(eng.post(NoteStacked(1, 2000, "t")))
        for _ in range(6):
            snap = await _readmsg(reader)
            if (
                snap["type"] == "snapshot"
                and snap["stations"][0]["credits_minor"] == 2000
                and snap["stations"][0]["lamps"]
            ):
                break
        assert snap["stations"][0]["credits_minor"] == 2000
        assert "bet_up" in snap["stations"][0]["lamps"]
        writer.write(b'{"type":"intent","station":1,"action":"bet_up"}\n')
        await writer.drain()
        for _ in range(5):
            m = await _readmsg(reader)
            if m["type"] == "snapshot" and m["stations"][0]["bet_minor"] == 100:
                break
        else:
            raise AssertionError("bet did not show")
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_bad_messages_get_errors_and_change_nothing(tmp_path):
    async def body(eng, path):
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(b'{"type":"intent","station":1,"action":"hit"}\n')  # before hello
        await writer.drain()
        assert (await _readmsg(reader))["code"] == "hello_first"
        writer.write(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "ui"}).encode() + b"\n")
        await writer.drain()
        await _readmsg(reader)
        await _readmsg(reader)  # snapshot
        for bad in (
            b"not json\n",
            b'{"type":"intent","station":9,"action":"hit"}\n',
            b'{"type":"intent","station":1,"action":"add_credits"}\n',
            b'{"type":"snapshot","seq":1,"mode":"x","variant":"v","variant_name":"n"}\n',
        ):
            writer.write(bad)
            await writer.drain()
            m = await _readmsg(reader)
            assert m["type"] == "error"
        assert eng.cab.s.stations[0].credits_minor == 0
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_wrong_protocol_is_refused(tmp_path):
    async def body(eng, path):
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(json.dumps({"type": "hello", "protocol": PROTOCOL + 1, "role": "ui"}).encode() + b"\n")
        await writer.drain()
        assert (await _readmsg(reader))["code"] == "protocol"
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed

    asyncio.run(_with_engine(tmp_path, body))


def test_oversized_line_and_flood_disconnect(tmp_path):
    async def body(eng, path):
        reader, writer = await _hello(path)
        await _readmsg(reader)
        writer.write(b"x" * 70_000)
        await writer.drain()
        assert (await _readmsg(reader))["code"] == "too_long"
        assert await asyncio.wait_for(reader.read(), 5) == b""
        reader, writer = await _hello(path)
        await _readmsg(reader)
        writer.write(b'{"type":"intent","station":1,"action":"help"}\n' * (FLOOD_LIMIT_PER_S + 10))
        await writer.drain()
        msgs = []
        while (m := await _readmsg(reader)) is not None:
            msgs.append(m)
        assert msgs[-1]["code"] == "flood"
        # the engine is still serving: a new client gets its snapshot
        reader, writer = await _hello(path)
        assert (await _readmsg(reader))["type"] == "snapshot"
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))


def test_a_ui_claiming_the_engine_role_is_refused(tmp_path):
    """A client whose hello says ``role: "engine"`` gets an error and is dropped."""

    async def body(eng, path):
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(json.dumps({"type": "hello", "protocol": PROTOCOL, "role": "engine"}).encode() + b"\n")
        await writer.drain()
        m = await _readmsg(reader)
        assert m["type"] == "error" and m["code"] == "role" and '"ui"' in m["message"]
        assert await _readmsg(reader) is None  # dropped: no snapshot
        writer.close()

    asyncio.run(_with_engine(tmp_path, body))

"""Every station's devices behind the engine's one ``Devices`` face.

Owns: ``StationDevices`` (effects to the station they name, start and stop of
every station's set) and, in simulation, the sim control socket (JSON lines,
``"station": N``; the commands themselves: ``cabinet.shell.sim_control``). One
station's bridge to its drivers is ``cabinet.shell.devices.DriverDevices``.
I/O: the sim control Unix socket.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from cabinet.core.effects import Effect
from cabinet.core.events import Event
from cabinet.shell.sim_control import _sim_field, parse_sim_command
from drivers.factory import DriverSet

log = logging.getLogger("cabinet.hardware")

#: The engine's thread-safe entry (``Engine.post``): the future completes with the
#: effects of the event's step once it is journaled.
Post = Callable[[Event], concurrent.futures.Future[list[Effect]]]


class StationMember(Protocol):
    """One station's devices as ``StationDevices`` drives them (``DriverDevices``)."""

    station: int
    drivers: DriverSet | None

    def start(self, post: Post) -> None: ...

    def run(self, effect: Effect) -> None: ...

    def stop(self) -> None: ...

    def sim_apply(self, msg: dict[str, Any]) -> dict[str, Any]: ...


class StationDevices:
    """The devices of every station, behind the runtime's one ``Devices`` face.

    Effects go to the station they name (the tower light to station 1's set);
    the sim control socket takes ``"station": N`` in a command (default 1).
    """

    def __init__(self, members: Sequence[StationMember], sim_socket: Path | None = None) -> None:
        self.members = {m.station: m for m in members}
        self.sim_socket = sim_socket
        self._sim_server: asyncio.AbstractServer | None = None

    def start(self, post: Post) -> None:
        for m in self.members.values():
            m.start(post)
        if self.sim_socket is not None and any(
            m.drivers is not None and m.drivers.sim is not None for m in self.members.values()
        ):
            asyncio.get_running_loop().create_task(self._serve_sim())

    def run(self, effect: Effect) -> None:
        for m in self.members.values():
            m.run(effect)

    def stop(self) -> None:
        if self._sim_server is not None:
            self._sim_server.close()
            if self.sim_socket is not None:
                self.sim_socket.unlink(missing_ok=True)
        for m in self.members.values():
            m.stop()

    def sim_command(self, line: str) -> dict[str, Any]:
        """Apply one sim control line to the station it names (``"station": N``, default 1).

        See ``DriverDevices.sim_command``; ``station`` must be a JSON integer naming
        one of this cabinet's stations.  Never raises for bad input.
        """
        try:
            msg = parse_sim_command(line)
            station = _sim_field(msg, "station", int, "an integer") if "station" in msg else 1
        except ValueError as e:
            return {"ok": False, "error": str(e)}
        m = self.members.get(station)
        if m is None:
            return {
                "ok": False,
                "error": f"no station {station} (this cabinet has {', '.join(str(s) for s in sorted(self.members))})",
            }
        return m.sim_apply(msg)

    async def _serve_sim(self) -> None:
        assert self.sim_socket is not None
        path = self.sim_socket
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        self._sim_server = await asyncio.start_unix_server(self._sim_client, path=str(path), limit=SIM_LINE_LIMIT)

    def _answer(self, line: bytes | None) -> dict[str, Any]:
        """One reply per line, whatever happens (``None``: the line was too long)."""
        if line is None:
            return {"ok": False, "error": f"line longer than {SIM_LINE_LIMIT} bytes"}
        try:
            return self.sim_command(line.decode(errors="replace"))
        except Exception as e:  # a twin bug must not drop the link
            log.exception("sim control %r failed", line[:80])
            return {"ok": False, "error": f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"}

    async def _sim_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while (line := await _read_line(reader)) != b"":
                reply = await asyncio.get_running_loop().run_in_executor(None, self._answer, line)
                writer.write((json.dumps(reply) + "\n").encode())
                await writer.drain()
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


#: Longest sim control line served; a longer one is skipped to its newline and refused.
SIM_LINE_LIMIT = 2**16


async def _read_line(reader: asyncio.StreamReader) -> bytes | None:
    """The next line (b"" at end of input), or None for one over ``SIM_LINE_LIMIT``."""
    too_long = False
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as e:  # end of input
            return None if too_long else e.partial
        except asyncio.LimitOverrunError as e:  # drop what is buffered, read on to the newline
            await reader.readexactly(e.consumed)
            too_long = True
            continue
        return None if too_long else line

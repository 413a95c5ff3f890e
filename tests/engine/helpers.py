"""Helpers for engine-core tests: a cabinet on a seeded RNG, driven by events."""

from __future__ import annotations

import random

from cabinet.core.context import NoHistory
from cabinet.core.events import HostLinkConfigured, IntentReceived, NoteStacked, PowerUp, Tick
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.meters import audit_balance
from cabinet.core.settings import GameSettings
from cabinet.core.shell_inputs import event_query, read_history


class Rig:
    """A cabinet with a clock the test moves by hand."""

    def __init__(self, settings: GameSettings | None = None, seed: int = 1) -> None:
        self.cab = Cabinet(new_state(settings), rng=random.Random(seed))
        self.now_ms = 0
        self.wall_s = 1_800_000_000.0
        self.txn = 0
        self.effects = self.cab.handle(PowerUp(self.now_ms, self.wall_s))

    def press(self, action: str, station: int = 1, value: int | None = None):
        """A touch, the journal rows it decides on handed in first as the shell does
        (``event_query``), from an empty journal."""
        ev = IntentReceived(station, action, value)
        query = event_query(self.cab, ev)
        if query is not None:
            self.cab.handle(read_history(NoHistory(), query))
        self.effects = self.cab.handle(ev)
        return self.effects

    def note(self, amount_minor: int, station: int = 1):
        self.txn += 1
        self.effects = self.cab.handle(NoteStacked(station, amount_minor, f"t{self.txn}"))
        return self.effects

    def advance(self, ms: int):
        self.now_ms += ms
        self.wall_s += ms / 1000
        self.effects = self.cab.handle(Tick(self.now_ms, self.wall_s))
        return self.effects

    def credits(self, station: int = 1) -> int:
        return self.cab.s.stations[station - 1].credits_minor

    def meters(self, station: int = 1):
        return self.cab.s.stations[station - 1].meters

    def balanced(self) -> bool:
        return all(audit_balance(st.credits_minor, st.pending_out_minor, st.meters) == 0 for st in self.cab.s.stations)

    def play_out(self, station_choice=None) -> None:
        """Answer every prompt: decline insurance, stand."""
        while self.cab.mode == "in_round":
            p = self.cab.round.prompt
            self.press("decline" if p.kind == "insurance" else "stand", p.seat)


class LinkedRig(Rig):
    """A ``Rig`` whose every station has a casino host link (SAS address = station
    number) configured before the power-up, as the shell does."""

    def __init__(self, settings: GameSettings | None = None, seed: int = 1) -> None:
        self.cab = Cabinet(new_state(settings), rng=random.Random(seed))
        self.now_ms = 0
        self.wall_s = 1_800_000_000.0
        self.txn = 0
        for st in self.cab.s.stations:
            self.cab.handle(HostLinkConfigured(st.station, st.station, f"/dev/pts/{st.station}", self.wall_s))
        self.effects = self.cab.handle(PowerUp(self.now_ms, self.wall_s))


def kinds(effects) -> list[str]:
    return [type(e).__name__ for e in effects]


async def with_served_engine(tmp_path, body, *, devices=None, settings=None, server_too=True):
    """Run a real ``Engine`` on ``tmp_path/j.db`` with its ``UIServer`` on
    ``tmp_path/ui.sock`` around ``await body(eng, server, socket_path)`` (``body(eng,
    socket_path)`` when ``server_too`` is False), then stop both and close the journal.

    ``devices``: the engine's devices (None: none); ``settings``: a ``GameSettings`` the
    cabinet starts with instead of the journal's default.
    """
    import asyncio

    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store
    from cabinet.shell.ui_server import UIServer

    eng = Engine(Store(tmp_path / "j.db"), devices, rng=random.Random(1))
    if settings is not None:
        eng.cab.s = new_state(settings)
        eng.cab.rules = eng.cab.s.settings.validate()
    stop = asyncio.Event()
    sock = tmp_path / "ui.sock"
    server = UIServer(eng, sock)
    started = asyncio.Event()
    task = asyncio.create_task(eng.run(started.set, stop))
    await started.wait()
    await server.start()
    try:
        await (body(eng, server, str(sock)) if server_too else body(eng, str(sock)))
    finally:
        await server.stop()
        stop.set()
        await task
        eng.store.close()

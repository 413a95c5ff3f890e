"""The UI server tells the engine which station each screen draws: a note at a
station whose own screen is not drawing yet is returned, whatever another station's
screen does."""

from __future__ import annotations

import asyncio

from cabinet.core.effects import ReturnNote, SetAcceptor, StackNote
from cabinet.core.events import NoteEscrowed
from cabinet.core.settings import GameSettings
from tests.engine.helpers import with_served_engine

from .test_access import _connect, _read, _token, _until


class _Recorder:
    """Devices that only keep the effects they are told to run."""

    def __init__(self) -> None:
        self.ran: list = []

    def start(self, post) -> None:
        pass

    def run(self, effect) -> None:
        self.ran.append(effect)

    def stop(self) -> None:
        pass


def _acceptor_on(eng, station: int) -> bool | None:
    """What station ``station``'s acceptor was last told: enabled, or None if never."""
    told = [e.enabled for e in eng.devices.ran if isinstance(e, SetAcceptor) and e.station == station]
    return told[-1] if told else None


async def _three_station_engine(tmp_path, body):
    await with_served_engine(
        tmp_path, body, devices=_Recorder(), settings=GameSettings(variant="classic-multi", stations=3)
    )


def test_station_2_screen_not_drawing_its_note_is_returned_while_station_1_takes_notes(tmp_path, monkeypatch):
    """Station 1's own screen sends frames; station 2's UI is still waiting for its
    display (no frame): a $50 note at station 2 is returned, one at station 1 stacked.
    Station 2's frames come: it takes notes; they stop: it refuses them again."""
    from cabinet.shell import ui_server

    monkeypatch.setattr(ui_server, "DISPLAY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(ui_server, "DISPLAY_CHECK_S", 0.1)

    def frame(station: int) -> bytes:
        return b'{"type":"frame","seq":1,"station":%d}\n' % station

    async def note(eng, station: int, txn: str) -> str:
        ran = eng.devices.ran
        seen = len(ran)
        await asyncio.wrap_future(eng.post(NoteEscrowed(station, 5_000, txn)))
        for e in ran[seen:]:
            if isinstance(e, StackNote) and e.station == station:
                return "stacked"
            if isinstance(e, ReturnNote) and e.station == station:
                return "returned"
        return "nothing"

    async def body(eng, server, path):
        await _until(lambda: _acceptor_on(eng, 1) is False)
        r1, w1 = await _connect(path, token=_token(path))
        assert (await _read(r1))["type"] == "hello"
        w1.write(frame(1))
        await w1.drain()
        await _until(lambda: _acceptor_on(eng, 1) is True)
        assert await note(eng, 1, "n1") == "stacked"
        assert _acceptor_on(eng, 2) is False
        assert await note(eng, 2, "n2") == "returned"
        r2, w2 = await _connect(path, token=_token(path))
        assert (await _read(r2))["type"] == "hello"
        w2.write(frame(2))
        await w2.drain()
        await _until(lambda: _acceptor_on(eng, 2) is True)
        assert await note(eng, 2, "n3") == "stacked"
        w1.write(frame(1))
        await w1.drain()
        await _until(lambda: _acceptor_on(eng, 2) is False, timeout_s=3)
        assert await note(eng, 2, "n4") == "returned"
        w1.close()
        w2.close()

    asyncio.run(_three_station_engine(tmp_path, body))

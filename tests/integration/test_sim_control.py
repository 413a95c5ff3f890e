"""The sim control commands (``DriverDevices.sim_command``) against running twins, in
process: bad input gets a one-line ``{"ok": false, "error": ...}``, changes nothing,
and never takes the simulated bill acceptor down."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cabinet.shell.devices import SIM_LINE_LIMIT, DriverDevices, StationDevices
from drivers.events import Door, EscrowDecision, VoucherEscrowed
from drivers.factory import DriverSettings, build_drivers
from drivers.id003_codec import Status

pytestmark = pytest.mark.timeout(30)

TABLE = "(it has 100, 500, 1000, 2000, 5000, 10000)"


def _wait(cond: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


class _Station:
    """One station's ``DriverDevices`` on the twins, its acceptor polling, escrows returned."""

    def __init__(self, tmp: Path) -> None:
        self.escrows: list[Any] = []
        self.events: list[Any] = []
        self.devices = DriverDevices(
            DriverSettings(mode="sim", sim_dir=tmp, bill_poll_interval_s=0.01), lambda _station: frozenset()
        )
        self.drivers = build_drivers(
            self.devices.settings, decide=self._decide, credit=lambda _ev: None, sink=self.events.append
        )
        self.devices.drivers = self.drivers
        assert self.drivers.sim is not None and self.drivers.bill_acceptor is not None
        self.sim = self.drivers.sim
        self.drivers.bill_acceptor.start()
        self.drivers.bill_acceptor.set_accepting(True)
        _wait(lambda: self.sim.bill.state == Status.IDLING)

    def _decide(self, esc: Any) -> EscrowDecision:
        self.escrows.append(esc)
        return EscrowDecision.RETURN

    def send(self, cmd: dict[str, Any] | str) -> dict[str, Any]:
        return self.devices.sim_command(cmd if isinstance(cmd, str) else json.dumps(cmd))


@pytest.fixture
def station(tmp_path: Path) -> Iterator[_Station]:
    st = _Station(tmp_path)
    yield st
    st.drivers.close()


def test_an_over_long_voucher_is_refused_and_the_acceptor_lives_on(station: _Station) -> None:
    # regression: answered {"ok": true}, then the sim-id003 thread died in encode_frame
    # ("payload of 10001 bytes is too long") and the cabinet tilted 305 until a restart
    reply = station.send({"cmd": "voucher", "validation_number": "x" * 10000})
    assert reply == {
        "ok": False,
        "error": "voucher: a ticket barcode is 1-18 digits 0-9, not 'xxxxxxxxxxxxxxxxxxxx... (10000 characters)",
    }
    for bad in ("1" * 10000, "1" * 19, "", "00-1234-5678-9012-3456"):
        reply = station.send({"cmd": "voucher", "validation_number": bad})
        assert reply["ok"] is False and "1-18 digits 0-9" in reply["error"]
    assert station.send({"cmd": "voucher", "validation_number": 1234}) == {
        "ok": False,
        "error": 'voucher: "validation_number" must be a string of 1-18 digits, not 1234',
    }
    assert list(station.sim.bill._queue) == []
    assert station.send({"cmd": "voucher", "validation_number": "001234567890123456"}) == {"ok": True}
    _wait(lambda: len(station.escrows) == 1 and station.sim.bill.state == Status.IDLING)
    assert [(type(e), e.validation_number) for e in station.escrows] == [(VoucherEscrowed, "001234567890123456")]
    assert station.sim.bill._thread is not None and station.sim.bill._thread.is_alive()
    assert [e for e in station.events if "Offline" in type(e).__name__] == []


@pytest.mark.parametrize(
    ("cmd", "error"),
    [
        ({"cmd": "note", "amount_minor": 300}, f"note: no bill of 300 minor units in the currency table {TABLE}"),
        ({"cmd": "note", "amount_minor": -2000}, f"note: no bill of -2000 minor units in the currency table {TABLE}"),
        ({"cmd": "note", "amount_minor": "2000"}, 'note: "amount_minor" must be an integer, not "2000"'),
        ({"cmd": "note", "amount_minor": 20.0}, 'note: "amount_minor" must be an integer, not 20.0'),
        ({"cmd": "note", "amount_minor": True}, 'note: "amount_minor" must be an integer, not true'),
        ({"cmd": "note"}, 'note: needs "amount_minor" (an integer)'),
        ({"cmd": "door", "door": "main", "open": "false"}, 'door: "open" must be true or false, not "false"'),
        ({"cmd": "door", "door": "main", "open": 0}, 'door: "open" must be true or false, not 0'),
        ({"cmd": "door", "door": "main"}, 'door: needs "open" (true or false)'),
        ({"cmd": "door", "door": "roof", "open": True}, 'door: unknown door "roof" (known: main, cashbox, logic)'),
        (
            {"cmd": "door", "door": ["main"], "open": True},
            'door: "door" must be one of main, cashbox, logic, not ["main"]',
        ),
        ({"cmd": "key", "on": "true"}, 'key: "on" must be true or false, not "true"'),
        ({"cmd": "key", "on": None}, 'key: "on" must be true or false, not null'),
        (
            {"cmd": "press", "action": "fly"},
            'press: unknown action "fly" (known: deal, hit, stand, split, double, '
            "insure, bet_up, bet_down, cash_out, chip_1, chip_5, chip_25, chip_100, "
            "spot_1, spot_2, spot_3)",
        ),
        (
            {"cmd": "press", "action": 3},
            'press: "action" must be one of deal, hit, stand, split, double, insure, '
            "bet_up, bet_down, cash_out, chip_1, chip_5, chip_25, chip_100, spot_1, "
            "spot_2, spot_3, not 3",
        ),
        ({"cmd": "bill", "line": ["jam"]}, 'bill: "line" must be a string, not ["jam"]'),
        ({"cmd": "bill", "line": "3"}, "bill: no $3 bill in the currency table (it has $1, $5, $10, $20, $50, $100)"),
        (
            {"cmd": "bill", "line": "v " + "1" * 19},
            "bill: a ticket barcode is 1-18 digits 0-9, not '1111111111111111111'",
        ),
        ({"cmd": "bill", "line": "drop \u00b2"}, "bill: drop takes one count N, a whole number 0-999999, not '\u00b2'"),
        ({"cmd": "bill", "line": "explode"}, "bill: unknown bill command 'explode' (help lists them)"),
        ({"cmd": "printer", "line": "out now"}, "printer: out takes no argument, got 'now'"),
        ({"cmd": "printer", "line": "bogus"}, "printer: unknown printer command 'bogus' (help lists them)"),
        ({"cmd": "fly"}, 'unknown command "fly" (known: press, door, key, note, voucher, bill, printer, tickets)'),
        (
            {"cmd": 7},
            'a sim command needs "cmd", a string (one of press, door, key, note, voucher, bill, printer, tickets)',
        ),
        ("[1, 2]", "a sim command is a JSON object, not [1, 2]"),
        ("{not json", "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ],
)
def test_bad_commands_get_one_line_errors_and_change_nothing(
    station: _Station, cmd: dict[str, Any] | str, error: str
) -> None:
    door_pin = station.sim.pin_factory.pin(station.sim.wiring.doors[Door.MAIN])
    before = (door_pin.state, station.sim.bill.state, station.sim.printer.paper_out)
    assert station.send(cmd) == {"ok": False, "error": error}
    assert (door_pin.state, station.sim.bill.state, station.sim.printer.paper_out) == before
    assert list(station.sim.bill._queue) == [] and station.escrows == []


def test_good_commands_still_work(station: _Station) -> None:
    door_pin = station.sim.pin_factory.pin(station.sim.wiring.doors[Door.MAIN])
    assert station.send({"cmd": "door", "door": "main", "open": True}) == {"ok": True}
    assert door_pin.state == 1
    assert station.send({"cmd": "door", "door": "main", "open": False}) == {"ok": True}
    assert door_pin.state == 0
    assert station.send({"cmd": "bill", "line": ""}) == {"ok": True, "reply": ""}
    assert station.send({"cmd": "printer", "line": "out"}) == {"ok": True, "reply": "out: ok"}
    assert station.sim.printer.paper_out is True
    assert station.send({"cmd": "note", "amount_minor": 2000}) == {"ok": True}
    _wait(lambda: [getattr(e, "denomination_minor", None) for e in station.escrows] == [2000])


def test_station_field_is_checked(station: _Station) -> None:
    cabinet = StationDevices([station.devices])
    assert cabinet.sim_command('{"cmd": "tickets", "station": "1"}') == {
        "ok": False,
        "error": '"station" must be an integer, not "1"',
    }
    assert cabinet.sim_command('{"cmd": "tickets", "station": 4}') == {
        "ok": False,
        "error": "no station 4 (this cabinet has 1)",
    }
    assert cabinet.sim_command("[" * 100_000)["error"].startswith("not JSON: maximum recursion depth")
    assert cabinet.sim_command('{"cmd": "tickets", "station": 1}') == {"ok": True, "tickets": []}


def test_socket_answers_every_line_even_one_over_the_limit(station: _Station, tmp_path: Path) -> None:
    cabinet = StationDevices([station.devices], sim_socket=tmp_path / "s.sim")
    replies: list[dict[str, Any]] = []

    async def talk() -> None:
        await cabinet._serve_sim()
        reader, writer = await asyncio.open_unix_connection(str(tmp_path / "s.sim"))
        long_line = json.dumps({"cmd": "voucher", "validation_number": "1" * (3 * SIM_LINE_LIMIT)})
        writer.write(long_line.encode() + b"\n" + b'{"cmd": "key", "on": true}\n')
        await writer.drain()
        for _ in range(2):
            replies.append(json.loads(await asyncio.wait_for(reader.readline(), 10)))
        writer.close()
        assert cabinet._sim_server is not None
        cabinet._sim_server.close()

    asyncio.run(talk())
    assert replies == [{"ok": False, "error": f"line longer than {SIM_LINE_LIMIT} bytes"}, {"ok": True}]

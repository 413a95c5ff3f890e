"""The long poll rows of ``drivers/sas/layouts.py`` are the EGM's dispatch: each row says
how the responder answers (handler, view reply, or nothing) and its flags, and the
responder follows the row."""

from __future__ import annotations

import dataclasses

import pytest

from drivers.sas import replies
from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder, LinkChanged
from drivers.sas.egm_view import EgmView, HostCommand
from drivers.sas.host_codec import long_poll, to_wire
from drivers.sas.layouts import LAYOUTS, Layout


def test_every_row_routes_one_way_and_every_handler_exists() -> None:
    """A row names a handler or a view reply, never both; every named handler is one the
    responder has (it refuses to start otherwise)."""
    for command, row in LAYOUTS.items():
        assert row.command == command
        assert not (row.handler is not None and row.view_reply is not None), hex(command)
    EgmResponder(1)  # raises when a row names a handler it lacks
    unanswered = sorted(c for c, row in LAYOUTS.items() if row.handler is None and row.view_reply is None)
    assert unanswered == [0x4C, 0x4D]  # secure enhanced validation: not implemented


def test_flags() -> None:
    """Only 0x7F is taken from a broadcast; only 0x3D is silent under system validation."""
    assert sorted(c for c, row in LAYOUTS.items() if row.broadcast) == [0x7F]
    assert sorted(c for c, row in LAYOUTS.items() if row.ignored_under_system_validation) == [0x3D]
    host_commands = {c: row.name for c, row in LAYOUTS.items() if row.handler == "host_command"}
    assert host_commands == {
        0x01: "shut_down",
        0x02: "start_up",
        0x06: "enable_bill_acceptor",
        0x07: "disable_bill_acceptor",
        0x0A: "enter_maintenance_mode",
        0x0B: "exit_maintenance_mode",
    }


def _answer(responder: EgmResponder, message: bytes) -> list[object]:
    """What the responder writes and hands the engine (link changes left out)."""
    out = responder.receive(to_wire(message), 0, (2026, 1, 2, 3, 4, 5))
    return [o for o in out if not isinstance(o, LinkChanged)]


def test_the_responder_follows_the_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing a row changes the answer: the responder decides nothing per poll itself."""
    r = EgmResponder(1)
    r.update(EgmView(address=1, current_credits=12))
    assert _answer(r, long_poll(1, 0x1A)) == [with_crc(bytes.fromhex("01 1A 00 00 00 12"))]
    silent = {**LAYOUTS, 0x1A: dataclasses.replace(LAYOUTS[0x1A], view_reply=None)}
    monkeypatch.setattr(r.codec, "_layouts", silent)
    _answer(r, long_poll(1, 0x1F))  # another poll between two identical ones
    assert _answer(r, long_poll(1, 0x1A)) == []
    # a row routed to host_command ACKs and hands the engine its name
    as_command: dict[int, Layout] = {**LAYOUTS, 0x1A: dataclasses.replace(LAYOUTS[0x1A], handler="host_command")}
    monkeypatch.setattr(r.codec, "_layouts", as_command)
    _answer(r, long_poll(1, 0x1F))
    assert _answer(r, long_poll(1, 0x1A)) == [HostCommand("current_credits", 0x1A), replies.ack(1)]


def test_broadcast_flag_and_system_validation_flag() -> None:
    """0x7F to address 0 sets the clock unanswered; 0x3D is silent with system validation."""
    r = EgmResponder(1)
    r.update(EgmView(address=1))
    out = _answer(r, long_poll(0, 0x7F, bytes.fromhex("01022026 030405")))
    assert out == [HostCommand("set_clock", 0x7F, date_time=(2026, 1, 2, 3, 4, 5), broadcast=True)]
    assert _answer(r, long_poll(1, 0x3D)) != []
    r.update(EgmView(address=1, validation_mode="system"))
    _answer(r, long_poll(1, 0x1A))
    assert _answer(r, long_poll(1, 0x3D)) == []

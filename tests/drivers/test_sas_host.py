"""The SAS host twin over real ptys against a minimal test EGM (the host twin).

The EGM (``sas_test_egm.TestEgm``) is built from the pure codec only, so these tests
check the host's link behaviour: exceptions in order and each once (also when a reply
is lost and the host repeats), meters recorded exactly, control polls ACKed, garbage
and bad CRCs survived, a silent EGM's link going down and up, busy, the ROM signature
at once and late, and two machines at once.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import wait_for
from sas_test_egm import INFO, METERS, PROGRAM, TestEgm

from drivers.errors import ProtocolError
from drivers.sas.crc import rom_signature
from drivers.sas.host_codec import Ack, DataReply
from drivers.sim.sas_host import SasHost
from drivers.sim.sas_host_data import bill_mask, date_time_data, parse_handpay
from drivers.sim.sas_host_view import floor_view

pytestmark = pytest.mark.timeout(180)

FAST = dict(poll_interval_s=0.02, reply_timeout_s=0.15, link_down_s=1.0, meter_interval_s=0.5)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[SasHost]:
    h = SasHost([1], directory=tmp_path, db_path=tmp_path / "host.sqlite3", **FAST)  # type: ignore[arg-type]
    yield h
    h.close()


def _egm(host: SasHost, address: int = 1, **kw: object) -> TestEgm:
    return TestEgm(host.tty(address), address, **kw)  # type: ignore[arg-type]


def _codes(host: SasHost, machine: int = 1) -> list[int]:
    return [e.code for e in host.exceptions(machine)]


def _rows(db: Path, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as con:
        return list(con.execute(sql, args))


def test_exceptions_are_read_in_order_and_each_once(host: SasHost, tmp_path: Path) -> None:
    """General poll reads the EGM's exceptions oldest first; the host logs each
    once, with its name, in its database."""
    egm = _egm(host, exceptions=(0x11, 0x12, 0x7E, 0x7F, 0x17))
    try:
        wait_for(lambda: len(_codes(host)) >= 5, 5)
        time.sleep(0.3)  # more general polls: nothing more is read
        assert _codes(host) == [0x11, 0x12, 0x7E, 0x7F, 0x17]
        assert [e.name for e in host.exceptions(1)] == [
            "slot_door_opened",
            "slot_door_closed",
            "game_started",
            "game_ended",
            "ac_power_applied",
        ]
        assert not egm.queue
        rows = _rows(tmp_path / "host.sqlite3", "SELECT code, name FROM exceptions WHERE address = 1 ORDER BY id")
        assert rows == [
            (0x11, "slot_door_opened"),
            (0x12, "slot_door_closed"),
            (0x7E, "game_started"),
            (0x7F, "game_ended"),
            (0x17, "ac_power_applied"),
        ]
    finally:
        egm.close()


def test_a_lost_reply_is_asked_again_and_the_exception_read_once(host: SasHost) -> None:
    """Implied ACK: the EGM's first reply is lost; the host repeats the same
    general poll, the EGM sends the same exception again, and the host logs it once."""
    host.pause()
    egm = _egm(host, exceptions=(0x11, 0x12))
    egm.lose = 1
    try:
        host.resume()
        wait_for(lambda: len(_codes(host)) >= 2, 5)
        time.sleep(0.2)
        assert _codes(host) == [0x11, 0x12]
        with egm.lock:
            general = [(c, a) for c, _, a in egm.polls if c == 0x80]
        assert general[:2] == [(0x80, 1), (0x80, 2)]  # the repeat the EGM answered again
    finally:
        egm.close()


def test_meters_machine_info_and_version_are_recorded_exactly(host: SasHost, tmp_path: Path) -> None:
    """At link-up the host reads 0x1F, 0x54, 0x51, 0x1C, 0x1A and 0x1E and keeps
    the exact values in its database, with their time."""
    egm = _egm(host, credits=98765)
    db = tmp_path / "host.sqlite3"
    try:
        wait_for(lambda: host.meters(1).get("bills_100") is not None, 5)
        meters = host.meters(1)
        assert {
            k: meters[k]
            for k in (
                "coin_in",
                "coin_out",
                "drop",
                "jackpot",
                "games_played",
                "games_won",
                "slot_door_opened",
                "power_reset",
            )
        } == {
            "coin_in": 12345678,
            "coin_out": 8765432,
            "drop": 500000,
            "jackpot": 1200,
            "games_played": 4321,
            "games_won": 1999,
            "slot_door_opened": 7,
            "power_reset": 3,
        }
        assert meters["current_credits"] == 98765
        assert [meters[f"bills_{d}"] for d in (1, 5, 10, 20, 50, 100)] == [1, 2, 3, 4, 5, 6]
        first = _rows(
            db,
            "SELECT name, value, command, at FROM meter_readings WHERE address = 1 "
            "AND command = 28 ORDER BY id LIMIT 8",
        )
        assert [(n, v, c) for n, v, c, _ in first] == [
            ("coin_in", 12345678, 0x1C),
            ("coin_out", 8765432, 0x1C),
            ("drop", 500000, 0x1C),
            ("jackpot", 1200, 0x1C),
            ("games_played", 4321, 0x1C),
            ("games_won", 1999, 0x1C),
            ("slot_door_opened", 7, 0x1C),
            ("power_reset", 3, 0x1C),
        ]
        assert abs(float(first[0][3]) - time.time()) < 30  # type: ignore[arg-type]
        row = _rows(
            db,
            "SELECT game_id, additional_id, paytable_id, base_percent, max_bet, sas_version, "
            "serial_number, games, link_up FROM machines WHERE address = 1",
        )
        assert row == [(INFO.game_id, "001", "BJ6D01", "9950", 25, "602", "SN-0001", 3, 1)]
        # later readings follow the EGM
        egm.meters = METERS.__class__(*(v + 1 for v in METERS.values()))
        wait_for(lambda: host.meters(1)["coin_in"] == 12345679, 5)
        assert host.read_meters(1) == egm.meters
    finally:
        egm.close()


def test_shut_down_gets_the_ack_and_is_logged(host: SasHost, tmp_path: Path) -> None:
    """Long poll 0x01 goes out with its CRC and the EGM's ACK comes back."""
    egm = _egm(host)
    try:
        wait_for(lambda: host.link_up(1), 5)
        assert host.send(1, 0x01) == Ack(1)
        assert host.shut_down(1) is True and host.start_up(1) is True
        assert 0x01 in egm.commands() and 0x02 in egm.commands()
        rows = _rows(
            tmp_path / "host.sqlite3",
            "SELECT request, reply, outcome, tries FROM commands WHERE command = 1 ORDER BY id LIMIT 1",
        )
        assert rows[0][1:] == ("01", "ack", 1)
        assert rows[0][0] == "01 01 " + __import__("drivers.sas.crc", fromlist=["x"]).crc_bytes(b"\x01\x01").hex(" ")
    finally:
        egm.close()


def test_control_polls_carry_their_data(host: SasHost) -> None:
    """0x7F date and time (MMDDYYYY HHMMSS BCD), 0x08 bill mask, 0x06/0x07,
    0x0A/0x0B, 0x94 reach the EGM with the expected data."""
    egm = _egm(host)
    try:
        wait_for(lambda: host.link_up(1), 5)
        assert host.set_date_time(1, dt.datetime(2026, 12, 1, 13, 45, 30))
        assert host.configure_bills(1, [100, 2000, 10000])
        assert host.enable_bill_acceptor(1) and host.disable_bill_acceptor(1)
        assert host.enter_maintenance(1) and host.exit_maintenance(1)
        assert host.remote_handpay_reset(1) == 0
        with egm.lock:
            sent = {c: d for c, d, _ in egm.polls if c != 0x80}
        assert sent[0x7F] == bytes.fromhex("12012026 134530")
        assert sent[0x08] == bytes.fromhex("91000000 01")  # $1 bit 0, $20 bit 4, $100 bit 7
        assert {0x06, 0x07, 0x0A, 0x0B, 0x94} <= set(sent)
    finally:
        egm.close()


def test_a_garbage_reply_is_survived_and_the_poll_repeated(host: SasHost) -> None:
    """Garbage instead of a reply is an implied NACK: the same poll again, and
    the meters recorded are the EGM's, not the garbage's."""
    egm = _egm(host)
    try:
        wait_for(lambda: "coin_in" in host.meters(1), 5)
        host.pause()
        egm.garbage = 1
        reply = host.send(1, 0x1C)
        assert isinstance(reply, DataReply)
        assert host.meters(1)["coin_in"] == 12345678
        with egm.lock:
            attempts = [a for c, _, a in egm.polls if c == 0x1C]
        assert attempts[-2:] == [1, 2]
        # a garbage answer to a general poll (more than one byte) is not an exception
        egm.queue.append(0x11)
        egm.garbage = 1
        host.resume()
        wait_for(lambda: _codes(host) == [0x11], 5)
        time.sleep(0.2)
        assert _codes(host) == [0x11]
    finally:
        egm.close()


def test_a_wrong_crc_is_survived_and_the_poll_repeated(host: SasHost, tmp_path: Path) -> None:
    """A reply with a bad CRC is not recorded; the host repeats and records the
    good one."""
    egm = _egm(host, credits=555)
    try:
        wait_for(lambda: host.link_up(1), 5)
        host.pause()
        egm.bad_crc = 2
        egm.credits = 777
        reply = host.send(1, 0x1A)
        assert isinstance(reply, DataReply)
        assert host.meters(1)["current_credits"] == 777
        assert host.status()[0].counts["bad_replies"] >= 2
        rows = _rows(
            tmp_path / "host.sqlite3", "SELECT outcome, tries FROM commands WHERE command = 26 ORDER BY id DESC LIMIT 1"
        )
        assert rows == [("data", 3)]
        egm.bad_crc = 3
        assert host.send(1, 0x1A) is None  # three bad tries: no reply, nothing recorded
        assert host.meters(1)["current_credits"] == 777
    finally:
        egm.close()


def test_a_silent_egm_is_down_after_the_timeout_and_up_on_its_next_reply(host: SasHost, tmp_path: Path) -> None:
    """No valid reply for ``link_down_s`` (configurable; 5 s by default) marks
    the link down; the next valid reply brings it up."""
    assert host.link_down_s == 1.0
    assert SasHost.__init__.__kwdefaults__["link_down_s"] == 5.0  # type: ignore[index]
    assert not host.link_up(1)
    egm = _egm(host)
    try:
        wait_for(lambda: host.link_up(1), 5)
        egm.silent = True
        quiet = time.monotonic()
        wait_for(lambda: not host.link_up(1), 5)
        assert time.monotonic() - quiet >= 0.9
        egm.silent = False
        wait_for(lambda: host.link_up(1), 5)
        ups = _rows(tmp_path / "host.sqlite3", "SELECT up FROM link_events WHERE address = 1 ORDER BY id")
        assert ups == [(1,), (0,), (1,)]
    finally:
        egm.close()


def test_no_cabinet_on_the_port_never_blocks_the_host(tmp_path: Path) -> None:
    """With nobody on the pty the host keeps polling without blocking, and a
    cabinet that opens the port late does not read a backlog of stale polls."""
    with SasHost([1], poll_interval_s=0.002, reply_timeout_s=0.002, link_down_s=1.0) as h:
        time.sleep(1.5)  # hundreds of polls nobody reads
        assert h.status()[0].counts["sent"] > 100
        h.reply_timeout_s = 0.15
        h.poll_interval_s = 0.02
        egm = TestEgm(h.tty(1), flush_on_open=False)
        try:
            wait_for(lambda: h.link_up(1), 5)
            with egm.lock:
                assert len(egm.polls) < 20, len(egm.polls)
        finally:
            egm.close()


def test_busy_is_asked_again_later(host: SasHost) -> None:
    """Busy (``address 00``) is a valid reply; the host asks again after the
    next general poll and gets the data."""
    egm = _egm(host)
    try:
        wait_for(lambda: host.link_up(1), 5)
        egm.busy = 2
        reply = host.send(1, 0x1C)
        assert isinstance(reply, DataReply) and reply.command == 0x1C
        assert host.status()[0].counts["busy"] == 2
        egm.busy = 1
        assert host.shut_down(1)  # busy after an ACK-shaped poll: "01 00", then the ACK
        assert host.status()[0].counts["busy"] == 3
    finally:
        egm.close()


@pytest.mark.parametrize("mode", ["immediate", "late", "busy_late"])
def test_rom_signature_at_once_or_late(host: SasHost, tmp_path: Path, mode: str) -> None:
    """0x21 with a seed; the EGM answers at once, or (after no answer or busy)
    later in place of a general poll's exception byte: either way the host reads the
    seeded CRC of the program."""
    egm = _egm(host, rom=mode, exceptions=(0x11,))
    try:
        wait_for(lambda: _codes(host) == [0x11], 5)
        assert host.rom_signature(1, 0x1234) == rom_signature(0x1234, PROGRAM)
        row = _rows(tmp_path / "host.sqlite3", "SELECT rom_seed, rom_signature FROM machines")
        assert row == [(0x1234, rom_signature(0x1234, PROGRAM))]
        outcome = _rows(tmp_path / "host.sqlite3", "SELECT outcome FROM commands WHERE command = 33 ORDER BY id")
        assert [o for (o,) in outcome] == {
            "immediate": ["data"],
            "late": ["none", "late"],
            "busy_late": ["busy", "late"],
        }[mode]
        egm.queue.append(0x12)  # general polls go on and still read exceptions
        wait_for(lambda: _codes(host) == [0x11, 0x12], 5)
    finally:
        egm.close()


def test_handpay_pending_makes_the_host_read_0x1b(host: SasHost, tmp_path: Path) -> None:
    """Exception 0x51 (handpay pending) is followed by long poll 0x1B."""
    egm = _egm(host, exceptions=(0x51,))
    try:
        wait_for(lambda: bool(_rows(tmp_path / "host.sqlite3", "SELECT 1 FROM handpays")), 5)
        assert _rows(tmp_path / "host.sqlite3", "SELECT amount, partial_pay, level FROM handpays") == [(150000, 0, 0)]
    finally:
        egm.close()


def test_two_machines_at_once(tmp_path: Path) -> None:
    """The host serves several EGMs at once, each on its own pty."""
    with SasHost([1, 2], directory=tmp_path, db_path=tmp_path / "host.sqlite3", **FAST) as h:  # type: ignore[arg-type]
        assert Path(h.path(1)).resolve() == Path(h.tty(1)) and h.path(2) == str(tmp_path / "sas-2")
        one = TestEgm(h.tty(1), 1, exceptions=(0x11, 0x12), credits=100)
        two = TestEgm(
            h.tty(2), 2, exceptions=(0x7E, 0x7F, 0x3D), credits=200, meters=METERS.__class__(1, 2, 3, 4, 5, 6, 7, 8)
        )
        try:
            wait_for(
                lambda: (
                    len(_codes(h, 1)) == 2
                    and len(_codes(h, 2)) == 3
                    and all("current_credits" in h.meters(n) for n in (1, 2))
                    and "coin_in" in h.meters(2)
                ),
                5,
            )
            assert _codes(h, 1) == [0x11, 0x12] and _codes(h, 2) == [0x7E, 0x7F, 0x3D]
            assert h.meters(1)["current_credits"] == 100
            assert h.meters(2)["coin_in"] == 1 and h.meters(2)["current_credits"] == 200
            assert h.link_up(1) and h.link_up(2)
            view = floor_view(h.status())
            lines = view.splitlines()
            assert lines[2].split()[:3] == ["1", "up", lines[2].split()[2]]
            assert "slot_door_opened, slot_door_closed" in lines[2]
            assert "game_started, game_ended, cash_out_ticket_printed" in lines[3]
            assert lines[3].split()[3] == "200"
        finally:
            one.close()
            two.close()
    assert not (tmp_path / "sas-1").exists()  # close removes the links


def test_host_data_helpers() -> None:
    """The control poll data and the 0x1B parser, byte for byte."""
    assert date_time_data(dt.datetime(2027, 1, 2, 3, 4, 5)) == bytes.fromhex("01022027 030405")
    assert bill_mask([100, 500]) == bytes.fromhex("05000000")
    with pytest.raises(ValueError, match="no SAS bill denomination"):
        bill_mask([300])
    assert parse_handpay(bytes.fromhex("01 02 0000012345 0010 07") + bytes(10)) == {
        "progressive_group": 1,
        "level": 2,
        "amount": 12345,
        "partial_pay": 10,
        "reset_id": 7,
    }
    with pytest.raises(ProtocolError):
        parse_handpay(bytes(19))


def test_bad_addresses_and_unknown_machines_are_refused(tmp_path: Path) -> None:
    """A clear error for a machine address the host cannot poll."""
    for bad in ([], [0], [128], [1, 1]):
        with pytest.raises(ValueError, match="1..127"):
            SasHost(bad)
    with SasHost([3]) as h, pytest.raises(KeyError, match="no machine at address 1"):
        h.send(1, 0x1C)


def test_pyserial_on_the_egm_side_reads_the_parmrk_stream(host: SasHost) -> None:
    """A cabinet opening the pty with pyserial (as the SAS link does) reads the
    general poll as ``FF 00 81`` (wakeup on the address byte), and its one-byte answer
    brings the link up."""
    import serial

    port = serial.Serial(host.path(1), 19200, timeout=0.5)
    try:
        got = b""
        deadline = time.monotonic() + 3
        while b"\xff\x00\x81" not in got and time.monotonic() < deadline:
            got += port.read(16)
        assert b"\xff\x00\x81" in got, got.hex(" ")
        assert not host.link_up(1)
        got = b""
        while not host.link_up(1) and time.monotonic() < deadline:
            got += port.read(1)
            if got.endswith(b"\xff\x00\x81"):  # a general poll to address 1
                port.write(b"\x00")  # no exception pending
                got = b""
        assert host.link_up(1)
    finally:
        port.close()

"""The SAS link shell (drivers/sas_link.py) over a real pseudo-terminal pair:
the test plays the host, writing the PARMRK-encoded stream as the host twin does."""

from __future__ import annotations

import os
import queue
import random
import select
import statistics
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.sas import replies
from drivers.sas.crc import rom_signature
from drivers.sas.egm import ExceptionAcked, LinkChanged
from drivers.sas.egm_view import EgmView, HostCommand, HostException
from drivers.sas.host_codec import general_poll, long_poll, rom_signature_request, to_wire
from drivers.sas.messages import Meters1C
from drivers.sas_link import SasLink, set_wakeup_mode

VIEW = EgmView(
    address=1,
    coin_in=123456,
    coin_out=65432,
    drop=5000,
    jackpot=10,
    games_played=321,
    games_won=150,
    slot_door_opened=3,
    power_reset=9,
    exceptions=(HostException(1, "slot_door_opened"),),
)
REPLY_1C = replies.meters_1c(1, Meters1C(123456, 65432, 5000, 10, 321, 150, 3, 9))


class PtyHost:
    """The host end of a pty pair; the EGM opens ``path`` (a symlink to the slave)."""

    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "sas-port"
        self.master = self.slave = -1
        self.open()

    def open(self) -> None:
        self.master, self.slave = os.openpty()
        tmp = self.path.with_suffix(".new")
        os.symlink(os.ttyname(self.slave), tmp)
        os.replace(tmp, self.path)

    def close(self) -> None:
        # Remove the link first: a freed pts number may be reused by another process.
        self.path.unlink(missing_ok=True)
        for fd in (self.master, self.slave):
            if fd >= 0:
                os.close(fd)
        self.master = self.slave = -1

    def drain(self) -> bytes:
        got = b""
        while select.select([self.master], [], [], 0)[0]:
            got += os.read(self.master, 4096)
        return got

    def send(self, message: bytes) -> float:
        self.drain()
        os.write(self.master, to_wire(message))
        return time.perf_counter()

    def read(self, sent_at: float, want: int, timeout_s: float = 1.0, quiet_s: float = 0.03) -> tuple[bytes, float]:
        """Read the reply: until ``want`` bytes and then ``quiet_s`` of silence, or timeout.
        Returns the bytes and the delay to the first of them (s; inf when none)."""
        got, first = b"", float("inf")
        deadline = sent_at + timeout_s
        while True:
            now = time.perf_counter()
            wait = deadline - now if len(got) < want else quiet_s
            if wait <= 0 or not select.select([self.master], [], [], wait)[0]:
                return got, first
            chunk = os.read(self.master, 4096)
            if chunk and not got:
                first = time.perf_counter() - sent_at
            got += chunk

    def poll(self, message: bytes, want: int, timeout_s: float = 1.0) -> tuple[bytes, float]:
        return self.read(self.send(message), want, timeout_s)


def wait_for(cond: object, timeout_s: float = 3.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if callable(cond) and cond():
            return
        time.sleep(0.005)
    raise AssertionError("condition not met in time")


def drain_outputs(q: queue.SimpleQueue[object]) -> list[object]:
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


@pytest.fixture
def host(tmp_path: Path) -> Iterator[PtyHost]:
    h = PtyHost(tmp_path)
    yield h
    h.close()


def start_link(host: PtyHost, q: queue.SimpleQueue[object], view: EgmView | None = VIEW, **kw: object) -> SasLink:
    link = SasLink(str(host.path), 1, q.put, **kw)  # type: ignore[arg-type]
    if view is not None:
        link.update(view)
    link.start()
    wait_for(lambda: link.port_open)
    return link


def test_answers_general_poll_and_1c_within_deadline(host: PtyHost, capsys: pytest.CaptureFixture[str]) -> None:
    """Over a pty the link answers a general poll and 0x1C byte for byte, with
    the reply's first byte well within 20 ms of the poll (median; real numbers: bench)."""
    q: queue.SimpleQueue[object] = queue.SimpleQueue()
    link = start_link(host, q)
    try:
        assert not termios.tcgetattr(host.master)[0] & termios.PARMRK  # pty: raw, no PARMRK
        delays = []
        reply, d = host.poll(general_poll(1), 1)
        assert reply == bytes((0x11,))
        for _ in range(40):
            reply, d1 = host.poll(long_poll(1, 0x1C), len(REPLY_1C))
            assert reply == REPLY_1C
            reply, d2 = host.poll(general_poll(1), 1)
            assert reply == b"\x00"  # 0x11 was acked by the 0x1C
            delays += [d1, d2]
        ms = sorted(d * 1000 for d in delays)
        with capsys.disabled():
            print(
                f"\nSAS pty reply delay over {len(ms)} polls: median {statistics.median(ms):.2f} ms, "
                f"max {ms[-1]:.2f} ms; link-side median {statistics.median(link.reply_delays_ms):.3f} ms"
            )
        assert statistics.median(ms) < 20
        assert link.up and link.polls == 81 and link.last_poll_wall_s is not None
        outs = drain_outputs(q)
        assert outs[:2] == [LinkChanged(True), ExceptionAcked(1)]
    finally:
        link.stop()


def test_survives_garbage_and_never_answers_another_address(host: PtyHost) -> None:
    """Garbage on the line (fixed seed) neither crashes the link nor makes it
    answer; polls for another address get nothing; a good poll still gets its reply."""
    q: queue.SimpleQueue[object] = queue.SimpleQueue()
    link = start_link(host, q)
    try:
        rng = random.Random(13)
        for _ in range(50):
            os.write(host.master, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))))
        time.sleep(0.1)
        host.drain()
        assert host.poll(general_poll(2), 1, timeout_s=0.2)[0] == b""
        assert host.poll(long_poll(2, 0x1C), 1, timeout_s=0.2)[0] == b""
        assert host.poll(long_poll(1, 0x1C), len(REPLY_1C))[0] == REPLY_1C
        assert link.port_open and link.counts["port_errors"] == 0
        assert not [o for o in drain_outputs(q) if isinstance(o, HostCommand)]
    finally:
        link.stop()


def test_port_closing_and_reopening(host: PtyHost) -> None:
    """The port vanishing is logged and the link reopens it with backoff; the
    link goes down without polls and up on the next one; nothing crashes."""
    q: queue.SimpleQueue[object] = queue.SimpleQueue()
    link = start_link(host, q, link_timeout_ms=300, backoff_s=(0.05, 0.2))
    try:
        assert host.poll(general_poll(1), 1)[0] == b"\x11"
        host.close()
        wait_for(lambda: not link.port_open)
        wait_for(lambda: not link.up)
        time.sleep(0.3)  # a few failed reopen attempts
        host.open()
        wait_for(lambda: link.port_open)
        assert host.poll(general_poll(1), 1)[0] == b"\x11"  # not acked before: sent again
        assert host.poll(long_poll(1, 0x1C), len(REPLY_1C))[0] == REPLY_1C
        outs = drain_outputs(q)
        assert outs == [LinkChanged(True), LinkChanged(False), LinkChanged(True), ExceptionAcked(1)]
        assert link.counts["port_errors"] >= 1 and link.counts["opens"] == 2
    finally:
        link.stop()


def test_busy_until_the_engine_gives_a_view(host: PtyHost) -> None:
    """Before the first view the link answers busy (address 00)."""
    q: queue.SimpleQueue[object] = queue.SimpleQueue()
    link = start_link(host, q, view=None)
    try:
        assert host.poll(long_poll(1, 0x1C), 2)[0] == b"\x01\x00"
        link.update(VIEW)
        assert host.poll(long_poll(1, 0x1C), len(REPLY_1C))[0] == REPLY_1C
    finally:
        link.stop()


def test_rom_signature_in_background_sent_at_a_general_poll(host: PtyHost, tmp_path: Path) -> None:
    """0x21 is ACKed, computed in the background over the program files while
    the link keeps answering, and sent to a general poll when done."""
    files = []
    for i in range(3):
        path = tmp_path / f"prog{i}.py"
        path.write_bytes(bytes(range(256)) * (200 + i))
        files.append(path)
    q: queue.SimpleQueue[object] = queue.SimpleQueue()
    link = start_link(host, q, view=EgmView(address=1), program_files=files)
    try:
        assert host.poll(rom_signature_request(1, 0xBEEF), 1)[0] == b"\x01"
        expected = replies.rom_signature_reply(1, rom_signature(0xBEEF, b"".join(p.read_bytes() for p in files)))
        deadline = time.monotonic() + 5
        got = b""
        while time.monotonic() < deadline:
            got = host.poll(general_poll(1), 1)[0]
            if got != b"\x00":
                break
            host.poll(general_poll(0), 0, timeout_s=0.01)  # implied ACK, like nCompass
        assert got == expected
        assert link.counts["rom_signatures"] == 1
    finally:
        link.stop()


def test_uart_mode_sets_parmrk_and_inpck(host: PtyHost) -> None:
    """On a real UART the link asks the kernel for FF 00 b (INPCK|PARMRK,
    IGNPAR and ISTRIP clear); in pty mode both are cleared."""
    set_wakeup_mode(host.slave, pty=False)
    iflag = termios.tcgetattr(host.slave)[0]
    assert iflag & termios.PARMRK and iflag & termios.INPCK
    assert not iflag & (termios.IGNPAR | termios.ISTRIP)
    set_wakeup_mode(host.slave, pty=True)
    assert not termios.tcgetattr(host.slave)[0] & (termios.PARMRK | termios.INPCK)


def test_callback_errors_never_stop_the_link(host: PtyHost) -> None:
    """An on_output that raises is logged and counted; the link keeps answering."""

    def bad(_: object) -> None:
        raise RuntimeError("engine queue full")

    link = SasLink(str(host.path), 1, bad)
    link.update(VIEW)
    link.start()
    try:
        wait_for(lambda: link.port_open)
        assert host.poll(general_poll(1), 1)[0] == b"\x11"
        assert host.poll(long_poll(1, 0x1C), len(REPLY_1C))[0] == REPLY_1C
        assert link.counts["callback_errors"] >= 2
    finally:
        link.stop()


def test_missing_port_is_retried_not_raised(tmp_path: Path) -> None:
    """A port that is not there is retried with backoff; start/stop never raise."""
    link = SasLink(str(tmp_path / "no-such-port"), 1, lambda _: None, backoff_s=(0.01, 0.05))
    link.start()
    time.sleep(0.2)
    assert not link.port_open and not link.up
    link.stop()


def test_line_errors_are_counted_and_logged_rate_limited(host: PtyHost, caplog: pytest.LogCaptureFixture) -> None:
    """research/sas.md "Physical and link layer": CRC and framing errors on the line
    are counted by kind (``line_errors``, for the Host page) and logged as one warning
    per ``LINE_ERROR_LOG_S`` with the counts since the last, never one line per bad
    message or byte."""
    q: queue.SimpleQueue[object] = queue.SimpleQueue()
    link = start_link(host, q)
    bad = bytearray(to_wire(rom_signature_request(1, 0x1234)))
    bad[-1] ^= 0x01  # a CRC error
    try:
        with caplog.at_level("WARNING", logger="drivers.sas_link"):
            for _ in range(30):
                os.write(host.master, bytes(bad))
                os.write(host.master, b"\x01\x02\x03")  # bytes without a wakeup: stray
            wait_for(lambda: link.line_errors["crc"] == 30, 3)
            reply, _ = host.poll(general_poll(1), 1)
            # each bad CRC to this address is NACKed (Monaco SasClient.cs), then the link
            # still answers the general poll
            assert reply.endswith(bytes((0x11,))) and set(reply[:-1]) <= {0x81}
        errors = link.line_errors
        assert errors["crc"] == 30 and errors["stray"] >= 1
        said = [r.getMessage() for r in caplog.records if "line errors" in r.getMessage()]
        assert len(said) == 1, said
        assert "line errors crc " in said[0] and str(host.path) in said[0]
    finally:
        link.stop()


def test_line_error_log_says_the_first_at_once_then_one_line_per_period() -> None:
    """The warning's schedule: the first error at once, then at most one line per
    period with the counts since the last line; nothing new, nothing said."""
    from drivers.sas_link import LineErrorLog

    every = LineErrorLog(60_000)
    assert every.due({"crc": 0, "stray": 0}, 0) is None
    assert every.due({"crc": 1, "stray": 0}, 10) == {"crc": 1}
    assert every.due({"crc": 30, "stray": 0}, 1_000) is None
    assert every.due({"crc": 30, "stray": 2}, 60_010) == {"crc": 29, "stray": 2}
    assert every.due({"crc": 30, "stray": 2}, 200_000) is None

"""The hardware monotonic counter's drivers: the ATECC608 on I2C (its packet, CRC and
Counter command, against a fake chip on a fake bus) and the twin (a file)."""

from __future__ import annotations

import pytest

from drivers.atecc608 import (
    COUNTER_MAX,
    WAKE_REPLY,
    Atecc608Counter,
    command,
    crc16,
    parse_reply,
)
from drivers.errors import ConfigError, DeviceOfflineError, ProtocolError
from drivers.factory import open_counter
from drivers.sim.counter_twin import FileCounter


def test_crc_is_the_one_of_the_wake_reply():
    """The data sheet's wake reply 04 11 33 43: CRC 0x33 0x43 over 04 11."""
    assert crc16(bytes((0x04, 0x11))) == bytes((0x33, 0x43))
    with pytest.raises(ProtocolError, match="status 0x11"):
        parse_reply(WAKE_REPLY)


def test_counter_command_packet():
    """Word address 3, count 7, opcode 0x24, mode, counter id little-endian, CRC."""
    pkt = command(0x24, 0x01, 1)
    assert pkt[:6] == bytes((0x03, 0x07, 0x24, 0x01, 0x01, 0x00))
    assert pkt[6:] == crc16(pkt[1:6])


class FakeChip:
    """An ATECC608 on a bus: wakes on a write to address 0, answers one Counter command."""

    def __init__(self, value=0):
        self.counters = [value, 0]
        self.awake = False
        self.reply = b""
        self.commands = []

    def write(self, address, data):
        if address == 0:
            self.awake = True
            self.reply = WAKE_REPLY
            raise OSError(121, "Remote I/O error")  # the NACK of a wake
        assert address == 0x60 and self.awake
        if data[0] == 0x02:
            self.awake = False
            return
        assert data[0] == 0x03 and data[-2:] == crc16(data[1:-2])
        op, mode, cid = data[2], data[3], int.from_bytes(data[4:6], "little")
        self.commands.append((op, mode, cid))
        if mode == 1 and self.counters[cid] >= COUNTER_MAX:
            body = bytes((4, 0x0F))  # execution error
            self.reply = body + crc16(body)
            return
        if mode == 1:
            self.counters[cid] += 1
        body = bytes((7,)) + self.counters[cid].to_bytes(4, "little")
        self.reply = body + crc16(body)

    def read(self, address, n):
        if not self.awake:
            raise OSError(121, "Remote I/O error")
        out, self.reply = self.reply[:n], self.reply[n:]
        return out

    def close(self):
        pass


def test_atecc608_counter_reads_and_steps():
    chip = FakeChip(41)
    c = Atecc608Counter(chip, counter=0, sleep=lambda s: None)
    assert c.read() == 41
    assert c.increment() == 42 and chip.counters[0] == 42
    assert (0x24, 0x01, 0) in chip.commands and not chip.awake  # left idle


def test_atecc608_at_its_limit_refuses_to_step():
    c = Atecc608Counter(FakeChip(COUNTER_MAX), sleep=lambda s: None)
    with pytest.raises(ProtocolError, match="status 0x0f"):
        c.increment()


def test_an_absent_chip_is_offline_after_the_reply_timeout():
    class Nothing(FakeChip):
        def read(self, address, n):
            raise OSError(121, "Remote I/O error")

    t = [0.0]

    def sleep(s):
        t[0] += s

    c = Atecc608Counter(Nothing(), sleep=sleep, clock=lambda: t[0])
    with pytest.raises(DeviceOfflineError):
        c.read()


def test_the_twin_starts_at_zero_and_steps_in_its_file(tmp_path):
    c = FileCounter(tmp_path / "c" / "count")
    assert c.read() == 0
    assert c.increment() == 1 and c.increment() == 2
    assert (tmp_path / "c" / "count").read_text() == "2\n"
    (tmp_path / "c" / "count").write_text("x\n")
    with pytest.raises(ProtocolError):
        c.read()


def test_open_counter_specs(tmp_path):
    assert open_counter("") is None and open_counter("none") is None
    assert isinstance(open_counter(f"twin:{tmp_path / 'n'}"), FileCounter)
    with pytest.raises(ConfigError, match="journal.counter"):
        open_counter("eeprom")
    with pytest.raises(ConfigError, match="counters 0 and 1"):
        open_counter("atecc608:/dev/i2c-1:7")
    with pytest.raises(DeviceOfflineError):
        open_counter(f"atecc608:{tmp_path / 'no-such-bus'}")

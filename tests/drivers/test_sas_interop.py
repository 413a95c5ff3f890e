"""The EGM against a third-party host library's own message building: ``sas-comm-py``
(PyPI ``sas-comm-py==0.1.0``, MIT, github mdedz/sas_comm_py; a test dependency in
pyproject's ``test`` extras).  Its ``SlotMachine.write`` lays out each poll and appends
its CRC (``sas_comm_py/__init__.py`` ``crc_calculate``, ``sas_comm_py/crc.py``
``CRC16K``); its ``read`` frames our reply and checks our CRC (``validate_crc``).  The
library writes a bare ``0x80`` before each message where a real line sets the wakeup
bit on the address byte: the message is passed on from the address byte, with the
wakeup bit (``to_wire``).  Nothing here comes from our own host twin."""

from __future__ import annotations

import dataclasses

import sas_comm_py  # type: ignore[import-untyped]

from drivers.sas import tito_codes as tc
from drivers.sas.egm import EgmResponder
from drivers.sas.egm_view import EgmView, HostCommand, PendingCashout, TicketData, TicketIn
from drivers.sas.host_codec import general_poll, to_wire


class _Port:
    """A serial port stand-in: what the library writes goes to the EGM, the EGM's reply
    is read back byte by byte."""

    def __init__(self, egm: EgmResponder) -> None:
        self.egm = egm
        self.sent: list[bytes] = []
        self.commands: list[HostCommand] = []
        self._rx = b""
        self._ms = 0

    def write(self, data: bytes) -> None:
        assert data[0] == 0x80  # the library's wakeup byte
        self.sent.append(bytes(data[1:]))
        self._ms += 100
        out = self.egm.receive(to_wire(general_poll(0)) + to_wire(data[1:]), self._ms)
        self._rx += b"".join(o for o in out if isinstance(o, bytes))
        self.commands += [o for o in out if isinstance(o, HostCommand)]

    def read(self, n: int) -> bytes:
        got, self._rx = self._rx[:n], self._rx[n:]
        return got


def _machine(view: EgmView) -> tuple[object, _Port]:
    egm = EgmResponder(1)
    egm.update(view)
    port = _Port(egm)
    sm = sas_comm_py.SlotMachine.__new__(sas_comm_py.SlotMachine)  # no real serial port
    sm.address, sm.wakeup_bit, sm.port = 1, 0x80, port
    sm.string_address = b"\x01"
    sm.wakeup_bit_and_address = [0x80, 1]
    return sm, port


VIEW = EgmView(
    address=1,
    asset_number=7,
    validation_mode="system",
    ticket_data=TicketData(validation_status=tc.VS_SUPPORTED, location="Casino"),
)


def test_sas_comm_py_validation_number_and_pending_cashout() -> None:
    """0x57 (R) and 0x58 (S, system ID 1 BCD: 0x12 is system 12) as the library builds
    them; our replies pass its CRC check; the amount is 2000 cents."""
    sm, port = _machine(dataclasses.replace(VIEW, pending_cashout=PendingCashout(3, 2_000)))
    r = sm.write_type_R(0x57, length_to_read=6)  # type: ignore[attr-defined]
    assert port.sent[-1] == bytes.fromhex("01 57")
    assert not r.error and r.raw_data[:8] == ["01", "57", "00", "00", "00", "00", "20", "00"]
    number = [0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56]
    r = sm.write_type_S(0x58, optional_data=[0x12, *number], length_to_read=1)  # type: ignore[attr-defined]
    assert port.sent[-1][:11] == bytes.fromhex("01 58 12 12 34 56 78 90 12 34 56")
    assert not r.error and r.raw_data[:3] == ["01", "58", "00"]
    assert port.commands == [
        HostCommand(
            "validation_number", 0x58, cashout_id=3, validation_system_id=12, validation_number="1234567890123456"
        )
    ]


def test_sas_comm_py_extended_validation_status_and_ticket_data() -> None:
    """0x7B with an empty control mask and 0x7D with only the expiration, as the library
    builds M polls (``add_length_binary``); the replies keep what the machine had."""
    sm, port = _machine(VIEW)
    r = sm.write_type_S(
        0x7B,
        optional_data=[0, 0, 0, 0, 0, 0, 0, 0],
        add_length_binary=True,  # type: ignore[attr-defined]
        following_length=True,
    )
    assert port.sent[-1][:3] == bytes.fromhex("01 7B 08")
    assert not r.error and r.raw_data[:9] == ["01", "7b", "0a", "07", "00", "00", "00", "21", "00"]
    r = sm.write_type_S(
        0x7D,
        optional_data=[0x00, 0x00, 0x1E],
        add_length_binary=True,  # type: ignore[attr-defined]
        length_to_read=1,
    )
    assert port.sent[-1][:6] == bytes.fromhex("01 7D 03 00 00 1E")
    assert not r.error and r.raw_data[:3] == ["01", "7d", "01"]
    (cmd,) = [c for c in port.commands if c.command == 0x7D]
    assert cmd.ticket_data is not None and cmd.ticket_data.location == "Casino"
    assert cmd.ticket_data.expiration_days == 30


def test_sas_comm_py_redeem_ticket() -> None:
    """0x70 then 0x71 (M) as the library builds them; amounts in cents."""
    ticket = "001234567890123456"
    sm, port = _machine(dataclasses.replace(VIEW, ticket_in=TicketIn(5, ticket, 2_000)))
    r = sm.write_type_R(0x70, following_length=True)  # type: ignore[attr-defined]
    assert not r.error and r.raw_data[:9] == ["01", "70", "10", "00", "00", "00", "00", "20", "00"]
    data = [0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, *bytes.fromhex(ticket), 0, 0, 0, 0, 0, 0]
    r = sm.write_type_S(0x71, optional_data=data, add_length_binary=True, following_length=True)  # type: ignore[attr-defined]
    assert not r.error and r.raw_data[:9] == ["01", "71", "10", "40", "00", "00", "00", "20", "00"]
    (cmd,) = [c for c in port.commands if c.command == 0x71]
    assert (cmd.amount_cents, cmd.validation_number, cmd.ticket_id) == (2_000, ticket, 5)

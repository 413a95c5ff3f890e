"""A validator reply that misses the driver's reply timeout is never taken for the reply
to a later command (protocols.md 1.4: ID-003 is strictly request and reply, the host
the master, so whatever is in the input when the host sends is stale).

Deterministic, no timing luck: ``LatePort`` is an in-memory serial port in front of the
validator twin (its state machine, no pty, no device thread).  Nothing arrives while
the driver waits for a held reply, so its timeout always passes; the held reply then
lands exactly where the test says.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Recorder

from drivers import id003_codec as c
from drivers.events import TransactionClosed, VendValidRepeated
from drivers.id003_acceptor import Id003BillAcceptor
from drivers.id003_codec import Command, Status
from drivers.sim.id003_device import SimId003Device

pytestmark = pytest.mark.timeout(120)


class LatePort:
    """A ``SerialLike`` whose writes the twin ``dev`` answers at once, except the replies
    ``hold`` picks: each misses the driver's reply timeout and lands ``sends`` sends
    later -- in the input before that send (``when="before"``: waiting there when the
    driver sends) or right after it, ahead of that command's own reply (``"after"``)."""

    def __init__(self, dev: SimId003Device) -> None:
        self.dev = dev
        self.pending = b""
        self.sends = 0
        self._holds: list[tuple[int, Status | None, int, str]] = []
        self._held: list[tuple[int, str, bytes]] = []  # (lands at send no., when, frame)

    def hold(self, code: int, *, in_state: Status | None = None, sends: int = 1, when: str = "before") -> None:
        """Hold the next reply to command ``code`` (sent while the twin is ``in_state``)."""
        self._holds.append((code, in_state, sends, when))

    @property
    def in_waiting(self) -> int:
        return len(self.pending)

    def read(self, size: int = 1) -> bytes:
        out, self.pending = self.pending[:size], self.pending[size:]
        return out

    def reset_input_buffer(self) -> None:
        self._land(self.sends + 1, "before")
        self.pending = b""

    def write(self, data: bytes) -> int:
        self.sends += 1
        self._land(self.sends, "before")
        self._land(self.sends, "after")
        state = self.dev.state
        for reply in self.dev.answer(data):
            hold = next((h for h in self._holds if h[0] == data[2] and h[1] in (None, state)), None)
            if hold is None:
                self.pending += reply
            else:
                self._holds.remove(hold)
                self._held.append((self.sends + hold[2], hold[3], reply))
        return len(data)

    def close(self) -> None:
        pass

    def _land(self, send_no: int, when: str) -> None:
        for held in [h for h in self._held if h[0] == send_no and h[1] == when]:
            self._held.remove(held)
            self.pending += held[2]


@pytest.fixture
def twin(tmp_path: Path) -> Iterator[SimId003Device]:
    dev = SimId003Device(link_path=str(tmp_path / "bill-acceptor"))  # never started
    yield dev
    dev.link.close()


def driver(port: LatePort, rec: Recorder) -> Id003BillAcceptor:
    return Id003BillAcceptor(
        "late://",
        decide=rec.decide,
        credit=rec.credit,
        sink=rec.sink,
        opener=lambda url: port,
        reply_timeout_s=0.01,
        poll_interval_s=0.0,
    )


def credit_a_note(acc: Id003BillAcceptor, dev: SimId003Device) -> None:
    acc.set_accepting(True)
    for _ in range(10):
        if dev.state == Status.IDLING:
            break
        acc.poll_once()
    dev.insert_bill(0x65)
    for _ in range(60):
        acc.poll_once()
        if dev.log.stacked and acc._txn is None and dev.state == Status.IDLING:
            break
    for _ in range(3):
        acc.poll_once()


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_late_setting_echo_is_not_taken_for_the_next_settings_echo(
    twin: SimId003Device, recorder: Recorder, when: str
) -> None:
    """SET BARCODE FUNCTION's echo misses the timeout (the driver sends it again and
    gets its echo); the late echo then lands at SET BAR INHIBIT, waiting in the input
    or just ahead of its echo.  Start-up completes with every setting in place."""
    port = LatePort(twin)
    port.hold(Command.SET_BARCODE_FUNCTION, sends=2, when=when)
    acc = driver(port, recorder)
    acc.connect()
    assert acc.online and twin.state == Status.DISABLED
    assert twin.log.commands.count(Command.SET_BARCODE_FUNCTION) == 2
    assert twin.settings[Command.SET_BAR_INHIBIT] == b"\x00"
    assert twin.settings[Command.SET_INHIBIT] == b"\x01"
    credit_a_note(acc, twin)
    assert [e.denomination_minor for e in recorder.credit_calls] == [2000]
    assert len(twin.log.stacked) == 1 and twin.log.acks_received == 1


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_late_status_is_not_taken_for_the_currency_assignment(
    twin: SimId003Device, recorder: Recorder, when: str
) -> None:
    """A status poll after RESET misses the timeout; its reply lands at the CURRENCY
    ASSIGNMENT request: the device's own table is read, not the configured fallback."""
    twin.table = [c.Denomination(0x61, 0x01, 100), c.Denomination(0x62, 0x01, 500)]
    port = LatePort(twin)
    port.hold(Command.STATUS_REQUEST, in_state=Status.INITIALIZE, sends=2, when=when)
    acc = driver(port, recorder)
    acc.connect()
    assert acc.escrow_table_minor == {0x61: 100, 0x62: 500}


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("sends", [1, 2])
@pytest.mark.parametrize(
    ("code", "state"),
    [
        (Command.STATUS_REQUEST, Status.ESCROW),
        (Command.STACK_2, Status.ESCROW),
        (Command.STATUS_REQUEST, Status.STACKING),
        (Command.STATUS_REQUEST, Status.VEND_VALID),
        (Command.STATUS_REQUEST, Status.STACKED),
    ],
    ids=["escrow", "stack", "stacking", "vend_valid", "stacked"],
)
def test_late_replies_in_a_note_still_credit_it_exactly_once(
    twin: SimId003Device, recorder: Recorder, code: int, state: Status, sends: int, when: str
) -> None:
    """A late reply at each step of a note's credit (protocols.md 1.8): one credit, one
    ACK of VEND VALID, the note stacked and its transaction closed once."""
    port = LatePort(twin)
    acc = driver(port, recorder)
    acc.connect()
    port.hold(code, in_state=state, sends=sends, when=when)
    credit_a_note(acc, twin)
    assert [e.denomination_minor for e in recorder.credit_calls] == [2000]
    assert len(twin.log.stacked) == 1 and twin.log.acks_received == 1
    (stacked,) = recorder.of_type(TransactionClosed)
    assert stacked.transaction_id == recorder.credit_calls[0].transaction_id
    assert len(recorder.of_type(VendValidRepeated)) <= 1
    assert acc._txn is None


def test_a_late_status_waiting_in_the_input_is_discarded_before_the_next_poll(
    twin: SimId003Device, recorder: Recorder
) -> None:
    """A poll in ESCROW misses the timeout and its ESCROW lands after STACK-2 was ACKed,
    before the next poll: a status could answer that poll, so only discarding the input
    before each send keeps the driver from sending STACK-2 for an item already stacking."""
    port = LatePort(twin)
    acc = driver(port, recorder)
    acc.connect()
    port.hold(Command.STATUS_REQUEST, in_state=Status.ESCROW, sends=3, when="before")
    credit_a_note(acc, twin)
    assert twin.log.commands.count(Command.STACK_2) == 1
    assert [e.denomination_minor for e in recorder.credit_calls] == [2000]

"""The sans-I/O ID-003 host (``drivers.id003_host``) driven in memory.

Like h11's connection pairs: no port, no thread, no clock.  A scripted validator
answers every frame the host sends with frames built by ``id003_codec``; the test
performs each action the host returns and checks the frames on the wire and the
events, decisions and credits asked for (protocols.md 1.7-1.9).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from drivers import id003_codec as c
from drivers.errors import DeviceOfflineError
from drivers.events import (
    BillEscrowed,
    BillFoundInStacker,
    BillReturned,
    Device,
    DeviceFault,
    DeviceFaultCleared,
    EscrowDecision,
    NoteStacked,
    TransactionClosed,
    VendValidRepeated,
)
from drivers.id003_codec import Status
from drivers.id003_host import (
    Action,
    Credit,
    Decide,
    Emit,
    Finished,
    Id003Host,
    Journal,
    Phase,
    Send,
    Sleep,
)
from drivers.interfaces import OpenTransaction

USD = [c.Denomination(code, 0x01, value) for code, value in c.USD_ESCROW_TABLE_MINOR.items()]
START_UP = [
    c.reset(),
    c.status_request(),
    c.currency_assignment_request(),
    c.set_denominations(0),
    c.set_security(0),
    c.set_communication_mode_polling(),
    c.set_direction(0),
    c.set_optional_function(0),
    c.set_barcode_function(18),
    c.set_bar_inhibit(False, False),
    c.set_inhibit(True),
]


class Validator:
    """An in-memory validator: a status for each status request, ACK to operation
    commands, the echo of a setting, the US currency assignment.

    Attributes:
        status: ``(code, data)`` a status request gets.
        sent: every frame the host wrote, in order.
        corrupt: command codes whose next reply arrives with a bad CRC (once each).
    """

    def __init__(self, status: int = Status.IDLING, data: bytes = b"") -> None:
        self.status = (status, data)
        self.sent: list[bytes] = []
        self.corrupt: list[int] = []

    def answer(self, frame: bytes) -> bytes:
        cmd = frame[2]
        if cmd == c.Command.STATUS_REQUEST:
            reply = c.encode_frame(*self.status)
        elif cmd == c.Command.CURRENCY_ASSIGNMENT:
            reply = c.encode_frame(cmd, c.encode_currency_assignment(USD))
        elif cmd in c.SETTING_COMMANDS:
            reply = frame
        else:
            reply = c.encode_frame(Status.ACK)
        if cmd in self.corrupt:
            self.corrupt.remove(cmd)
            reply = reply[:-1] + bytes((reply[-1] ^ 0xFF,))
        return reply


class Engine:
    """What the driver's callbacks would do; records every action the host asked for."""

    def __init__(self, decision: EscrowDecision = EscrowDecision.STACK) -> None:
        self.decision = decision
        self.asked: list[Action] = []
        self.credit_error: Exception | None = None
        self.journal_error: Exception | None = None
        self.decide_error: Exception | None = None


def drive(host: Id003Host, action: Action, dev: Validator, eng: Engine) -> list[Action]:
    """Perform ``action`` and every one after it until the step is ``Finished``;
    returns the actions other than ``Send`` and ``Sleep``, in order."""
    seen: list[Action] = []
    while not isinstance(action, Finished):
        if isinstance(action, Send):
            dev.sent.append(action.frame)
            if action.reply:
                action = host.receive(host.decode(dev.answer(action.frame)))
            else:
                action = host.resume()
            continue
        if isinstance(action, Sleep):
            action = host.resume()
            continue
        seen.append(action)
        eng.asked.append(action)
        error = {Credit: eng.credit_error, Journal: eng.journal_error, Decide: eng.decide_error}.get(type(action))
        if error is not None:
            action = host.fail(error)
        elif isinstance(action, Decide):
            action = host.resume(eng.decision)
        else:
            action = host.resume()
    return seen


def ids() -> Callable[[], str]:
    n = iter(range(1, 1000))
    return lambda: f"t{next(n)}"


def started(dev: Validator, eng: Engine, **kw: Any) -> Id003Host:
    """A host through its start-up against an idle ``dev``, acceptance enabled."""
    host = Id003Host(new_transaction_id=ids(), **kw)
    drive(host, host.start_up(), dev, eng)
    host.want_accepting = True
    drive(host, host.poll(), dev, eng)
    assert dev.sent[-1] == c.set_inhibit(False)
    dev.sent.clear()
    return host


def poll(host: Id003Host, dev: Validator, eng: Engine, status: int, data: bytes = b"") -> list[Action]:
    dev.status = (status, data)
    return drive(host, host.poll(), dev, eng)


def test_start_up_sends_reset_reads_the_currency_table_and_sets_up_inhibited() -> None:
    """The start-up frames of protocols.md 1.7, in order."""
    dev, eng = Validator(), Engine()
    host = Id003Host(new_transaction_id=ids())
    assert drive(host, host.start_up(), dev, eng) == []
    assert dev.sent == [c.status_request(), *START_UP]
    assert host.escrow_table_minor == c.USD_ESCROW_TABLE_MINOR
    host.want_accepting = True
    drive(host, host.poll(), dev, eng)
    assert dev.sent[-2:] == [c.status_request(), c.set_inhibit(False)]


def test_escrow_stack_vend_valid_credit_ack_stacked() -> None:
    """Escrow -> the engine's STACK -> STACK-2 -> VEND VALID -> credit -> ACK
    -> STACKED closes the transaction; credited once, ACKed only after the credit."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    assert poll(host, dev, eng, Status.ESCROW, b"\x65") == [Decide(BillEscrowed("t1", 1, 2000, 0x65))]
    assert dev.sent == [c.status_request(), c.stack_2()]
    dev.sent.clear()
    assert poll(host, dev, eng, Status.VEND_VALID) == [Credit(NoteStacked("t1", 2000, False))]
    assert dev.sent == [c.status_request(), c.ack()]
    assert host.txn is not None and host.txn.phase is Phase.CREDITED
    assert poll(host, dev, eng, Status.STACKED) == [Emit(TransactionClosed("t1"))]
    assert host.txn is None
    assert poll(host, dev, eng, Status.IDLING) == []


def test_engine_return_sends_return_and_closes_on_returning() -> None:
    """RETURN decided -> RETURN sent -> RETURNING reports the engine's decision."""
    dev, eng = Validator(), Engine(EscrowDecision.RETURN)
    host = started(dev, eng)
    assert poll(host, dev, eng, Status.ESCROW, b"\x64") == [Decide(BillEscrowed("t1", 1, 1000, 0x64))]
    assert dev.sent == [c.status_request(), c.return_bill()]
    assert poll(host, dev, eng, Status.RETURNING) == [Emit(BillReturned("t1", "engine decision"))]
    assert host.txn is None and not [a for a in eng.asked if isinstance(a, Credit)]


def test_decide_that_raises_returns_the_item() -> None:
    """An engine that cannot answer the escrow gets the item returned."""
    dev, eng = Validator(), Engine()
    eng.decide_error = RuntimeError("engine gone")
    host = started(dev, eng)
    poll(host, dev, eng, Status.ESCROW, b"\x65")
    assert dev.sent == [c.status_request(), c.return_bill()]
    assert host.txn is not None and host.txn.phase is Phase.RETURN_SENT


def test_repeated_vend_valid_is_acked_and_not_credited_again() -> None:
    """A VEND VALID repeated after its ACK (the ACK was lost): ACK, no credit."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    poll(host, dev, eng, Status.ESCROW, b"\x65")
    poll(host, dev, eng, Status.VEND_VALID)
    dev.sent.clear()
    assert poll(host, dev, eng, Status.VEND_VALID) == [Emit(VendValidRepeated("t1", 1))]
    assert poll(host, dev, eng, Status.VEND_VALID) == [Emit(VendValidRepeated("t1", 2))]
    assert dev.sent == [c.status_request(), c.ack()] * 2
    assert [a for a in eng.asked if isinstance(a, Credit)] == [Credit(NoteStacked("t1", 2000, False))]


def test_credit_that_raises_sends_no_ack_and_is_offered_again() -> None:
    """The credit point failed: nothing is ACKed, the next VEND VALID credits."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    poll(host, dev, eng, Status.ESCROW, b"\x65")
    dev.sent.clear()
    eng.credit_error = RuntimeError("journal full")
    with pytest.raises(RuntimeError, match="journal full"):
        poll(host, dev, eng, Status.VEND_VALID)
    assert dev.sent == [c.status_request()] and not host.busy
    assert host.txn is not None and host.txn.phase is Phase.STACK_SENT
    eng.credit_error = None
    assert poll(host, dev, eng, Status.VEND_VALID) == [Credit(NoteStacked("t1", 2000, False))]
    assert dev.sent[-1] == c.ack()


OPEN = OpenTransaction("A", 2000, None)


@pytest.mark.parametrize(
    ("status", "credited", "expected"),
    [
        (Status.POWER_UP_BILL_IN_STACKER, False, Journal(BillFoundInStacker("A", 2000, None))),
        (Status.POWER_UP_BILL_IN_ACCEPTOR, False, Emit(BillReturned("A", "power up with bill in acceptor"))),
        (Status.POWER_UP, False, Emit(BillReturned("A", "power up, no bill"))),
        (Status.POWER_UP_BILL_IN_STACKER, True, Emit(TransactionClosed("A"))),
        (Status.POWER_UP_BILL_IN_ACCEPTOR, True, Emit(TransactionClosed("A"))),
    ],
)
def test_power_up_status_settles_the_restarts_open_transaction(status: int, credited: bool, expected: Action) -> None:
    """Each power-up status at start-up settles the journaled
    escrow once, before RESET: found in the cash box (journaled), returned, or
    already credited (nothing owed)."""
    dev, eng = Validator(status), Engine()
    ot = OpenTransaction("A", 2000, None, credited=credited)
    host = Id003Host(open_transaction=ot, new_transaction_id=ids())
    assert host.txn is not None and host.txn.recovered
    dev.status = (status, b"")
    action = host.start_up()
    assert action == Send(c.status_request())
    dev.sent.append(action.frame)
    dev.status = (Status.IDLING, b"")  # after RESET the validator idles
    action = host.receive(c.Frame(status))
    assert drive(host, action, dev, eng) == [expected]
    assert dev.sent == [c.status_request(), *START_UP]
    assert host.txn is None


def test_power_up_bill_in_stacker_without_a_transaction_is_journaled_unattributed() -> None:
    """A note in the cash box the engine never saw: journaled, value 0."""
    dev, eng = Validator(Status.POWER_UP_BILL_IN_STACKER), Engine()
    host = Id003Host(new_transaction_id=ids())
    action = host.start_up()
    dev.sent.append(c.status_request())
    dev.status = (Status.IDLING, b"")
    assert drive(host, host.receive(c.Frame(Status.POWER_UP_BILL_IN_STACKER)), dev, eng) == [
        Journal(BillFoundInStacker(None, 0, None))
    ]
    assert action == Send(c.status_request()) and dev.sent == [c.status_request(), *START_UP]


def test_bill_in_stacker_not_journaled_keeps_the_transaction_and_sends_no_reset() -> None:
    """The sink could not journal the note found in the stacker: the
    error comes back out, RESET is not sent, the transaction stays for the next try."""
    dev, eng = Validator(Status.POWER_UP_BILL_IN_STACKER), Engine()
    eng.journal_error = RuntimeError("disk full")
    host = Id003Host(open_transaction=OPEN, new_transaction_id=ids())
    with pytest.raises(RuntimeError, match="disk full"):
        drive(host, host.start_up(), dev, eng)
    assert dev.sent == [c.status_request()]
    assert host.txn is not None and host.txn.transaction_id == "A"


def test_power_up_during_polling_starts_up_again() -> None:
    """The validator lost power mid-run: the host runs the start-up again."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    dev.status = (Status.POWER_UP, b"")
    action = host.poll()
    dev.sent.append(c.status_request())
    dev.status = (Status.IDLING, b"")
    assert drive(host, host.receive(c.Frame(Status.POWER_UP)), dev, eng) == []
    # the new start-up's first poll, then RESET and the settings; inhibited again
    assert action == Send(c.status_request())
    assert dev.sent == [c.status_request(), c.status_request(), *START_UP, c.set_inhibit(False)]


def test_fault_is_reported_once_and_cleared_when_the_validator_idles() -> None:
    """A jam is one DeviceFault however long it lasts, then cleared."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    [fault] = poll(host, dev, eng, Status.JAM_IN_ACCEPTOR)
    assert isinstance(fault, Emit) and isinstance(fault.event, DeviceFault)
    assert (fault.event.device, fault.event.code) == (Device.BILL_ACCEPTOR, "jam_in_acceptor")
    assert poll(host, dev, eng, Status.JAM_IN_ACCEPTOR) == []
    assert host.fault == "jam_in_acceptor"
    assert poll(host, dev, eng, Status.IDLING) == [Emit(DeviceFaultCleared(Device.BILL_ACCEPTOR, "jam_in_acceptor"))]
    assert host.fault is None


def test_corrupted_reply_to_stack_is_sent_again() -> None:
    """An ACK with a bad CRC is no ACK: STACK-2 goes again, counted."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    dev.corrupt.append(c.Command.STACK_2)
    poll(host, dev, eng, Status.ESCROW, b"\x65")
    assert dev.sent == [c.status_request(), c.stack_2(), c.stack_2()]
    assert host.crc_errors == 1


def test_corrupted_status_replies_count_as_unanswered_and_the_link_as_garbled() -> None:
    """Bytes that never make a valid frame: unanswered polls, then
    DeviceOfflineError with the link marked garbled (not a pulled cable)."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    for n in (1, 2):
        dev.corrupt.append(c.Command.STATUS_REQUEST)
        assert poll(host, dev, eng, Status.IDLING) == []
        assert host.crc_errors == n and host.garbled
    dev.corrupt.append(c.Command.STATUS_REQUEST)
    with pytest.raises(DeviceOfflineError, match="no valid reply to 3 polls"):
        poll(host, dev, eng, Status.IDLING)
    assert host.garbled and not host.busy


def test_no_reply_at_all_is_offline_not_garbled() -> None:
    """Silence (a reply timeout: ``receive(None)``) is a pulled cable."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    for _ in range(2):
        assert host.poll() == Send(c.status_request())
        assert host.receive(None) == Finished()
    host.poll()
    with pytest.raises(DeviceOfflineError):
        host.receive(None)
    assert not host.garbled


def test_the_host_does_no_io() -> None:
    """The host state machine imports no port, clock or thread."""
    path = Path(__file__).resolve().parents[2] / "drivers" / "id003_host.py"
    mods = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods.add(node.module)
    assert not mods & {
        "serial",
        "time",
        "threading",
        "asyncio",
        "socket",
        "os",
        "random",
        "secrets",
        "select",
        "drivers.serial_port",
    }, mods


@pytest.mark.parametrize(
    ("open_txn", "sent"),
    [
        (OpenTransaction("A", 0, "070000000000000001"), c.stack_2()),
        (None, c.return_bill()),
    ],
)
def test_an_item_still_held_at_start_up_is_stacked_if_journaled_so_else_returned(
    open_txn: OpenTransaction | None, sent: bytes
) -> None:
    """A ticket held in escrow (HOLD) by an engine that died: the journal's
    decision to stack it is carried out (STACK-2); held with no decision journaled, it
    goes back (RETURN), never left to a RESET that hides where it went."""
    dev, eng = Validator(Status.HOLDING), Engine()
    host = Id003Host(open_transaction=open_txn, new_transaction_id=ids())
    action = host.start_up()
    dev.sent.append(c.status_request())
    dev.status = (Status.STACKING if open_txn else Status.RETURNING, b"")
    drive(host, host.receive(c.Frame(Status.HOLDING)), dev, eng)
    assert dev.sent[:2] == [c.status_request(), sent]
    assert action == Send(c.status_request())


def test_a_reply_that_cannot_answer_the_command_just_sent_is_dropped_as_late() -> None:
    """protocols.md 1.4: strictly request and reply.  SET BARCODE FUNCTION's echo
    misses the timeout (the host sends it again); the late echo arrives at SET BAR
    INHIBIT ahead of that command's echo: it is dropped and the real echo taken."""
    dev = Validator()
    host = Id003Host(new_transaction_id=ids())
    action, late, timed_out = host.start_up(), b"", False
    while not isinstance(action, Finished):
        if isinstance(action, Send):
            dev.sent.append(action.frame)
            reply = dev.answer(action.frame)
            if action.frame == c.set_barcode_function(18) and not timed_out:
                late, timed_out = reply, True
                action = host.receive(None)
                continue
            if action.frame == c.set_bar_inhibit(False, False):
                reply = late + reply
            action = host.receive(host.decode(reply))
        else:
            action = host.resume()
    assert dev.sent.count(c.set_barcode_function(18)) == 2
    assert dev.sent[-1] == c.set_inhibit(True)


@pytest.mark.parametrize(
    ("sent", "reply", "answers"),
    [
        (c.set_bar_inhibit(False, False), c.set_bar_inhibit(False, False), True),
        (c.set_bar_inhibit(False, False), c.set_barcode_function(18), False),
        (c.set_bar_inhibit(False, False), c.set_bar_inhibit(True, False), False),
        (c.set_bar_inhibit(False, False), c.encode_frame(Status.IDLING), False),
        (c.set_inhibit(True), c.encode_frame(Status.INVALID_COMMAND), True),
        (c.status_request(), c.encode_frame(Status.VEND_VALID), True),
        (c.status_request(), c.encode_frame(Status.ACK), False),
        (c.status_request(), c.set_inhibit(False), False),
        (c.stack_2(), c.encode_frame(Status.ACK), True),
        (c.stack_2(), c.encode_frame(Status.ESCROW, b"\x65"), False),
        (c.stack_2(), c.encode_frame(Status.COMMUNICATION_ERROR), True),
        (c.currency_assignment_request(), c.encode_frame(Status.INITIALIZE), False),
        (
            c.currency_assignment_request(),
            c.encode_frame(c.Command.CURRENCY_ASSIGNMENT, c.encode_currency_assignment(USD)),
            True,
        ),
    ],
    ids=lambda v: v[2:4].hex() if isinstance(v, bytes) else str(v),
)
def test_which_replies_can_answer_a_command(sent: bytes, reply: bytes, answers: bool) -> None:
    """protocols.md 1.4/1.5: a setting is answered by its exact echo, an operation
    command by ACK, STATUS REQUEST by a status, an inquiry by its own code; any
    command may get INVALID COMMAND or COMMUNICATION ERROR."""
    (frame,) = c.FrameDecoder().feed(reply)
    assert c.reply_may_answer(sent, frame) is answers


def test_a_poll_answered_only_by_a_late_reply_is_unanswered_not_garbled() -> None:
    """A late setting echo is a valid frame: the poll it arrived for counts as
    unanswered, but the link is sound, so nothing is handed back or inhibited blind."""
    dev, eng = Validator(), Engine()
    host = started(dev, eng)
    for _ in range(2):
        assert host.poll() == Send(c.status_request())
        assert isinstance(host.receive(host.decode(c.set_inhibit(False))), Finished)
    assert host.late_replies == 2 and not host.garbled

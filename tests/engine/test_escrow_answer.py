"""The escrow's answer is the effects of the step that handled it
(``cabinet.shell.escrow``): read for this escrow and station only, a held ticket
answered by a later step."""

from __future__ import annotations

import concurrent.futures
import threading

from cabinet.core.effects import HoldNote, Journal, ReturnNote, StackNote
from cabinet.core.events import NoteEscrowed, VoucherEscrowed
from cabinet.shell.devices import DriverDevices
from cabinet.shell.escrow import HeldTicket, decision_in
from drivers import events as dev
from drivers.factory import DriverSettings

STACK, RETURN, HOLD = dev.EscrowDecision.STACK, dev.EscrowDecision.RETURN, dev.EscrowDecision.HOLD


def test_the_answer_is_read_for_this_escrow_and_this_station():
    journal = Journal("bill_escrowed", 1, 2000, {})
    assert decision_in([journal, StackNote(1, "A")], 1, "A") is STACK
    assert decision_in([StackNote(1, "")], 1, "A") is STACK
    assert decision_in([StackNote(1, "old")], 1, "A") is RETURN  # a late stack for an older escrow
    assert decision_in([StackNote(2, "A")], 1, "A") is RETURN  # another station's
    assert decision_in([ReturnNote(1, "too large")], 1, "A") is RETURN
    assert decision_in([HoldNote(1, "A")], 1, "A") is HOLD
    assert decision_in([HoldNote(1, "A"), StackNote(1, "A")], 1, "A") is STACK
    assert decision_in([StackNote(1, "A"), ReturnNote(1, "storage fault")], 1, "A") is RETURN
    assert decision_in([], 1, "A") is RETURN


def test_a_held_ticket_takes_the_stack_of_a_later_step():
    held = HeldTicket("T")
    held.settle(StackNote(1, "other"))
    assert not held.answer.done()
    held.settle(StackNote(1, "T"))
    held.settle(ReturnNote(1, "late"))  # a second answer changes nothing
    assert held.ask() is STACK


def _devices(answer: list[object]) -> tuple[DriverDevices, list[object]]:
    d = DriverDevices(DriverSettings(), lambda n: frozenset(), station=1)
    d.drivers = object()  # run() needs built drivers
    posted: list[object] = []

    def post(ev):
        posted.append(ev)
        for eff in answer:  # the step runs its device effects before it completes
            d.run(eff)
        f = concurrent.futures.Future()
        f.set_result(list(answer))
        return f

    d.post = post
    return d, posted


def test_a_note_is_stacked_when_its_step_says_so():
    d, posted = _devices([Journal("bill_escrowed", 1, 2000, {}), StackNote(1, "A")])
    assert d._decide(dev.BillEscrowed("A", 1, 2000, 0x63)) is STACK
    assert posted == [NoteEscrowed(1, 2000, "A")]


def test_a_ticket_held_for_the_host_is_stacked_when_the_host_answers():
    d, posted = _devices([HoldNote(1, "T")])
    esc = dev.VoucherEscrowed("T", 1, "123456789012345678")
    assert d._decide(esc) is HOLD
    assert d._decide(esc) is HOLD  # asked again: no answer within HOLD_ASK_S
    timer = threading.Timer(0.1, d.run, [StackNote(1, "T")])  # the host's answer, a later step
    timer.start()
    assert d._decide(esc) is STACK
    timer.join()
    assert posted == [VoucherEscrowed(1, "123456789012345678", None, "T")]  # asked once
    assert d._held is None

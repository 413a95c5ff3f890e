"""The escrow decision at the driver boundary: a return value, read from effects.

Owns: ``decision_in`` (the engine's answer to one escrow, read from the effects
of the step that handled it: the step returns them once the state and its
journal effects are committed and the device effects ran, DESIGN.md "Money
moves exactly once"), how long the driver waits for that step
(``DECIDE_WAIT_S``), and a ticket held for the casino host (``HeldTicket``:
``HOLD_ASK_S``, ``HOLD_MAX_S``), whose answer comes in a later step's
``StackNote`` or ``ReturnNote``. Used by ``cabinet.shell.devices``.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from cabinet.core.effects import Effect, HoldNote, ReturnNote, StackNote
from drivers import events as dev

log = logging.getLogger("cabinet.hardware")

#: How long the escrow decision may wait for the engine: well inside
#: the acceptor's own escrow timing (protocols.md 1.8: it auto-returns after ~10 s,
#: and decide "within a few seconds"); past it the note goes back.
DECIDE_WAIT_S = 2.0
#: A ticket held for the casino host: how long one re-ask waits for the
#: engine's stack/return before the driver refreshes the HOLD (ID-003 HOLD must be
#: refreshed within ~10 s, protocols.md 1.3), and the longest hold at all (past the
#: longest ``[sas] validation_timeout_s``; the engine's own timer returns it first).
HOLD_ASK_S = 1.0
HOLD_MAX_S = 65.0


def decision_in(effects: Iterable[Effect], station: int, txn: str) -> dev.EscrowDecision:
    """The engine's answer to escrow ``txn`` at ``station``, read from the effects
    of the step that handled it.

    A ``StackNote`` counts only for this escrow (its ``txn``, or ``""``), so a late
    stack for an older escrow is never taken for this one's; a ``ReturnNote`` for
    the station returns it; the last of the two wins. A ``HoldNote`` for this escrow
    with neither answers ``HOLD``. No answer at all is ``RETURN``.
    """
    answer: dev.EscrowDecision | None = None
    held = False
    for eff in effects:
        if getattr(eff, "station", None) != station:
            continue
        if isinstance(eff, StackNote) and eff.txn in ("", txn) and txn:
            answer = dev.EscrowDecision.STACK
        elif isinstance(eff, ReturnNote):
            answer = dev.EscrowDecision.RETURN
        elif isinstance(eff, HoldNote) and eff.txn in ("", txn):
            held = True
    if answer is not None:
        return answer
    return dev.EscrowDecision.HOLD if held else dev.EscrowDecision.RETURN


@dataclass
class HeldTicket:
    """A ticket kept in escrow for the casino host (``HoldNote``).

    ``txn``: the escrow's id; ``since_s``: monotonic start of the hold, in seconds;
    ``answer``: set on the loop thread by the ``StackNote`` or ``ReturnNote`` of a
    later step, read by the driver thread that asks again.
    """

    txn: str
    since_s: float = field(default_factory=time.monotonic)
    answer: concurrent.futures.Future[dev.EscrowDecision] = field(default_factory=concurrent.futures.Future)

    def settle(self, effect: Effect) -> None:
        """Take a later step's ``StackNote`` (for this ticket) or ``ReturnNote``
        as the answer; anything else, or a second answer, changes nothing."""
        if self.answer.done():
            return
        if isinstance(effect, StackNote) and effect.txn in ("", self.txn):
            self.answer.set_result(dev.EscrowDecision.STACK)
        elif isinstance(effect, ReturnNote):
            self.answer.set_result(dev.EscrowDecision.RETURN)

    def ask(self) -> dev.EscrowDecision:
        """The driver asks again: the answer if it came within ``HOLD_ASK_S``,
        else ``HOLD`` (and ``RETURN`` past ``HOLD_MAX_S``)."""
        try:
            return self.answer.result(HOLD_ASK_S)
        except concurrent.futures.TimeoutError:
            pass
        if time.monotonic() - self.since_s > HOLD_MAX_S:
            log.warning("escrow %s: held %.0f s without an answer, returning it", self.txn, HOLD_MAX_S)
            return dev.EscrowDecision.RETURN
        return dev.EscrowDecision.HOLD

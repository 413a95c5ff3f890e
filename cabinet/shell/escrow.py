"""The escrow decision between a driver thread and the engine loop.

Owns: ``EscrowOutcome`` (the engine's answer to the escrow in progress, one per
acceptor), how long the driver waits for it (``DECIDE_WAIT_S``), and a ticket held
for the casino host (``held_decision``: ``HOLD_ASK_S``, ``HOLD_MAX_S``). Used by
``cabinet.shell.devices``.
"""

from __future__ import annotations

import logging
import threading
import time

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


class EscrowOutcome:
    """The engine's answer to the escrow in progress (one at a time per acceptor):
    ``stack``, ``hold`` (held for the casino host), ``decided`` (a stack or
    return came, set on the loop thread), ``since`` (monotonic start of the escrow)."""

    def __init__(self) -> None:
        self.stack = False
        self.hold = False
        self.txn = ""
        self.decided = threading.Event()
        self.since = 0.0

    def reset(self, txn: str) -> None:
        """A new escrow ``txn`` ("" for none) waits: no answer yet."""
        self.stack = False
        self.hold = False
        self.txn = txn
        self.decided = threading.Event()
        self.since = time.monotonic()


def held_decision(d: EscrowOutcome, txn: str) -> dev.EscrowDecision:
    """A held ticket asked about again: the engine's answer if it came within
    ``HOLD_ASK_S``, else HOLD (and RETURN past ``HOLD_MAX_S``)."""
    if d.decided.wait(HOLD_ASK_S):
        return dev.EscrowDecision.STACK if d.stack else dev.EscrowDecision.RETURN
    if time.monotonic() - d.since > HOLD_MAX_S:
        log.warning("escrow %s: held %.0f s without an answer, returning it", txn, HOLD_MAX_S)
        d.reset("")
        return dev.EscrowDecision.RETURN
    return dev.EscrowDecision.HOLD

"""The bill acceptor test of the Diagnostics page: test notes and test credits.

Owns: what a note does while the test is on, from escrow to its close, and the
test's counts (``CabinetState.bill_test``, a ``BillTestState``). A test note goes to
*test credits*: no credit meter, no drop, no bill meter, no host (SAS) meter or
exception; it is stacked or returned as the technician chose, and counted apart
(``stacked_count``/``stacked_minor``: the cash box holds these beside the metered
notes, so it still reconciles). Research/cabinet-features.md I: "bill validator
test (insert note, see value, not credited)".

Crash safety: the escrow is journaled as ``note_escrowed`` with ``"test": true``,
so the acceptor driver's restart recovery (``Store.open_escrows``) follows it like
any note; and its txn stays in ``pending`` (journaled with the state) until the
acceptor closes it, so a VEND VALID or a "bill in stacker" after a restart is
counted as a test note, never credited for real, never lost from the count.

Hooks called first by ``Acceptance``'s handlers; each returns True when it took
the event. Pure.
"""

from __future__ import annotations

from cabinet.core import access
from cabinet.core.effects import Effect, Journal, ReturnNote, StackNote
from cabinet.core.events import NoteEscrowed, NoteReturned, NoteStacked, NoteUncredited
from cabinet.core.state import BillTestState, CabinetState
from cabinet.protocol.money import fmt_money as money

#: The Diagnostics sub-page of the test.
PAGE = "diag_bills"
#: Why a test note is handed back (journaled with ``bill_test_returned``).
RETURN_REASON = "bill test: returned as chosen"
#: The level the test needs (it moves notes into the cash box).
LEVEL = access.Level.TECHNICIAN


def active(s: CabinetState) -> bool:
    """The test takes notes now: it is on and its page is open."""
    return s.bill_test.on and s.maintenance is not None and s.maintenance.page == PAGE


def on_escrow(s: CabinetState, ev: NoteEscrowed, out: list[Effect]) -> bool:
    """A note in escrow while the test is on: journal it as a test escrow, then stack
    or return it as chosen (no credit limit, no denomination check: it is a test)."""
    if not active(s) or ev.denomination_minor <= 0:
        return False
    t = s.bill_test
    out.append(Journal("note_escrowed", ev.station, ev.denomination_minor, {"txn": ev.txn, "test": True}))
    if ev.txn:
        t.pending = {**t.pending, ev.txn: ev.denomination_minor}
    out.append(StackNote(ev.station, ev.txn) if t.stack else ReturnNote(ev.station, RETURN_REASON))
    return True


def on_stacked(s: CabinetState, ev: NoteStacked, out: list[Effect]) -> bool:
    """A test note in the cash box (now, or its VEND VALID after a restart): count it."""
    t = s.bill_test
    if ev.txn not in t.pending:
        return False
    _stacked(s, ev.station, ev.txn, t.pending[ev.txn] or ev.denomination_minor, "stacked", out)
    return True


def on_returned(s: CabinetState, ev: NoteReturned, out: list[Effect]) -> bool:
    """A test note handed back: count it (journaled apart: no host "bill rejected")."""
    t = s.bill_test
    if ev.txn not in t.pending:
        return False
    amount = t.pending[ev.txn]
    t.pending = {k: v for k, v in t.pending.items() if k != ev.txn}
    t.returned_count += 1
    out.append(Journal("bill_test_returned", ev.station, 0, {"txn": ev.txn, "value_minor": amount}))
    return True


def on_uncredited(s: CabinetState, ev: NoteUncredited, out: list[Effect]) -> bool:
    """A test note the acceptor reports after a restart as in the cash box (counted as
    stacked) or maybe in the path (counted apart: look for it); never a review that
    the attendant's key would credit."""
    t = s.bill_test
    if not ev.txn or ev.txn not in t.pending:
        return False
    amount = t.pending[ev.txn] or ev.denomination_minor
    if ev.kind == "in_stacker":
        _stacked(s, ev.station, ev.txn, amount, "found in the stacker", out)
    else:
        t.pending = {k: v for k, v in t.pending.items() if k != ev.txn}
        t.in_path_count += 1
        out.append(Journal("bill_test_in_path", ev.station, 0, {"txn": ev.txn, "value_minor": amount}))
    return True


def _stacked(s: CabinetState, station: int, txn: str, amount: int, how: str, out: list[Effect]) -> None:
    t = s.bill_test
    t.pending = {k: v for k, v in t.pending.items() if k != txn}
    s.recent_txns = (s.recent_txns + [txn])[-64:]  # a repeat VEND VALID is ignored
    t.credits_minor += amount
    t.stacked_count += 1
    t.stacked_minor += amount
    out.append(Journal("bill_test_stacked", station, 0, {"txn": txn, "value_minor": amount, "how": how}))


def select(s: CabinetState, item: int, out: list[Effect]) -> str:
    """Select on the test page's item ``item`` (0: test on/off, 1: stack/return).

    Returns the confirm line (``"Refused: ..."`` below ``LEVEL``, else ``""``).
    """
    t = s.bill_test
    lv = access.level(s.key_on, s.maintenance is not None and s.maintenance.level == "technician")
    if lv < LEVEL:
        return f"Refused: the bill test needs the {access.name(LEVEL)} level ({access.HOW[LEVEL]})"
    if item == 0:
        t.on = not t.on
        if t.on:
            t.credits_minor = 0
        out.append(
            Journal("bill_test_on" if t.on else "bill_test_off", 0, 0, {"stack": t.stack, "access": access.name(lv)})
        )
    elif item == 1:
        t.stack = not t.stack
    return ""


def leave(s: CabinetState, out: list[Effect]) -> None:
    """Leaving the page (Back, or the key off) ends the test; its pending notes stay
    test notes until the acceptor closes them."""
    if s.bill_test.on:
        s.bill_test.on = False
        out.append(Journal("bill_test_off", 0, 0, {"stack": s.bill_test.stack}))


def items(t: BillTestState) -> list[str]:
    """The page's list."""
    return [
        f"Test: {'ON: notes go to test credits' if t.on else 'off'}",
        f"Test notes are {'stacked' if t.stack else 'returned'}",
    ]


def lines(t: BillTestState, sym: str) -> list[str]:
    """The page's lines: the test credits and the test notes' counts."""
    return [
        "Insert a note: it is shown here as test credits and touches no meter.",
        f"Test credits: {money(t.credits_minor, sym)}",
        f"Test notes stacked (in the cash box, not in the bill meters): "
        f"{t.stacked_count} ({money(t.stacked_minor, sym)})",
        f"Test notes returned: {t.returned_count}"
        + (f" · lost in the note path: {t.in_path_count}" if t.in_path_count else ""),
        f"Needs the {access.name(LEVEL)} level ({access.HOW[LEVEL]}).",
    ]


def carry(old: CabinetState, new: CabinetState) -> None:
    """A RAM clear keeps the test notes still in the acceptor (``pending``): their close
    after the clear is still a test note's (the counts are zeroed with the meters)."""
    new.bill_test.pending = dict(old.bill_test.pending)


__all__ = [
    "LEVEL",
    "PAGE",
    "RETURN_REASON",
    "active",
    "carry",
    "items",
    "leave",
    "lines",
    "on_escrow",
    "on_returned",
    "on_stacked",
    "on_uncredited",
    "select",
]

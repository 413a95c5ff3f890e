"""The host twin's ticket database on its own (drivers/sim/sas_host_tickets.py):
issue, print, claim (each reject reason), complete, release, void, summary, and that a
reopened database keeps everything, the pending state included."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from drivers.sas import tito_codes as tc
from drivers.sim.sas_host_tickets import Decision, MachineTickets, TicketDb


@pytest.fixture
def db(tmp_path: Path) -> TicketDb:
    return TicketDb(tmp_path / "t.sqlite3", random.Random(7))


def test_numbers_are_18_digits_unique_with_the_system_id(db: TicketDb) -> None:
    """2-digit system ID then 16 random digits, never twice."""
    numbers = {db.issue(1, 100, 0, 42, 1000.0, None) for _ in range(200)}
    assert len(numbers) == 200 and all(len(n) == 18 and n.startswith("42") and n.isdigit() for n in numbers)
    with pytest.raises(ValueError):
        db.issue(1, 100, 0, 0, 1000.0, None)


def test_claim_reasons_in_order(db: TicketDb) -> None:
    """Unknown 82, amount mismatch 87, expired 85, pending elsewhere 83, redeemed 84,
    void 80; a claim at the pending machine itself redeems the same amount again."""
    n = db.issue(1, 500, 0, 1, 1000.0, 2000.0)
    assert db.mark_printed(1, 1001.0) == n
    assert db.claim("019999999999999999", 2, 0, 1100.0) == Decision(tc.TC_NOT_IN_SYSTEM, 0, "unknown ticket")
    assert db.claim(n, 2, 400, 1100.0).transfer_code == tc.TC_AMOUNT_MISMATCH
    assert db.claim(n, 2, 0, 2500.0).transfer_code == tc.TC_EXPIRED
    assert db.claim(n, 2, 500, 1100.0) == Decision(tc.TC_CASHABLE, 500, "redeem")
    assert db.claim(n, 3, 0, 1101.0).transfer_code == tc.TC_PENDING_ELSEWHERE
    assert db.claim(n, 2, 0, 2600.0) == Decision(tc.TC_CASHABLE, 500, "redeem")  # pending here: not expired now
    assert db.complete(n, 3, 0x00, 500, 1102.0) == "ignored"
    assert db.complete(n, 2, tc.STATUS_PENDING, 0, 1102.0) == "pending"
    assert db.complete(n, 2, 0x00, 500, 1103.0) == "redeemed"
    assert db.claim(n, 1, 0, 1104.0).transfer_code == tc.TC_ALREADY_REDEEMED
    v = db.issue(1, 50, 0, 1, 1200.0, None)
    assert db.void_issued(1, 1201.0, "handpay") == [v]
    assert db.claim(v, 2, 0, 1202.0).transfer_code == tc.TC_REJECTED


def test_a_rejection_releases_the_ticket_and_restricted_is_01(db: TicketDb) -> None:
    """A machine that did not take a pending ticket (status 8x) releases it: valid
    again, back to printed; a restricted cash-out (type 01) is redeemed with transfer code 01."""
    n = db.issue(1, 300, 0, 1, 1000.0, None)
    db.mark_printed(1, 1000.5)
    assert db.claim(n, 2, 0, 1001.0).redeem
    assert db.complete(n, 2, tc.STATUS_TIMEOUT, 0, 1002.0) == "released"
    row = db.get(n)
    assert row is not None and row["state"] == "printed" and row["pending_at"] is None
    r = db.issue(1, 70, tc.CASHOUT_RESTRICTED, 1, 1003.0, None)
    db.mark_printed(1, 1003.5)
    assert db.claim(r, 2, 0, 1004.0).transfer_code == tc.TC_RESTRICTED_PROMO


def test_a_ticket_not_confirmed_printed_is_redeemed_nowhere(db: TicketDb) -> None:
    """A number issued (0x58) whose print the issuing machine has not confirmed (0x3D) is
    refused at every other machine (83, still ``issued``: nothing paid); presented by the
    issuing machine itself (its print is unknown) it becomes void (80): the machine
    pays it by hand, and no machine can redeem it afterwards."""
    n = db.issue(1, 5_000, 0, 1, 1000.0, None)
    d = db.claim(n, 2, 5_000, 1001.0)
    assert d.transfer_code == tc.TC_PENDING_ELSEWHERE and not d.redeem
    assert db.get(n)["state"] == "issued"
    assert db.claim(n, 1, 5_000, 1002.0).transfer_code == tc.TC_REJECTED
    row = db.get(n)
    assert row["state"] == "void" and "print unknown" in row["void_reason"]
    assert db.claim(n, 2, 5_000, 1003.0).transfer_code == tc.TC_REJECTED
    assert db.mark_printed(1, 1004.0) is None  # a late 0x3D brings nothing back
    m = db.issue(1, 700, 0, 1, 1005.0, None)
    assert db.mark_printed(1, 1006.0) == m
    assert db.claim(m, 2, 700, 1007.0).redeem


def test_reopened_database_keeps_everything(tmp_path: Path) -> None:
    """Close and reopen (a host restart): tickets, states, pending machine and the
    summary are as they were; the events log every change once."""
    db = TicketDb(tmp_path / "t.sqlite3", random.Random(1))
    a = db.issue(1, 100, 0, 1, 10.0, None)
    b = db.issue(1, 250, 0, 1, 11.0, None)
    db.mark_printed(1, 12.0)
    db.mark_printed(1, 12.5)
    db.claim(a, 2, 0, 13.0)
    db.close()
    again = TicketDb(tmp_path / "t.sqlite3", random.Random(2))
    assert again.pending_at(2) == [(a, 100)]
    assert [t["state"] for t in again.tickets()] == ["pending", "printed"]
    assert again.complete(a, 2, 0x00, 100, 14.0) == "redeemed"
    assert again.summary([1, 2]) == [
        MachineTickets(1, 2, 350, 0, 0, 1, 250, 0),
        MachineTickets(2, 0, 0, 1, 100, 0, 0, 0),
        MachineTickets(0, 2, 350, 1, 100, 1, 250, 0),
    ]
    assert [e[1] for e in again.events(a)] == ["issued", "printed", "redeem", "redeemed"]
    assert [e[1] for e in again.events(b)] == ["issued", "printed"]

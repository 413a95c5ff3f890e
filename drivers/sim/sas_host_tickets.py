"""The host twin's casino ticket database: every validation number issued, each ticket
printed, and each redeemed at most once across all the machines it polls.

Owns: the SQLite tables ``tickets`` and ``ticket_events`` and every change of a ticket's
state, each in one transaction (``BEGIN IMMEDIATE`` .. ``COMMIT``), so a host killed at
any point restarts with a consistent record: the database is the truth, the pending
state included.  Used by ``sas_host_tito.TicketFlow`` from the poll threads (one
connection, a lock).
Must not import: serial, cabinet.*.

States of a ticket (``tickets.state``):

- ``issued``: the host gave the validation number (0x58) for a cash-out; not yet
  confirmed printed.  Not redeemable: refused at every other machine (83, pending),
  and void when the issuing machine itself presents it (its print is unknown after a
  power loss: it pays it by hand instead).  Rule: a ticket exists for the host once
  the machine reports it printed, exception 0x3D with its validation record (SAS 6.02
  system validation, research/sas.md "Exceptions" and "TITO"; Aristocrat Monaco
  answers 0x4D in system validation with the record of each printed ticket and
  handpay, ``EnhancedValidationProvider``); until then only the machine knows whether
  the paper exists, so the host never pays a number on the paper's word alone.
- ``printed``: the machine reported 0x3D (cash-out ticket printed).
- ``pending``: a machine holds it in escrow and was told to redeem it (0x71); refused
  everywhere else until that machine reports the final status.
- ``redeemed``: the machine reported it credited (0x71 status 00/01/02).  Final.
- ``void``: never printed (the machine answered 0x58 "not in cash-out", or went to a
  handpay, 0x51, before confirming the ticket).  Final, refused as "rejected".

Amounts are cents (the 0x57/0x70/0x71 unit at every accounting denomination, Monaco
``LP57SendPendingCashoutInformationParser.cs``); times Unix seconds (REAL).
Numbers are the 18 digits as printed: the 2-digit validation system ID then 16 digits.
"""

from __future__ import annotations

import random
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.sas import tito_codes as tc

SCHEMA = """
CREATE TABLE IF NOT EXISTS tickets (
    number TEXT PRIMARY KEY, system_id INTEGER NOT NULL, amount INTEGER NOT NULL,
    cashout_type INTEGER NOT NULL, issued_by INTEGER NOT NULL, issued_at REAL NOT NULL,
    expires_at REAL, state TEXT NOT NULL, printed_at REAL, pending_at INTEGER, pending_since REAL,
    redeemed_by INTEGER, redeemed_at REAL, redeemed_amount INTEGER, voided_at REAL, void_reason TEXT);
CREATE TABLE IF NOT EXISTS ticket_events (
    id INTEGER PRIMARY KEY, number TEXT, address INTEGER NOT NULL, at REAL NOT NULL,
    event TEXT NOT NULL, code INTEGER, detail TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS tickets_by_state ON tickets(state, issued_by);
"""

OPEN_STATES = ("issued", "printed", "pending")
#: Why a number the issuing machine presents before confirming its print is void.
UNKNOWN_PRINT = "print unknown at the issuing machine: void, paid by hand there"


@dataclass(frozen=True, slots=True)
class Decision:
    """What the host answers a machine that holds ticket ``number`` (0x71).

    Attributes:
        transfer_code: ``tito_codes.TC_*`` (00 redeem cashable, 8x reject).
        amount: cents to redeem (0 on a reject).
        reason: a short text for the log and the floor.
    """

    transfer_code: int
    amount: int
    reason: str

    @property
    def redeem(self) -> bool:
        """True when the machine is told to credit the ticket."""
        return self.transfer_code in tc.TC_REDEEM


@dataclass(frozen=True, slots=True)
class MachineTickets:
    """One machine's tickets (or the floor's, ``address`` 0): counts and cents."""

    address: int
    issued: int = 0
    issued_amount: int = 0
    redeemed: int = 0
    redeemed_amount: int = 0
    outstanding: int = 0
    outstanding_amount: int = 0
    pending: int = 0


class TicketDb:
    """The ticket database.

    Args:
        path: a file (created with its folder) or ``":memory:"``; the same file as the
            host's ``HostDb`` is fine (other tables).
        rng: draws the 16-digit validation numbers (default: a new ``random.Random()``);
            uniqueness is checked against every number ever issued.
    """

    def __init__(self, path: str | Path = ":memory:", rng: random.Random | None = None) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection; idempotent."""
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @staticmethod
    def _event(
        db: sqlite3.Connection,
        number: str | None,
        address: int,
        at: float,
        event: str,
        code: int | None = None,
        detail: str = "",
    ) -> None:
        db.execute(
            "INSERT INTO ticket_events(number, address, at, event, code, detail) VALUES (?, ?, ?, ?, ?, ?)",
            (number, address, at, event, code, detail),
        )

    def log(
        self, address: int, at: float, event: str, number: str | None = None, code: int | None = None, detail: str = ""
    ) -> None:
        """Record something that changes no ticket (a denial, a bad reply...)."""
        with self._tx() as db:
            self._event(db, number, address, at, event, code, detail)

    # --- issuing ---------------------------------------------------------------------------

    def issue(
        self, address: int, amount: int, cashout_type: int, system_id: int, at: float, expires_at: float | None
    ) -> str:
        """A new ticket (state ``issued``) for machine ``address``'s cash-out; returns its
        18-digit number (``system_id`` as 2 digits, then 16 unique random digits).

        Raises:
            ValueError: ``system_id`` outside 1..99, a negative amount.
        """
        if not 1 <= system_id <= 99:
            raise ValueError(f"validation system ID {system_id!r} is outside 1..99")
        if amount < 0:
            raise ValueError(f"ticket amount {amount!r} is negative")
        with self._tx() as db:
            while True:
                number = f"{system_id:02d}{self._rng.randrange(10**15, 10**16):016d}"
                if db.execute("SELECT 1 FROM tickets WHERE substr(number, 3) = ?", (number[2:],)).fetchone() is None:
                    break
            db.execute(
                "INSERT INTO tickets(number, system_id, amount, cashout_type, issued_by, issued_at, "
                "expires_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'issued')",
                (number, system_id, amount, cashout_type, address, at, expires_at),
            )
            self._event(db, number, address, at, "issued", None, f"{amount} cents, type {cashout_type:02X}")
        return number

    def mark_printed(self, address: int, at: float) -> str | None:
        """0x3D from ``address``: its latest ``issued`` ticket is ``printed``; its number (None if none)."""
        with self._tx() as db:
            row = db.execute(
                "SELECT number FROM tickets WHERE issued_by = ? AND state = 'issued' "
                "ORDER BY issued_at DESC, rowid DESC LIMIT 1",
                (address,),
            ).fetchone()
            if row is None:
                self._event(db, None, address, at, "printed_unknown", None, "0x3D with no ticket issued")
                return None
            db.execute("UPDATE tickets SET state = 'printed', printed_at = ? WHERE number = ?", (at, row[0]))
            self._event(db, row[0], address, at, "printed")
            return str(row[0])

    def void(self, number: str, address: int, at: float, reason: str) -> None:
        """Ticket ``number`` was never printed (only from ``issued``)."""
        with self._tx() as db:
            db.execute(
                "UPDATE tickets SET state = 'void', voided_at = ?, void_reason = ? "
                "WHERE number = ? AND state = 'issued'",
                (at, reason, number),
            )
            self._event(db, number, address, at, "void", None, reason)

    def void_issued(self, address: int, at: float, reason: str) -> list[str]:
        """Every ``issued`` (unconfirmed) ticket of ``address`` becomes ``void``; their numbers."""
        with self._tx() as db:
            numbers = [
                str(r[0])
                for r in db.execute("SELECT number FROM tickets WHERE issued_by = ? AND state = 'issued'", (address,))
            ]
            for number in numbers:
                db.execute(
                    "UPDATE tickets SET state = 'void', voided_at = ?, void_reason = ? WHERE number = ?",
                    (at, reason, number),
                )
                self._event(db, number, address, at, "void", None, reason)
            return numbers

    # --- redeeming ---------------------------------------------------------------------------

    def claim(self, number: str, address: int, machine_amount: int, at: float) -> Decision:
        """Machine ``address`` holds ticket ``number`` (0x70): decide, and when it is to be
        redeemed mark it ``pending`` there, in the same transaction.

        ``machine_amount``: the amount the machine read from the ticket (0: unknown).
        Rules, in order: unknown -> 82; redeemed -> 84; void -> 80; not confirmed
        printed (``issued``) -> 83 at another machine, and void + 80 at the issuing
        machine (its print is unknown: it pays by hand); pending at another
        machine -> 83 (at this one: redeem again, the same amount); expired -> 85; the
        machine's amount differs from the record -> 87; else redeem the recorded amount
        (cashable 00, or 01 for a restricted ticket).
        """
        with self._tx() as db:
            row = db.execute(
                "SELECT state, amount, expires_at, pending_at, cashout_type, issued_by FROM tickets WHERE number = ?",
                (number,),
            ).fetchone()
            decision = self._decide(row, address, machine_amount, at)
            if row is not None and row[0] == "issued" and decision.transfer_code == tc.TC_REJECTED:
                db.execute(
                    "UPDATE tickets SET state = 'void', voided_at = ?, void_reason = ? WHERE number = ?",
                    (at, UNKNOWN_PRINT, number),
                )
                self._event(db, number, address, at, "void", None, UNKNOWN_PRINT)
            if decision.redeem and row[0] != "pending":
                db.execute(
                    "UPDATE tickets SET state = 'pending', pending_at = ?, pending_since = ? WHERE number = ?",
                    (address, at, number),
                )
            self._event(
                db,
                number,
                address,
                at,
                "redeem" if decision.redeem else "refused",
                decision.transfer_code,
                decision.reason,
            )
            return decision

    @staticmethod
    def _decide(row: Any, address: int, machine_amount: int, at: float) -> Decision:
        if row is None:
            return Decision(tc.TC_NOT_IN_SYSTEM, 0, "unknown ticket")
        state, amount, expires_at, pending_at, cashout_type, issued_by = row
        if state == "redeemed":
            return Decision(tc.TC_ALREADY_REDEEMED, 0, "ticket already redeemed")
        if state == "void":
            return Decision(tc.TC_REJECTED, 0, "ticket void (never printed)")
        if state == "issued" and address == issued_by:
            return Decision(tc.TC_REJECTED, 0, UNKNOWN_PRINT)
        if state == "issued":
            return Decision(tc.TC_PENDING_ELSEWHERE, 0, f"print not confirmed by machine {issued_by}")
        if state == "pending" and pending_at != address:
            return Decision(tc.TC_PENDING_ELSEWHERE, 0, f"ticket pending at machine {pending_at}")
        if expires_at is not None and at > expires_at and state != "pending":
            return Decision(tc.TC_EXPIRED, 0, "ticket expired")
        if machine_amount and machine_amount != amount:
            return Decision(tc.TC_AMOUNT_MISMATCH, 0, f"amount {machine_amount} is not the record's {amount}")
        code = tc.TC_CASHABLE if cashout_type == tc.CASHOUT_CASHABLE else tc.TC_RESTRICTED_PROMO
        return Decision(code, int(amount), "redeem")

    def complete(self, number: str, address: int, status: int, amount: int, at: float) -> str:
        """Machine ``address`` reported the final 0x71 status of ticket ``number``.

        Returns the outcome: ``redeemed`` (status 00/01/02: final), ``released`` (a
        rejection: the ticket is valid again), ``pending`` (0x40: still waiting) or
        ``ignored`` (the ticket is not pending at that machine: logged, nothing changed).
        """
        with self._tx() as db:
            row = db.execute(
                "SELECT state, pending_at, amount, printed_at FROM tickets WHERE number = ?", (number,)
            ).fetchone()
            if row is None or row[0] != "pending" or row[1] != address:
                self._event(
                    db,
                    number,
                    address,
                    at,
                    "status_ignored",
                    status,
                    f"not pending at this machine ({row[0] if row else 'unknown'})",
                )
                return "ignored"
            if status in tc.STATUS_REDEEMED:
                db.execute(
                    "UPDATE tickets SET state = 'redeemed', redeemed_by = ?, redeemed_at = ?, "
                    "redeemed_amount = ?, pending_at = NULL WHERE number = ?",
                    (address, at, amount, number),
                )
                detail = "" if amount == row[2] else f"credited {amount}, record says {row[2]}"
                self._event(db, number, address, at, "redeemed", status, detail)
                return "redeemed"
            if status == tc.STATUS_PENDING:
                return "pending"
            back = "printed" if row[3] is not None else "issued"
            db.execute(
                "UPDATE tickets SET state = ?, pending_at = NULL, pending_since = NULL WHERE number = ?", (back, number)
            )
            self._event(db, number, address, at, "released", status, "the machine did not take it")
            return "released"

    # --- reading -----------------------------------------------------------------------------

    def pending_at(self, address: int) -> list[tuple[str, int]]:
        """(number, amount) of the tickets pending at machine ``address``."""
        with self._lock:
            return [
                (str(n), int(a))
                for n, a in self._db.execute(
                    "SELECT number, amount FROM tickets WHERE state = 'pending' AND pending_at = ?", (address,)
                )
            ]

    def get(self, number: str) -> dict[str, Any] | None:
        """Ticket ``number``'s row as a dict (column -> value), None when unknown."""
        with self._lock:
            cur = self._db.execute("SELECT * FROM tickets WHERE number = ?", (number,))
            row = cur.fetchone()
            return None if row is None else dict(zip([d[0] for d in cur.description], row, strict=True))

    def tickets(self, address: int | None = None) -> list[dict[str, Any]]:
        """Every ticket (issued by ``address`` if given), oldest first, as dicts."""
        with self._lock:
            cur = self._db.execute(
                "SELECT * FROM tickets"
                + ("" if address is None else " WHERE issued_by = ?")
                + " ORDER BY issued_at, rowid",
                () if address is None else (address,),
            )
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def events(self, number: str | None = None) -> list[tuple[Any, ...]]:
        """``(address, event, code, detail)`` rows, oldest first (of ``number`` if given)."""
        with self._lock:
            sql = "SELECT address, event, code, detail FROM ticket_events"
            args: tuple[Any, ...] = ()
            if number is not None:
                sql, args = sql + " WHERE number = ?", (number,)
            return list(self._db.execute(sql + " ORDER BY id", args))

    def summary(self, addresses: list[int]) -> list[MachineTickets]:
        """Per machine (in ``addresses`` order) then the floor (address 0): tickets issued
        (not void) and their cents, redeemed there, outstanding (issued there, not yet
        redeemed, pending included) and pending there."""
        with self._lock:
            issued = dict(
                (
                    (a, (n, s))
                    for a, n, s in self._db.execute(
                        "SELECT issued_by, COUNT(*), COALESCE(SUM(amount), 0) FROM tickets WHERE state != 'void' "
                        "GROUP BY issued_by"
                    )
                )
            )
            redeemed = dict(
                (
                    (a, (n, s))
                    for a, n, s in self._db.execute(
                        "SELECT redeemed_by, COUNT(*), COALESCE(SUM(redeemed_amount), 0) FROM tickets "
                        "WHERE state = 'redeemed' GROUP BY redeemed_by"
                    )
                )
            )
            outstanding = dict(
                (
                    (a, (n, s))
                    for a, n, s in self._db.execute(
                        "SELECT issued_by, COUNT(*), COALESCE(SUM(amount), 0) FROM tickets "
                        "WHERE state IN ('issued', 'printed', 'pending') GROUP BY issued_by"
                    )
                )
            )
            pending = dict(
                self._db.execute(
                    "SELECT pending_at, COUNT(*) FROM tickets WHERE state = 'pending' GROUP BY pending_at"
                ).fetchall()
            )

        def one(a: Any) -> MachineTickets:
            i, r, o = issued.get(a, (0, 0)), redeemed.get(a, (0, 0)), outstanding.get(a, (0, 0))
            return MachineTickets(int(a), i[0], i[1], r[0], r[1], o[0], o[1], int(pending.get(a, 0)))

        every = [one(a) for a in set(issued) | set(redeemed) | set(outstanding) | set(pending)]
        total = MachineTickets(
            0,
            *(
                sum(getattr(t, f) for t in every)
                for f in (
                    "issued",
                    "issued_amount",
                    "redeemed",
                    "redeemed_amount",
                    "outstanding",
                    "outstanding_amount",
                    "pending",
                )
            ),
        )
        return [*(one(a) for a in addresses), total]

"""A tiny stand-in engine for the crash tests: run the ID-003 driver with a
sqlite-journaled credit callback keyed by the note's transaction id.

Usage: python _standin_engine.py PORT DB KILL
KILL: "before_journal" / "after_journal" SIGKILLs this process inside ``credit``
(i.e. between VEND VALID and ACK), "none" runs until the note is stacked.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import threading

from drivers.events import DeviceOnline, EscrowDecision, TransactionClosed
from drivers.id003_acceptor import Id003BillAcceptor
from drivers.interfaces import OpenTransaction


def main() -> int:
    port, db_path, kill = sys.argv[1:4]
    db = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS escrow (tx TEXT PRIMARY KEY, value INT, state TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS credits (tx TEXT PRIMARY KEY, value INT)")
    row = db.execute(
        "SELECT tx, value FROM escrow WHERE state IN ('escrow', 'credited') ORDER BY rowid DESC"
    ).fetchone()
    open_txn = OpenTransaction(row[0], row[1]) if row else None
    done = threading.Event()

    def decide(event: object) -> EscrowDecision:
        db.execute(
            "INSERT INTO escrow VALUES (?, ?, 'escrow')",
            (event.transaction_id, event.denomination_minor),  # type: ignore[attr-defined]
        )
        return EscrowDecision.STACK

    def credit(event: object) -> None:
        tx = event.transaction_id  # type: ignore[attr-defined]
        print(repr(event), flush=True)
        if kill == "before_journal":
            os.kill(os.getpid(), signal.SIGKILL)
        db.execute("BEGIN IMMEDIATE")
        if db.execute("SELECT 1 FROM credits WHERE tx = ?", (tx,)).fetchone() is None:
            (value,) = db.execute("SELECT value FROM escrow WHERE tx = ?", (tx,)).fetchone()
            db.execute("INSERT INTO credits VALUES (?, ?)", (tx, value))
            db.execute("UPDATE escrow SET state = 'credited' WHERE tx = ?", (tx,))
        db.execute("COMMIT")
        if kill == "after_journal":
            os.kill(os.getpid(), signal.SIGKILL)

    def sink(event: object) -> None:
        print(repr(event), flush=True)
        if isinstance(event, TransactionClosed):
            db.execute("UPDATE escrow SET state = 'stacked' WHERE tx = ?", (event.transaction_id,))
            done.set()
        elif isinstance(event, DeviceOnline):
            print("ONLINE", flush=True)

    acc = Id003BillAcceptor(
        port,
        decide=decide,
        credit=credit,
        sink=sink,
        open_transaction=open_txn,
        poll_interval_s=0.01,
        reply_timeout_s=0.1,
    )
    acc.set_accepting(True)
    acc.start()
    ok = done.wait(15)
    acc.close()
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())

"""The engine is SIGKILLed between VEND VALID and ACK; after a restart the note is
credited exactly once (protocols.md 1.9).  The engine is a sqlite stand-in running
the real driver in a subprocess; the validator simulator lives in this process."""

from __future__ import annotations

import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from conftest import wait_for

from drivers.id003_codec import Status
from drivers.sim.id003_device import SimId003Device
from tests.procs import START_DEADLINE_S, Child

pytestmark = pytest.mark.timeout(240)

ENGINE = Path(__file__).with_name("_standin_engine.py")
ROOT = Path(__file__).resolve().parents[2]


def run_engine(port: str, db: Path, kill: str) -> Child:
    return Child(
        [sys.executable, str(ENGINE), port, str(db), kill], name="stand-in engine", cwd=ROOT, merge_stderr=True
    )


@pytest.mark.parametrize("kill", ["before_journal", "after_journal"])
def test_engine_killed_between_vend_valid_and_ack_credits_once(
    sim_bill: SimId003Device, tmp_path: Path, kill: str
) -> None:
    db = tmp_path / "journal.sqlite"
    first = run_engine(sim_bill.path, db, kill)
    try:
        wait_for(lambda: sim_bill.state == Status.IDLING, timeout_s=START_DEADLINE_S)
        sim_bill.insert_bill(0x65)
        assert first.wait_exit(START_DEADLINE_S) == -signal.SIGKILL
    finally:
        first.kill()
    # the validator is still waiting for the ACK the dead engine never sent
    assert sim_bill.state == Status.VEND_VALID and sim_bill.log.acks_received == 0
    credited = sqlite3.connect(db).execute("SELECT COUNT(*) FROM credits").fetchone()[0]
    assert credited == (1 if kill == "after_journal" else 0)

    second = run_engine(sim_bill.path, db, "none")
    try:
        status = second.wait_exit(START_DEADLINE_S)
    finally:
        second.kill()
    out = second.text()
    assert status == 0, out
    assert "recovered=True" in out
    rows = sqlite3.connect(db).execute("SELECT tx, value FROM credits").fetchall()
    assert len(rows) == 1 and rows[0][1] == 2000
    states = sqlite3.connect(db).execute("SELECT state FROM escrow").fetchall()
    assert states == [("stacked",)]
    assert len(sim_bill.log.stacked) == 1 and sim_bill.log.acks_received == 1

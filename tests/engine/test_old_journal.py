"""A journal written before the package moved into rooms (commit 320e068,
tests/data/journal_320e068) opens, verifies and resumes on today's code."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

from cabinet.core.events import IntentReceived, NoteStacked, PowerUp, VoucherEscrowed, VoucherStacked
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "journal_320e068"
VOUCHER = "410130064244963038"
WALL = 1_800_000_100.0


def _copy(tmp_path: Path) -> Path:
    for name in ("journal.db", "journal.db.key", "journal.db.commit"):
        shutil.copy(FIXTURE / name, tmp_path / name)
        (tmp_path / name).chmod(0o600)  # git keeps no owner-only mode
    return tmp_path / "journal.db"


def _doctor(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cabinet", "doctor", "--journal", str(path)], capture_output=True, text=True, timeout=60
    )


def test_old_journal_verifies_with_cabinet_doctor(tmp_path):
    """``cabinet doctor`` finds nothing wrong in the old journal: keyed
    checksums, event chain and commit record as the old code wrote them."""
    path = _copy(tmp_path)
    r = _doctor(path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK (11 commits, 10 events verified)" in r.stdout
    store = Store(path, readonly=True)
    assert store.verify() == []
    assert [e["kind"] for e in store.events(100)][::-1][:3] == ["power_up", "bill_stacked", "cash_out"]
    store.close()


def test_old_journal_resumes_with_credits_and_voucher_and_plays_on(tmp_path):
    """The old journal boots without a RAM error, $59.00 on the credit
    meter, its outstanding $20 voucher redeemable once; a new round plays and the
    journal still verifies afterwards."""
    path = _copy(tmp_path)
    eng = Engine(Store(path), rng=random.Random(3), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    cab = eng.cab
    st = cab.s.stations[0]
    assert not cab.s.ram_error
    assert cab.mode == "betting"
    assert st.credits_minor == 5900
    assert st.meters.bills_in_minor == 8000 and st.meters.vouchers_out_minor == 2000
    assert st.meters.coin_in_minor == 100 and st.meters.games_played == 1
    assert eng.store.voucher(VOUCHER).status == "issued"
    eng.step(VoucherEscrowed(1, VOUCHER, None, "v1"))
    eng.step(VoucherStacked(1, VOUCHER, "v1", None))
    assert cab.s.stations[0].credits_minor == 7900
    assert eng.store.voucher(VOUCHER).status == "redeemed"
    eng.step(NoteStacked(1, 1000, "bill-4"))
    eng.step(IntentReceived(1, "bet_up"))
    eng.step(IntentReceived(1, "deal"))
    while cab.mode == "in_round":
        p = cab.round.prompt
        eng.step(IntentReceived(p.seat, "decline" if p.kind == "insurance" else "stand"))
    st = cab.s.stations[0]
    assert st.meters.games_played == 2
    assert st.meters.coin_in_minor == 300  # the old round's $1 bet, raised to $2
    assert st.credits_minor == 8700  # seeded shoe: the $2 hand lost
    eng.store.close()
    r = _doctor(path)
    assert r.returncode == 0, r.stdout + r.stderr

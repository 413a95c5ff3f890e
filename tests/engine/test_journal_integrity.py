"""A journal that was rolled back (11.2) or tampered with (11.14) is found."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
import subprocess
import sys

import msgspec

from cabinet.core.events import NoteStacked, PowerUp
from cabinet.core.machine import new_state
from cabinet.shell.engine import Engine
from cabinet.shell.paths import commit_file, key_file
from cabinet.shell.store import Store

WALL = 1_800_000_000.0


def _boot(path):
    eng = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def _plain(name, seq, blob):
    h = hashlib.sha256()
    h.update(f"{name}:{seq}:".encode())
    h.update(blob)
    return h.hexdigest()


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "cabinet", *args], capture_output=True, text=True, timeout=60)


def test_cabinet_rows_rewritten_with_recomputed_sha256_are_a_ram_error(tmp_path):
    """+$500 written into both copies with the plain SHA-256 recomputed
    is not accepted: the keyed checksum fails, the cabinet starts in a RAM error."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 9000, "t1"))
    eng.store.close()
    db = sqlite3.connect(path)
    for copy, seq, blob in db.execute("SELECT copy, seq, blob FROM critical WHERE name='cabinet'").fetchall():
        state = json.loads(blob)
        state["stations"][0]["credits_minor"] += 50000
        new = json.dumps(state, separators=(",", ":")).encode()
        db.execute(
            "UPDATE critical SET blob=?, checksum=? WHERE name='cabinet' AND copy=?",
            (new, _plain("cabinet", seq, new), copy),
        )
    db.commit()
    db.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 1 and "critical row cabinet" in r.stdout
    eng2 = _boot(path)
    assert eng2.cab.s.ram_error
    assert eng2.cab.s.stations[0].credits_minor == 0
    assert "cabinet" in eng2.snapshot.overlay_text


def test_deleted_and_backdated_events_are_reported_by_doctor(tmp_path):
    """Events deleted or back-dated 30 days break the keyed hash chain;
    ``cabinet doctor`` and ``cabinet events --verify`` exit 1 naming the event."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    for i in range(4):
        eng.step(NoteStacked(1, 1000, f"t{i}"))
    eng.store.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET wall_s = wall_s - 30*86400 WHERE kind='bill_stacked'")
    db.execute("DELETE FROM events WHERE id = 3")
    db.commit()
    db.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 1 and "event" in r.stdout
    r = _cli("events", "--verify", "--journal", str(path))
    assert r.returncode == 1 and "event 2" in r.stdout
    eng2 = _boot(path)
    assert eng2.cab.s.ram_error


def _old_format_journal(path):
    """A journal as written before keyed checksums: plain SHA-256 rows, no event chain,
    no voucher checksum, no key file, no commit record; $20.00 on the credit meter and
    a $7.00 voucher outstanding. Returns the voucher."""
    from cabinet.core.records import VoucherRecord

    db = sqlite3.connect(path)
    db.executescript("""
CREATE TABLE critical (name TEXT NOT NULL, copy INTEGER NOT NULL, seq INTEGER NOT NULL,
    blob BLOB NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY (name, copy));
CREATE TABLE events (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, wall_s REAL NOT NULL,
    kind TEXT NOT NULL, station INTEGER NOT NULL, amount_minor INTEGER NOT NULL,
    data TEXT NOT NULL);
CREATE TABLE vouchers (validation_number TEXT PRIMARY KEY, sequence INTEGER NOT NULL,
    station INTEGER NOT NULL, amount_minor INTEGER NOT NULL, status TEXT NOT NULL,
    record TEXT NOT NULL);
CREATE TABLE recall (id INTEGER PRIMARY KEY, round_id INTEGER NOT NULL,
    station INTEGER NOT NULL, entry TEXT NOT NULL);""")
    state = new_state()
    state.stations[0].credits_minor = 2000
    blob = msgspec.json.encode(state)
    rblob = b"null"
    for c in (0, 1):
        db.execute("INSERT INTO critical VALUES (?,?,?,?,?)", ("cabinet", c, 7, blob, _plain("cabinet", 7, blob)))
        db.execute("INSERT INTO critical VALUES (?,?,?,?,?)", ("round", c, 7, rblob, _plain("round", 7, rblob)))
    db.execute(
        "INSERT INTO events (seq, wall_s, kind, station, amount_minor, data) "
        "VALUES (7, ?, 'bill_stacked', 1, 2000, '{\"txn\": \"a\"}')",
        (WALL,),
    )
    ticket = VoucherRecord(
        validation_number="123456789012345678",
        sequence=1,
        amount_minor=700,
        station=1,
        issued_wall_s=WALL,
        expires_wall_s=WALL + 30 * 86400,
        status="issued",
        venue="v",
        machine_number="1",
    )
    db.execute(
        "INSERT INTO vouchers VALUES (?,?,?,?,?,?)",
        (ticket.validation_number, 1, 1, 700, "issued", msgspec.json.encode(ticket).decode()),
    )
    db.commit()
    db.close()
    return ticket


def test_old_format_journal_is_upgraded_once_by_the_explicit_command(tmp_path):
    """A journal in the old format (plain SHA-256) is never taken as it is: the engine
    refuses it with one line naming ``cabinet upgrade-journal``, which keys it once
    (journaled as ``journal_migrated``, credits and voucher kept); asked again it
    refuses, the journal untouched."""
    path = tmp_path / "j.db"
    ticket = _old_format_journal(path)
    r = _cli("engine", "--devices", "none", "--journal", str(path), "--socket", str(tmp_path / "s"))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "old format" in lines[0] and "cabinet upgrade-journal" in lines[0]
    assert not key_file(path).exists()  # nothing written: still upgradable
    r = _cli("doctor", "--journal", str(path), "--devices", "none")
    assert r.returncode == 1 and "upgrade-journal" in r.stdout, r.stdout
    r = _cli("events", "--verify", "--journal", str(path))
    assert r.returncode == 1 and "old format" in r.stdout, r.stdout
    assert not key_file(path).exists()
    r = _cli("upgrade-journal", "--journal", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines() == [
        f"journal {path} upgraded to keyed checksums (HMAC-SHA256): 1 event chained, "
        "1 voucher; journaled as journal_migrated"
    ]
    assert key_file(path).stat().st_mode & 0o777 == 0o600
    eng = _boot(path)
    assert not eng.cab.s.ram_error
    assert eng.cab.s.stations[0].credits_minor == 2000
    sums = [r[0] for r in eng.store.db.execute("SELECT checksum FROM critical")]
    assert sums and all(s.startswith("hmac:") for s in sums)
    assert [e["kind"] for e in eng.store.all_events()].count("journal_migrated") == 1
    assert eng.store.voucher(ticket.validation_number) == ticket
    eng.step(NoteStacked(1, 500, "t2"))
    eng.store.close()
    before = path.read_bytes()
    r = _cli("upgrade-journal", "--journal", str(path))
    assert r.returncode == 2 and "already" in r.stderr and path.read_bytes() == before
    eng2 = _boot(path)  # opens again, keyed now
    assert not eng2.cab.s.ram_error and eng2.cab.s.stations[0].credits_minor == 2500


def test_old_format_journal_opened_in_process_is_a_ram_error_not_accepted(tmp_path):
    """The store alone never accepts plain SHA-256 rows: without the explicit upgrade
    the old journal's state is not trusted."""
    path = tmp_path / "j.db"
    _old_format_journal(path)
    eng = _boot(path)
    assert eng.cab.s.ram_error and eng.cab.s.stations[0].credits_minor == 0


def _forge_credits(path, add_minor):
    """What a forger without the key does: delete the commit record and rewrite the
    cabinet rows with ``add_minor`` more credits under the old plain SHA-256."""
    commit_file(path).unlink()
    db = sqlite3.connect(path)
    for copy, seq, blob in db.execute("SELECT copy, seq, blob FROM critical WHERE name='cabinet'").fetchall():
        state = json.loads(blob)
        state["stations"][0]["credits_minor"] += add_minor
        new = json.dumps(state, separators=(",", ":")).encode()
        db.execute(
            "UPDATE critical SET blob=?, checksum=? WHERE name='cabinet' AND copy=?",
            (new, _plain("cabinet", seq, new), copy),
        )
    for name, copy, seq, blob in db.execute(
        "SELECT name, copy, seq, blob FROM critical WHERE name!='cabinet'"
    ).fetchall():
        db.execute(
            "UPDATE critical SET checksum=? WHERE name=? AND copy=?", (_plain(name, seq, bytes(blob)), name, copy)
        )
    db.commit()
    db.close()


def _refused_by_doctor_verify_and_engine(path, tmp_path):
    r = _cli("doctor", "--journal", str(path), "--devices", "none")
    assert r.returncode == 1 and "FAIL  journal" in r.stdout, r.stdout
    assert "commit record" in r.stdout and "missing" in r.stdout, r.stdout
    r = _cli("events", "--verify", "--journal", str(path))
    assert r.returncode == 1 and "commit record" in r.stdout, r.stdout
    r = _cli("upgrade-journal", "--journal", str(path))
    assert r.returncode == 2 and "already" in r.stderr, r.stderr
    eng = _boot(path)
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"
    assert "commit record" in eng.snapshot.overlay_text
    return eng


def test_credits_forged_under_plain_sha256_without_the_commit_record_are_refused(tmp_path):
    """+$500 written into the state rows under the old plain SHA-256 with the commit
    record deleted: ``cabinet doctor`` and ``events --verify`` fail, a second upgrade is
    refused, and the engine starts in a RAM error; no $500 to cash out as a ticket."""
    from cabinet.core.effects import PrintVoucher
    from cabinet.core.events import IntentReceived

    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 5000, "t1"))
    eng.store.close()
    _forge_credits(path, 50000)
    eng = _refused_by_doctor_verify_and_engine(path, tmp_path)
    assert eng.cab.s.stations[0].credits_minor == 0
    eff = eng.step(IntentReceived(1, "cash_out"))
    assert not [e for e in eff if isinstance(e, PrintVoucher)]


def test_ticket_forged_from_50_to_500_without_the_commit_record_is_refused(tmp_path):
    """A $50 ticket's row rewritten to $500 in the old format (no voucher checksum) with
    the commit record deleted: ``cabinet doctor`` and ``events --verify`` fail, the
    engine starts in a RAM error and the row is not trusted for a redemption."""
    from cabinet.core.effects import PrintVoucher
    from cabinet.core.events import IntentReceived, PrintFinished

    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 5000, "t1"))
    eff = eng.step(IntentReceived(1, "cash_out"))
    vn = next(e.record for e in eff if isinstance(e, PrintVoucher)).validation_number
    eng.step(PrintFinished(1, vn, "done"))
    eng.store.close()
    _forge_credits(path, 0)
    db = sqlite3.connect(path)
    rec = json.loads(db.execute("SELECT record FROM vouchers WHERE validation_number=?", (vn,)).fetchone()[0])
    assert rec["amount_minor"] == 5000
    rec["amount_minor"] = 50000
    db.execute(
        "UPDATE vouchers SET amount_minor=50000, record=?, mac=NULL WHERE validation_number=?", (json.dumps(rec), vn)
    )
    db.commit()
    db.close()
    eng = _refused_by_doctor_verify_and_engine(path, tmp_path)
    assert eng.store.voucher(vn) is None
    assert eng.cab.s.stations[0].credits_minor == 0


def test_journal_that_lost_its_wal_is_a_ram_error(tmp_path):
    """Credits fall back when the WAL is lost after a SIGKILL; the commit
    record outside the journal shows it and the cabinet stops in a RAM error."""
    path = tmp_path / "a" / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eng.store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    eng.step(NoteStacked(1, 5000, "t2"))
    eng.step(NoteStacked(1, 15000, "t3"))
    assert eng.cab.s.stations[0].credits_minor == 22000
    # the power is cut (no checkpoint at close) and the WAL is gone: copy the main file only
    lost = tmp_path / "b" / "j.db"
    lost.parent.mkdir()
    shutil.copy(path, lost)
    for f in (key_file(path), commit_file(path)):
        if f.exists():
            shutil.copy(f, lost.parent / f.name)
    eng2 = _boot(lost)
    assert eng2.cab.s.ram_error
    assert "rolled back" in eng2.snapshot.overlay_text
    assert eng2.cab.s.stations[0].credits_minor == 0


def test_voucher_row_set_back_to_issued_is_refused_and_reported(tmp_path):
    """A redeemed voucher's row rewritten back to "issued" fails its keyed
    checksum: the ticket is not credited again, and ``cabinet doctor`` reports it."""
    from cabinet.core.effects import PrintVoucher
    from cabinet.core.events import IntentReceived, PrintFinished, VoucherEscrowed, VoucherStacked

    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eff = eng.step(IntentReceived(1, "cash_out"))
    vn = next(e.record for e in eff if isinstance(e, PrintVoucher)).validation_number
    eng.step(PrintFinished(1, vn, "done"))
    eng.step(VoucherEscrowed(1, vn, None, "v1"))
    eng.step(VoucherStacked(1, vn, "v1", None))
    assert eng.cab.s.stations[0].credits_minor == 2000
    eng.step(IntentReceived(1, "cash_out"))  # 2000 out again on a new ticket
    eng.store.close()
    db = sqlite3.connect(path)
    rec = json.loads(db.execute("SELECT record FROM vouchers WHERE validation_number=?", (vn,)).fetchone()[0])
    rec["status"] = "issued"
    rec["redeemed_wall_s"] = None
    db.execute("UPDATE vouchers SET status='issued', record=? WHERE validation_number=?", (json.dumps(rec), vn))
    db.commit()
    db.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 1 and "voucher" in r.stdout and vn[-4:] in r.stdout
    store = Store(path)
    assert store.voucher(vn) is None  # not trusted: not "issued"


def test_removed_events_are_found_again_after_a_crash_before_the_ram_error_commit(tmp_path):
    """The newest events cut off the log are found at open, and
    opening does not move the commit record over it: a crash before the RAM error is
    committed finds the same at the next start."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    for i in range(3):
        eng.step(NoteStacked(1, 1000, f"t{i}"))
    eng.store.close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE id >= 3")  # the tail: no chain break
    db.commit()
    db.close()
    first = Store(path).load()  # opened, then the power goes
    assert first.ram_error and "events were removed" in " ".join(first.findings)
    again = Store(path).load()
    assert again.ram_error and "events were removed" in " ".join(again.findings)


def test_voucher_columns_that_disagree_with_the_keyed_record_are_reported_and_not_trusted(tmp_path):
    """Only the ``record`` column was keyed, so
    ``UPDATE vouchers SET status='redeemed'`` on an outstanding ticket passed
    ``cabinet doctor``, and a RAM clear (which deleted rows by that column) would have
    erased a voucher the player still holds. The columns must agree with the keyed
    record; the list of outstanding vouchers and the RAM clear go by the record."""
    from cabinet.core.effects import ClearJournal, PrintVoucher
    from cabinet.core.events import IntentReceived, PrintFinished

    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 2000, "t1"))
    eff = eng.step(IntentReceived(1, "cash_out"))
    vn = next(e.record for e in eff if isinstance(e, PrintVoucher)).validation_number
    eng.step(PrintFinished(1, vn, "done"))
    assert [v.validation_number for v in eng.store.outstanding_vouchers()] == [vn]
    eng.store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE vouchers SET status='redeemed', amount_minor=99900 WHERE validation_number=?", (vn,))
    db.commit()
    db.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 1 and "disagree" in r.stdout and vn[-4:] in r.stdout, r.stdout
    store = Store(path)
    assert [v.validation_number for v in store.outstanding_vouchers()] == [vn]
    with store.db:
        store._apply(ClearJournal(), 0.0, new_state())
    assert store.voucher(vn) is not None and store.voucher(vn).status == "issued"
    store.close()

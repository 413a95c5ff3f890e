"""Issue 11: a journal that was rolled back (11.2) or tampered with (11.14) is found."""

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
    return subprocess.run([sys.executable, "-m", "cabinet", *args], capture_output=True,
                          text=True, timeout=60)


def test_cabinet_rows_rewritten_with_recomputed_sha256_are_a_ram_error(tmp_path):
    """Issue 11.14: +$500 written into both copies with the plain SHA-256 recomputed
    is not accepted: the keyed checksum fails, the cabinet starts in a RAM error."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    eng.step(NoteStacked(1, 9000, "t1"))
    eng.store.close()
    db = sqlite3.connect(path)
    for copy, seq, blob in db.execute("SELECT copy, seq, blob FROM critical WHERE "
                                      "name='cabinet'").fetchall():
        state = json.loads(blob)
        state["stations"][0]["credits_minor"] += 50000
        new = json.dumps(state, separators=(",", ":")).encode()
        db.execute("UPDATE critical SET blob=?, checksum=? WHERE name='cabinet' AND copy=?",
                   (new, _plain("cabinet", seq, new), copy))
    db.commit()
    db.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 1 and "critical row cabinet" in r.stdout
    eng2 = _boot(path)
    assert eng2.cab.s.ram_error
    assert eng2.cab.s.stations[0].credits_minor == 0
    assert "cabinet" in eng2.snapshot.overlay_text


def test_deleted_and_backdated_events_are_reported_by_doctor(tmp_path):
    """Issue 11.14: events deleted or back-dated 30 days break the keyed hash chain;
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


def test_old_format_journal_opens_and_is_migrated_to_keyed_checksums(tmp_path, caplog):
    """Issue 11.14: a journal written before keyed checksums (plain SHA-256, no event
    chain, no key file) opens with its credits and is migrated on first open (logged)."""
    path = tmp_path / "j.db"
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
        db.execute("INSERT INTO critical VALUES (?,?,?,?,?)",
                   ("cabinet", c, 7, blob, _plain("cabinet", 7, blob)))
        db.execute("INSERT INTO critical VALUES (?,?,?,?,?)",
                   ("round", c, 7, rblob, _plain("round", 7, rblob)))
    db.execute("INSERT INTO events (seq, wall_s, kind, station, amount_minor, data) "
               "VALUES (7, ?, 'bill_stacked', 1, 2000, '{\"txn\": \"a\"}')", (WALL,))
    from cabinet.core.records import VoucherRecord
    ticket = VoucherRecord(validation_number="123456789012345678", sequence=1,
                           amount_minor=700, station=1, issued_wall_s=WALL,
                           expires_wall_s=WALL + 30 * 86400, status="issued", venue="v",
                           machine_number="1")
    db.execute("INSERT INTO vouchers VALUES (?,?,?,?,?,?)",
               (ticket.validation_number, 1, 1, 700, "issued",
                msgspec.json.encode(ticket).decode()))
    db.commit()
    db.close()
    assert not key_file(path).exists()
    with caplog.at_level("WARNING"):
        eng = _boot(path)
    assert not eng.cab.s.ram_error
    assert eng.cab.s.stations[0].credits_minor == 2000
    assert key_file(path).stat().st_mode & 0o777 == 0o600
    sums = [r[0] for r in eng.store.db.execute("SELECT checksum FROM critical")]
    assert sums and all(s.startswith("hmac:") for s in sums)
    assert "journal_migrated" in [e["kind"] for e in eng.store.all_events()]
    assert any("migrated" in r.message for r in caplog.records)
    assert eng.store.voucher(ticket.validation_number) == ticket
    eng.step(NoteStacked(1, 500, "t2"))
    eng.store.close()
    eng2 = _boot(path)                               # opens again, keyed now
    assert not eng2.cab.s.ram_error and eng2.cab.s.stations[0].credits_minor == 2500


def test_journal_that_lost_its_wal_is_a_ram_error(tmp_path):
    """Issue 11.2: credits fall back when the WAL is lost after a SIGKILL; the commit
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
    """Issue 11.14: a redeemed voucher's row rewritten back to "issued" fails its keyed
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
    eng.step(IntentReceived(1, "cash_out"))                  # 2000 out again on a new ticket
    eng.store.close()
    db = sqlite3.connect(path)
    rec = json.loads(db.execute("SELECT record FROM vouchers WHERE validation_number=?",
                                (vn,)).fetchone()[0])
    rec["status"] = "issued"
    rec["redeemed_wall_s"] = None
    db.execute("UPDATE vouchers SET status='issued', record=? WHERE validation_number=?",
               (json.dumps(rec), vn))
    db.commit()
    db.close()
    r = _cli("doctor", "--journal", str(path))
    assert r.returncode == 1 and "voucher" in r.stdout and vn[-4:] in r.stdout
    store = Store(path)
    assert store.voucher(vn) is None                        # not trusted: not "issued"


def test_removed_events_are_found_again_after_a_crash_before_the_ram_error_commit(tmp_path):
    """Issues 11.2, 11.14: the newest events cut off the log are found at open, and
    opening does not move the commit record over it: a crash before the RAM error is
    committed finds the same at the next start."""
    path = tmp_path / "j.db"
    eng = _boot(path)
    for i in range(3):
        eng.step(NoteStacked(1, 1000, f"t{i}"))
    eng.store.close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE id >= 3")            # the tail: no chain break
    db.commit()
    db.close()
    first = Store(path).load()                                # opened, then the power goes
    assert first.ram_error and "events were removed" in " ".join(first.findings)
    again = Store(path).load()
    assert again.ram_error and "events were removed" in " ".join(again.findings)


def test_voucher_columns_that_disagree_with_the_keyed_record_are_reported_and_not_trusted(tmp_path):
    """Issue 11.14 (found by a new-user test): only the ``record`` column was keyed, so
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
    db.execute("UPDATE vouchers SET status='redeemed', amount_minor=99900 WHERE validation_number=?",
               (vn,))
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

"""A journal SQLite cannot read is salvaged into a fresh one, and the
cabinet starts into a RAM error that says what was found (never an exit-1 loop)."""

from __future__ import annotations

import random
import signal
import sqlite3
import sys

import pytest

from cabinet.core.events import DoorChanged, IntentReceived, KeyChanged, NoteStacked, PowerUp
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store, open_journal
from tests.procs import START_DEADLINE_S, STOP_DEADLINE_S, Child

WALL = 1_800_000_000.0
PAGE = 4096


def _played(path, notes=1):
    eng = Engine(Store(path), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    for i in range(notes):
        eng.step(NoteStacked(1, 100, f"t{i}"))
    eng.store.close()  # checkpoints: everything in the main file


def _pages(path, table):
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT pageno, pagetype, path FROM dbstat WHERE name=?", (table,)).fetchall()
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat")
    finally:
        db.close()
    return rows


def _garble(path, pageno):
    with open(path, "r+b") as f:
        f.seek((pageno - 1) * PAGE)
        f.write(bytes([0xA5]) * PAGE)


def _boot(path):
    store, findings = open_journal(path)
    eng = Engine(store, rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng, findings


def _ram_clear(eng):
    from .menu_helpers import change_default_pin, eng_send

    eng.step(KeyChanged(True))
    for _ in range([k for k, _ in MAIN_ITEMS].index("ram_clear")):
        eng.step(IntentReceived(1, "menu_down"))
    eng.step(IntentReceived(1, "menu_select"))
    change_default_pin(eng_send(eng))  # a RAM error's fresh state: factory PIN
    eng.step(DoorChanged("logic", True))  # and the logic door
    for _ in range(2):
        eng.step(IntentReceived(1, "menu_select"))


def test_corrupt_header_starts_in_a_ram_error_with_the_file_kept_aside(tmp_path):
    """A destroyed file header: RAM error saying so, the corrupt file kept
    renamed beside a fresh journal, and the technician's RAM clear works."""
    path = tmp_path / "j.db"
    _played(path)
    with open(path, "r+b") as f:
        f.write(b"\x00" * 100)
    eng, findings = _boot(path)
    assert findings and "corrupt" in findings[0]
    aside = list(tmp_path.glob("j.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes()[:100] == b"\x00" * 100
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"
    assert "corrupt" in eng.snapshot.overlay_text and aside[0].name in eng.snapshot.overlay_text
    _ram_clear(eng)
    assert not eng.cab.s.ram_error and eng.cab.s.needs_config
    eng.store.close()
    assert Store(path).db.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_corrupt_critical_root_page_salvages_the_history(tmp_path):
    """The critical table's root page garbled: RAM error, events kept."""
    path = tmp_path / "j.db"
    _played(path, notes=3)
    (root,) = [p for p, _, where in _pages(path, "critical") if where == "/"]
    _garble(path, root)
    eng, findings = _boot(path)
    assert eng.cab.s.ram_error
    kinds = [e["kind"] for e in eng.store.all_events()]
    assert kinds.count("bill_stacked") == 3 and "journal_salvaged" in kinds


def test_one_corrupt_history_page_keeps_the_credits_readable(tmp_path):
    """One leaf page of the event log garbled: the credits (intact) and the
    other events are kept, the cabinet starts in a RAM error instead of exiting."""
    path = tmp_path / "j.db"
    _played(path, notes=200)
    leaves = [p for p, t, _ in _pages(path, "events") if t == "leaf"]
    assert len(leaves) >= 3
    _garble(path, leaves[1])
    eng, findings = _boot(path)
    assert eng.cab.s.ram_error and "corrupt" in " ".join(findings)
    assert eng.cab.s.stations[0].credits_minor == 200 * 100  # read and kept
    n = [e["kind"] for e in eng.store.all_events()].count("bill_stacked")
    assert 100 < n < 200  # one page lost, not all


@pytest.mark.timeout(150)
def test_engine_on_a_corrupt_journal_starts_instead_of_exiting(tmp_path):
    """``cabinet engine`` on a corrupt journal comes up (RAM error) rather
    than exiting 1 into a systemd restart loop."""
    path = tmp_path / "j.db"
    _played(path)
    with open(path, "r+b") as f:
        f.write(b"\x00" * 100)
    p = Child(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--journal",
            str(path),
            "--socket",
            str(tmp_path / "s"),
        ],
        name="engine",
    )
    try:
        assert p.wait_for("engine ready", START_DEADLINE_S).startswith("engine ready")
        p.signal(signal.SIGTERM)
        assert p.wait_exit(STOP_DEADLINE_S) == 0
    finally:
        p.kill()


def _value_size(serial_type):
    """Bytes of a record value of this SQLite serial type (file format 2.1)."""
    if serial_type >= 12:
        return (serial_type - 12 - (serial_type % 2)) // 2
    return {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8}.get(serial_type, 0)


def _critical_cells(path):
    """Each ``critical`` row as SQLite wrote it on its b-tree leaf page:
    ``(file offset of its first value, [(file offset, serial type)] per column)``."""

    def varint(buf, i):
        v = 0
        for k in range(8):
            v = (v << 7) | (buf[i + k] & 0x7F)
            if buf[i + k] < 0x80:
                return v, i + k + 1
        return (v << 8) | buf[i + 8], i + 9

    data = path.read_bytes()
    cells = []
    for pageno, kind, _ in _pages(path, "critical"):
        if kind != "leaf":
            continue
        base = (pageno - 1) * PAGE
        page = data[base : base + PAGE]
        for n in range(int.from_bytes(page[3:5], "big")):
            i = int.from_bytes(page[8 + 2 * n : 10 + 2 * n], "big")
            _, i = varint(page, i)  # payload size
            _, i = varint(page, i)  # rowid
            start = i
            size, i = varint(page, i)
            types = []
            while i < start + size:
                at = i
                t, i = varint(page, i)
                types.append((base + at, t))
            cells.append((base + start + size, types))
    return cells


def _corrupt_cabinet_rows(path, how):
    """Garble both cabinet rows as a bad page would, SQLite's own check still passing:
    ``seq_as_text`` the commit number's serial type 1 (a one-byte integer) becomes 15
    (a one-byte text); ``checksum_not_utf8`` a byte of the checksum becomes 0x80."""
    data = path.read_bytes()
    with open(path, "r+b") as f:
        for body, types in _critical_cells(path):
            if data[body : body + 7] != b"cabinet":
                continue
            seq_at, seq_type = types[2]
            if how == "seq_as_text":
                assert seq_type == 1
                f.seek(seq_at)
                f.write(bytes([15]))
            else:
                f.seek(body + sum(_value_size(t) for _, t in types[:4]) + 2)
                f.write(b"\x80")


@pytest.mark.parametrize("how", ["seq_as_text", "checksum_not_utf8"])
def test_corrupt_critical_page_starts_in_a_ram_error(tmp_path, how):
    """A state page whose rows SQLite still reads but whose values are garbled (a
    commit number read back as text, a checksum that is not UTF-8): the cabinet starts
    in the RAM error saying what was found, never an exit into a restart loop."""
    path = tmp_path / "j.db"
    _played(path, notes=2)
    _corrupt_cabinet_rows(path, how)
    eng, findings = _boot(path)
    assert eng.cab.s.ram_error and eng.cab.mode == "ram_error"
    assert "critical" in eng.snapshot.overlay_text
    assert eng.cab.s.stations[0].credits_minor == 0
    eng.store.close()


@pytest.mark.timeout(150)
def test_engine_on_a_corrupt_critical_page_comes_up_in_a_ram_error(tmp_path):
    """``cabinet engine`` on a journal whose state rows are garbled comes up (the RAM
    error on the screen) instead of exiting 2 every start under systemd."""
    path = tmp_path / "j.db"
    _played(path, notes=2)
    _corrupt_cabinet_rows(path, "seq_as_text")
    p = Child(
        [
            sys.executable,
            "-m",
            "cabinet",
            "engine",
            "--devices",
            "none",
            "--journal",
            str(path),
            "--socket",
            str(tmp_path / "s"),
        ],
        name="engine",
    )
    try:
        assert p.wait_for("engine ready", START_DEADLINE_S).startswith("engine ready")
        p.signal(signal.SIGTERM)
        code = p.wait_exit(STOP_DEADLINE_S)
    finally:
        p.kill()
    err = p.text("stderr")
    assert code == 0 and "RAM error" in err and "Traceback" not in err, err

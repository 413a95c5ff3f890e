"""Game recall depth and order, meter rollover, and the read-only CLI views."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
from cabinet.core.meters import METER_MODULUS, Meters, audit_balance
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .helpers import Rig


def _play_rounds(path, n, seed=4):
    eng = Engine(Store(path), rng=random.Random(seed), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    eng.step(PowerUp(0, 1_800_000_000.0))
    eng.step(NoteStacked(1, 10_000, "t"))
    eng.step(IntentReceived(1, "bet_up"))
    played = 0
    while played < n:
        eng.step(IntentReceived(1, "deal"))
        while eng.cab.mode == "in_round":
            legal = eng.cab.legal_actions(1)
            eng.step(IntentReceived(1, "decline" if "decline" in legal else "stand"))
        played += 1
    return eng


def test_recall_keeps_the_last_ten_newest_first(tmp_path):
    eng = _play_rounds(tmp_path / "j.db", 12)
    entries = eng.store.recall(1, 100)
    assert [e.round_id for e in entries] == list(range(12, 2, -1))
    e = entries[0]
    assert e.credits_after_minor - e.credits_before_minor == e.returned_minor - e.wagered_minor
    assert e.result["dealer"]["cards"] and e.steps
    assert all(step.startswith(("play seat 1", "insurance seat 1")) for step in e.steps)


def test_maintenance_recall_is_marked_as_recall_mode(tmp_path):
    from cabinet.core.events import KeyChanged

    eng = _play_rounds(tmp_path / "j.db", 3)
    eng.step(KeyChanged(True))
    eng.step(IntentReceived(1, "menu_down"))
    eng.step(IntentReceived(1, "menu_select"))
    m = eng.snapshot.maintenance
    assert m.title == "Game recall" and m.lines[0].startswith("RECALL MODE - round 3")
    assert len(m.items) == 3


def test_meters_roll_over_at_ten_digits_and_the_audit_still_balances():
    m = Meters(coin_in_minor=METER_MODULUS - 100, bills_in_minor=METER_MODULUS - 50)
    m.add("coin_in_minor", 150)
    assert m.coin_in_minor == 50
    m.add("bills_in_minor", 150)
    assert m.bills_in_minor == 100
    # credits 50 = bills 100 - coin in 50, in modular arithmetic
    assert audit_balance(50, 0, m) == 0
    rig = Rig()
    rig.cab.s.stations[0].meters = Meters(bills_in_minor=METER_MODULUS - 1)
    rig.cab.s.stations[0].credits_minor = METER_MODULUS - 1
    rig.note(100)
    assert rig.meters().bills_in_minor == 99 and rig.balanced()


def test_cli_views_read_a_journal(tmp_path):
    path = tmp_path / "j.db"
    _play_rounds(path, 2).store.close()
    run = [sys.executable, "-m", "cabinet"]
    r = subprocess.run(run + ["meters", "--journal", str(path), "--json"], capture_output=True, text=True, timeout=60)
    state = json.loads(r.stdout)
    assert state["stations"][0]["meters"]["games_played"] == 2
    m = state["stations"][0]["meters"]
    r = subprocess.run(run + ["meters", "--journal", str(path)], capture_output=True, text=True, timeout=60)
    lines = r.stdout.splitlines()  # the menu's Meters page, as text
    assert lines[1].startswith("Actual RTP since the last RAM clear: ")
    rtp = f"{100 * m['coin_out_minor'] / m['coin_in_minor']:.2f} %"
    assert f"RTP {rtp}" in r.stdout and "Par sheet RTP of Classic Blackjack: " in r.stdout
    assert any(line.startswith("Door openings: ") and "{" not in line for line in lines)
    r = subprocess.run(
        run + ["recall", "--journal", str(path), "--limit", "1"], capture_output=True, text=True, timeout=60
    )
    assert r.stdout.startswith("Round 2 station 1 classic")
    r = subprocess.run(run + ["events", "--journal", str(path)], capture_output=True, text=True, timeout=60)
    assert "bill_stacked" in r.stdout and "round_end" in r.stdout
    r = subprocess.run(
        run + ["meters", "--journal", str(tmp_path / "none.db")], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2 and "no journal" in r.stderr


def test_event_log_page_pages_through_events_with_time_and_detail(tmp_path):
    import time as _time

    from cabinet.core.events import DeviceCleared, DeviceFaulted, DoorChanged, KeyChanged
    from cabinet.core.maintenance import PAGE_LINES

    eng = _play_rounds(tmp_path / "j.db", 12)  # 25 events: power, bill, rounds
    eng.step(DoorChanged("main", True))
    eng.step(DoorChanged("main", False))
    eng.step(DeviceFaulted("bill", "bill_jam"))
    eng.step(DeviceCleared("bill"))
    eng.step(KeyChanged(True))
    for _ in range(2):
        eng.step(IntentReceived(1, "menu_down"))
    eng.step(IntentReceived(1, "menu_select"))  # Event log
    m = eng.snapshot.maintenance
    assert m.title == "Event log: all" and len(m.lines) == PAGE_LINES + 1
    when = _time.strftime("%m-%d %H:%M:%S", _time.localtime(1_800_000_000.0))
    # newest first, with time, where and the detail; page views are not listed
    assert m.lines[0] == f"{when} · maintenance enter · cabinet · attendant"
    assert m.lines[1] == f"{when} · fault cleared · cabinet · 300 Bill acceptor jam"
    assert m.lines[4] == f"{when} · door open · cabinet · main door"
    assert m.lines[5].startswith(f"{when} · round end · station 1 · ")
    assert "round 12, net " in m.lines[5]
    assert not any("maintenance page" in ln for ln in m.lines)
    total = 2 + 12 * 2 + 5  # power-up, bill, 12 rounds, doors, fault, menu
    assert m.lines[-1] == f"-- lines 1-{PAGE_LINES} of {total} (Down: more) --"
    for _ in range(5):  # stops at the last page
        eng.step(IntentReceived(1, "menu_down"))
    m = eng.snapshot.maintenance
    last_first = (total - 1) // PAGE_LINES * PAGE_LINES + 1
    assert m.lines[-1] == f"-- lines {last_first}-{total} of {total} (Up: back) --"
    assert m.lines[-2] == f"{when} · power up · cabinet"
    eng.step(IntentReceived(1, "menu_up"))
    assert eng.snapshot.maintenance.lines[-1].startswith(f"-- lines {last_first - PAGE_LINES}-{last_first - 1} of")

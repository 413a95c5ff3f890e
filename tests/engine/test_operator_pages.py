"""The operator menu: the Meters page with the actual and par sheet RTP,
the bill / voucher / handpay history, the Event log's filter, typed settings and the
audit export (menu item and ``cabinet meters --export``)."""

from __future__ import annotations

import csv
import random
import subprocess
import sys

from cabinet.core.events import (
    AuditExported,
    DoorChanged,
    IntentReceived,
    KeyChanged,
    NoteStacked,
    PowerUp,
    PrintFinished,
)
from cabinet.core.machine import new_state
from cabinet.core.maintenance import MAIN_ITEMS, SETTING_CHOICES
from cabinet.core.maintenance.meters_page import PAR_RTP_PERCENT
from cabinet.core.settings import GameSettings
from cabinet.shell.audit_export import usb_mounts
from cabinet.shell.engine import Engine
from cabinet.shell.host_view import BASE_PERCENT
from cabinet.shell.store import Store

from .helpers import Rig
from .menu_helpers import eng_send, rig_send, set_pin, type_pin, type_text

KEYS = [k for k, _ in MAIN_ITEMS]
ROWS = {k: i for i, (k, _, _) in enumerate(SETTING_CHOICES)}
WALL = 1_800_000_000.0


def _engine(path, settings=None, seed=5):
    store = Store(path)
    store.commit(set_pin(new_state(settings)), None, [], WALL)
    eng = Engine(store, rng=random.Random(seed), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    return eng


def _play(eng, rounds, station=1):
    for _ in range(rounds):
        eng.step(IntentReceived(station, "bet_up"))
        eng.step(IntentReceived(station, "deal"))
        while eng.cab.mode == "in_round":
            legal = eng.cab.legal_actions(station)
            eng.step(IntentReceived(station, "decline" if "decline" in legal else "stand"))


def _page(eng, key, technician=False):
    eng.step(KeyChanged(True))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index(key)))
    if technician:
        type_pin(eng_send(eng))
    assert eng.cab.s.maintenance.page == key
    return eng.snapshot.maintenance


def _all_lines(eng):
    """Every line of a paged page (Down through its pages)."""
    out = []
    for _ in range(20):
        lines = eng.snapshot.maintenance.lines
        out += [ln for ln in lines if not ln.startswith("-- lines")]
        if not lines[-1].startswith("-- lines") or "Up: back" in lines[-1]:
            break
        eng.step(IntentReceived(1, "menu_down"))
    return out


def test_the_par_rtp_is_the_par_sheets_and_matches_the_sas_base_percent():
    """The Meters page's theoretical RTP is the par sheet's (README "Return to
    player"), the same figure the SAS 0x1F base % rounds."""
    for variant, pct in PAR_RTP_PERCENT.items():
        assert f"{round(pct * 100):04d}" == BASE_PERCENT[variant]


def test_the_meters_page_shows_each_station_the_total_and_the_actual_rtp(tmp_path):
    """Every meter per station and in total, coin out / coin in since the last
    RAM clear and over the lifetime (kept through a RAM clear) beside the par sheet's,
    and games by outcome."""
    eng = _engine(tmp_path / "j.db", GameSettings(variant="classic-multi", stations=2))
    for st in (1, 2):
        eng.step(NoteStacked(st, 10_000, f"b{st}"))
    _play(eng, 6)
    m1 = eng.cab.s.stations[0].meters
    rtp = f"{100 * m1.coin_out_minor / m1.coin_in_minor:.2f} %"
    _page(eng, "meters")
    text = "\n".join(_all_lines(eng))
    assert f"Coin in ${m1.coin_in_minor / 100:,.2f} · Coin out ${m1.coin_out_minor / 100:,.2f} · RTP {rtp}" in text
    assert "Par sheet RTP of Classic BlackJack (multi-player table): 99.60 % (basic strategy)" in text
    assert f"Actual RTP since the last RAM clear: {rtp} · lifetime: {rtp}" in text
    assert "Total, every station" in text and "Bills in $200.00 (2) · $100.00x2" in text
    assert f"Games {m1.games_played}: won {m1.games_won}, lost {m1.games_lost}, pushed {m1.games_pushed}" in text
    before_in, before_out = m1.coin_in_minor, m1.coin_out_minor
    eng.step(IntentReceived(1, "menu_back"))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("ram_clear")))
    type_pin(eng_send(eng))
    eng.step(DoorChanged("logic", True))
    eng.step(IntentReceived(1, "menu_select"))
    eng.step(IntentReceived(1, "menu_select"))
    assert eng.cab.s.stations[0].meters.coin_in_minor == 0
    eng.step(DoorChanged("logic", False))
    eng.step(IntentReceived(1, "menu_back"))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("meters")))
    text = "\n".join(_all_lines(eng))
    life = f"{100 * before_out / before_in:.2f} %"
    assert f"Actual RTP since the last RAM clear: - · lifetime: {life}" in text
    assert f"RAM clears 1 · lifetime coin in ${before_in / 100:,.2f}" in text


def test_bill_voucher_and_handpay_history(tmp_path):
    """The last 35 bills by denomination; the last 35 vouchers with the
    validation number masked to its last 4 digits; the last 35 handpays with amount,
    kind, when and who reset them."""
    eng = _engine(tmp_path / "j.db", GameSettings(voucher_limit_minor=50_000))
    for i, amount in enumerate([500, 2_000, 500, 10_000, 500] * 8):  # 40 bills
        eng.step(NoteStacked(1, amount, f"b{i}"))
    eng.step(IntentReceived(1, "cash_out"))  # $1,220.00 > voucher limit: handpay
    hp = eng.cab.s.handpay
    assert hp is not None and hp.amount_minor == 8 * 13_500
    eng.step(KeyChanged(True))  # the attendant's key resets it
    eng.step(KeyChanged(False))
    eng.step(NoteStacked(1, 2_000, "v"))
    eng.step(IntentReceived(1, "cash_out"))
    vn = eng.cab.s.stations[0].printing.validation_number
    eng.step(PrintFinished(1, vn, "done"))

    _page(eng, "bills")
    bills = _all_lines(eng)
    # the 35 newest: the $20 cashed out as a voucher, then 34 of the 40 before it
    assert bills[0] == "Last 35 bills: $5.00 x20, $20.00 x8, $100.00 x7"
    assert len(bills) == 36 and "station 1  $20.00" in bills[1]
    eng.step(IntentReceived(1, "menu_back"))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("vouchers")))
    vouchers = eng.snapshot.maintenance.lines
    assert len(vouchers) == 2 and vn not in "".join(vouchers)
    assert f"****{vn[-4:]}  $20.00  issued" in vouchers[0]
    eng.step(IntentReceived(1, "menu_back"))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("handpays")))
    hps = eng.snapshot.maintenance.lines
    assert len(hps) == 1
    assert "station 1  $1,080.00  cancelled credits  reset " in hps[0]
    assert hps[0].endswith("by the attendant's key")


def test_the_event_log_filters_by_kind(tmp_path):
    """Select on the Event log steps its filter: all, doors, money, faults,
    menu, power; each shows only its kinds (menu: the pages opened too)."""
    eng = _engine(tmp_path / "j.db")
    eng.step(DoorChanged("main", True))
    eng.step(DoorChanged("main", False))
    eng.step(NoteStacked(1, 500, "b"))
    _page(eng, "events")
    seen = {}
    for _ in range(6):
        m = eng.snapshot.maintenance
        seen[m.title] = m.lines
        eng.step(IntentReceived(1, "menu_select"))
    assert list(seen) == [
        "Event log: all",
        "Event log: doors",
        "Event log: money",
        "Event log: faults",
        "Event log: menu",
        "Event log: power",
    ]
    assert [ln.split(" · ")[1] for ln in seen["Event log: doors"]] == ["door closed", "door open"]
    assert [ln.split(" · ")[1] for ln in seen["Event log: money"]] == ["bill stacked"]
    assert seen["Event log: faults"] == ["No events."]
    assert [ln.split(" · ")[1] for ln in seen["Event log: menu"]][:2] == ["maintenance page", "maintenance enter"]
    assert [ln.split(" · ")[1] for ln in seen["Event log: power"]] == ["power up"]
    assert eng.snapshot.maintenance.title == "Event log: all"


def test_settings_are_typed_with_real_ranges_and_names(tmp_path):
    """Amounts, lists and names are typed (digits and letters by touch or
    the panel's buttons); out of range is refused naming the range; the new settings
    (venue address, machine number, volume, attract sound) save and are logged."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    rig.press("menu_pick", value=KEYS.index("settings"))
    send = rig_send(rig)
    type_pin(send)
    rig.press("menu_pick", value=ROWS["voucher_expiry_days"])
    type_text(rig.cab, send, "5000")
    m = rig.cab.s.maintenance
    assert m.entry is not None and m.entry.message.startswith("Refused: Voucher expiry (days)")
    assert "1..3650" in m.entry.message
    type_text(rig.cab, send, "45")
    rig.press("menu_pick", value=ROWS["venue_address_1"])
    assert rig.cab.snapshot(1).maintenance.title == "Settings: Venue address 1"
    type_text(rig.cab, send, "12 HIGH ST")
    rig.press("menu_pick", value=ROWS["machine_number"])
    type_text(rig.cab, send, "A-17")
    rig.press("menu_pick", value=ROWS["volume_percent"])
    type_text(rig.cab, send, "40")
    rig.press("menu_pick", value=ROWS["attract_sound"])  # a stepped row: on -> off
    rig.press("menu_pick", value=ROWS["denominations_minor"])
    type_text(rig.cab, send, "5,10,20")
    # the panel's buttons alone: Up/Down to a digit, Select types it (a bet timer of 9 s)
    rig.press("menu_pick", value=ROWS["bet_timer_s"])
    for _ in range(9):
        rig.press("bet_down")  # Bet- goes down the list: "9"
    rig.press("deal")
    items = rig.cab.snapshot(1).maintenance.items
    for _ in range(items.index("Enter") - 9):
        rig.press("hit")
    rig.press("stand")
    items = rig.cab.snapshot(1).maintenance.items
    assert "Bet timer (s): 9 s" not in items and "Bet timer (s): 9" in items
    assert "Venue address 1: 12 HIGH ST" in items and "Bills accepted: $5, $10, $20" in items
    rig.press("menu_pick", value=len(SETTING_CHOICES))  # Save
    s = rig.cab.s.settings
    assert rig.cab.s.maintenance.confirm == "Saved"
    assert (
        s.voucher_expiry_days,
        s.venue_address_1,
        s.machine_number,
        s.volume_percent,
        s.attract_sound,
        s.denominations_minor,
        s.bet_timer_s,
    ) == (45, "12 HIGH ST", "A-17", 40, False, (500, 1_000, 2_000), 9)


def test_the_export_item_writes_the_audit_report_and_starts_a_new_period(tmp_path, monkeypatch):
    """Export (technician) writes the audit report (meters per station, bills
    by denomination, handpays, the period) where the shell puts it (a USB stick when one
    is mounted); the next report's "since last export" counts from there."""
    out = tmp_path / "usb"
    monkeypatch.setenv("CABINET_EXPORT_DIR", str(out))
    eng = _engine(tmp_path / "j.db")
    eng.step(NoteStacked(1, 2_000, "b1"))
    _play(eng, 3)
    _page(eng, "export", technician=True)
    eng.step(IntentReceived(1, "menu_select"))
    files = list(out.glob("audit-0001-*.csv"))
    assert len(files) == 1
    assert f"Written to {files[0]}" in eng.snapshot.maintenance.lines
    rows = list(csv.reader(files[0].open()))
    assert rows[0] == ["section", "station", "name", "value", "since_last_export"]
    by = {(r[0], r[1], r[2]): r[3:] for r in rows[1:]}
    coin_in = eng.cab.s.stations[0].meters.coin_in_minor
    assert by[("meters", "1", "coin_in_minor")] == [str(coin_in), str(coin_in)]
    assert by[("bills", "1", "2000")] == ["1", "1"]
    assert by[("report", "", "period_start")] == ["first export", ""]
    kinds = [e["kind"] for e in eng.store.all_events()]
    assert "audit_export" in kinds and "audit_exported" in kinds
    assert eng.cab.s.operator.exported_wall_s == WALL
    eng.step(KeyChanged(False))
    eng.step(NoteStacked(1, 500, "b2"))
    from cabinet.core.maintenance.export import audit_rows

    rows2 = {(r[0], r[1], r[2]): list(r[3:]) for r in audit_rows(eng.cab.s, eng.store)[1:]}
    assert rows2[("meters", "1", "bills_in_minor")] == ["2500", "500"]
    assert rows2[("report", "", "period_start")][0] == "2027-01-15T08:00:00Z"


def test_an_export_that_cannot_be_written_says_why(tmp_path, monkeypatch):
    """A USB stick pulled out (the folder cannot be written): the page says
    Failed and why, the journal says so, and the period is not restarted."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("CABINET_EXPORT_DIR", str(blocker / "sub"))
    eng = _engine(tmp_path / "j.db")
    _page(eng, "export", technician=True)
    eng.step(IntentReceived(1, "menu_select"))
    assert any(ln.startswith("Failed: ") for ln in eng.snapshot.maintenance.lines)
    assert eng.cab.s.operator.exported_wall_s == 0.0
    ev = [e for e in eng.store.all_events() if e["kind"] == "audit_exported"]
    assert ev and ev[0]["data"]["error"]


def test_an_audit_exported_event_outside_the_menu_changes_no_page():
    """The shell's answer after the key went off is journaled only."""
    rig = Rig()
    eff = rig.cab.handle(AuditExported("/media/usb/a.csv", "", WALL))
    assert rig.cab.s.maintenance is None and rig.cab.s.operator.exported_wall_s == WALL
    assert any(getattr(e, "kind", "") == "audit_exported" for e in eff)


def test_usb_sticks_are_found_in_proc_mounts():
    """The export goes to a mounted USB stick (vfat/exfat... under /media,
    /run/media or /mnt), not to the root file system or a tmpfs."""
    mounts = (
        "/dev/mmcblk0p2 / ext4 rw 0 0\n"
        "tmpfs /run tmpfs rw 0 0\n"
        "/dev/sda1 /media/cabinet/AUDIT\\040STICK vfat rw 0 0\n"
        "/dev/sdb1 /mnt/usb exfat rw 0 0\n"
    )
    assert [str(p) for p in usb_mounts(mounts)] == ["/media/cabinet/AUDIT STICK", "/mnt/usb"]


def test_cabinet_meters_export_writes_the_same_report(tmp_path):
    """``cabinet meters --export FILE.csv`` reads the journal (read-only) and
    writes the audit report."""
    path = tmp_path / "j.db"
    eng = _engine(path)
    eng.step(NoteStacked(1, 5_000, "b1"))
    eng.store.close()
    out = tmp_path / "report.csv"
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(path), "--export", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "audit report written to" in r.stdout
    rows = {(x[0], x[1], x[2]): x[3:] for x in csv.reader(out.open())}
    assert rows[("meters", "1", "bills_in_minor")][0] == "5000"
    assert rows[("bills", "1", "5000")][0] == "1"


def test_cabinet_meters_export_into_a_missing_folder_is_refused_and_makes_none(tmp_path):
    """``cabinet meters --export`` into a folder that does not exist: one line, exit 2,
    and no folder made (a typo in the path must not leave folders behind)."""
    path = tmp_path / "j.db"
    _engine(path).store.close()
    out = tmp_path / "absent" / "deeper" / "report.csv"
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(path), "--export", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip() == (f"{out}: cannot write the report (folder {out.parent} does not exist)"), r.stderr
    assert not (tmp_path / "absent").exists()


def test_recall_is_drawn_from_a_table_view_and_steps_through_the_rounds(tmp_path):
    """The Game recall page carries the selected round as the table looked
    (the dealer's and the station's cards, stakes, outcomes and returns, credits before
    and after, the decisions in order); Down steps to an older round, Up to a newer."""
    eng = _engine(tmp_path / "j.db", GameSettings(recall_depth=20))
    eng.step(NoteStacked(1, 10_000, "b"))
    _play(eng, 12)
    view = _page(eng, "recall")
    entries = eng.store.recall(0, 20)
    assert len(entries) == 12 and view.recall is not None
    r = view.recall
    assert (r.index, r.count, r.round_id) == (1, 12, entries[0].round_id)
    assert r.dealer.cards == entries[0].result["dealer"]["cards"]
    hand = entries[0].result["spots"][0]["hands"][0]
    assert r.table.spots[0].hands[0].cards == hand["cards"]
    assert r.table.spots[0].hands[0].returned_minor == hand["returned"]
    assert (r.credits_before_minor, r.credits_after_minor) == (
        entries[0].credits_before_minor,
        entries[0].credits_after_minor,
    )
    assert r.steps == entries[0].steps and r.table.credits_minor == r.credits_after_minor
    for _ in range(3):
        eng.step(IntentReceived(1, "menu_down"))
    r = eng.snapshot.maintenance.recall
    assert (r.index, r.round_id) == (4, entries[3].round_id)
    assert r.credits_after_minor == entries[3].credits_after_minor
    eng.step(IntentReceived(1, "menu_up"))
    assert eng.snapshot.maintenance.recall.index == 3
    eng.step(IntentReceived(1, "menu_back"))
    assert eng.snapshot.maintenance.recall is None


def test_the_sound_settings_are_in_the_snapshot():
    """Volume and attract sound go to the UI with every snapshot."""
    rig = Rig(GameSettings(volume_percent=35, attract_sound=False))
    snap = rig.cab.snapshot(1)
    assert (snap.volume_percent, snap.attract_sound) == (35, False)


def test_cabinet_meters_export_names_the_program_like_the_menus_export(tmp_path):
    """``cabinet meters --export`` wrote the report's
    ``program`` row empty while the menu's Export names the program
    ("blackjack-cabinet 0.1.0"): the same report must identify the same program."""
    from cabinet.shell.program_check import current
    from cabinet.tools.audit_cli import export

    path = tmp_path / "j.db"
    eng = _engine(path)
    eng.store.close()
    out = tmp_path / "report.csv"
    assert export(path, out) == 0
    rows = {(x[0], x[1], x[2]): x[3:] for x in csv.reader(out.open())}
    want = current().program_id
    assert want.startswith("blackjack-cabinet")
    assert rows[("report", "", "program")][0] == want


def test_the_decision_timer_row_says_it_is_unused_at_one_station():
    """RULES.md "Decision": a single-seat table has no decision timer; the Settings
    row says so while the game has one station, and not with two."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    rig.press("menu_pick", value=KEYS.index("settings"))
    type_pin(rig_send(rig))
    items = rig.cab.snapshot(1).maintenance.items
    assert "Decision timer (s): 30 s (default), unused: one station" in items
    rig.press("menu_pick", value=ROWS["stations"])  # a stepped row: 1 -> 2
    items = rig.cab.snapshot(1).maintenance.items
    assert "Stations: 2" in items and "Decision timer (s): 30 s (default)" in items

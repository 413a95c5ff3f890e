"""The operator menu: the two access levels, the technician PIN (salted
scrypt hash, lockout that survives a restart, forced change of the factory PIN),
and every entry, exit, page and act in the event log with its level."""

from __future__ import annotations

import random

import msgspec
import pytest

from cabinet.core.effects import ExportAudit, Journal
from cabinet.core.events import DoorChanged, IntentReceived, KeyChanged, NoteStacked, PowerUp, Tick
from cabinet.core.machine import new_state
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.maintenance.pin import DEFAULT_PIN, hash_pin, lockout_s
from cabinet.protocol.ipc import ACTIONS, decode
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store

from .helpers import Rig
from .menu_helpers import TEST_PIN, eng_send, rig_send, set_pin, type_pin

KEYS = [k for k, _ in MAIN_ITEMS]
TECHNICIAN = ("settings", "pin_change", "export", "ram_clear")
WALL = 1_800_000_000.0


def _journal(effects, kind=None):
    return [e for e in effects if isinstance(e, Journal) and (kind is None or e.kind == kind)]


def _open(rig, page):
    rig.press("menu_pick", value=KEYS.index(page))


def test_the_key_alone_is_the_attendant_and_every_technician_item_asks_for_the_pin():
    """The key opens the menu at the attendant level; meters, recall, the
    event log and the histories open at once; Settings, Change PIN, Export and RAM
    clear open the PIN entry instead and stay closed until the PIN is typed."""
    rig = Rig()
    set_pin(rig.cab.s)
    eff = rig.cab.handle(KeyChanged(True))
    assert Journal("maintenance_enter", 0, 0, {"level": "attendant"}) in eff
    for page in ("meters", "recall", "events", "bills", "vouchers", "handpays", "faults"):
        _open(rig, page)
        assert rig.cab.s.maintenance.page == page
        assert Journal("maintenance_page", 0, 0, {"page": page, "level": "attendant"}) in rig.effects
        rig.press("menu_back")
    for page in TECHNICIAN:
        _open(rig, page)
        m = rig.cab.s.maintenance
        assert m.page == "main" and m.entry is not None and m.entry.kind == "pin", page
        assert rig.cab.snapshot(1).maintenance.title == "Technician PIN"
        rig.press("menu_back")  # cancelled: still the attendant
        assert rig.cab.s.maintenance.entry is None
        assert rig.cab.s.maintenance.selected == KEYS.index(page)
    _open(rig, "settings")
    type_pin(rig_send(rig))
    assert rig.cab.s.maintenance.page == "settings"
    assert rig.cab.s.maintenance.level == "technician"
    assert Journal("pin_accepted", 0, 0, {"default": False, "level": "technician"}) in rig.effects or any(
        e.kind == "pin_accepted" for e in _journal(rig.effects)
    )
    assert rig.cab.snapshot(1).maintenance.level == "technician"
    eff = rig.cab.handle(KeyChanged(False))  # the key off ends the level
    assert Journal("maintenance_exit", 0, 0, {"level": "technician"}) in eff
    rig.cab.handle(KeyChanged(True))
    assert rig.cab.s.maintenance.level == "attendant"


def test_no_ipc_message_enters_the_menu_without_the_key():
    """Every intent the UI may send (menu moves, touches of any row, panel
    buttons) with the key off leaves the menu shut and the settings as they were."""
    rig = Rig()
    set_pin(rig.cab.s)
    settings = rig.cab.s.settings
    for action in sorted(ACTIONS):
        for value in (None, 0, 1, 5, 11, 12):
            rig.press(action, value=value)
            assert rig.cab.s.maintenance is None, (action, value)
            assert rig.cab.mode != "maintenance"
    type_pin(rig_send(rig))
    assert rig.cab.s.maintenance is None and rig.cab.s.settings == settings
    assert not any(e.kind.startswith(("maintenance", "pin")) for e in _journal(rig.effects))
    # as the UI socket delivers them: decoded IPC lines, then the engine's intent
    for n in range(13):
        msg = decode(b'{"type":"intent","station":1,"action":"menu_pick","value":%d}' % n)
        eff = rig.cab.handle(IntentReceived(msg.station, msg.action, msg.value))
        assert rig.cab.s.maintenance is None
        assert not _journal(eff)


def test_no_path_lets_the_attendant_change_a_setting_move_money_or_clear_ram():
    """4,000 random menu intents at the attendant level (touches of every row,
    every panel button, doors opening and closing; the PIN is never typed right):
    no setting changes, no credit or meter moves, no RAM clear, no export."""
    rig = Rig()
    set_pin(rig.cab.s, "97531864")  # 8 digits: a random walk never types it
    rig.note(5_000)
    before = msgspec.to_builtins(rig.cab.s.stations)
    settings = rig.cab.s.settings
    rig.cab.handle(KeyChanged(True))
    rnd = random.Random(15)
    actions = [
        "menu_up",
        "menu_down",
        "menu_select",
        "menu_back",
        "menu_pick",
        "deal",
        "hit",
        "stand",
        "bet_up",
        "bet_down",
        "cash_out",
        "double",
        "split",
    ]
    seen = []
    for i in range(4_000):
        if i % 97 == 0:
            rig.cab.handle(DoorChanged(rnd.choice(["main", "logic", "cashbox"]), rnd.random() < 0.5))
        if i % 211 == 0:
            rig.advance(400_000)  # lockouts run out now and then
        action = rnd.choice(actions)
        eff = rig.press(action, value=rnd.randrange(0, 40) if action == "menu_pick" else None)
        seen += [e.kind for e in _journal(eff)]
        assert not any(isinstance(e, ExportAudit) for e in eff)
        m = rig.cab.s.maintenance
        assert m is not None and m.level == "attendant"
        assert m.page not in TECHNICIAN, m.page
    assert rig.cab.s.settings == settings
    assert msgspec.to_builtins(rig.cab.s.stations) == before
    assert not {"settings_changed", "ram_clear", "audit_export", "pin_changed"} & set(seen)
    assert "pin_wrong" in seen and "pin_lockout" in seen  # the walk did try PINs


def test_a_wrong_pin_is_counted_logged_and_locks_out_for_longer_each_time():
    """Each wrong PIN is journaled with its count; the third in a row locks
    PIN entry (60 s, then 120 s...), the right PIN too is refused meanwhile; the
    lockout runs on the shell's clock ticks; a right PIN resets the count."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    _open(rig, "settings")
    send = rig_send(rig)
    for n in (1, 2):
        type_pin(send, "1111")
        assert _journal(rig.effects, "pin_wrong")[0].data == {"failures": n, "level": "attendant"}
        assert f"Wrong PIN ({n} of 3)" in rig.cab.snapshot(1).maintenance.lines
    type_pin(send, "1111")
    assert _journal(rig.effects, "pin_lockout")[0].data == {"seconds": 60, "lockouts": 1, "level": "attendant"}
    type_pin(send, TEST_PIN)  # the right PIN, but locked
    assert rig.cab.s.maintenance.level == "attendant" and rig.cab.s.maintenance.page == "main"
    assert "PIN entry locked: 60 s left" in rig.cab.snapshot(1).maintenance.lines
    rig.advance(59_000)
    type_pin(send, TEST_PIN)
    assert rig.cab.s.maintenance.level == "attendant"
    assert "PIN entry locked: 1 s left" in rig.cab.snapshot(1).maintenance.lines
    rig.advance(1_000)
    for _ in range(3):
        type_pin(send, "1111")
    assert _journal(rig.effects, "pin_lockout")[0].data["seconds"] == 120 == lockout_s(2)
    rig.advance(120_000)
    type_pin(send, TEST_PIN)
    assert rig.cab.s.maintenance.level == "technician"
    p = rig.cab.s.operator.pin
    assert (p.failures, p.lockouts, p.lock_left_ms) == (0, 0, 0)
    assert lockout_s(10) == 3_600  # it grows to an hour, no further


def test_the_pin_lockout_holds_across_an_engine_restart(tmp_path):
    """Three wrong PINs, then the engine restarts: PIN entry is still locked
    (journaled), and the time the engine was down does not count."""
    now = {"ms": 0}
    path = tmp_path / "j.db"
    store = Store(path)
    store.commit(set_pin(new_state()), None, [], WALL)
    eng = Engine(store, rng=random.Random(1), clock_ms=lambda: now["ms"], wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    eng.step(KeyChanged(True))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("settings")))
    for _ in range(3):
        type_pin(eng_send(eng), "9999")
    eng.step(Tick(20_000, WALL + 20))
    assert eng.cab.s.operator.pin.lock_left_ms == 40_000
    eng.store.close()

    eng2 = Engine(Store(path), rng=random.Random(2), clock_ms=lambda: 0, wall_s=lambda: WALL + 999)
    eng2.step(PowerUp(5, WALL + 999))  # a new monotonic clock
    assert eng2.cab.s.operator.pin.lock_left_ms == 40_000
    eng2.step(KeyChanged(False))
    eng2.step(KeyChanged(True))
    eng2.step(IntentReceived(1, "menu_pick", KEYS.index("settings")))
    type_pin(eng_send(eng2), TEST_PIN)
    assert eng2.cab.s.maintenance.level == "attendant"
    assert "PIN entry locked: 40 s left" in eng2.snapshot.maintenance.lines
    eng2.step(Tick(40_005, WALL + 1039))
    type_pin(eng_send(eng2), TEST_PIN)
    assert eng2.cab.s.maintenance.level == "technician"
    assert eng2.cab.s.maintenance.page == "settings"


def test_the_factory_pin_must_be_changed_at_first_use_and_only_its_hash_is_kept(tmp_path):
    """On a new cabinet the factory PIN 0000 opens only the New PIN entry; the
    new PIN is typed twice (a mismatch starts again; 0000 or one digit repeated is
    refused); then the level is the technician's. Only a salted scrypt hash is kept:
    the digits are in neither the journal, its events nor a snapshot."""
    path = tmp_path / "j.db"
    store = Store(path)
    store.commit(new_state(), None, [], WALL)
    eng = Engine(store, rng=random.Random(3), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng.step(PowerUp(0, WALL))
    send = eng_send(eng)
    eng.step(KeyChanged(True))
    eng.step(IntentReceived(1, "menu_pick", KEYS.index("export")))
    type_pin(send, DEFAULT_PIN)
    m = eng.cab.s.maintenance
    assert m.entry.kind == "pin_new" and m.level == "attendant"
    assert "Default PIN: choose a new PIN (4-8 digits)" in eng.snapshot.maintenance.lines
    type_pin(send, "5555")
    assert "Refused: choose a PIN that is not all one digit" in eng.snapshot.maintenance.lines
    type_pin(send, "735019")
    assert eng.cab.s.maintenance.entry.kind == "pin_confirm"
    type_pin(send, "735018")  # differs: choose again
    assert eng.cab.s.maintenance.entry.kind == "pin_new"
    type_pin(send, "735019")
    snaps = [msgspec.json.encode(eng.snapshot)]
    eng.step(IntentReceived(1, "menu_pick", 3))  # typing the confirmation...
    snaps.append(msgspec.json.encode(eng.snapshot))
    assert "\u25cf" in eng.snapshot.maintenance.lines[1]  # shown as dots
    eng.step(IntentReceived(1, "menu_pick", 10))  # Delete (the "3")
    type_pin(send, "735019")
    assert eng.cab.s.maintenance.level == "technician"
    assert eng.cab.s.maintenance.page == "export"
    p = eng.cab.s.operator.pin
    assert p.hash_hex == hash_pin("735019", bytes.fromhex(p.salt_hex)) and len(p.salt_hex) == 32
    kinds = [e["kind"] for e in eng.store.all_events()]
    assert kinds.count("pin_changed") == 1 and "pin_accepted" in kinds
    eng.store.close()
    raw = path.read_bytes() + b"".join(snaps)
    for wal in tmp_path.glob("j.db*"):
        raw += wal.read_bytes()
    assert b"735019" not in raw and b"735018" not in raw
    eng2 = Engine(Store(path), rng=random.Random(4), clock_ms=lambda: 0, wall_s=lambda: WALL)
    eng2.step(PowerUp(0, WALL))
    eng2.step(KeyChanged(True))
    eng2.step(IntentReceived(1, "menu_pick", KEYS.index("settings")))
    type_pin(eng_send(eng2), DEFAULT_PIN)  # the factory PIN no longer works
    assert eng2.cab.s.maintenance.level == "attendant"
    type_pin(eng_send(eng2), "735019")
    assert eng2.cab.s.maintenance.page == "settings"


def test_a_technician_changes_the_pin_from_the_menu():
    """Change PIN (technician) asks the new PIN twice; the old one stops working."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    send = rig_send(rig)
    _open(rig, "pin_change")
    type_pin(send)
    assert rig.cab.s.maintenance.page == "pin_change"
    rig.press("menu_select")
    type_pin(send, "80808081")
    type_pin(send, "80808081")
    assert rig.cab.s.maintenance.page == "pin_change"
    assert "PIN changed" in rig.cab.snapshot(1).maintenance.lines
    assert _journal(rig.effects, "pin_changed")[0].data == {"level": "technician", "was_default": False}
    rig.cab.handle(KeyChanged(False))
    rig.cab.handle(KeyChanged(True))
    _open(rig, "settings")
    type_pin(send, TEST_PIN)
    assert rig.cab.s.maintenance.level == "attendant"
    type_pin(send, "80808081")
    assert rig.cab.s.maintenance.level == "technician"


@pytest.mark.parametrize(
    "page", ["meters", "recall", "events", "bills", "vouchers", "handpays", "faults", "host", "diagnostics"]
)
def test_every_page_opened_is_journaled_with_its_level(page):
    """Every page opened is in the event log with the level at the time."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.note(1_000)
    rig.cab.handle(KeyChanged(True))
    _open(rig, page)
    assert Journal("maintenance_page", 0, 0, {"page": page, "level": "attendant"}) in rig.effects
    rig.press("menu_pick", value=0) if page != "diagnostics" else None
    rig.cab.handle(KeyChanged(False))
    rig.cab.handle(KeyChanged(True))
    _open(rig, "settings")
    type_pin(rig_send(rig))
    rig.press("menu_back")
    _open(rig, page)
    assert Journal("maintenance_page", 0, 0, {"page": page, "level": "technician"}) in rig.effects


def test_a_money_rule_changes_only_with_no_credits_and_a_save_is_logged_with_its_level():
    """A change of the money rules (here the credit limit) is refused while a
    station holds credits, and journaled as refused; a table limit may change; both
    with the level."""
    from cabinet.core.maintenance import SETTING_CHOICES

    from .menu_helpers import type_text

    rows = {k: i for i, (k, _, _) in enumerate(SETTING_CHOICES)}
    rig = Rig()
    set_pin(rig.cab.s)
    rig.note(2_000)
    rig.cab.handle(KeyChanged(True))
    _open(rig, "settings")
    type_pin(rig_send(rig))
    rig.press("menu_pick", value=rows["credit_limit_minor"])
    type_text(rig.cab, rig_send(rig), "5000")
    eff = rig.press("menu_pick", value=len(SETTING_CHOICES))  # Save
    assert rig.cab.s.settings.credit_limit_minor == 300_000
    assert (
        rig.cab.s.maintenance.confirm
        == "Refused: Credit limit: a money rule, changed only with no credits on the cabinet"
    )
    assert _journal(eff, "settings_refused")[0].data["level"] == "technician"
    rig.press("menu_pick", value=len(SETTING_CHOICES) + 1)  # Discard
    rig.press("menu_pick", value=rows["min_bet_minor"])
    type_text(rig.cab, rig_send(rig), "2.50")
    rig.press("menu_pick", value=len(SETTING_CHOICES))  # validated at Save
    assert rig.cab.s.maintenance.confirm == "Refused: Minimum bet: must be a multiple of the bet step $1.00"
    # the menu's words, not the fields' names and cents
    rig.press("menu_pick", value=rows["min_bet_minor"])
    type_text(rig.cab, rig_send(rig), "600")
    rig.press("menu_pick", value=len(SETTING_CHOICES))
    assert rig.cab.s.maintenance.confirm == "Refused: Minimum bet: $600.00 is above the maximum bet $100.00"
    rig.press("menu_pick", value=rows["min_bet_minor"])
    type_text(rig.cab, rig_send(rig), "3")
    eff = rig.press("menu_pick", value=len(SETTING_CHOICES))
    assert rig.cab.rules.min_bet_minor == 300 and rig.cab.s.maintenance.confirm == "Saved"
    changed = _journal(eff, "settings_changed")[0].data
    assert changed["old"]["min_bet_minor"] is None and changed["new"]["min_bet_minor"] == 300
    assert changed["level"] == "technician"


def test_ram_clear_keeps_the_pin_and_a_ram_clear_needs_the_door_too():
    """The RAM clear keeps the PIN (no factory PIN after a clear), and even at
    the technician level it waits for the main or logic door."""
    rig = Rig()
    set_pin(rig.cab.s)
    pin = msgspec.to_builtins(rig.cab.s.operator.pin)
    rig.cab.handle(KeyChanged(True))
    _open(rig, "ram_clear")
    type_pin(rig_send(rig))
    rig.press("menu_select")
    assert rig.cab.s.maintenance.confirm == "Refused: open the main or logic door first"
    rig.cab.handle(DoorChanged("logic", True))
    rig.press("menu_select")
    rig.press("menu_select")
    assert rig.cab.s.needs_config and msgspec.to_builtins(rig.cab.s.operator.pin) == pin
    assert rig.cab.s.operator.ram_clears == 1
    rig.cab.handle(NoteStacked(1, 500, "x"))  # notes are refused in the menu anyway


def test_the_pin_page_does_not_keep_saying_locked_once_the_lockout_is_over():
    """The PIN entry opened during a lockout froze
    "PIN entry locked: 28 s left" as its message; the live count-down hid it while the
    lockout ran, and once it was over the frozen line came back and stayed, so the
    technician waited for a lockout that had ended. Once it is over the page says so."""
    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    _open(rig, "settings")
    send = rig_send(rig)
    for _ in range(3):
        type_pin(send, "1111")
    rig.press("menu_back")  # leave the entry, come back locked
    rig.advance(2_000)
    _open(rig, "settings")
    assert "PIN entry locked: 58 s left" in rig.cab.snapshot(1).maintenance.lines
    rig.advance(58_000)
    lines = rig.cab.snapshot(1).maintenance.lines
    assert not any("locked" in ln for ln in lines), lines
    assert "The lockout is over: type the PIN" in lines
    type_pin(send, TEST_PIN)
    assert rig.cab.s.maintenance.level == "technician"

"""What a player expects: the player's own History panel, session
reminders and the Service call, at the player's own station only."""

from __future__ import annotations

import random

from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.settings import GameSettings
from cabinet.protocol.ipc import ACTIONS
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store


def _engine(path, stations=1):
    store = Store(path)
    eng = Engine(store, rng=random.Random(4), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    if stations > 1:
        eng.cab = Cabinet(new_state(GameSettings(variant="classic-multi", stations=stations)), rng=random.Random(4))
    eng.step(PowerUp(0, 1_800_000_000.0))
    return eng


def _play(eng, station, n):
    eng.step(NoteStacked(station, 10_000, f"t{station}"))
    eng.step(IntentReceived(station, "bet_up"))
    for _ in range(n):
        eng.step(IntentReceived(station, "deal"))
        while eng.cab.mode == "in_round":
            legal = eng.cab.legal_actions(station)
            eng.step(IntentReceived(station, "decline" if "decline" in legal else "stand"))


def test_history_touch_opens_the_last_ten_rounds_of_this_station(tmp_path):
    """ "the last 10 rounds of this station on a touch": the engine answers the
    "history" intent in that station's view only, newest first, with cards, stakes,
    result and net; "history_close" closes it."""
    assert {"history", "history_close"} <= ACTIONS
    eng = _engine(tmp_path / "j.db")
    _play(eng, 1, 12)
    assert eng.snapshot.stations[0].history is None
    eng.step(IntentReceived(1, "history"))
    rows = eng.snapshot.stations[0].history
    assert rows is not None and len(rows) == 10
    assert [r.round_id for r in rows] == list(range(12, 2, -1))
    kept = eng.store.recall(1, 10)
    for r, e in zip(rows, kept, strict=True):
        assert r.net_minor == e.returned_minor - e.wagered_minor
        assert r.wagered_minor == e.wagered_minor and r.returned_minor == e.returned_minor
        assert r.dealer == e.result["dealer"]["cards"]
        assert [c for h in r.hands for c in h.cards] == [
            c for sp in e.result["spots"] for h in sp["hands"] for c in h["cards"]
        ]
        assert sum(h.stake_minor for h in r.hands) == 100
        assert r.hands[0].outcome in ("win", "lose", "push", "bust", "blackjack")
    assert rows[0].when.count(":") == 1  # "HH:MM" of the round
    eng.step(IntentReceived(1, "history_close"))
    assert eng.snapshot.stations[0].history is None


def test_history_is_only_the_own_stations(tmp_path):
    """One station's history never shows on another station's view."""
    eng = _engine(tmp_path / "j.db", stations=2)
    eng.step(NoteStacked(1, 10_000, "a"))
    eng.step(NoteStacked(2, 10_000, "b"))
    eng.step(IntentReceived(1, "bet_up"))
    eng.step(IntentReceived(2, "bet_up"))
    eng.step(IntentReceived(2, "bet_up"))
    for i in range(2):
        if i:
            eng.step(IntentReceived(1, "rebet"))
            eng.step(IntentReceived(2, "rebet"))
        eng.step(IntentReceived(1, "deal"))
        eng.step(IntentReceived(2, "deal"))
        while eng.cab.mode == "in_round":
            n = eng.cab.round.prompt.seat
            legal = eng.cab.legal_actions(n)
            eng.step(IntentReceived(n, "decline" if "decline" in legal else "stand"))
    eng.step(IntentReceived(2, "history"))
    one, two = eng.snapshot.stations
    assert one.history is None
    assert two.history is not None and len(two.history) == 2
    assert all(sum(h.stake_minor for h in r.hands) == 200 for r in two.history)


def test_history_opens_during_a_round_and_changes_no_money(tmp_path):
    """The panel is a look, not a move: no credits, no lamps, play goes on."""
    eng = _engine(tmp_path / "j.db")
    _play(eng, 1, 1)
    eng.step(IntentReceived(1, "deal"))
    before = eng.cab.s.stations[0].credits_minor
    eng.step(IntentReceived(1, "history"))
    st = eng.snapshot.stations[0]
    assert st.history is not None and len(st.history) == 1
    assert eng.cab.s.stations[0].credits_minor == before
    assert eng.snapshot.mode in ("in_round", "betting")


# -- session reminders ("reality check") ------------------------------------------------


def _rig(minutes: int):
    from tests.engine.helpers import Rig

    return Rig(GameSettings(reality_check_min=minutes))


def _play_one(rig, station=1):
    rig.press("deal", station)
    while rig.cab.mode == "in_round":
        legal = rig.cab.legal_actions(station)
        rig.press("decline" if "decline" in legal else "stand", station)


def test_reality_check_is_a_typed_setting_off_by_default():
    """Session reminders "as a setting": minutes, 0 = off (the default), a
    typed row of the Settings page, range 0..240."""
    from cabinet.core.errors import ConfigError
    from cabinet.core.settings import MENU_ENTRY

    assert GameSettings().reality_check_min == 0
    assert MENU_ENTRY["reality_check_min"] == "number"
    import msgspec
    import pytest

    with pytest.raises((msgspec.ValidationError, ConfigError)):
        msgspec.convert({"reality_check_min": 241}, GameSettings)
    with pytest.raises((msgspec.ValidationError, ConfigError)):
        msgspec.convert({"reality_check_min": -1}, GameSettings)


def test_reality_check_every_n_minutes_of_the_session_with_its_net():
    """Elapsed session time and the session's net every N minutes, from the
    first credit in, dismissed by touch ("reminder_ok"); the next one N minutes later."""
    assert "reminder_ok" in ACTIONS
    rig = _rig(30)
    rig.advance(5 * 60_000)  # before any credit: no session
    rig.note(10_000)  # the session starts here
    rig.press("bet_up")
    _play_one(rig)
    net = rig.credits() - 10_000
    rig.advance(29 * 60_000)
    assert rig.cab.snapshot(1).stations[0].reminder is None
    rig.advance(60_000)
    rc = rig.cab.snapshot(1).stations[0].reminder
    assert rc is not None and (rc.elapsed_min, rc.net_minor) == (30, net)
    assert rig.cab.legal_actions(1)  # play does not stop
    rig.press("reminder_ok")
    assert rig.cab.snapshot(1).stations[0].reminder is None
    rig.advance(29 * 60_000)
    assert rig.cab.snapshot(1).stations[0].reminder is None
    rig.advance(60_000)
    rc = rig.cab.snapshot(1).stations[0].reminder
    assert rc is not None and rc.elapsed_min == 60


def test_reality_check_off_and_the_session_ends_at_cash_out_to_zero():
    """0 = no reminder ever; a cash-out to zero ends the session: the next
    credit in starts a new one (its clock from zero)."""
    off = _rig(0)
    off.note(10_000)
    off.advance(300 * 60_000)
    assert off.cab.snapshot(1).stations[0].reminder is None
    rig = _rig(10)
    rig.note(2_000)
    rig.advance(8 * 60_000)
    rig.press("cash_out")
    rig.advance(60_000)
    rig.note(500)  # a new session, 9 minutes in
    rig.advance(9 * 60_000)
    assert rig.cab.snapshot(1).stations[0].reminder is None
    rig.advance(60_000)
    rc = rig.cab.snapshot(1).stations[0].reminder
    assert rc is not None and (rc.elapsed_min, rc.net_minor) == (10, 0)


def test_reality_check_is_per_station():
    """Each station's own session, shown on its own view only."""
    from tests.engine.helpers import Rig

    rig = Rig(GameSettings(variant="classic-multi", stations=2, reality_check_min=15))
    rig.note(5_000, station=1)
    rig.advance(10 * 60_000)
    rig.note(5_000, station=2)
    rig.advance(5 * 60_000)
    one, two = rig.cab.snapshot(1).stations
    assert one.reminder is not None and one.reminder.elapsed_min == 15
    assert two.reminder is None
    rig.press("reminder_ok", station=2)  # not its reminder: changes nothing
    assert rig.cab.snapshot(1).stations[0].reminder is not None


def test_reality_check_is_typed_in_the_settings_page():
    """The operator types the minutes on the Settings page (a typed row, like
    the volume); out of range is refused naming the range; saved and in force."""
    from cabinet.core.events import KeyChanged
    from cabinet.core.maintenance import MAIN_ITEMS, SETTING_CHOICES
    from tests.engine.helpers import Rig
    from tests.engine.menu_helpers import rig_send, set_pin, type_pin, type_text

    rig = Rig()
    set_pin(rig.cab.s)
    rig.cab.handle(KeyChanged(True))
    rig.press("menu_pick", value=[k for k, _ in MAIN_ITEMS].index("settings"))
    send = rig_send(rig)
    type_pin(send)
    row = [k for k, _, _ in SETTING_CHOICES].index("reality_check_min")
    rig.press("menu_pick", value=row)
    assert rig.cab.snapshot(1).maintenance.title == "Settings: Reality check (min, 0 off)"
    type_text(rig.cab, send, "300")
    m = rig.cab.s.maintenance
    assert m.entry is not None and "0..240" in m.entry.message
    type_text(rig.cab, send, "45")
    rig.press("menu_pick", value=len(SETTING_CHOICES))  # Save
    assert rig.cab.s.maintenance.confirm == "Saved"
    assert rig.cab.s.settings.reality_check_min == 45


# -- the Service button -------------------------------------------------------------------


def _effects_of(rig, kind):
    from cabinet.core.effects import Journal

    return [e for e in rig.effects if isinstance(e, Journal) and e.kind == kind]


def _tower(rig):
    from cabinet.core.effects import SetTowerLight

    lights = [e.state for e in rig.effects if isinstance(e, SetTowerLight)]
    return lights[-1] if lights else None


def test_service_calls_the_attendant_without_stopping_play():
    """A Service touch lights the tower's service (amber) lamp, queues SAS
    0x71 "change lamp on" for the host, is journaled, and play goes on."""
    from drivers.sas.exception_codes import EXCEPTION_CODES

    assert "service" in ACTIONS
    assert (EXCEPTION_CODES["change_lamp_on"], EXCEPTION_CODES["change_lamp_off"]) == (0x71, 0x72)
    from tests.engine.helpers import LinkedRig as Rig

    rig = Rig()
    rig.note(10_000)
    rig.press("bet_up")
    before = rig.cab.legal_actions(1)
    rig.press("service")
    assert _tower(rig) == "service"
    assert len(_effects_of(rig, "service_called")) == 1
    assert rig.cab.s.stations[0].host.queue[-1].name == "change_lamp_on"
    assert rig.cab.snapshot(1).stations[0].service is True
    assert rig.cab.legal_actions(1) == before and rig.cab.mode == "betting"
    _play_one(rig)  # a whole round with the call standing
    assert rig.cab.snapshot(1).stations[0].service is True
    assert rig.cab.outputs() == [] and rig.cab._tower == "service"


def test_a_second_touch_cancels_the_call():
    """Cancelled by a second touch: the tower goes back, 0x72 "change lamp
    off" for the host, journaled with who cancelled it."""
    from tests.engine.helpers import LinkedRig as Rig

    rig = Rig()
    rig.note(1_000)
    rig.press("service")
    rig.press("service")
    assert _tower(rig) == "off"
    (j,) = _effects_of(rig, "service_cancelled")
    assert j.station == 1 and j.data == {"by": "player"}
    assert rig.cab.s.stations[0].host.queue[-1].name == "change_lamp_off"
    assert rig.cab.snapshot(1).stations[0].service is False


def test_the_attendants_key_answers_every_call():
    """The attendant's key cancels the calls (the attendant came); a
    lockup's own light (handpay, tilt) still wins over the service lamp."""
    from cabinet.core.events import KeyChanged
    from tests.engine.helpers import LinkedRig as Rig

    rig = Rig(GameSettings(variant="classic-multi", stations=2))
    rig.press("service", station=1)
    rig.press("service", station=2)
    assert rig.cab.snapshot(1).stations[1].service
    rig.effects = rig.cab.handle(KeyChanged(True))
    calls = _effects_of(rig, "service_cancelled")
    assert sorted(j.station for j in calls) == [1, 2]
    assert all(j.data == {"by": "attendant_key"} for j in calls)
    snap = rig.cab.snapshot(1)
    assert not any(st.service for st in snap.stations)


def test_a_service_call_under_a_fault_keeps_the_tilt_light():
    """The service lamp never hides a tilt (red) or a handpay."""
    from cabinet.core.events import DeviceFaulted
    from tests.engine.helpers import LinkedRig as Rig

    rig = Rig()
    rig.note(1_000)
    rig.press("service")
    rig.effects = rig.cab.handle(DeviceFaulted("bill", "bill_jam"))
    assert _tower(rig) == "tilt"


def test_the_engine_and_the_core_import_in_a_fresh_interpreter():
    """The core's contexts, the player's desk and the engine import cleanly (a cycle the
    AST check misses: importing a submodule runs its package's ``__init__``)."""
    import subprocess
    import sys

    for mod in ("cabinet.core.context", "cabinet.core.player_desk", "cabinet.shell.engine", "cabinet.shell.main"):
        r = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f"{mod}: {r.stderr[-400:]}"


def test_a_restart_keeps_the_session_clock_its_net_and_the_service_call(tmp_path):
    """Sessions and Service calls lived in memory only, so a
    power cut started the player's reminder clock again and put the attendant's lamp out
    while the player still waited. Both are committed state now: after a restart the
    reminder comes on the session's own minute with the net so far, and the call stands."""
    from cabinet.core.effects import SetTowerLight
    from cabinet.core.events import Tick

    t0 = 1_800_000_000.0
    path = tmp_path / "journal.db"
    store = Store(path)
    eng = Engine(store, rng=random.Random(4), clock_ms=lambda: 0, wall_s=lambda: t0)
    eng.cab = Cabinet(new_state(GameSettings(reality_check_min=30)), rng=random.Random(4))
    eng.step(PowerUp(0, t0))
    _play(eng, 1, 3)
    net = eng.cab.s.stations[0].credits_minor - 10_000
    eng.step(Tick(20 * 60_000, t0 + 20 * 60))
    eng.step(IntentReceived(1, "service"))
    store.close()

    wall = t0 + 22 * 60  # back 2 minutes later, a new boot
    store2 = Store(path)
    eng2 = Engine(store2, rng=random.Random(5), clock_ms=lambda: 0, wall_s=lambda: wall)
    effects = eng2.step(PowerUp(0, wall))
    assert eng2.cab.snapshot(1).stations[0].service is True
    assert [e.state for e in effects if isinstance(e, SetTowerLight)][-1:] == ["service"]
    eng2.step(Tick(7 * 60_000, t0 + 29 * 60))
    assert eng2.cab.snapshot(1).stations[0].reminder is None
    eng2.step(Tick(8 * 60_000 + 1, t0 + 30 * 60 + 1))
    rc = eng2.cab.snapshot(1).stations[0].reminder
    assert rc is not None and (rc.elapsed_min, rc.net_minor) == (30, net)
    store2.close()


def test_a_cash_out_to_zero_ends_the_players_service_call():
    """A Service call stood after its player cashed out and
    left, so the next player's screen said CALLED. The cash-out to zero that ends the
    session ends the call too (journaled, the tower and the host told)."""
    from tests.engine.helpers import LinkedRig as Rig

    rig = Rig()
    rig.note(1_000)
    rig.press("service")
    rig.press("cash_out")
    (j,) = _effects_of(rig, "service_cancelled")
    assert j.station == 1 and j.data == {"by": "cash_out"}
    assert rig.cab.snapshot(1).stations[0].service is False
    assert "change_lamp_off" in [e.name for e in rig.cab.s.stations[0].host.queue]

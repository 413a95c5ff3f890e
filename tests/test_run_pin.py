"""``cabinet run`` and the journal's technician PIN: the run checks the PIN
it would type against the journal, read-only, before typing any."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.core.events import PowerUp
from cabinet.core.machine import new_state
from cabinet.core.maintenance.pin import hash_pin
from cabinet.core.settings import GameSettings
from cabinet.shell.engine import Engine
from cabinet.shell.store import Store
from cabinet.tools import launcher
from cabinet.tools.run_settings import DEMO_PIN, PinPlan, plan_settings, run_pin

ROOT = Path(__file__).resolve().parents[1]


def make_journal(path: Path, pin: str | None, *, lock_left_ms: int = 0, **settings: object) -> Path:
    """A committed journal at ``path`` whose technician PIN is ``pin`` (``None``: the factory PIN)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    store = Store(path)
    eng = Engine(store, rng=random.Random(1))
    eng.cab.s = new_state(GameSettings(**settings))  # type: ignore[arg-type]
    eng.cab.rules = eng.cab.s.settings.validate()
    if pin is not None:
        salt = bytes(range(16))
        eng.cab.s.operator.pin.salt_hex = salt.hex()
        eng.cab.s.operator.pin.hash_hex = hash_pin(pin, salt)
    eng.cab.s.operator.pin.lock_left_ms = lock_left_ms
    eng.step(PowerUp(0, 1.8e9))
    store.close()
    return path


def event_kinds(path: Path) -> list[str]:
    store = Store(path, readonly=True)
    try:
        return [r["kind"] for r in store.events(10_000)]
    finally:
        store.close()


def test_the_pin_the_run_types_is_pin_then_env_then_the_demo_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    """``cabinet run``: ``--pin`` wins, then ``$CABINET_PIN``, then the demo's 2580."""
    monkeypatch.delenv("CABINET_PIN", raising=False)
    assert run_pin(None) == DEMO_PIN == "2580"
    monkeypatch.setenv("CABINET_PIN", "4711")
    assert run_pin(None) == "4711"
    assert run_pin("1357") == "1357"


def test_a_journal_with_another_pin_is_refused_before_typing(tmp_path: Path) -> None:
    """cabinet run --stations 3 on a journal whose PIN was changed: the run's PIN does not
    match the journal's hash, so the plan is a refusal naming --pin and a fresh data folder."""
    journal = make_journal(tmp_path / "data" / "journal.db", "1357")
    why = plan_settings(journal, stations=3, variant=None, pin="2580")
    assert isinstance(why, str)
    assert "technician PIN" in why and "--pin" in why and "CABINET_DATA_DIR" in why
    ok = plan_settings(journal, stations=3, variant=None, pin="1357")
    assert ok == PinPlan(pin="1357", factory=False, needed=True)
    # nothing to change: no PIN is typed, so none is checked
    same = plan_settings(journal, stations=1, variant="classic", pin="2580")
    assert isinstance(same, PinPlan) and not same.needed


def test_a_new_journal_changes_the_factory_pin_to_the_runs(tmp_path: Path) -> None:
    """A new cabinet (no journal, or the factory PIN): the run types 0000 then its PIN
    twice; a PIN the forced change would refuse is refused first."""
    fresh = plan_settings(tmp_path / "none" / "journal.db", stations=2, variant=None, pin="2580")
    assert fresh == PinPlan(pin="2580", factory=True, needed=True)
    factory = make_journal(tmp_path / "f" / "journal.db", None)
    assert plan_settings(factory, stations=2, variant=None, pin="2580") == PinPlan(
        pin="2580", factory=True, needed=True
    )
    bad = plan_settings(factory, stations=2, variant=None, pin="1111")
    assert isinstance(bad, str) and "--pin" in bad
    assert isinstance(plan_settings(factory, stations=2, variant=None, pin="12a4"), str)


def test_a_locked_pin_entry_is_refused_before_typing(tmp_path: Path) -> None:
    """The journal's PIN entry is locked (3 wrong PINs): typing would only be refused."""
    journal = make_journal(tmp_path / "data" / "journal.db", "2580", lock_left_ms=42_000)
    why = plan_settings(journal, stations=3, variant=None, pin="2580")
    assert isinstance(why, str) and "locked" in why and "42 s" in why


def test_cabinet_run_with_another_pin_exits_2_and_types_no_pin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trial's defect: `cabinet run --stations 3` on a journal with another technician
    PIN typed 2580 three times (pin_wrong x3, a 60 s pin_lockout) and then said 'could not
    seat 3 station(s)'. Now: status 2, a line saying the data folder's PIN is not the
    run's, and not one pin_wrong journaled."""
    monkeypatch.delenv("CABINET_PIN", raising=False)
    journal = make_journal(tmp_path / "data" / "journal.db", "1357")
    before = event_kinds(journal)
    assert launcher.main(stations=3, journal=str(journal), out=str(tmp_path / "out")) == 2
    err = capsys.readouterr().err
    assert "technician PIN" in err and "--pin" in err and "could not seat" not in err
    assert event_kinds(journal) == before
    assert "pin_wrong" not in before
    assert (
        launcher.main(variant="american", demo=True, window=False, journal=str(journal), out=str(tmp_path / "out")) == 2
    )


def test_cabinet_run_cli_refuses_another_pin_from_the_data_dir(tmp_path: Path) -> None:
    """The same through the command line with CABINET_DATA_DIR, as the trial ran it."""
    make_journal(tmp_path / "data" / "journal.db", "1357")
    env = {**os.environ, "CABINET_DATA_DIR": str(tmp_path / "data")}
    env.pop("CABINET_PIN", None)
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "run", "--headless", "--stations", "3", "--out", str(tmp_path / "out")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "technician PIN" in r.stderr and "--pin" in r.stderr
    assert "pin_wrong" not in event_kinds(tmp_path / "data" / "journal.db")

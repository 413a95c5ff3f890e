"""The serial twins in a process of their own (``cabinet sim-devices``) that
survives the engine's death, and the meters checked against their physical truth."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cabinet.shell.store import Store

from .crash_harness import EngineProc, TwinProc, check_physical_truth, credit_note, settle

pytestmark = [pytest.mark.timeout(120)]


def _until(cond, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def _credits(eng: EngineProc) -> int:
    return int((eng.snapshot or {}).get("stations", [{}])[0].get("credits_minor", 0))


@pytest.fixture
def rig(tmp_path: Path):
    twins = TwinProc(tmp_path)
    twins.start()
    eng = EngineProc(tmp_path, twins)
    try:
        yield twins, eng
    finally:
        eng.stop()
        twins.stop()


def test_twins_outlive_the_engine_and_agree_with_the_meters(rig) -> None:
    """Twins in their own process: ``cabinet engine --twins D`` opens the ptys of a separate
    ``cabinet sim-devices --state-dir D``; SIGKILL of the engine leaves the twins and
    their cash box alone, and after the restart the meters match it."""
    twins, eng = rig
    eng.start()
    credit_note(eng, 2000)
    assert _credits(eng) == 2000
    eng.kill()
    assert twins.proc is not None and twins.proc.poll() is None  # still powered
    assert twins.cmd({"cmd": "truth"})["cash_box_minor"] == 2000
    eng.start()
    check_physical_truth(eng.journal, settle(eng))
    assert _credits(eng) == 2000
    # the engine's own sim socket refuses what now belongs to the twin process
    assert "own process" in eng._sim_cmd({"cmd": "note", "amount_minor": 500})["error"]


@pytest.mark.parametrize("where", ["stacking", "vend_valid"])
def test_power_cut_past_stack_is_reviewed_shown_and_credited_once_by_the_key(rig, where: str) -> None:
    """Uncredited items end to end: the acceptor loses power at STACKING / VEND VALID. The
    note is in the cash box: journaled ``note_in_stacker``, the cabinet tilts with
    code 306 on screen, the cash box equals credits + review; the attendant's key
    credits it once, and a restart credits nothing more."""
    twins, eng = rig
    eng.start()
    twins.cmd({"cmd": "power_at", "state": where})
    eng.sim({"cmd": "note", "amount_minor": 2000})
    _until(lambda: (eng.snapshot or {}).get("mode") == "tilt")
    assert "306 Note in the cash box" in eng.snapshot["overlay_text"]
    truth = settle(eng)
    assert truth["cash_box_minor"] == 2000 and _credits(eng) == 0
    check_physical_truth(eng.journal, truth)
    eng.sim({"cmd": "key", "on": True})
    _until(lambda: _credits(eng) == 2000)
    eng.sim({"cmd": "key", "on": False})
    _until(lambda: (eng.snapshot or {}).get("mode") in ("betting", "attract"))
    eng.kill()
    eng.start()
    check_physical_truth(eng.journal, settle(eng))
    assert _credits(eng) == 2000
    store = Store(eng.journal, readonly=True)
    kinds = [
        (e["kind"], e["amount_minor"])
        for e in store.all_events()
        if e["kind"] in ("note_in_stacker", "bill_stacked", "note_review_resolved")
    ]
    store.close()
    assert kinds == [("note_in_stacker", 2000), ("bill_stacked", 2000), ("note_review_resolved", 2000)]


def test_twin_set_serves_each_station_and_refuses_bad_commands(tmp_path: Path) -> None:
    """Twins in their own process: ``TwinSet`` (behind ``cabinet sim-devices``) lays station N's ptys
    out where ``cabinet engine --twins`` looks (``station_dir``) and answers bad
    commands with one-line errors, touching nothing."""
    import json

    from drivers.sim.twins import TwinSet, station_dir

    twins = TwinSet(tmp_path, stations=2)
    try:
        assert (station_dir(tmp_path, 2) / "bill-acceptor").exists()
        assert station_dir(tmp_path, 1) == tmp_path
        ok = twins.command(json.dumps({"cmd": "note", "amount_minor": 500, "station": 2}))
        assert ok == {"ok": True}
        assert twins.twins[2][0]._queue and not twins.twins[1][0]._queue
        assert twins.command("{")["ok"] is False
        assert "no station 3" in twins.command('{"cmd": "truth", "station": 3}')["error"]
        assert "state must be one of" in twins.command('{"cmd": "power_at", "state": "later"}')["error"]
        assert "no bill of 7" in twins.command('{"cmd": "note", "amount_minor": 7}')["error"]
        truth = twins.command('{"cmd": "truth"}')
        assert truth["cash_box_minor"] == 0 and truth["tickets"] == []
        assert truth["acceptor"] == "POWER_UP" and not truth["idle"]  # no host yet
    finally:
        twins.close()


@pytest.mark.parametrize("where", ["stacking", "vend_valid"])
def test_a_voucher_in_the_cash_box_at_a_power_cut_is_credited_once_by_the_key(rig, where: str) -> None:
    """The acceptor loses power at STACKING / VEND VALID with one of this cabinet's
    vouchers, the engine dies and the acceptor is power-cycled: tilt 306 on restart; the
    attendant's key credits the voucher once from its record (now redeemed), and
    neither a restart nor the key again credits it twice."""
    twins, eng = rig
    eng.start()
    eng.sim({"cmd": "note", "amount_minor": 2000})
    _until(lambda: _credits(eng) == 2000)
    eng.intent("cash_out")
    _until(lambda: _credits(eng) == 0 and len(twins.cmd({"cmd": "truth"})["tickets"]) == 1)
    (number,) = twins.cmd({"cmd": "truth"})["tickets"]

    def issued() -> bool:
        store = Store(eng.journal, readonly=True)
        try:
            return [v.status for v in store.vouchers(10)] == ["issued"]
        finally:
            store.close()

    _until(issued)
    _until(lambda: (eng.snapshot or {}).get("mode") in ("attract", "betting"))
    _until(lambda: "inhibited=False" in str(eng.sim({"cmd": "bill", "line": "status"}).get("reply")))
    twins.cmd({"cmd": "power_at", "state": where})
    eng.sim({"cmd": "voucher", "validation_number": number})
    _until(lambda: number in twins.cmd({"cmd": "truth"})["vouchers_stacked"], 15)
    eng.kill()
    twins.cmd({"cmd": "bill", "line": "power"})
    eng.start()
    _until(lambda: (eng.snapshot or {}).get("mode") == "tilt")
    assert "306" in eng.snapshot["overlay_text"] and _credits(eng) == 0
    eng.sim({"cmd": "key", "on": True})
    _until(lambda: _credits(eng) == 2000)
    eng.sim({"cmd": "key", "on": False})
    _until(lambda: (eng.snapshot or {}).get("mode") in ("betting", "attract"))
    eng.kill()
    eng.start()
    settle(eng)
    assert _credits(eng) == 2000
    store = Store(eng.journal, readonly=True)
    ins = [(e["kind"], e["amount_minor"]) for e in store.all_events() if e["kind"] == "voucher_in"]
    (rec,) = [v for v in store.vouchers(10) if v.validation_number == number]
    store.close()
    assert ins == [("voucher_in", 2000)] and rec.status == "redeemed"

"""The host twin's meter rollback alarm: like a casino's CMS, the host keeps the meters it
last read from each machine (its database, ``host.sqlite3``) and flags a lifetime meter
read lower than that, in the same session or after a restart of the host, with both
values: the EGM's memory was set back (a restored SD-card image, a RAM clear). The
cabinet cannot see the host's database; this is the host's side of the detection."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import wait_for
from sas_test_egm import METERS, TestEgm

from drivers.sim.sas_host import SasHost
from drivers.sim.sas_host_meters import MeterAlarm, MeterWatch

pytestmark = pytest.mark.timeout(180)

FAST = dict(poll_interval_s=0.02, reply_timeout_s=0.15, link_down_s=1.0, meter_interval_s=0.5)


def _host(tmp_path: Path) -> SasHost:
    return SasHost([1], directory=tmp_path, db_path=tmp_path / "host.sqlite3", **FAST)  # type: ignore[arg-type]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "host.sqlite3"


def test_meters_read_lower_after_a_host_restart_are_flagged(tmp_path: Path, db: Path) -> None:
    """$200 (20000 credits at 1 cent) out, then the EGM's memory set back to before it:
    the host, restarted since, reads coin_out 20000 lower and flags it at link-up."""
    later = dataclasses.replace(METERS.__class__(*(v + 1 for v in METERS.values())), coin_out=METERS.coin_out + 20000)
    with _host(tmp_path) as host:
        egm = TestEgm(host.tty(1), 1, meters=later)
        try:
            wait_for(lambda: host.meters(1).get("coin_out") == later.coin_out, 5)
            assert host.meter_alarms(1) == []
        finally:
            egm.close()
    with _host(tmp_path) as host:  # the host restarted; the image restored
        egm = TestEgm(host.tty(1), 1, meters=METERS)
        try:
            wait_for(lambda: any(a.name == "coin_out" for a in host.meter_alarms(1)), 5)
            alarm = next(a for a in host.meter_alarms(1) if a.name == "coin_out")
            assert (alarm.last, alarm.now) == (later.coin_out, METERS.coin_out)
            assert {a.name for a in host.meter_alarms(1)} >= {"coin_in", "games_played"}
        finally:
            egm.close()
    with sqlite3.connect(db) as con:
        rows = list(con.execute("SELECT name, last, now FROM meter_alarms WHERE address = 1 AND name = 'coin_out'"))
    assert rows == [("coin_out", later.coin_out, METERS.coin_out)]


def test_the_watch_skips_current_credits_and_a_rollover() -> None:
    watch = MeterWatch({"coin_out": 500, "current_credits": 900, "coin_in": 99_999_990})
    alarms = watch.check({"coin_out": 300, "current_credits": 10, "coin_in": 5}, at=1.0)
    assert alarms == [MeterAlarm("coin_out", 500, 300, 1.0)]
    assert watch.check({"coin_out": 300}, at=2.0) == []  # flagged once, then followed

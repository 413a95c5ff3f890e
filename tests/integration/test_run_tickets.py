"""``cabinet run`` with two stations shows a ticket printed at
one redeemed at the other. ``cabinet run --stations 2 --tickets host`` headless links
each station to the host twin as its own EGM (its own pty and SAS address) with system
validation; station 1's demo player cashes out (the host's validation number on the
ticket), the demo inserts that ticket at station 2 (credited through the host: 0x67,
0x70, 0x71, 0x68), then again (refused, "already redeemed"). Checked here against
the host twin's own database and ``cabinet meters --json``, not the run's words alone."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.sas import tito_codes as tc

from .test_sas_end_to_end import sas_play_meters

pytestmark = pytest.mark.timeout(200)

ROOT = Path(__file__).resolve().parents[2]


def _last_meters(db: sqlite3.Connection, address: int) -> dict[str, int]:
    """The host's latest reading of each meter of machine ``address`` (credits)."""
    rows = db.execute("SELECT name, value FROM meter_readings WHERE address = ? ORDER BY id", (address,)).fetchall()
    return {name: int(value) for name, value in rows}


def test_cabinet_run_tickets_host_redeems_station_1s_ticket_at_station_2_once(tmp_path):
    """`cabinet run --stations 2 --tickets host`: the ticket printed at station 1
    carries the host's number; station 2's credit meter rises by exactly its amount; the
    host's database has it issued by machine 1 and redeemed once, by machine 2; the
    second insertion is refused (0x84, "already redeemed" on the table); both stations'
    meters in ``cabinet meters --json`` equal the host's last 0x1C readings; the run
    folder keeps the vouchers, the screenshots and the host's floor view counts."""
    out = tmp_path / "out"
    env = {**os.environ, "CABINET_DATA_DIR": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cabinet",
            "run",
            "--stations",
            "2",
            "--tickets",
            "host",
            "--rounds",
            "1",
            "--size",
            "640x360",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text
    assert "Traceback" not in text
    tour = json.loads((out / "tickets.json").read_text())
    number, amount = tour["number"], tour["amount_minor"]
    assert re.fullmatch(r"01\d{16}", number), number  # the host twin's system ID 01
    assert amount > 0 and (tour["printed_at"], tour["redeemed_at"]) == (1, 2)

    # the ticket cut at station 1 is the host's number, for the credits cashed out
    txt = (out / "voucher-0001.txt").read_text()
    shown = next(ln for ln in txt.splitlines() if ln.startswith("VALIDATION "))
    assert shown.split(None, 1)[1].replace("-", "") == number

    # the host's ticket database: issued by 1, redeemed once by 2, then refused at 2
    db = sqlite3.connect(out / "sim" / "sas" / "host.sqlite3")
    try:
        row = db.execute(
            "SELECT state, issued_by, amount, redeemed_by, redeemed_amount FROM tickets WHERE number = ?", (number,)
        ).fetchone()
        events = db.execute(
            "SELECT address, event, code FROM ticket_events WHERE number = ? "
            "AND event IN ('redeem', 'redeemed', 'refused') ORDER BY id",
            (number,),
        ).fetchall()
        host_m = {n: _last_meters(db, n) for n in (1, 2)}
    finally:
        db.close()
    assert row == ("redeemed", 1, amount, 2, amount)
    assert [(a, e) for a, e, _ in events] == [(2, "redeem"), (2, "redeemed"), (2, "refused")]
    assert events[-1][2] == tc.TC_ALREADY_REDEEMED

    # station 2's credit meter rose by exactly the ticket's amount, once
    assert tour["credits_after_minor"] - tour["credits_before_minor"] == amount
    assert tour["refused"] == "Ticket refused: already redeemed"
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(tmp_path / "data" / "journal.db"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    stations = {s["station"]: s for s in json.loads(r.stdout)["stations"]}
    assert stations[2]["credits_minor"] == tour["credits_after_minor"]
    assert (stations[2]["meters"]["vouchers_in_count"], stations[2]["meters"]["vouchers_in_minor"]) == (1, amount)
    assert stations[1]["meters"]["vouchers_out_count"] == 1
    assert stations[1]["meters"]["vouchers_out_minor"] == amount

    # the host's meters (accounting denomination 1 minor unit) agree with the journal's
    for n in (1, 2):
        m = stations[n]["meters"]
        assert (host_m[n]["coin_in"], host_m[n]["coin_out"]) == sas_play_meters(m), n
        assert host_m[n]["drop"] == m["bills_in_minor"] + m["vouchers_in_minor"], n
    assert tour["host_meters"]["2"]["drop"] == host_m[2]["drop"]

    # the floor view's ticket counts, as printed
    floor = {t["address"]: t for t in tour["summary"]}
    assert floor[2]["redeemed"] == 1 and floor[2]["redeemed_amount"] == amount
    assert floor[0]["issued"] == 2  # both stations cashed out a ticket
    assert floor[0]["outstanding"] == 1  # station 2's own, not yet redeemed
    assert re.search(r"^\s*total\s+2\s+\d+\s+1\s+" + str(amount) + r"\s+1\s", proc.stdout, re.M), text
    for step in (
        "tickets: station 1 printed",
        "tickets: station 2 credited",
        "tickets: the same ticket again at station 2: Ticket refused: already redeemed",
    ):
        assert step in proc.stdout, text
    assert sorted(out.glob("station2-*-ticket-redeemed.png")), sorted(p.name for p in out.iterdir())
    assert sorted(out.glob("station2-*-ticket-refused.png"))

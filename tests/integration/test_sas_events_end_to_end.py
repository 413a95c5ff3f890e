"""Real-time event reporting (0x0E) and the information polls 0x3D, 0xA0, 0xB5, 0x1B
end to end: the engine as a real process on a pty, the host twin reading it, the
values compared with ``cabinet meters --json`` and the journal.  Layouts: Aristocrat
Monaco ``Protocol/SAS/`` (see ``drivers/sas/egm_events.py``, ``egm_info.py``)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from drivers.sas import bcd
from drivers.sas.host_codec import DataReply
from drivers.sim.sas_host import SasHost

from . import test_sas_end_to_end as e2e
from .test_sas_end_to_end import meters_json, wait_for

floor = e2e.floor

pytestmark = pytest.mark.timeout(240)


def _events(host: SasHost, code: int) -> list[bytes]:
    return [e.data for e in host.exceptions(1) if e.code == code]


def _journal(path, kind: str) -> list[dict]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT data FROM events WHERE kind = ? ORDER BY id", (kind,)).fetchall()
    finally:
        con.close()
    return [json.loads(r[0]) for r in rows]


def test_real_time_events_and_information_polls_agree_with_the_cabinet(floor, tmp_path):
    """0x0E on: a $20 note is event 4F (US 37, $20 code 04, lifetime count 1), a round is
    7E (credits wagered, coin in after the bet, wager type 41, group 00) then 7F (the
    credits won); a cash-out makes 0x3D report that voucher's number (low 8 digits) and
    cents; 0xA0, 0xB5 and 0x1B answer per their layouts; then every value equals
    ``cabinet meters --json`` and the journal."""
    host, proc = floor
    wait_for(lambda: "ac_power_applied" in [e.name for e in host.exceptions(1)], 10, "0x17")
    assert host.real_time_events(1)
    n = len(host.exceptions(1))
    e2e._credit(proc, 2_000)
    wait_for(lambda: _events(host, 0x4F), 15, "the bill event 4F")
    assert _events(host, 0x4F)[-1] == bytes.fromhex("37 04 00000001")
    e2e._play_round(proc)
    wait_for(lambda: _events(host, 0x7F), 15, "the game ended event 7F")
    started, ended = _events(host, 0x7E)[-1], _events(host, 0x7F)[-1]
    names = [e.name for e in host.exceptions(1)[n:]]
    assert names.index("game_started") < names.index("game_ended")
    assert len(started) == 8 and started[6:] == bytes.fromhex("41 00")
    # 0xA0: tickets in drop and cancelled credits (feature 2 bit 2); validation "none"
    a0 = host.send(1, 0xA0, bytes.fromhex("0000"))
    assert isinstance(a0, DataReply) and a0.data[:3] == bytes.fromhex("0000 00") and a0.data[3] & 0x04
    b5 = host.send(1, 0xB5, bytes.fromhex("0001"))
    assert isinstance(b5, DataReply) and b5.data[:2] == bytes.fromhex("0001") and b"Blackjack" in b5.data
    hp = host.send(1, 0x1B)
    assert isinstance(hp, DataReply) and hp.data == bytes(20)  # no handpay pending
    proc.intent("cash_out")
    wait_for(
        lambda: _events(host, 0x3D) or "cash_out_ticket_printed" in [e.name for e in host.exceptions(1)],
        30,
        "the voucher printed event",
    )
    t3d = wait_for(
        lambda: (r := host.send(1, 0x3D)) is not None and isinstance(r, DataReply) and r.data != bytes(9) and r,
        10,
        "0x3D",
    )
    proc.stop()
    m = meters_json(tmp_path / "journal.db")
    assert bcd.decode(started[:2]) == _journal(tmp_path / "journal.db", "round_start")[-1]["bets"]["1"][0]
    assert bcd.decode(started[2:6]) == m["coin_in_minor"]
    assert bcd.decode(ended) == m["coin_out_minor"]
    printed = _journal(tmp_path / "journal.db", "voucher_printed")[-1]
    assert isinstance(t3d, DataReply)
    assert t3d.data == bcd.encode(int(printed["validation_number"][-8:]), 4) + bcd.encode(m["vouchers_out_minor"], 5)
    assert m["vouchers_out_count"] == 1
    assert bcd.decode(_events(host, 0x4F)[-1][2:]) == m["bills_in_count"] == 1

"""The meter long polls end to end: the engine as a real process on a real pty, the host
twin sending each poll after notes and a round, every value compared with what
``cabinet meters --json`` says (accounting denomination 1: a credit is a minor unit)."""

from __future__ import annotations

import time

import pytest

from cabinet.core.machine import new_state
from cabinet.core.settings import GameSettings
from cabinet.shell.store import Store
from drivers.sas import bcd
from drivers.sas.host_codec import DataReply, Nack
from drivers.sim.sas_host import SasHost

from .test_sas_end_to_end import (  # noqa: F401
    _credit,
    _play_round,
    _play_round_out,
    floor,
    linked_floor,
    meters_json,
    sas_play_meters,
    wait_for,
)

pytestmark = pytest.mark.timeout(240)


def _data(host: SasHost, command: int, data: bytes = b"") -> bytes:
    got = host.send(1, command, data)
    assert isinstance(got, DataReply), (hex(command), got)
    return got.data


def _meter(host: SasHost, command: int) -> int:
    return bcd.decode(_data(host, command))


def _extended(host: SasHost, command: int, game: int, codes: list[int]) -> dict[int, int]:
    """0x6F/0xAF meters by code (the reply data after its length byte: game 2 BCD, then per
    meter its code 2 bytes low first, its size 1, its BCD value)."""
    data = _data(host, command, bcd.encode(game, 2) + b"".join(c.to_bytes(2, "little") for c in codes))
    assert bcd.decode(data[:2]) == game
    out, i = {}, 2
    while i < len(data):
        code, size = int.from_bytes(data[i : i + 2], "little"), data[i + 2]
        out[code] = bcd.decode(data[i + 3 : i + 3 + size])
        i += 3 + size
    return out


def test_meter_polls_agree_with_the_cabinet_meters(floor, tmp_path):  # noqa: F811
    """After a $20 and a $5 note and a round, 0x20, 0x2A/0x2B, 0x2D, 0x2E, 0x31-0x45, 0x48,
    0x52, 0x56, 0x6F and 0xAF read what ``cabinet meters --json`` says."""
    host, proc = floor
    _credit(proc, 2_000)
    _credit(proc, 500)
    _play_round(proc)
    wait_for(lambda: proc.snapshot["mode"] != "in_round", 30, "the round to end")
    proc.stop()
    mine = meters_json(tmp_path / "journal.db")
    proc.start()
    wait_for(lambda: host.link_up(1), 60, "the link again")
    bills = {int(k): v for k, v in mine["bills_by_denom"].items()}
    assert bills[2000] >= 1 and bills[500] >= 1

    assert _meter(host, 0x20) == mine["bills_in_minor"] // 100
    assert (_meter(host, 0x2A), _meter(host, 0x2B)) == (0, 0)
    assert _data(host, 0x2D, b"\x00\x00") == b"\x00\x00" + bcd.encode(mine["handpay_minor"], 4)
    assert isinstance(host.send(1, 0x2E, b"\x00\x0a"), Nack)
    assert _meter(host, 0x33) == bills[500] and _meter(host, 0x35) == bills[2000]
    assert _meter(host, 0x31) == bills.get(100, 0) and _meter(host, 0x37) == bills.get(10_000, 0)
    assert _data(host, 0x48) == bytes.fromhex("37 02") + bcd.encode(bills[500], 4)  # the $5 came last
    coin_in, coin_out = sas_play_meters(mine)
    game_n = (coin_in, coin_out, mine["jackpot_handpay_minor"], mine["games_played"])
    for game in (0, 1):
        data = _data(host, 0x52, bcd.encode(game, 2))
        assert tuple(bcd.decode(data[i : i + 4]) for i in (2, 6, 10, 14)) == game_n
    assert _data(host, 0x56) == bytes.fromhex("01 00 01")

    expected = {
        0x00: coin_in,
        0x01: coin_out,
        0x05: mine["games_played"],
        0x06: mine["games_won"],
        0x07: mine["games_lost"],
        0x0B: mine["bills_in_minor"],
        0x24: mine["bills_in_minor"] + mine["vouchers_in_minor"],
        0x42: bills[500],
        0x44: bills[2000],
        0x7F: 9989,
    }
    for command in (0x6F, 0xAF):
        assert _extended(host, command, 0, list(expected)) == expected
        per_game = {c: v for c, v in expected.items() if c in (0x00, 0x01, 0x05, 0x06, 0x07, 0x7F)}
        assert _extended(host, command, 1, list(expected)) == per_game


@pytest.fixture
def jackpot_floor(tmp_path):
    """The ``floor`` of ``test_sas_end_to_end`` with a jackpot limit of 1.00: any win is
    paid by hand."""
    store = Store(tmp_path / "journal.db")
    store.commit(new_state(GameSettings(jackpot_limit_minor=100)), None, [], time.time())
    store.close()
    yield from linked_floor(tmp_path)


def test_a_jackpot_paid_by_hand_is_in_jackpot_not_in_coin_out(jackpot_floor, tmp_path):
    """Rounds at the table minimum until one wins (the jackpot limit is 1.00), the key
    resets the handpay; then 0x19, 0x2F and 0x6F say coin in - coin out - jackpot = what play
    kept by ``cabinet meters --json`` (Monaco ``SASMeterCollection.cs``: 0x00 ``WageredAmount``,
    0x01 ``TotalEgmPaidAmt``, 0x02 ``TotalHandPaidAmt``)."""
    host, proc = jackpot_floor
    _credit(proc, 2_000)
    proc.intent("bet_up")
    for _ in range(40):
        wait_for(lambda: "deal" in proc.snapshot["stations"][0]["lamps"], 10, "the Deal lamp")
        before = list(proc.snapshot["dealer"]["cards"])  # the last round's, still shown
        proc.intent("deal")
        wait_for(
            lambda before=before: (
                proc.snapshot["mode"] == "in_round" or proc.snapshot["dealer"]["cards"] not in ([], before)
            ),
            10,
            "the deal",
        )
        _play_round_out(proc)
        wait_for(lambda: proc.snapshot["mode"] in ("handpay", "betting", "attract"), 10, "the round's end")
        if proc.snapshot["mode"] == "handpay":
            break
    assert proc.snapshot["mode"] == "handpay", "no winning round in 40"
    proc.sim({"cmd": "key", "on": True})
    time.sleep(0.1)  # a turn of the key, longer than the switch debounce
    proc.sim({"cmd": "key", "on": False})
    wait_for(lambda: proc.snapshot["mode"] != "handpay", 10, "the handpay reset")
    proc.stop()
    mine = meters_json(tmp_path / "journal.db")
    proc.start()
    wait_for(lambda: host.link_up(1), 60, "the link again")
    jackpot = mine["jackpot_handpay_minor"]
    kept = mine["coin_in_minor"] + mine["insurance_in_minor"] - mine["coin_out_minor"] - mine["insurance_out_minor"]
    assert jackpot > 0 and mine["jackpot_handpay_count"] == 1
    m19 = _data(host, 0x19)
    coin_in, coin_out, got_jackpot = (bcd.decode(m19[i : i + 4]) for i in (0, 4, 12))
    assert (coin_in, coin_out, got_jackpot) == sas_play_meters(mine) + (jackpot,)
    assert coin_in - coin_out - got_jackpot == kept
    assert coin_out == mine["coin_out_minor"] + mine["insurance_out_minor"] - jackpot
    sel = _data(host, 0x2F, bytes.fromhex("0000 00 01 02"))
    assert sel == bytes.fromhex("0000") + b"".join(
        bytes((c,)) + bcd.encode(v, 4) for c, v in ((0, coin_in), (1, coin_out), (2, jackpot))
    )
    assert _extended(host, 0x6F, 0, [0x00, 0x01, 0x02, 0x22]) == {
        0x00: coin_in,
        0x01: coin_out,
        0x02: jackpot,
        0x22: coin_out + jackpot,
    }

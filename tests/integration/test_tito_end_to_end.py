"""Tickets through the casino host, the engine as a real process on
real ptys, the host twin's link polling it. Here the test itself plays the casino's
ticket system over the twin's raw long polls (``SasHost.send``: 0x57, 0x58, 0x70, 0x71),
so every byte the cabinet answers is checked as a management system reads it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from drivers.sas import tito_codes as tc
from drivers.sas import tito_wire as tw
from drivers.sas.host_codec import DataReply
from drivers.sim.sas_host import SasHost

from .crash_harness import EngineProc
from .test_sas_end_to_end import _credit, sas_play_meters, seen, wait_for
from .tito_harness import Desk, TicketDesk, desk_only

pytestmark = pytest.mark.timeout(180)

VN16 = "1234567890123456"
SYSTEM_ID = 7


def _insert(proc, number: str, station: int = 1) -> dict:
    """Insert ticket ``number`` at ``station`` once its acceptor is enabled, and again if
    the acceptor hands it back before taking it into escrow, as a player does (after a
    print the acceptors are enabled again a moment later, and on a loaded machine the
    engine may still be changing the acceptor's inhibit when the test inserts: an
    inhibited acceptor twin hands a ticket straight back, as a real one does). Returns
    the twin's answer to the insertion that was taken."""

    def status() -> str:
        return str(proc.sim({"cmd": "bill", "line": "status", "station": station}).get("reply", ""))

    def count(reply: str, what: str) -> int:
        return int(reply.split(f"{what}=")[1].split()[0]) if f"{what}=" in reply else 0

    deadline = time.monotonic() + 60
    while True:
        wait_for(
            lambda: "inhibited=False" in status(),
            max(1.0, deadline - time.monotonic()),
            f"station {station}'s acceptor enabled",
        )
        before = status()
        got = proc.sim({"cmd": "voucher", "validation_number": number, "station": station})
        while time.monotonic() < deadline:
            now = status()
            if count(now, "returned") + count(now, "rejected") > count(before, "returned") + count(before, "rejected"):
                break  # handed back untaken: again
            if now.split(" ")[0] in ("ESCROW", "HOLDING", "STACKING", "VEND_VALID", "STACKED") or count(
                now, "stacked"
            ) > count(before, "stacked"):
                return got
            time.sleep(0.02)
        assert time.monotonic() < deadline, f"the acceptor never took ticket {number[-4:]}: {status()}"


def system_config(tmp_path: Path, timeout_s: int = 10) -> Path:
    cfg = tmp_path / "cabinet.toml"
    cfg.write_text(f'[sas]\nvalidation = "system"\nvalidation_timeout_s = {timeout_s}\n')
    return cfg


def start_floor(tmp_path: Path, timeout_s: int = 10) -> tuple[SasHost, EngineProc]:
    host = desk_only(
        SasHost(
            [1],
            directory=tmp_path / "host",
            db_path=tmp_path / "host.sqlite3",
            poll_interval_s=0.05,
            meter_interval_s=0.5,
            link_down_s=2.0,
        )
    )
    proc = EngineProc(
        tmp_path,
        extra_args=[
            "--config",
            str(system_config(tmp_path, timeout_s)),
            "--sas-port",
            host.tty(1),
            "--sas-address",
            "1",
        ],
    )
    proc.start()
    wait_for(lambda: host.link_up(1), 60, "the host link")
    wait_for(
        lambda: (proc.snapshot or {}).get("stations", [{}])[0].get("host_link") == "online",
        60,
        "HOST ONLINE at the table",
    )
    return host, proc


@pytest.fixture
def floor(tmp_path):
    host, proc = start_floor(tmp_path)
    try:
        yield host, proc
    finally:
        proc.stop()
        host.close()


def data(reply: object) -> bytes:
    assert isinstance(reply, DataReply), reply
    return reply.data


def pending_cashout(host: SasHost) -> tuple[int, int]:
    return tw.parse_pending_cashout(data(host.send(1, 0x57)))


def ticket_in_escrow(host: SasHost) -> tw.TicketReply:
    return tw.parse_ticket_reply(data(host.send(1, 0x70)), 0x70)


def redeem(host: SasHost, code: int, amount: int, number: str) -> tw.TicketReply:
    return tw.parse_ticket_reply(data(host.send(1, 0x71, tw.redeem_request(code, amount, number))), 0x71)


def status_query(host: SasHost) -> tw.TicketReply:
    return tw.parse_ticket_reply(data(host.send(1, 0x71, tw.STATUS_QUERY)), 0x71)


def station(proc: EngineProc) -> dict:
    return proc.snapshot["stations"][0]


def cash_out_to_validation(host: SasHost, proc: EngineProc, amount: int) -> None:
    _credit(proc, amount)
    n = len(seen(host))
    proc.intent("cash_out")
    wait_for(lambda: "system_validation_request" in seen(host)[n:], 10, "0x57")
    assert pending_cashout(host) == (tc.CASHOUT_CASHABLE, amount)


def link_drops(tmp_path: Path, station: int = 1) -> int:
    """How often the engine's link to the host went offline after it was online (its
    journal): the engine declares the link down after 5 s without a poll by its own
    clock (SAS: the EGM's link-down timer), which a process starved of the CPU on a
    loaded machine also reaches (the polls wait unread in the pty, or the host twin in
    the test's process sends none), and a cash-out or ticket waiting for the host then
    ends "host offline", as the design says it must."""
    import sqlite3

    db = sqlite3.connect(tmp_path / "journal.db")
    try:
        rows = db.execute("SELECT data FROM events WHERE kind = 'host_link' AND station = ?", (station,)).fetchall()
    finally:
        db.close()
    return sum(1 for (d,) in rows if json.loads(d) == {"link": "offline"})


def attendant_pays(proc: EngineProc) -> None:
    """The attendant's key turned (longer than its debounce) until the handpay is paid."""
    deadline = time.monotonic() + 60
    while proc.snapshot["mode"] == "handpay":
        assert time.monotonic() < deadline, "the attendant's key did not pay the handpay"
        proc.sim({"cmd": "key", "on": True})
        time.sleep(0.3)
        proc.sim({"cmd": "key", "on": False})
        turned = time.monotonic()
        while proc.snapshot["mode"] == "handpay" and time.monotonic() < turned + 3:
            time.sleep(0.05)


def handpay_reason(tmp_path: Path, proc: EngineProc, cash_out, tries: int = 3) -> tuple[str, int]:
    """``cash_out()`` (which ends in a handpay), done again when the engine's host link
    dropped meanwhile (``link_drops``: the cash-out is then a "host offline" handpay
    whatever the host answered, by design). Returns the handpay's text on the table and
    the attempts made."""
    for attempt in range(1, tries + 1):
        wait_for(lambda: station(proc)["host_link"] == "online", 60, "HOST ONLINE at the table")
        drops = link_drops(tmp_path)
        try:
            cash_out()
            wait_for(lambda: proc.snapshot["mode"] == "handpay", 30, "the handpay")
        except AssertionError:
            if link_drops(tmp_path) == drops:
                raise
        if link_drops(tmp_path) == drops:
            return proc.snapshot["overlay_text"], attempt
        wait_for(lambda: proc.snapshot["mode"] == "handpay", 30, "the host-offline handpay")
        attendant_pays(proc)
    raise AssertionError(f"the engine's host link dropped during each of {tries} cash-outs")


def test_system_validation_prints_the_hosts_number_then_0x3d(floor):
    """Cash-out -> 0x57 (type, amount) -> the host's 0x58 -> the ticket printed
    carries THAT number (system ID + 16 digits) -> 0x3D; 0x50 counts it."""
    host, proc = floor
    cash_out_to_validation(host, proc, 2_000)
    n = len(seen(host))
    reply = host.send(1, 0x58, tw.validation_number_request(SYSTEM_ID, VN16))
    assert data(reply)[:1] == bytes((tc.VN_ACK,))
    wait_for(lambda: "cash_out_ticket_printed" in seen(host)[n:], 15, "0x3D")
    (png,) = proc.sim({"cmd": "tickets"})["tickets"]
    text = Path(png).with_suffix(".txt").read_text()
    assert tw.VALIDATION_DIGITS == 18 and f"{SYSTEM_ID:02d}-1234-5678-9012-3456" in text
    assert pending_cashout(host) == (tc.CASHOUT_NOT_WAITING, 0)
    kind, count, amount = tw.parse_validation_meters(data(host.send(1, 0x50, bytes((tc.VT_CASHABLE_TICKET,)))))
    assert (kind, count, amount) == (tc.VT_CASHABLE_TICKET, 1, 2_000)


def test_a_denied_validation_is_a_handpay_with_the_reason_on_the_table(floor, tmp_path):
    """0x58 with system ID 0 (denied) -> no ticket, a handpay (0x51, 0x1B),
    the reason on the table and in the journal; nothing lost."""
    host, proc = floor
    seen_before: list[int] = []

    def deny() -> None:
        cash_out_to_validation(host, proc, 1_000)
        seen_before.append(len(seen(host)))
        host.send(1, 0x58, tw.validation_number_request(0, ""))

    text, attempts = handpay_reason(tmp_path, proc, deny)
    assert "validation denied by the casino host" in text
    wait_for(lambda: "handpay_pending" in seen(host)[seen_before[-1] :], 10, "0x51")
    assert proc.sim({"cmd": "tickets"})["tickets"] == []
    proc.stop()
    events = _journal(tmp_path, "validation_failed")
    assert [e["reason"] for e in events] == ["host offline"] * (attempts - 1) + ["validation denied by the casino host"]


def test_a_cash_out_caught_by_a_link_drop_is_done_again_and_the_denial_still_checked(floor, tmp_path):
    """A loaded machine starves the host twin's poll loop (or the engine) past the
    engine's 5 s link-down timer in the middle of a cash-out: the engine rightly makes it
    a "host offline" handpay, and the test's cash-out is done again (``handpay_reason``)
    so that what it checks, the host's denial on the table and in the journal, is still
    checked. The starved loop is played by pausing the host's polls past the timer."""
    host, proc = floor
    attempts: list[int] = []

    def deny() -> None:
        attempts.append(len(attempts) + 1)
        cash_out_to_validation(host, proc, 1_000)
        if len(attempts) == 1:  # no poll for more than 5 s
            host.pause()
            try:
                wait_for(lambda: link_drops(tmp_path) == 1, 20, "the engine's link down")
            finally:
                host.resume()
        host.send(1, 0x58, tw.validation_number_request(0, ""))

    text, made = handpay_reason(tmp_path, proc, deny)
    assert made == len(attempts) == 2
    assert "validation denied by the casino host" in text
    proc.stop()
    assert [e["reason"] for e in _journal(tmp_path, "validation_failed")] == [
        "host offline",
        "validation denied by the casino host",
    ]


def test_no_answer_in_time_is_a_handpay(tmp_path):
    """The host never answers 0x57 within the setting (2 s here): a handpay."""
    host, proc = start_floor(tmp_path, timeout_s=2)
    try:
        text, _ = handpay_reason(tmp_path, proc, lambda: cash_out_to_validation(host, proc, 500))
        assert "no validation from the casino host within 2 s" in text
        host.send(1, 0x58, tw.validation_number_request(SYSTEM_ID, VN16))  # too late
        time.sleep(1.0)
        assert proc.sim({"cmd": "tickets"})["tickets"] == []
    finally:
        proc.stop()
        host.close()


def test_no_0x71_in_time_hands_the_ticket_back(tmp_path):
    """The host reads the ticket (0x70) but never answers 0x71 within the
    setting (2 s): the ticket comes back with the reason, final status 0x88 (timeout)."""
    host, proc = start_floor(tmp_path, timeout_s=2)
    try:
        n = len(seen(host))
        _insert(proc, f"{SYSTEM_ID:02d}{VN16}")
        wait_for(lambda: "ticket_inserted" in seen(host)[n:], 10, "0x67")
        assert ticket_in_escrow(host).status == tc.TICKET_IN_ESCROW
        wait_for(lambda: station(proc)["refusal"] == "Ticket refused: no answer from the casino host", 10, "the reason")
        wait_for(lambda: "ticket_transfer_complete" in seen(host)[n:], 10, "0x68")
        assert status_query(host).status == tc.STATUS_TIMEOUT
        assert station(proc)["credits_minor"] == 0
    finally:
        proc.stop()
        host.close()
    assert [e["result"] for e in _journal(tmp_path, "ticket_done")] == ["timeout"]


def test_a_ticket_is_held_redeemed_by_the_host_and_credited_once(floor):
    """A ticket in escrow -> 0x67 -> 0x70 gives its number -> 0x71 cashable
    answers 0x40 pending -> stacked and credited -> 0x68 -> 0x71 FF: 0x00 redeemed."""
    host, proc = floor
    number = f"{SYSTEM_ID:02d}{VN16}"
    n = len(seen(host))
    assert _insert(proc, number)["ok"]
    wait_for(lambda: "ticket_inserted" in seen(host)[n:], 10, "0x67")
    t = ticket_in_escrow(host)
    assert (t.status, t.validation_number) == (tc.TICKET_IN_ESCROW, number)
    time.sleep(1.5)  # held past a few HOLD refreshes, still there
    assert ticket_in_escrow(host).status == tc.TICKET_IN_ESCROW
    got = redeem(host, tc.TC_CASHABLE, 4_200, number)
    assert got.status == tc.STATUS_PENDING
    wait_for(lambda: "ticket_transfer_complete" in seen(host)[n:], 15, "0x68")
    assert station(proc)["credits_minor"] == 4_200
    final = status_query(host)
    assert (final.status, final.amount) == (tc.STATUS_CASHABLE_REDEEMED, 4_200)


@pytest.mark.parametrize(
    "code,words",
    [(tc.TC_ALREADY_REDEEMED, "already redeemed"), (tc.TC_NONRESTRICTED_PROMO, "promotional tickets not taken here")],
)
def test_a_rejected_ticket_comes_back_with_the_reason(floor, tmp_path, code, words):
    """A duplicate (already redeemed) or a promotional ticket is handed back,
    the reason on the table and in the journal, nothing credited."""
    host, proc = floor
    number = f"{SYSTEM_ID:02d}{VN16}"
    n = len(seen(host))
    _insert(proc, number)
    wait_for(lambda: "ticket_inserted" in seen(host)[n:], 10, "0x67")
    redeem(host, code, 100, number)
    wait_for(lambda: station(proc)["refusal"] == f"Ticket refused: {words}", 10, "the reason")
    wait_for(lambda: "ticket_transfer_complete" in seen(host)[n:], 10, "0x68")
    assert status_query(host).status >= 0x80
    assert station(proc)["credits_minor"] == 0
    proc.stop()
    assert [e["reason"] for e in _journal(tmp_path, "ticket_done")] == [words]


def test_the_link_pulled_mid_redemption_hands_the_ticket_back(floor, tmp_path):
    """The host stops polling while a ticket waits for it: link down -> the
    ticket comes back, "host offline" on the table, nothing credited."""
    host, proc = floor
    number = f"{SYSTEM_ID:02d}{VN16}"
    n = len(seen(host))
    _insert(proc, number)
    wait_for(lambda: "ticket_inserted" in seen(host)[n:], 10, "0x67")
    host.pause()
    try:
        wait_for(lambda: station(proc)["refusal"] == "Ticket refused: host offline", 15, "host offline")
    finally:
        host.resume()
    assert station(proc)["credits_minor"] == 0
    proc.stop()
    assert [e["result"] for e in _journal(tmp_path, "ticket_done")] == ["link_down"]


def _journal(tmp_path: Path, kind: str, station: int | None = None) -> list[dict]:
    """The data of the journal's ``kind`` events in order (of ``station`` only, if given)."""
    import sqlite3

    db = sqlite3.connect(tmp_path / "journal.db")
    try:
        if station is None:
            rows = db.execute("SELECT data FROM events WHERE kind = ? ORDER BY id", (kind,)).fetchall()
        else:
            rows = db.execute(
                "SELECT data FROM events WHERE kind = ? AND station = ? ORDER BY id", (kind, station)
            ).fetchall()
    finally:
        db.close()
    return [json.loads(d) for (d,) in rows]


def _two_station_floor(
    tmp_path: Path, twin: bool = False, timeout_s: int = 10, denomination_minor: int = 1, **tito: object
):
    import random

    from cabinet.core.events import PowerUp
    from cabinet.core.machine import new_state
    from cabinet.core.settings import GameSettings
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    store = Store(tmp_path / "journal.db")
    eng = Engine(store, rng=random.Random(1))
    eng.cab.s = new_state(GameSettings(variant="classic-multi", stations=2))
    eng.cab.rules = eng.cab.s.settings.validate()
    eng.step(PowerUp(0, 1.8e9))
    store.close()
    host = SasHost(
        [1, 2],
        directory=tmp_path / "host",
        db_path=tmp_path / "host.sqlite3",
        poll_interval_s=0.05,
        meter_interval_s=0.5,
        link_down_s=2.0,
    )
    if not twin:
        desk_only(host)
    for k, v in tito.items():  # the twin's ticket knobs, before link-up
        setattr(host.tito.config, k, v)
    cfg = tmp_path / "cabinet.toml"
    cfg.write_text(
        f'[sas]\nport = "{host.path(1)}"\naddress = 1\nvalidation = "system"\n'
        f"validation_timeout_s = {timeout_s}\n"
        f"accounting_denomination_minor = {denomination_minor}\n"
        f'[station2.sas]\nport = "{host.path(2)}"\naddress = 2\n'
    )
    proc = EngineProc(tmp_path, extra_args=["--config", str(cfg)])
    proc.start()
    wait_for(lambda: host.link_up(1) and host.link_up(2), 60, "both host links")
    wait_for(
        lambda: [s["host_link"] for s in proc.snapshot["stations"]] == ["online", "online"],
        60,
        "HOST ONLINE at both stations",
    )
    return host, proc


def test_a_ticket_printed_at_station_1_is_redeemed_at_station_2_once(tmp_path):
    """Over real ptys, each station its own EGM on its own SAS link
    to the host: a ticket printed at station 1 (the host's number) is redeemed at
    station 2 for exactly its amount; inserted again anywhere it is refused ("already
    redeemed"); both stations' meters read by the host (0x1C, 0x50) and by ``cabinet
    meters --json`` agree."""
    import subprocess
    import sys

    host, proc = _two_station_floor(tmp_path)
    desk = TicketDesk()
    runner = Desk(desk, machines=(1, 2))
    runner.host = host
    runner.start()
    try:
        _credit(proc, 2_000)
        proc.intent("cash_out")
        number = wait_for(lambda: desk.valid(), 15, "the ticket printed at station 1")[0]
        assert desk.tickets[number].machine == 1 and desk.tickets[number].amount == 2_000
        wait_for(lambda: proc.snapshot["mode"] in ("attract", "betting"), 10, "the table")
        _insert(proc, number, 2)
        wait_for(lambda: proc.snapshot["stations"][1]["credits_minor"] == 2_000, 15, "station 2 credited")
        wait_for(lambda: desk.tickets[number].state == "redeemed", 10, "redeemed at the host")
        for where in (2, 1):
            _insert(proc, number, where)
            wait_for(
                lambda where=where: (
                    proc.snapshot["stations"][where - 1]["refusal"] == "Ticket refused: already redeemed"
                ),
                15,
                f"refused at station {where}",
            )
        assert [s["credits_minor"] for s in proc.snapshot["stations"]] == [0, 2_000]
        time.sleep(1.0)  # the host's next 0x1C of each machine
        sas = {n: wait_for(lambda n=n: host.read_meters(n), 10, "0x1C") for n in (1, 2)}
        valid = {
            n: tw.parse_validation_meters(data(host.send(n, 0x50, bytes((kind,)))))
            for n, kind in ((1, tc.VT_CASHABLE_TICKET), (2, tc.VT_CASHABLE_TICKET_REDEEMED))
        }
    finally:
        runner.stop.set()
        proc.stop()
        host.close()
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(tmp_path / "journal.db"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    mine = {s["station"]: s["meters"] for s in json.loads(r.stdout)["stations"]}
    for n in (1, 2):
        m = mine[n]
        assert sas[n].drop == m["bills_in_minor"] + m["vouchers_in_minor"]
        assert (sas[n].coin_in, sas[n].coin_out) == sas_play_meters(m)
    assert (mine[1]["vouchers_out_count"], mine[1]["vouchers_out_minor"]) == (1, 2_000)
    assert (mine[2]["vouchers_in_count"], mine[2]["vouchers_in_minor"]) == (1, 2_000)
    assert valid[1] == (tc.VT_CASHABLE_TICKET, 1, 2_000)
    assert valid[2] == (tc.VT_CASHABLE_TICKET_REDEEMED, 1, 2_000)
    assert (sas[1].drop, sas[2].drop) == (2_000, 2_000)


# -- the host twin's own ticket system (tito-host's sas_host_tito.TicketFlow) -----------------


def _twin_floor(tmp_path: Path, timeout_s: int = 10, denomination_minor: int = 1, **tito: object):
    return _two_station_floor(tmp_path, twin=True, timeout_s=timeout_s, denomination_minor=denomination_minor, **tito)


def test_the_hosts_ticket_data_is_printed_on_the_ticket(tmp_path):
    """The venue lines and expiry the host sets at link-up (0x7D, 0x7B) are on
    the next ticket: location, both address lines, "VOID AFTER" its expiry days on."""
    import datetime as dt

    host, proc = _twin_floor(tmp_path, system_id=SYSTEM_ID, ticket_data=(12, 7, "LUCKY STRIKE", "1 MAIN ST", "RENO NV"))
    try:
        wait_for(
            lambda: (
                {"set_ticket_data", "set_extended_validation_status"}
                <= {e["command"] for e in _journal(tmp_path, "host_command", station=1)}
            ),
            60,
            "the link-up's 0x7D / 0x7B taken by station 1",
        )
        _credit(proc, 500)
        proc.intent("cash_out")
        (png,) = wait_for(lambda: proc.sim({"cmd": "tickets"})["tickets"], 15, "the ticket")
    finally:
        proc.stop()
        host.close()
    text = Path(png).with_suffix(".txt").read_text()
    assert "LUCKY STRIKE" in text and "1 MAIN ST" in text and "RENO NV" in text
    expiry = (dt.date.today() + dt.timedelta(days=7)).isoformat()
    assert f"VOID AFTER {expiry}" in text


@pytest.mark.parametrize("denomination_minor,system_id", [(1, 12), (5, 99), (25, 10), (100, 1)])
def test_with_the_host_twins_ticket_system_a_ticket_moves_between_stations_once(
    tmp_path, denomination_minor, system_id
):
    """With the host twin as the casino system: a ticket printed at
    station 1 is redeemed at station 2 for exactly its amount, refused again at both
    ("already redeemed"); the twin's record says issued by 1, redeemed by 2.  At every
    accounting denomination the amounts on the wire are cents (Monaco
    ``LP57SendPendingCashoutInformationParser.cs``, ``LP71RedeemTicketParser.cs``), so
    printed, recorded and credited agree to the cent; the validation system ID goes as
    1 BCD byte (``LP58ReceiveValidationNumberParser.cs``) and the printed number starts
    with the two digits the host sent (00 is a denial in 0x58, never printed)."""
    host, proc = _twin_floor(tmp_path, system_id=system_id, denomination_minor=denomination_minor)
    try:
        _credit(proc, 2_000)
        proc.intent("cash_out")
        row = wait_for(
            lambda: [r for r in host.tickets.tickets(1) if r["state"] == "printed"], 15, "the twin's printed ticket"
        )[0]
        number = row["number"]
        assert row["amount"] == 2_000 and number.startswith(f"{system_id:02d}")
        (png,) = proc.sim({"cmd": "tickets"})["tickets"]
        printed = Path(png).with_suffix(".txt").read_text()
        assert "$20.00" in printed
        assert [
            ln.split(None, 1)[1].replace("-", "") for ln in printed.splitlines() if ln.startswith("VALIDATION ")
        ] == [number]
        wait_for(lambda: proc.snapshot["mode"] in ("attract", "betting"), 10, "the table")
        _insert(proc, number, 2)
        wait_for(lambda: proc.snapshot["stations"][1]["credits_minor"] == 2_000, 15, "station 2 credited")
        wait_for(lambda: host.tickets.get(number)["state"] == "redeemed", 10, "redeemed")
        assert host.tickets.get(number)["redeemed_amount"] == 2_000
        assert host.tickets.get(number)["redeemed_by"] == 2
        for where in (1, 2):
            _insert(proc, number, where)
            wait_for(
                lambda where=where: (
                    proc.snapshot["stations"][where - 1]["refusal"] == "Ticket refused: already redeemed"
                ),
                15,
                f"refused at station {where}",
            )
        assert [s["credits_minor"] for s in proc.snapshot["stations"]] == [0, 2_000]
    finally:
        proc.stop()
        host.close()


@pytest.mark.parametrize(
    "knobs,words",
    [
        ({"deny_validation": True}, "validation denied by the casino host"),
        ({"answer_validation": False}, "no validation from the casino host within 2 s"),
    ],
)
def test_the_twin_denying_or_not_answering_gives_a_handpay(tmp_path, knobs, words):
    """The host twin denies the validation (0x58 system ID 00) or never
    answers 0x57: no ticket, a handpay with the reason, the twin voids nothing printed."""
    host, proc = _twin_floor(tmp_path, timeout_s=2, **knobs)
    try:

        def cash_out() -> None:
            _credit(proc, 500)
            proc.intent("cash_out")

        text, _ = handpay_reason(tmp_path, proc, cash_out)
        assert words in text
        assert proc.sim({"cmd": "tickets"})["tickets"] == []
        assert {r["state"] for r in host.tickets.tickets(1)} <= {"void"}
    finally:
        proc.stop()
        host.close()


def test_an_expired_ticket_is_refused_with_the_reason(tmp_path):
    """A ticket past the expiry the host gave it comes back "expired"."""
    host, proc = _twin_floor(tmp_path, system_id=SYSTEM_ID)
    try:
        number = host.tickets.issue(99, 700, 0, SYSTEM_ID, time.time() - 10, time.time() - 5)
        host.tickets.mark_printed(99, time.time() - 9)
        _insert(proc, number, 2)
        wait_for(lambda: proc.snapshot["stations"][1]["refusal"] == "Ticket refused: expired", 15, "expired")
        assert proc.snapshot["stations"][1]["credits_minor"] == 0
        assert host.tickets.get(number)["state"] == "printed"
    finally:
        proc.stop()
        host.close()

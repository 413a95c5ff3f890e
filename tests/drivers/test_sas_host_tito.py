"""The host twin's casino ticket database over real ptys, against test EGMs built
on the real pure responder (``sas_tito_egm.TitoEgm``): a ticket validated at machine 1
(0x57/0x58) is redeemed at machine 2 (0x67/0x70/0x71/0x68) for exactly its amount and
then refused everywhere; denied, unanswered and late validation; expired, unknown,
wrong-amount and pending-elsewhere tickets; a host restart mid-redemption (redeemed
exactly once); malformed replies."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import wait_for
from sas_tito_egm import TitoEgm

from drivers.sas import tito_codes as tc
from drivers.sim.sas_host import SasHost
from drivers.sim.sas_host_tickets import MachineTickets
from drivers.sim.sas_host_tito import TitoConfig
from drivers.sim.sas_host_view import floor_view, ticket_view

pytestmark = pytest.mark.timeout(180)

FAST = dict(poll_interval_s=0.02, reply_timeout_s=0.15, link_down_s=1.5, meter_interval_s=2.0)


class Wall:
    """A wall clock the test can move forward (ticket expiry)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        import time

        return time.time() + self.offset


def make_host(tmp_path: Path, wall: Wall | None = None, seed: int = 14, **tito: object) -> SasHost:
    return SasHost(
        [1, 2],
        directory=tmp_path,
        db_path=tmp_path / "host.sqlite3",
        wall=wall or Wall(),
        tito=TitoConfig(**tito),
        rng=random.Random(seed),
        **FAST,
    )  # type: ignore[arg-type]


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[tuple[SasHost, TitoEgm, TitoEgm]]:
    host = make_host(tmp_path)
    a, b = TitoEgm(host.tty(1), 1, credits=10_000), TitoEgm(host.tty(2), 2)
    wait_for(lambda: host.link_up(1) and host.link_up(2), 10)
    yield host, a, b
    a.close()
    b.close()
    host.close()


def print_ticket(egm: TitoEgm, amount: int) -> str:
    """Cash out ``amount`` at ``egm`` and wait until its ticket printed and the host read
    the ticket-printed exception (0x3D): only then may another machine redeem it."""
    before = len(egm.printed)
    egm.cash_out(amount)
    wait_for(lambda: len(egm.printed) > before, 10)
    wait_for(lambda: not egm.view.exceptions, 10)
    return egm.printed[-1][0]


def redeem(egm: TitoEgm, number: str, amount: int = 0, host: SasHost | None = None) -> None:
    """Insert ``number`` and wait until the EGM decided, the host read 0x68 and (with
    ``host``) recorded the ticket as no longer pending."""
    done = len(egm.redeemed) + len(egm.returned)
    egm.insert(number, amount)
    wait_for(lambda: len(egm.redeemed) + len(egm.returned) > done, 10)
    wait_for(lambda: not egm.view.exceptions, 10)  # 0x68 read: the host asked for the final status
    if host is not None:
        wait_for(lambda: host.tickets.pending_at(egm.address) == [], 10)


def state(host: SasHost, number: str) -> str:
    row = host.tickets.get(number)
    assert row is not None
    return str(row["state"])


def test_ticket_printed_at_one_machine_is_redeemed_at_another_exactly_once(
    floor: tuple[SasHost, TitoEgm, TitoEgm], tmp_path: Path
) -> None:
    """Validated at machine 1 via 0x57/0x58, redeemed at machine 2 for
    exactly its amount, then refused at 2 and at 1 as already redeemed; the floor totals agree."""
    host, a, b = floor
    number = print_ticket(a, 2500)
    assert len(number) == 18 and number.startswith("01") and a.credits == 7500
    wait_for(lambda: state(host, number) == "printed", 5)
    row = host.tickets.get(number)
    assert row is not None and (row["amount"], row["issued_by"], row["cashout_type"]) == (2500, 1, 0)
    redeem(b, number)
    assert b.redeemed == [(number, 2500)] and b.credits == 2500
    wait_for(lambda: state(host, number) == "redeemed", 5)
    row = host.tickets.get(number)
    assert row is not None and (row["redeemed_by"], row["redeemed_amount"]) == (2, 2500)
    redeem(b, number)
    redeem(a, number)
    assert b.returned == [(number, tc.TC_ALREADY_REDEEMED)] and a.returned == [(number, tc.TC_ALREADY_REDEEMED)]
    assert b.credits == 2500 and a.credits == 7500
    summary = host.ticket_summary()
    assert summary == [
        MachineTickets(1, 1, 2500, 0, 0, 0, 0, 0),
        MachineTickets(2, 0, 0, 1, 2500, 0, 0, 0),
        MachineTickets(0, 1, 2500, 1, 2500, 0, 0, 0),
    ]
    wait_for(lambda: host.meters(2).get("tickets_in_cents") == 2500, 5)  # 0x50 after 0x68
    assert (host.meters(1)["tickets_out"], host.meters(1)["tickets_out_cents"]) == (1, 2500)  # 0x50 after 0x3D
    assert host.meters(2)["tickets_in"] == 1
    with sqlite3.connect(tmp_path / "host.sqlite3") as con:  # the record is on disk
        assert con.execute("SELECT state, redeemed_amount FROM tickets").fetchall() == [("redeemed", 2500)]
    view = ticket_view(summary)
    assert "total" in view and "2500" in view


def test_denied_validation_ends_as_a_handpay_and_no_ticket(tmp_path: Path) -> None:
    """deny_validation answers 0x58 with system ID 00: the EGM pays by hand; the
    host records a denial and no ticket."""
    host = make_host(tmp_path, deny_validation=True)
    egm = TitoEgm(host.tty(1), 1, credits=900)
    try:
        egm.cash_out(900)
        wait_for(lambda: egm.handpays == [900], 10)
        assert egm.printed == [] and host.tickets.tickets() == []
        assert any(e[1] == "validation_denied" for e in host.tickets.events())
        assert host.tito.counts["denied"] == 1
    finally:
        egm.close()
        host.close()


def test_unanswered_validation_times_out_to_a_handpay(tmp_path: Path) -> None:
    """answer_validation=False: the EGM's timeout makes a handpay; no ticket."""
    host = make_host(tmp_path, answer_validation=False)
    egm = TitoEgm(host.tty(1), 1, credits=900, validation_timeout_s=1.0)
    try:
        egm.cash_out(900)
        wait_for(lambda: egm.handpays == [900], 10)
        assert egm.printed == [] and host.tickets.tickets() == []
    finally:
        egm.close()
        host.close()


def test_a_late_validation_is_void_and_cannot_be_redeemed(tmp_path: Path) -> None:
    """The host answers after the EGM gave up (handpay): the number it issued is
    void (0x58 answered 80 / the 0x51) and refused if anyone presents it."""
    host = make_host(tmp_path, validation_delay_s=1.5)
    a, b = TitoEgm(host.tty(1), 1, credits=900, validation_timeout_s=0.5), TitoEgm(host.tty(2), 2)
    try:
        a.cash_out(900)
        wait_for(lambda: a.handpays == [900], 10)
        wait_for(lambda: bool(host.tickets.tickets()) and host.tickets.tickets()[0]["state"] == "void", 10)
        number = host.tickets.tickets()[0]["number"]
        redeem(b, number)
        assert b.returned == [(number, tc.TC_REJECTED)] and b.credits == 0
    finally:
        a.close()
        b.close()
        host.close()


def test_expired_unknown_and_wrong_amount_tickets_are_refused(tmp_path: Path) -> None:
    """An unknown number -> 82, the amount read differs from the record -> 87, a
    ticket past its expiry -> 85; each is returned, nothing credited, the ticket stays valid."""
    wall = Wall()
    host = make_host(tmp_path, wall, expiry_days=30)
    a, b = TitoEgm(host.tty(1), 1, credits=5000), TitoEgm(host.tty(2), 2)
    try:
        wait_for(lambda: host.link_up(1) and host.link_up(2), 10)
        number = print_ticket(a, 1200)
        redeem(b, "019999999999999999")
        redeem(b, number, amount=1300)
        wall.offset = 31 * 86400.0
        redeem(b, number)
        assert b.returned == [
            ("019999999999999999", tc.TC_NOT_IN_SYSTEM),
            (number, tc.TC_AMOUNT_MISMATCH),
            (number, tc.TC_EXPIRED),
        ]
        assert b.credits == 0 and b.redeemed == [] and state(host, number) == "printed"
    finally:
        a.close()
        b.close()
        host.close()


def test_a_ticket_pending_at_one_machine_is_refused_at_another(floor: tuple[SasHost, TitoEgm, TitoEgm]) -> None:
    """While machine 2 holds the ticket pending, machine 1 gets 83; then 2 redeems it."""
    host, a, b = floor
    number = print_ticket(a, 700)
    b.hold = True
    b.insert(number)
    wait_for(lambda: state(host, number) == "pending", 10)
    redeem(a, number)
    assert a.returned == [(number, tc.TC_PENDING_ELSEWHERE)]
    b.release()
    wait_for(lambda: state(host, number) == "redeemed", 10)
    assert b.redeemed == [(number, 700)] and host.tickets.pending_at(2) == []


@pytest.mark.parametrize("decided_while_down", [False, True])
def test_host_restart_between_pending_and_0x68_redeems_exactly_once(tmp_path: Path, decided_while_down: bool) -> None:
    """The host twin is closed after 0x71 (pending, persisted) and started again on
    the same database: at link-up it asks 0x71 FF, re-sends the redeem when undecided (the
    EGM hands it to its engine once), and records the outcome: credited once, redeemed once."""
    host = make_host(tmp_path)
    a, b = TitoEgm(host.tty(1), 1, credits=3000), TitoEgm(host.tty(2), 2)
    try:
        number = print_ticket(a, 3000)
        b.hold = True
        b.insert(number)
        wait_for(lambda: state(host, number) == "pending", 10)
        wait_for(lambda: any(c.name == "redeem_ticket" for c in b.commands), 10)  # the EGM has the 0x71
        host.close()
        if decided_while_down:
            b.release()
        host = make_host(tmp_path, seed=15)
        assert state(host, number) == "pending"
        a.open(host.tty(1))
        b.open(host.tty(2))
        wait_for(lambda: host.link_up(2), 10)
        if not decided_while_down:
            try:
                wait_for(lambda: len([e for e in host.tickets.events(number) if e[1] == "redeem"]) == 2, 10)
            except AssertionError:
                raise AssertionError(repr(host.tickets.events(number)) + repr(host.tito.counts)) from None
            assert sum(c.name == "redeem_ticket" for c in b.commands) == 1  # the EGM took the repeat as one
            b.release()
        try:
            wait_for(lambda: state(host, number) == "redeemed", 10)
        except AssertionError:
            raise AssertionError(repr(host.tickets.events(number)) + b.crash + a.crash) from None
        assert b.redeemed == [(number, 3000)] and b.credits == 3000
        assert sum(c.name == "redeem_ticket" for c in b.commands) == 1
        assert [e[1] for e in host.tickets.events(number)].count("redeemed") == 1
        redeem(a, number)
        assert a.returned == [(number, tc.TC_ALREADY_REDEEMED)]
    finally:
        a.close()
        b.close()
        host.close()


def test_malformed_replies_are_logged_and_lose_nothing(floor: tuple[SasHost, TitoEgm, TitoEgm]) -> None:
    """A 0x70 reply with a non-BCD amount and a 0x57 reply of the wrong length are
    logged as bad replies; nothing is redeemed or issued from them; once the EGM answers
    properly the same ticket is redeemed."""
    host, a, b = floor
    number = print_ticket(a, 400)
    b.mangle[0x70] = lambda data: data[:2] + b"\xaa" + data[3:]  # amount byte not BCD
    b.redeem_timeout_s = 1.0
    redeem(b, number)
    assert b.returned == [(number, tc.STATUS_TIMEOUT)] and b.credits == 0
    assert state(host, number) == "printed"
    assert any(e[1] == "bad_reply" and e[2] == 0x70 for e in host.tickets.events())
    del b.mangle[0x70]
    redeem(b, number)
    assert b.redeemed == [(number, 400)]
    a.mangle[0x57] = lambda data: data[:-1]
    a.validation_timeout_s = 1.0
    a.cash_out(100)
    wait_for(lambda: a.handpays == [100], 10)
    assert [t["number"] for t in host.tickets.tickets()] == [number]
    assert host.tito.counts["bad_replies"] >= 1


def test_a_busy_egm_is_asked_again(floor: tuple[SasHost, TitoEgm, TitoEgm]) -> None:
    """Busy (address 00) to 0x57 and to 0x70: the host runs the job again shortly
    and the ticket is issued and redeemed all the same."""
    host, a, b = floor
    a.busy[0x57] = 2
    number = print_ticket(a, 800)
    b.busy[0x70] = 1
    redeem(b, number, host=host)
    assert b.redeemed == [(number, 800)] and host.tito.counts["busy"] == 3


def test_floor_view_shows_tickets_per_machine_and_in_total(floor: tuple[SasHost, TitoEgm, TitoEgm]) -> None:
    """The floor view lists tickets issued, redeemed and outstanding per machine and in total."""
    host, a, b = floor
    first = print_ticket(a, 1000)
    print_ticket(a, 250)
    redeem(b, first, host=host)
    text = ticket_view(host.ticket_summary())
    lines = text.splitlines()
    assert lines[0].startswith("tickets")
    assert [line.split() for line in lines[2:]] == [
        ["1", "2", "1250", "0", "0", "1", "250"],
        ["2", "0", "0", "1", "1000", "0", "0"],
        ["total", "2", "1250", "1", "1000", "1", "250"],
    ]
    assert "tickets" in floor_view(host.status(), tickets=host.ticket_summary())


def test_control_socket_ticket_commands(floor: tuple[SasHost, TitoEgm, TitoEgm]) -> None:
    """``tickets`` lists the summary and every record; ``tito`` sets the knobs
    (bad values refused with a reason); ``view`` carries the ticket table."""
    import json

    from drivers.sim.sas_host_cli import host_command

    host, a, b = floor
    number = print_ticket(a, 600)

    def ask(request: dict[str, object]) -> dict[str, object]:
        return host_command(host, json.dumps(request))

    got = ask({"cmd": "tickets"})
    assert got["ok"] is True
    assert got["summary"][-1] == {
        "address": 0,
        "issued": 1,
        "issued_amount": 600,
        "redeemed": 0,  # type: ignore[index]
        "redeemed_amount": 0,
        "outstanding": 1,
        "outstanding_amount": 600,
        "pending": 0,
    }
    assert [t["number"] for t in got["tickets"]] == [number]  # type: ignore[union-attr]
    assert ask({"cmd": "tito", "deny_validation": True, "validation_delay_s": 0.5}) == {
        "ok": True,
        "deny_validation": True,
        "answer_validation": True,
        "validation_delay_s": 0.5,
        "expiry_days": 30.0,
    }
    assert host.tito.config.deny_validation is True
    assert ask({"cmd": "tito", "expiry_days": -1})["error"] == 'tito: "expiry_days" must be a number >= 0'
    assert ask({"cmd": "tito", "deny_validation": 1})["ok"] is False
    assert "tickets" in str(ask({"cmd": "view"})["view"])
    a.cash_out(100)
    wait_for(lambda: a.handpays == [100], 10)


def test_ticket_data_is_sent_at_link_up(tmp_path: Path) -> None:
    """With ticket_data configured the host sends 0x7D (venue lines, expiry) and 0x7B
    (printer as cash-out device, ticket redemption, the expiry) at link-up; the EGM hands both."""
    host = make_host(tmp_path, ticket_data=(7, 30, "Lakeside Casino", "1 Shore Rd", "Bay City"))
    egm = TitoEgm(host.tty(1), 1)
    try:
        wait_for(lambda: {c.name for c in egm.commands} >= {"set_ticket_data", "set_extended_validation_status"}, 10)
        (td,) = [c.ticket_data for c in egm.commands if c.name == "set_ticket_data"]
        assert td is not None and (td.host_id, td.expiration_days, td.location, td.address1, td.address2) == (
            7,
            30,
            "Lakeside Casino",
            "1 Shore Rd",
            "Bay City",
        )
        (vs,) = [c.validation_control for c in egm.commands if c.name == "set_extended_validation_status"]
        assert vs == (
            tc.VS_PRINTER_CASHOUT | tc.VS_TICKET_REDEMPTION,
            tc.VS_PRINTER_CASHOUT | tc.VS_TICKET_REDEMPTION,
            30,
            0,
        )
    finally:
        egm.close()
        host.close()

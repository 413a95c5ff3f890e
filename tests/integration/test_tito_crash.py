"""Crash tests (the in-suite size; ``bench/tito_crash.py`` runs
>= 100 kill points each): SIGKILL of the engine anywhere between a ticket's 0x67 and its
final 0x71 status (credited once, or returned and still valid at the host: never both,
never neither), anywhere between a cash-out's 0x57 and its printed ticket (one ticket or
one handpay, and the host's record agrees); the same with the host twin killed and
restarted instead. The casino's ticket system is the test's ticket desk (every TITO
long poll sent by the test) or the host twin's own ticket database and flow
(tito-host's ``sas_host_tito``). ``TITO_CRASH_POINTS`` changes the count (default 2 each)."""

from __future__ import annotations

import os

import pytest

from .tito_harness import tito_soak

pytestmark = pytest.mark.timeout(300)

POINTS = int(os.environ.get("TITO_CRASH_POINTS", "2"))


@pytest.mark.parametrize("system", ["desk", "twin"])
@pytest.mark.parametrize("flow", ["in", "out"])
def test_engine_killed_mid_ticket_moves_money_exactly_once(tmp_path, flow, system):
    """SIGKILL the engine between 0x67 and the final 0x71 ("in") or between
    0x57 and the printed ticket ("out"); restart; the host's ticket record, the journal
    and the devices agree."""
    res = tito_soak(tmp_path, POINTS, seed=14 if flow == "in" else 41, flow=flow, system=system)
    assert res.failures == [], res
    assert res.kills == res.checks == POINTS


@pytest.mark.parametrize("system", ["desk", "twin"])
def test_host_twin_killed_mid_ticket_moves_money_exactly_once(tmp_path, system):
    """The same with the host twin closed and a new one started on the same
    pty path and database instead (the engine's link goes down and comes back)."""
    res = tito_soak(tmp_path, POINTS, seed=1414, flow="both", kill_host=True, system=system)
    assert res.failures == [], res
    assert res.kills == res.checks == POINTS


def test_ticket_in_the_cash_box_at_a_power_cut_is_redeemed_once_through_the_host(tmp_path):
    """The acceptor loses power at STACKING / VEND VALID with a ticket and the engine is
    killed: after the restart the ticket is credited once (the host's go was journaled,
    or the attendant's key sends it to the host) or handed back and still valid at the
    host; the host's record, the journal and the cash box agree."""
    res = tito_soak(tmp_path, POINTS, seed=61, flow="in", system="twin", power_cut=True)
    assert res.failures == [], res
    assert res.kills == res.checks == POINTS

"""Two cabinets and the casino host twin, killed at random moments of a cash-out at A
and of the redemption of A's ticket at B, the host twin restarted now and then: no
ticket is paid twice, none is lost (``tito_floor``; ``bench/tito_crash.py --flow floor``
runs >= 50). ``TITO_FLOOR_KILLS`` changes the count (default 3)."""

from __future__ import annotations

import os

import pytest

from .tito_floor import floor_soak

pytestmark = pytest.mark.timeout(300)

KILLS = int(os.environ.get("TITO_FLOOR_KILLS", "3"))


def test_a_ticket_cut_before_a_power_loss_is_paid_once_across_two_cabinets(tmp_path):
    """A's printer cuts the host-numbered ticket and A loses power before journaling it;
    the ticket goes into B while A is down; A restarts: paid once (at B, or by hand at
    A once the host voided it), never twice, never lost."""
    res = floor_soak(tmp_path, KILLS, seed=23)
    assert res.failures == [], res
    assert res.checks == KILLS

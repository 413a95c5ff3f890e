"""Wall-clock jumps are journaled, and a voucher's expiry counts from its
issue as journaled, not from a clock that was wrong then."""

from __future__ import annotations

import msgspec

from cabinet.core.effects import Journal, PrintVoucher, ReturnNote, StackNote
from cabinet.core.events import PowerUp, PrintFinished, Tick, VoucherEscrowed
from cabinet.core.machine import Cabinet

from .helpers import Rig

DAY = 86_400


def _clock_jumps(effects):
    return [e for e in effects if isinstance(e, Journal) and e.kind == "clock_jump"]


def _voucher(rig, amount=2000):
    rig.note(amount)
    eff = rig.press("cash_out")
    rec = next(e.record for e in eff if isinstance(e, PrintVoucher))
    rig.cab.handle(PrintFinished(1, rec.validation_number, "done"))
    return msgspec.structs.replace(rec, status="issued")


def _set_clock(rig, wall_s):
    """The wall clock is stepped (NTP, an operator) while 100 ms pass."""
    rig.now_ms += 100
    rig.wall_s = wall_s
    return rig.cab.handle(Tick(rig.now_ms, rig.wall_s))


def test_ticket_printed_while_the_clock_ran_60_days_slow_is_still_good(tmp_path):
    """A ticket printed on a clock 60 days slow is not refused as expired
    once the clock is corrected; the correction is journaled with old and new time."""
    rig = Rig()
    true_now = rig.wall_s
    rig.wall_s = true_now - 60 * DAY
    rig.advance(100)
    rec = _voucher(rig)
    slow = rig.wall_s
    eff = _set_clock(rig, true_now)
    (jump,) = _clock_jumps(eff)
    assert jump.data["old_wall_s"] == slow and jump.data["new_wall_s"] == true_now
    assert abs(jump.data["jump_s"] - 60 * DAY) < 1
    rig.advance(DAY * 1000)  # a day later
    eff = rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec, "v1"))
    assert StackNote(1) in eff, eff


def test_clock_going_back_400_days_is_journaled():
    """Wall time going backwards 400 days is logged as a clock jump, and
    an honest ticket does not become good for 400 more days."""
    rig = Rig()
    rec = _voucher(rig)
    before = rig.wall_s
    eff = _set_clock(rig, before - 400 * DAY)
    (jump,) = _clock_jumps(eff)
    assert jump.data["old_wall_s"] == before and jump.data["new_wall_s"] == before - 400 * DAY
    assert jump.data["jump_s"] < -399 * DAY
    rig.advance(31 * DAY * 1000)  # 31 days of real time: expired
    eff = rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec, "v1"))
    assert isinstance(eff[-1], ReturnNote) or any(isinstance(e, ReturnNote) for e in eff)


def test_ordinary_ticks_and_small_steps_are_not_clock_jumps():
    """Time that runs as the monotonic clock does is not a jump."""
    rig = Rig()
    for _ in range(50):
        assert not _clock_jumps(rig.advance(100))
    assert not _clock_jumps(_set_clock(rig, rig.wall_s + 0.6))


def test_clock_behind_the_journal_at_power_up_is_journaled():
    """A restart whose wall time is before the journal's last is a jump."""
    rig = Rig()
    rig.advance(1000)
    last = rig.cab.s.wall_s
    cab = Cabinet(rig.cab.s)
    eff = cab.handle(PowerUp(5, last - 3 * DAY))
    (jump,) = _clock_jumps(eff)
    assert jump.data["old_wall_s"] == last and jump.data["new_wall_s"] == last - 3 * DAY


def test_expired_ticket_sends_the_player_to_the_attendant():
    """A ticket refused as expired says "expired - see attendant" (journaled)."""
    rig = Rig()
    rec = _voucher(rig)
    rig.advance(31 * DAY * 1000)
    eff = rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec, "v1"))
    back = [e for e in eff if isinstance(e, ReturnNote)]
    assert back and back[0].reason == "expired - see attendant"
    refused = [e for e in eff if isinstance(e, Journal) and e.kind == "voucher_refused"]
    assert refused and refused[0].data["reason"] == "expired - see attendant"
    assert refused[0].data["validation_number"] == rec.validation_number

"""On a table of several stations a cash-out and a dark screen belong to their station:
each station has its own printer and its own screen, so one station's ticket or dark
display never stops another's play, and a station nobody can see takes no money and
no presses."""

from __future__ import annotations

from cabinet.core.effects import (
    Journal,
    PrintVoucher,
    Rejected,
    ReturnNote,
    SetAcceptor,
    SetTowerLight,
    StackNote,
)
from cabinet.core.events import (
    DisplayChanged,
    IntentReceived,
    NoteEscrowed,
    PowerUp,
    PrintFinished,
)
from cabinet.core.machine import Cabinet
from cabinet.core.settings import GameSettings

from .helpers import LinkedRig, Rig

BILLS = (100, 500, 1_000, 2_000, 5_000, 10_000)


def _three(*credits_minor: int) -> Rig:
    rig = LinkedRig(GameSettings(variant="classic-multi", stations=3))
    for n, amount in enumerate(credits_minor, 1):
        if amount:
            rig.note(amount, n)
    return rig


def _prints(effects) -> list[PrintVoucher]:
    return [e for e in effects if isinstance(e, PrintVoucher)]


# -- a cash-out is its station's ---------------------------------------------------------


def test_a_second_station_cashes_out_while_the_first_ticket_prints():
    """Station 1 cashes out; a second later station 2 does too: its own printer prints
    its own ticket at once (concurrently), its $105 leaves the credit meter, and
    station 3 plays on meanwhile."""
    rig = _three(10_000, 10_500, 2_000)
    first = _prints(rig.press("cash_out", 1))
    assert [(p.record.station, p.record.amount_minor) for p in first] == [(1, 10_000)]
    rig.advance(1_000)
    eff = rig.press("cash_out", 2)
    assert not any(isinstance(e, Rejected) for e in eff), eff
    second = _prints(eff)
    assert [(p.record.station, p.record.amount_minor) for p in second] == [(2, 10_500)]
    st2 = rig.cab.s.stations[1]
    assert (st2.credits_minor, st2.pending_out_minor) == (0, 10_500)
    # each station's screen says its own ticket; station 3 bets on, its buttons lit
    snap = rig.cab.snapshot(1)
    assert snap.stations[0].message == "Printing ticket for $100.00"
    assert snap.stations[1].message == "Printing ticket for $105.00"
    assert snap.stations[2].message != "Printing ticket for $105.00"
    assert snap.overlay is None
    assert rig.cab.legal_actions(1) == frozenset() == rig.cab.legal_actions(2)
    assert {"bet_up", "cash_out"} <= rig.cab.legal_actions(3)
    rig.press("bet_up", 3)
    assert rig.cab.s.stations[2].bets_minor[0] > 0
    # each printer's verdict closes its own ticket, in any order
    rig.cab.handle(PrintFinished(2, second[0].record.validation_number, "done"))
    rig.cab.handle(PrintFinished(1, first[0].record.validation_number, "done"))
    assert [st.meters.vouchers_out_minor for st in rig.cab.s.stations] == [10_000, 10_500, 0]
    assert [st.pending_out_minor for st in rig.cab.s.stations] == [0, 0, 0]
    assert rig.balanced()


def test_a_station_cannot_take_notes_while_its_own_ticket_prints():
    """A station whose ticket is printing takes no note (its acceptor off); the others do."""
    rig = _three(10_000, 0, 0)
    eff = rig.press("cash_out", 1)
    assert SetAcceptor(1, False, BILLS) in eff
    assert not any(isinstance(e, SetAcceptor) and e.station != 1 for e in eff)
    assert isinstance(rig.cab.handle(NoteEscrowed(1, 2_000, "a"))[0], ReturnNote)
    assert any(isinstance(e, StackNote) for e in rig.cab.handle(NoteEscrowed(2, 2_000, "b")))


def test_two_tickets_in_flight_at_a_power_cut_become_two_handpays():
    """Both stations' prints were sent, neither verdict journaled, the power cut: each
    outcome is unknown, so each becomes its own handpay (never a reprint)."""
    rig = _three(10_000, 10_500, 0)
    rig.press("cash_out", 1)
    rig.press("cash_out", 2)
    state = rig.cab.s
    cab = Cabinet(state, rig.cab.round_dict())
    eff = cab.handle(PowerUp(0, rig.wall_s + 5))
    assert not _prints(eff)
    hps = [cab.s.handpay, *cab.s.handpay_queue]
    assert sorted((h.station, h.amount_minor) for h in hps) == [(1, 10_000), (2, 10_500)]
    assert all(h.reason == "print unknown" for h in hps)
    assert all(st.printing is None for st in cab.s.stations)


def test_two_stations_wait_for_the_casino_host_s_validation_numbers_at_once():
    """System validation: station 1's cash-out waits for the host's number; station 2
    cashes out meanwhile and waits for its own, its screen saying so; each number
    prints its own ticket on its own printer."""
    import random

    from cabinet.core.events import HostCommanded, HostLinkChanged, HostLinkConfigured
    from cabinet.core.machine import new_state

    rig = Rig()
    rig.cab = Cabinet(new_state(GameSettings(variant="classic-multi", stations=3)), rng=random.Random(1))
    for n in (1, 2):
        rig.cab.handle(HostLinkConfigured(n, n, f"/dev/pts/{n}", rig.wall_s, "system"))
    rig.cab.handle(PowerUp(0, rig.wall_s))
    for n in (1, 2):
        rig.cab.handle(HostLinkChanged(n, True))
        rig.note(10_000 + 500 * (n - 1), n)
    rig.press("cash_out", 1)
    rig.advance(1_000)
    assert not any(isinstance(e, Rejected) for e in rig.press("cash_out", 2))
    assert [st.host.pending_cashout.amount_minor for st in rig.cab.s.stations[:2]] == [10_000, 10_500]
    assert rig.cab.snapshot(1).stations[1].message == "Ticket for $105.00: validating with the casino host"
    assert rig.cab.mode == "attract"  # not locked in a cash-out: station 3 may play
    out = []
    for n, vn in ((2, "000000000000000002"), (1, "000000000000000001")):
        out += rig.cab.handle(HostCommanded(n, "validation_number", validation_number=vn))
    assert sorted((p.record.station, p.record.validation_number) for p in _prints(out)) == [
        (1, "000000000000000001"),
        (2, "000000000000000002"),
    ]
    assert rig.cab.snapshot(2).stations[1].message == "Printing ticket for $105.00"


def test_one_station_cabinet_still_locks_in_cash_out_while_it_prints():
    """A table of one station: the print is the cabinet's cash-out mode, as before."""
    rig = Rig()
    rig.note(10_000)
    rig.press("cash_out")
    assert rig.cab.mode == "cash_out"
    snap = rig.cab.snapshot(1)
    assert snap.overlay == "printing" and snap.overlay_text == "Printing ticket for $100.00"


# -- a note needs its station's screen ------------------------------------------------------


def test_a_note_at_a_station_whose_own_screen_is_not_drawing_is_returned():
    """Station 1's screen draws, station 2's is still waiting for its display: station 2's
    acceptor is off and a note there comes back; station 1 takes notes."""
    rig = _three(0, 0, 0)
    rig.cab.handle(DisplayChanged(False))  # the table screen: none yet
    eff = rig.cab.handle(DisplayChanged(True, station=1))
    assert SetAcceptor(1, True, BILLS) in eff
    assert rig.cab._acceptor[2][0] is False and rig.cab._acceptor[3][0] is False
    out = rig.cab.handle(NoteEscrowed(2, 5_000, "n2"))
    assert [e.reason for e in out if isinstance(e, ReturnNote)] == ["no display showing the table"]
    assert not any(isinstance(e, StackNote) for e in out)
    assert any(isinstance(e, StackNote) for e in rig.cab.handle(NoteEscrowed(1, 5_000, "n1")))
    eff = rig.cab.handle(DisplayChanged(True, station=2))
    assert SetAcceptor(2, True, BILLS) in eff
    assert any(isinstance(e, StackNote) for e in rig.cab.handle(NoteEscrowed(2, 5_000, "n3")))


def test_the_shared_table_screen_draws_every_station():
    """A screen that draws the whole table (``station`` 0) shows every station."""
    rig = _three(0, 0, 0)
    rig.cab.handle(DisplayChanged(False))
    rig.cab.handle(DisplayChanged(True))
    assert all(rig.cab._acceptor[n][0] for n in (1, 2, 3))


# -- a dark screen puts its station out of service ----------------------------------------------


def _dark(rig: Rig, station: int) -> list:
    """Station ``station``'s own screen draws, then goes dark for the fault's delay."""
    from cabinet.core.displays import DISPLAY_DARK_MS

    rig.cab.handle(DisplayChanged(False))
    for n in (1, 2, 3):
        rig.cab.handle(DisplayChanged(True, station=n))
    eff = rig.cab.handle(DisplayChanged(False, station=station))
    eff += rig.advance(DISPLAY_DARK_MS + 500)
    return eff


def test_a_dark_screen_takes_its_station_out_of_service():
    """No frames from station 2's screen for a few seconds: fault 600 at station 2, the
    tower light calls the attendant, its EGM reports a tilt to the host, its buttons do
    nothing; stations 1 and 3 play on. The screen drawing again clears it."""
    rig = _three(10_000, 10_000, 10_000)
    rig.press("bet_up", 2)
    eff = _dark(rig, 2)
    assert rig.cab.s.stations[1].faults.get("display_dark")
    assert SetTowerLight("tilt") in eff
    faults = [e for e in eff if isinstance(e, Journal) and e.kind == "fault"]
    assert [(j.station, j.data["code"]) for j in faults] == [(2, "display_dark")]
    assert [ev.name for ev in rig.cab.s.stations[1].host.queue][-1:] == ["general_tilt"]
    assert "general_tilt" not in [ev.name for ev in rig.cab.s.stations[0].host.queue]
    assert rig.cab.legal_actions(2) == frozenset()
    before = rig.cab.s.stations[1].bets_minor[:]
    for action in ("bet_up", "deal", "cash_out", "clear"):
        out = rig.press(action, 2)
        assert any(isinstance(e, Rejected) for e in out), action
    assert rig.cab.s.stations[1].bets_minor == before
    assert "bet_up" in rig.cab.legal_actions(1)
    assert rig.cab.mode == "betting"
    eff = rig.cab.handle(DisplayChanged(True, station=2))
    assert "display_dark" not in rig.cab.s.stations[1].faults
    assert SetTowerLight("off") in eff
    assert "bet_up" in rig.cab.legal_actions(2)


def test_a_dark_screen_mid_round_freezes_its_turn_until_it_returns():
    """Station 2's screen goes dark at its turn: the decision timer does not stand for
    it, its buttons do nothing; the screen back, the round goes on where it was."""
    rig = _three(10_000, 10_000, 0)
    for n in (1, 2):
        rig.press("bet_up", n)
    rig.press("deal", 1)
    rig.press("deal", 2)
    assert rig.cab.mode == "in_round"
    while rig.cab.round.prompt is not None and rig.cab.round.prompt.seat != 2:
        p = rig.cab.round.prompt
        rig.press("decline" if p.kind == "insurance" else "stand", p.seat)
    assert rig.cab.round.prompt.seat == 2  # this seed deals station 2 a turn
    cards = rig.cab.round.to_dict()
    _dark(rig, 2)
    for _ in range(10):
        rig.advance(10_000)  # far past the decision timer
    assert rig.cab.mode == "in_round"
    assert rig.cab.round.to_dict() == cards  # nothing moved
    assert rig.cab.legal_actions(2) == frozenset()
    assert any(isinstance(e, Rejected) for e in rig.press("stand", 2))
    rig.cab.handle(DisplayChanged(True, station=2))
    assert rig.cab.legal_actions(2)
    rig.advance(1_000)
    assert rig.cab.round.to_dict() == cards  # the timer starts again, not expired
    rig.play_out()
    assert rig.cab.mode == "betting" and rig.balanced()


def test_a_dark_screen_on_a_one_station_cabinet_tilts_and_freezes_the_round():
    """One station, its only screen dark mid-round: tilt 600, no button plays, nothing
    moves; the screen back, the same prompt waits for the player."""
    from cabinet.core.displays import DISPLAY_DARK_MS

    rig = Rig()
    rig.note(10_000)
    rig.press("bet_up")
    rig.press("deal")
    assert rig.cab.mode == "in_round"  # this seed deals a hand to play
    cards = rig.cab.round.to_dict()
    rig.cab.handle(DisplayChanged(True))  # the screen drew, then stops
    rig.cab.handle(DisplayChanged(False))
    eff = rig.advance(DISPLAY_DARK_MS + 500)
    assert rig.cab.mode == "tilt" and SetTowerLight("tilt") in eff
    assert rig.cab.legal_actions(1) == frozenset()
    rig.press("stand")
    assert rig.cab.round.to_dict() == cards
    rig.cab.handle(DisplayChanged(True))
    assert rig.cab.mode == "in_round" and rig.cab.round.to_dict() == cards
    assert "stand" in rig.cab.legal_actions(1)


def test_a_button_press_on_a_screen_not_drawing_yet_does_nothing():
    """Before the fault's delay too: a station nobody can see does not bet."""
    rig = _three(10_000, 10_000, 0)
    rig.cab.handle(DisplayChanged(False))
    rig.cab.handle(DisplayChanged(True, station=1))
    out = rig.cab.handle(IntentReceived(2, "bet_up", None))
    assert any(isinstance(e, Rejected) for e in out)
    assert not any(rig.cab.s.stations[1].bets_minor)


def test_a_print_held_for_the_whole_cabinet_in_a_journal_settles_at_power_up():
    """A journal that holds its print in flight for the cabinet as a whole (``printing``
    of the cabinet state): power-up settles it as any print in flight, a handpay."""
    from cabinet.core.state import PrintingState

    rig = Rig()
    rig.note(2_000)
    rig.press("cash_out")
    p = rig.cab.s.stations[0].printing
    state = rig.cab.s
    state.stations[0].printing = None
    state.printing = PrintingState(
        station=1, validation_number=p.validation_number, amount_minor=p.amount_minor, started_ms=p.started_ms
    )
    cab = Cabinet(state, None)
    cab.handle(PowerUp(0, rig.wall_s + 5))
    assert cab.s.printing is None and cab.mode == "handpay"
    assert (cab.s.handpay.amount_minor, cab.s.handpay.validation_number) == (2_000, p.validation_number)


def test_a_screen_starting_up_gets_longer_before_the_fault():
    """At start no screen has drawn yet (its UI is starting): no presses and no notes at
    once, but the fault only after ``DISPLAY_START_MS``, so a normal start raises none."""
    from cabinet.core.displays import DISPLAY_DARK_MS, DISPLAY_START_MS

    rig = _three(10_000, 0, 0)
    rig.cab.handle(DisplayChanged(False))
    assert rig.cab.legal_actions(1) == frozenset()
    rig.advance(DISPLAY_DARK_MS + 500)
    assert not any(st.faults for st in rig.cab.s.stations)
    rig.advance(DISPLAY_START_MS - DISPLAY_DARK_MS)
    assert [list(st.faults) for st in rig.cab.s.stations] == [["display_dark"]] * 3
    rig.cab.handle(DisplayChanged(True))
    assert not any(st.faults for st in rig.cab.s.stations) and "bet_up" in rig.cab.legal_actions(1)

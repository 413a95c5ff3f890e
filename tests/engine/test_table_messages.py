"""Per-station messages, recall per seat and the reasons a player is told."""

from __future__ import annotations

from cabinet.core.settings import GameSettings

from .helpers import Rig


def _multi(stations: int = 2) -> Rig:
    return Rig(GameSettings(variant="classic-multi", stations=stations))


def _bet(rig: Rig, station: int, chip: int, spot: int = 1) -> None:
    rig.press("chip", station, chip)
    rig.press("place", station, spot)


def test_multi_station_results_are_each_stations_own(stacked):
    """Station 1 wins $5 and station 2 wins $25: nobody is told "You win $30.00"."""
    rig = _multi()
    rig.note(10_000, 1)
    rig.note(10_000, 2)
    stacked.append(["10S", "10H", "10C", "9H", "9D", "7S", "2C", "3C"])
    _bet(rig, 1, 500)
    _bet(rig, 2, 2_500)
    rig.press("deal", 1)
    rig.press("deal", 2)
    rig.play_out()
    assert rig.cab.mode == "betting"
    snap = rig.cab.snapshot(1)
    st1, st2 = snap.stations
    assert st1.win_minor == 1_000 and st2.win_minor == 5_000
    assert st1.message == "You win $5.00"
    assert st2.message == "You win $25.00"
    assert "$30.00" not in snap.message
    assert snap.message == "Station 1 wins $5.00 · Station 2 wins $25.00"


def test_american_blackjack_is_announced_for_its_spot(stacked):
    """Spot 1's Blackjack paid $7.50, spot 2 lost: not "Blackjack! You win $2.50"."""
    rig = Rig(GameSettings(variant="american"))
    rig.note(10_000)
    stacked.append(["AS", "10H", "9C", "KS", "7D", "10D", "2C", "3C"])
    _bet(rig, 1, 500, 1)
    _bet(rig, 1, 500, 2)
    rig.press("deal")
    rig.play_out()
    snap = rig.cab.snapshot(1)
    assert snap.message == "Spot 1 Blackjack, wins $7.50 · Spot 2 loses"
    assert snap.stations[0].message == ""  # one station: the table line says it


def test_single_station_message_is_unchanged(stacked):
    """One station, one spot still reads "You win $5.00"."""
    rig = _multi(1)
    rig.note(10_000)
    stacked.append(["10S", "10C", "9H", "7S", "2C"])
    _bet(rig, 1, 500)
    rig.press("deal")
    rig.play_out()
    assert rig.cab.snapshot(1).message == "You win $5.00"


def _two_station_round(tmp_path, stacked):
    import random

    from cabinet.core.events import IntentReceived, NoteStacked, PowerUp
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    path = tmp_path / "j.db"
    eng = Engine(Store(path), rng=random.Random(3), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    eng.step(PowerUp(0, 1_800_000_000.0))
    from cabinet.core.settings import GameSettings as GS

    eng.cab.apply_settings(GS(variant="classic-multi", stations=2), [])
    for n in (1, 2):
        eng.step(NoteStacked(n, 10_000, f"t{n}"))
    stacked.append(["10S", "KH", "10C", "9H", "8D", "7S", "2C", "3C"])
    for n, chip in ((1, 500), (2, 2_500)):
        eng.step(IntentReceived(n, "chip", chip))
        eng.step(IntentReceived(n, "place", 1))
    eng.step(IntentReceived(1, "deal"))
    eng.step(IntentReceived(2, "deal"))
    while eng.cab.mode == "in_round":
        p = eng.cab.round.prompt
        eng.step(IntentReceived(p.seat, "stand"))
    return eng, path


def test_recall_shows_each_seats_spots_under_its_station(tmp_path, stacked, capsys):
    """Station 1's recall does not list station 2's hand as its own "spot 1"."""
    from cabinet.tools import views_cli

    eng, path = _two_station_round(tmp_path, stacked)
    e1 = eng.store.recall(1, 10)[0]
    e2 = eng.store.recall(2, 10)[0]
    assert [sp["seat"] for sp in e1.result["spots"]] == [1]
    assert [sp["seat"] for sp in e2.result["spots"]] == [2]
    eng.store.close()
    assert views_cli.recall(path, 1, 10, False) == 0
    out = capsys.readouterr().out
    assert "TS 9H = 19" in out and "KH 8D" not in out and "seat 2" not in out
    assert "Round 1 station 1" in out and "Round 1 station 2" not in out


def test_below_the_minimum_the_station_is_told_the_minimum():
    """A bet under the table minimum greys Deal and says "Minimum $5.00"."""
    rig = Rig(GameSettings(variant="classic-multi", min_bet_minor=500))
    rig.note(10_000)
    _bet(rig, 1, 100)
    st = rig.cab.snapshot(1).stations[0]
    assert "deal" not in st.lamps
    assert st.message == "Minimum bet $5.00"
    _bet(rig, 1, 500)
    st = rig.cab.snapshot(1).stations[0]
    assert "deal" in st.lamps and st.message == ""
    poor = Rig(GameSettings(variant="classic-multi", min_bet_minor=500))
    poor.note(300)  # $3 cannot cover a $5 minimum
    assert poor.cab.snapshot(1).stations[0].message == "Minimum bet $5.00"


def test_a_note_over_the_credit_limit_says_why():
    """A note returned at the credit limit tells that station why."""
    from cabinet.core.events import NoteEscrowed

    rig = Rig(GameSettings(variant="classic-multi", stations=2, credit_limit_minor=100_000))
    rig.note(95_000, 2)
    rig.cab.handle(NoteEscrowed(2, 10_000, "x1"))
    snap = rig.cab.snapshot(1)
    assert snap.stations[1].refusal == "Note returned: credit limit $1,000.00"
    assert snap.stations[0].refusal == ""
    rig.note(2_000, 2)  # money came in: the notice goes
    assert rig.cab.snapshot(2).stations[1].refusal == ""


def test_a_refused_voucher_says_why():
    """Unknown, expired and redeemed vouchers each tell the player why."""
    import msgspec

    from cabinet.core.events import VoucherEscrowed
    from cabinet.core.records import VoucherRecord

    rig = Rig()
    rig.cab.handle(VoucherEscrowed(1, "123456789012345678", None))
    assert rig.cab.snapshot(1).stations[0].refusal == "Voucher refused: not issued here"
    rec = VoucherRecord(
        validation_number="1" * 18,
        sequence=1,
        amount_minor=2_000,
        station=1,
        issued_wall_s=0.0,
        expires_wall_s=1.0,
        status="issued",
        venue="v",
        machine_number="1",
    )
    rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec))
    assert rig.cab.snapshot(1).stations[0].refusal == "Voucher refused: expired - see attendant"
    rec = msgspec.structs.replace(rec, status="redeemed", expires_wall_s=2e9)
    rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec))
    assert rig.cab.snapshot(1).stations[0].refusal == "Voucher refused: already redeemed - see attendant"
    rec = msgspec.structs.replace(rec, status="handpaid")
    rig.cab.handle(VoucherEscrowed(1, rec.validation_number, rec))
    assert rig.cab.snapshot(1).stations[0].refusal == "Voucher refused: already paid by hand - see attendant"
    rig.press("help")
    rig.note(500)
    rig.press("bet_up")  # the next button press clears it
    assert rig.cab.snapshot(1).stations[0].refusal == ""


def test_insurance_says_what_it_costs(stacked):
    """ "Insurance?" says what it costs: half the spot's bet."""
    rig = Rig(GameSettings(variant="american"))
    rig.note(10_000)
    stacked.append(["10S", "9H", "AC", "7S", "8H", "5D", "2C", "3C"])
    _bet(rig, 1, 500, 1)
    _bet(rig, 1, 2_500, 2)
    rig.press("deal")
    snap = rig.cab.snapshot(1)
    assert snap.message == "Spot 1: insurance costs $2.50"
    assert snap.stations[0].message == "Insurance? It costs $2.50"
    rig.press("decline")
    snap = rig.cab.snapshot(1)
    assert snap.message == "Spot 2: insurance costs $12.50"

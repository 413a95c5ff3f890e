"""A station's own device fault stops that station, not the table."""

from __future__ import annotations

from cabinet.core.effects import Journal, ReturnNote, SetAcceptor, SetTowerLight
from cabinet.core.events import DeviceCleared, DeviceFaulted, NoteEscrowed
from cabinet.core.settings import GameSettings

from .helpers import Rig


def _three() -> Rig:
    rig = Rig(GameSettings(variant="classic-multi", stations=3))
    for n in (1, 2, 3):
        rig.note(10_000, n)
    return rig


def _bet(rig: Rig, station: int, chip: int = 500) -> None:
    rig.press("chip", station, chip)
    rig.press("place", station, 1)


def test_a_bill_jam_at_station_2_mid_round_stops_only_station_2():
    """Station 2's bill jam mid-round: the round plays on, station 2 is out of service."""
    rig = _three()
    for n in (1, 2, 3):
        _bet(rig, n)
    for n in (1, 2, 3):
        rig.press("deal", n)
    assert rig.cab.mode == "in_round"
    eff = rig.cab.handle(DeviceFaulted("bill", "bill_jam", "", station=2))
    assert rig.cab.mode == "in_round"  # no tilt for the table
    assert SetAcceptor(2, False, (100, 500, 1_000, 2_000, 5_000, 10_000)) in eff
    assert not any(isinstance(e, SetAcceptor) and e.station != 2 for e in eff)
    assert SetTowerLight("tilt") in eff  # the attendant is called
    assert any(isinstance(e, Journal) and e.kind == "fault" and e.station == 2 for e in eff)
    snap = rig.cab.snapshot(1)
    assert snap.overlay is None
    assert snap.stations[1].fault == "Out of service: 300 Bill acceptor jam - call attendant"
    assert snap.stations[0].fault == "" and snap.stations[2].fault == ""
    rig.play_out()  # everyone finishes the round
    assert rig.cab.mode == "betting" and rig.balanced()
    # between rounds station 2 can neither bet nor take money; 1 and 3 play on
    assert rig.cab.legal_actions(2) == frozenset({"cash_out"})
    assert "chip" in rig.cab.legal_actions(1) and "chip" in rig.cab.legal_actions(3)
    eff = rig.cab.handle(NoteEscrowed(2, 2_000, "n2"))
    assert isinstance(eff[0], ReturnNote)
    assert rig.cab.snapshot(2).stations[1].refusal == "Note returned: station out of service"
    _bet(rig, 1)
    _bet(rig, 3)
    rig.press("deal", 1)
    rig.press("deal", 3)  # nobody waits for station 2
    assert rig.cab.mode == "in_round"
    assert sorted({sp.seat for sp in rig.cab.round.player_view().spots}) == [1, 3]
    rig.play_out()
    eff = rig.cab.handle(DeviceCleared("bill", station=2))
    assert SetTowerLight("off") in eff and SetAcceptor(2, True, (100, 500, 1_000, 2_000, 5_000, 10_000)) in eff
    assert rig.cab.snapshot(3).stations[1].fault == "" and "chip" in rig.cab.legal_actions(2)


def test_a_printer_fault_at_a_station_stops_its_cash_out_only():
    """Station 2's printer out of paper: station 2 cannot cash out, station 1 can."""
    rig = _three()
    rig.cab.handle(DeviceFaulted("printer", "printer_paper_out", "", station=2))
    assert "cash_out" not in rig.cab.legal_actions(2)
    assert "cash_out" in rig.cab.legal_actions(1)
    rig.press("cash_out", 1)
    assert rig.cab.s.stations[0].printing is not None  # its own printer: the table plays on
    assert rig.cab.mode == "betting" and "chip" in rig.cab.legal_actions(3)


def test_a_shared_fault_still_tilts_the_whole_cabinet():
    """A fault with no station (a shared device) tilts everything."""
    rig = _three()
    rig.cab.handle(DeviceFaulted("bill", "bill_jam"))
    assert rig.cab.mode == "tilt"


def test_one_station_cabinet_tilts_and_the_box_names_the_fault():
    """With one station its fault is the cabinet's: tilt, as before."""
    rig = Rig()
    rig.note(2_000)
    rig.cab.handle(DeviceFaulted("bill", "bill_jam", "", station=1))
    assert rig.cab.mode == "tilt"
    assert rig.cab.snapshot(1).overlay_text == "300 Bill acceptor jam"
    rig.cab.handle(DeviceCleared("bill", station=1))
    assert rig.cab.mode == "betting"


def test_the_tilt_box_names_the_station_of_a_station_fault():
    """A tilt on a multi-station table lists station faults with their station."""
    rig = _three()
    rig.cab.handle(DeviceFaulted("printer", "printer_cover_open", "", station=3))
    rig.cab.handle(DeviceFaulted("engine", "engine_fault", "x"))
    assert rig.cab.mode == "tilt"
    assert rig.cab.snapshot(1).overlay_text == "900 Engine fault; Station 3: 402 Printer cover open"


def test_a_stations_devices_report_their_faults_as_that_stations():
    """Station 2's bill acceptor and printer faults carry station 2; the panel's none."""
    from cabinet.shell.devices import DriverDevices
    from drivers import events as dev
    from drivers.factory import DriverSettings

    d = DriverDevices(DriverSettings(mode="sim"), lambda _n: frozenset(), station=2)
    assert d._translate(dev.DeviceFault(dev.Device.BILL_ACCEPTOR, "jam_in_acceptor", "")).station == 2
    assert d._translate(dev.DeviceOffline(dev.Device.PRINTER, "gone")) == DeviceFaulted(
        "printer", "printer_offline", "", 2
    )
    assert d._translate(dev.DeviceOnline(dev.Device.BILL_ACCEPTOR)) == DeviceCleared("bill", 2)
    assert d._translate(dev.DeviceOffline(dev.Device.PANEL, "gone")).station == 0

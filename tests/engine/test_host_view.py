"""What the SAS link answers from (the station's committed state in credits)
and how its reports reach the core."""

from __future__ import annotations

import datetime

from cabinet.core.events import (
    DoorChanged,
    HostCommanded,
    HostEventAcked,
    HostLinkChanged,
    HostLinkConfigured,
)
from cabinet.core.settings import GameSettings
from cabinet.shell.host_links import HostLinks, to_event
from cabinet.shell.host_view import SasStation, egm_view
from drivers.sas.egm_view import HostCommand

from .helpers import LinkedRig as Rig


def _played() -> Rig:
    rig = Rig()
    rig.note(10_000)
    rig.note(2_000)
    for _ in range(3):
        rig.press("bet_up")
        rig.press("deal")
        rig.play_out()
    return rig


def test_meters_in_the_default_denomination_equal_the_cabinets_minor_units():
    """With $0.01 credits 0x1C's coin in equals ``coin_in_minor``."""
    rig = _played()
    m = rig.meters()
    v = egm_view(rig.cab.s, 1, SasStation("loop://"), "SN1", rig.cab.rules.max_bet_minor)
    assert m.coin_in_minor > 0 and m.games_played >= 3
    assert (v.coin_in, v.coin_out, v.games_played, v.games_won, v.games_lost) == (
        m.coin_in_minor,
        m.coin_out_minor,
        m.games_played,
        m.games_won,
        m.games_lost,
    )
    assert v.drop == 12_000 == v.bills_accepted_credits
    assert v.current_credits == rig.credits()
    assert v.bill_counts == {10_000: 1, 2_000: 1}
    assert v.power_reset == 1 and v.address == 1 and v.serial_number == "SN1"
    assert v.machine_info is not None and v.machine_info.base_percent == "9989"
    assert v.machine_info.max_bet == 255  # $100.00 = 10,000 credits: capped


def test_a_larger_accounting_denomination_counts_whole_credits():
    """Money meters count units of the accounting denomination."""
    rig = _played()
    v = egm_view(rig.cab.s, 1, SasStation("loop://", accounting_denomination_minor=25), "", rig.cab.rules.max_bet_minor)
    assert v.drop == 12_000 // 25
    assert v.coin_in == rig.meters().coin_in_minor // 25
    assert v.machine_info is not None and v.machine_info.denomination == 0x04


def test_the_meter_polls_read_the_cabinet_meters_the_last_bill_and_the_denomination():
    """0x6F/0xAF and 0x48 (``drivers/sas/egm_meter_polls.py``): the view carries the
    station's cabinet meters as ``cabinet meters --json`` names them, its last bill and
    the accounting denomination."""
    rig = _played()
    m = rig.meters()
    v = egm_view(rig.cab.s, 1, SasStation("loop://", accounting_denomination_minor=5), "", rig.cab.rules.max_bet_minor)
    assert v.meters_minor["coin_in_minor"] == m.coin_in_minor > 0
    assert v.meters_minor["bills_in_minor"] == 12_000 and v.meters_minor["games_played"] == m.games_played
    assert "bills_by_denom" not in v.meters_minor
    assert v.last_bill_minor == 2_000 and v.accounting_denomination_minor == 5


def test_queued_events_and_a_handpay_are_in_the_view_of_their_station_only():
    """Each station is one EGM with its own queue and handpay."""
    rig = Rig(GameSettings(variant="classic-multi", stations=2, voucher_limit_minor=1_000))
    rig.note(5_000, 2)
    rig.press("cash_out", 2)
    rig.cab.handle(DoorChanged("main", True))
    v1 = egm_view(rig.cab.s, 1, SasStation("x"), "", 10_000)
    v2 = egm_view(rig.cab.s, 2, SasStation("x", address=2), "", 10_000)
    assert [e.name for e in v1.exceptions] == ["ac_power_applied", "slot_door_opened"]
    assert [e.name for e in v2.exceptions] == [
        "ac_power_applied",
        "bill_accepted",
        "cash_out_button_pressed",
        "handpay_pending",
        "slot_door_opened",
    ]
    bill = v2.exceptions[1]
    assert (bill.bill_minor, bill.amount_credits) == (5_000, 5_000)
    assert v1.handpay is None
    assert v2.handpay is not None and v2.handpay.amount_credits == 5_000


class FakeLink:
    def __init__(self, port, address, on_output, program_files, **kw):
        self.port, self.address, self.on_output = port, address, on_output
        self.views = []
        self.started = self.stopped = False

    def start(self):
        self.started = True

    def update(self, view):
        self.views.append(view)

    def stop(self):
        self.stopped = True


class LinkChanged:
    def __init__(self, up):
        self.up = up


def test_host_links_hand_each_station_its_view_and_post_what_the_link_reports():
    """One link per configured station; its reports become core events."""
    rig = Rig(GameSettings(variant="classic-multi", stations=2))
    posted = []
    links = HostLinks(
        {2: SasStation("pty2", address=7, accounting_denomination_minor=25)}, "SN", (), link_factory=FakeLink
    )
    assert links.configure_events([1, 2], 5.0) == [
        HostLinkConfigured(1, 0, "", 5.0),
        HostLinkConfigured(2, 7, "pty2", 5.0, denomination_minor=25),
    ]
    links.start(posted.append)
    assert list(links.links) == [2] and links.links[2].started
    assert posted == []
    links.publish(rig.cab)
    assert links.links[2].views[-1].address == 7
    links.links[2].on_output(HostCommand("shut_down", 0x01))
    links.links[2].on_output(LinkChanged(True))
    assert posted == [HostCommanded(2, "shut_down"), HostLinkChanged(2, True)]
    links.stop()
    assert links.links[2].stopped


def test_reports_translate_to_core_events_and_bad_dates_are_dropped():
    """0x7F's local date and time -> Unix seconds; an impossible date is refused."""
    assert to_event(1, type("ExceptionAcked", (), {"exception_id": 4})()) == HostEventAcked(1, 4)
    ev = to_event(1, HostCommand("set_clock", 0x7F, date_time=(2026, 12, 1, 13, 0, 0)))
    assert isinstance(ev, HostCommanded)
    assert ev.host_wall_s == datetime.datetime(2026, 12, 1, 13, 0, 0).timestamp()
    assert to_event(1, HostCommand("set_clock", 0x7F, date_time=(2026, 2, 30, 0, 0, 0))) is None
    ev = to_event(3, HostCommand("configure_bill_denominations", 0x08, bills_minor=(500, 100)))
    assert ev == HostCommanded(3, "configure_bill_denominations", (500, 100))


def test_sas_stations_come_from_the_config_and_the_command_line(tmp_path):
    """``[sas]`` / ``[station2.sas]`` configure each station's EGM;
    ``--sas-port`` sets station 1's; an address without a port is refused."""
    import pytest

    from cabinet.shell.config import load_config
    from cabinet.shell.main import sas_stations
    from confspec import ConfigError

    cfg_path = tmp_path / "cabinet.toml"
    cfg_path.write_text(
        '[sas]\nport = "/dev/ttyS0"\naddress = 4\nasset_number = 77\n'
        "accounting_denomination_minor = 5\n"
        '[station2.sas]\nport = "/dev/ttyS0"\naddress = 5\n'
    )
    cfg = load_config(cfg_path)
    got = sas_stations(cfg, None, None)
    assert got == {1: SasStation("/dev/ttyS0", 4, 77, 5), 2: SasStation("/dev/ttyS0", 5, 0, 5)}
    got = sas_stations(cfg, "/dev/pts/9", 9)
    assert got[1] == SasStation("/dev/pts/9", 9, 77, 5)
    assert sas_stations(load_config(None), None, None) == {}
    with pytest.raises(ConfigError):
        sas_stations(load_config(None), None, 3)
    with pytest.raises(ConfigError):
        sas_stations(cfg, "/dev/ttyS0", 5)  # station 2 already answers at 5 there


def test_a_sas_config_that_can_never_work_is_refused_at_start(tmp_path):
    """A denomination SAS has no code for (the host's
    credits would be cut short), an unknown URL scheme or a folder as the port."""
    import pytest

    from cabinet.shell.config import load_config
    from cabinet.shell.main import sas_stations
    from confspec import ConfigError

    cfg_path = tmp_path / "cabinet.toml"
    cfg_path.write_text('[sas]\nport = "/dev/ttyS0"\naccounting_denomination_minor = 7\n')
    with pytest.raises(ConfigError, match="accounting_denomination_minor.*got 7"):
        sas_stations(load_config(cfg_path), None, None)
    with pytest.raises(ConfigError, match="unknown pyserial URL scheme 'bogus'"):
        sas_stations(load_config(None), "bogus://x", None)
    with pytest.raises(ConfigError, match="is a folder"):
        sas_stations(load_config(None), str(tmp_path), None)
    assert sas_stations(load_config(None), "socket://localhost:7000", None)[1].port == "socket://localhost:7000"
    assert sas_stations(load_config(None), "/dev/ttyUSB9", None)[1].port == "/dev/ttyUSB9"


def test_0x7e_after_0x7f_reads_back_the_hosts_time():
    """The link's clock for 0x7E carries the host's offset."""
    import time

    rig = Rig()
    links = HostLinks({1: SasStation("x")}, link_factory=FakeLink)
    rig.cab.handle(HostCommanded(1, "set_clock", host_wall_s=rig.cab.s.wall_s + 3_600))
    links.publish(rig.cab)
    assert links.clock_offset_s == 3_600
    t = time.localtime(time.time() + 3_600)
    assert links.wall_clock()[:4] == (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour)


def test_the_host_page_says_when_the_port_is_not_open_or_polls_go_elsewhere():
    """A technician sees why a link does not come up."""
    from cabinet.core.host_page import host_page

    rig = Rig()
    _, lines = host_page(rig.cab.s, "", "", {1: (0, None, False, 0)})
    assert "  Port not open: check the cable, the port name and the event log" in lines
    _, lines = host_page(rig.cab.s, "", "", {1: (0, None, True, 12)})
    assert "  12 polls seen for other addresses: check the SAS address (1) against the host's" in lines


def test_the_host_page_shows_the_line_errors_and_publish_hands_them_over():
    """research/sas.md "Physical and link layer": the technician sees CRC and framing
    errors counted on the link (a bad cable, a wrong baud rate) on the Host page."""
    from cabinet.core.events import HostPollsRead
    from cabinet.core.host_page import host_page

    rig = Rig()
    wall = rig.cab.s.wall_s
    _, lines = host_page(rig.cab.s, "", "", {1: (9, wall, True, 0, {"crc": 3, "stray": 2, "truncated": 0})})
    assert "  Line errors: CRC 3, stray bytes 2: check the cable and 19,200 baud" in lines
    _, lines = host_page(rig.cab.s, "", "", {1: (9, wall, True, 0, {"crc": 0})})
    assert "  Line errors: none" in lines

    class CountingLink(FakeLink):
        polls, last_poll_wall_s, port_open = 4, 1.0, True
        counts = {"other_address": 0}
        line_errors = {"crc": 5, "truncated": 1}

    links = HostLinks({1: SasStation("pty1", address=1)}, "SN", (), link_factory=CountingLink)
    links.start(lambda ev: None)
    links.publish(rig.cab)
    assert links.live_status() == ((1, (4, 1.0, True, 0, {"crc": 5, "truncated": 1})),)
    rig.cab.handle(HostPollsRead(links.live_status()))  # what the engine hands the Host page
    assert rig.cab.host_polls[1] == (4, 1.0, True, 0, {"crc": 5, "truncated": 1})

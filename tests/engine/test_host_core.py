"""The cabinet core's side of the casino host link: the journaled host event
queue (SAS exceptions) and the host's commands."""

from __future__ import annotations

import msgspec

from cabinet.core.effects import Journal, PrintVoucher, SetAcceptor
from cabinet.core.events import (
    DoorChanged,
    HostCommanded,
    HostEventAcked,
    HostLinkChanged,
    KeyChanged,
    NoteEscrowed,
    PrintFinished,
)
from cabinet.core.host_events import HOST_QUEUE_MAX
from cabinet.core.machine import Cabinet
from cabinet.core.settings import GameSettings
from cabinet.core.state import CabinetState

from .helpers import LinkedRig as Rig

ALL_BILLS = (100, 500, 1_000, 2_000, 5_000, 10_000)


def names(rig: Rig, station: int = 1) -> list[str]:
    return [e.name for e in rig.cab.s.stations[station - 1].host.queue]


def test_power_up_queues_ac_power_applied_and_doors_queue_open_then_closed():
    """0x17 at every start; the main door gives 0x11 then 0x12 (by name)."""
    rig = Rig()
    assert names(rig) == ["ac_power_applied"]
    rig.cab.handle(DoorChanged("main", True))
    rig.cab.handle(DoorChanged("main", False))
    rig.cab.handle(DoorChanged("cashbox", True))
    assert names(rig) == ["ac_power_applied", "slot_door_opened", "slot_door_closed", "cash_box_door_opened"]
    ids = [e.event_id for e in rig.cab.s.stations[0].host.queue]
    assert ids == [1, 2, 3, 4]


def test_a_cabinet_event_reaches_every_station_and_a_stations_bill_only_its_own():
    """Each station is one EGM: a door is heard by all, a bill by its station."""
    rig = Rig(GameSettings(variant="classic-multi", stations=3))
    rig.note(2_000, 2)
    assert names(rig, 2) == ["ac_power_applied", "bill_accepted"]
    assert rig.cab.s.stations[1].host.queue[-1].amount_minor == 2_000
    assert names(rig, 1) == names(rig, 3) == ["ac_power_applied"]
    rig.cab.handle(DoorChanged("main", True))
    assert all(names(rig, n)[-1] == "slot_door_opened" for n in (1, 2, 3))


def test_a_round_queues_game_started_and_game_ended():
    """A round played gives 0x7E and 0x7F."""
    rig = Rig()
    rig.note(10_000)
    rig.press("bet_up")
    rig.press("deal")
    rig.play_out()
    got = names(rig)
    assert got[:2] == ["ac_power_applied", "bill_accepted"]
    assert got.index("game_started") < got.index("game_ended")
    assert got.count("game_started") == got.count("game_ended") == 1


def test_an_ack_drops_that_event_and_every_older_one_only():
    """The host acknowledges the oldest first; newer events stay queued."""
    rig = Rig()
    for _ in range(3):
        rig.cab.handle(DoorChanged("main", True))
        rig.cab.handle(DoorChanged("main", False))
    rig.cab.handle(HostEventAcked(1, 3))
    q = rig.cab.s.stations[0].host.queue
    assert [e.event_id for e in q] == [4, 5, 6, 7]
    rig.cab.handle(HostEventAcked(1, 3))  # a repeated ack changes nothing
    assert [e.event_id for e in rig.cab.s.stations[0].host.queue] == [4, 5, 6, 7]


def test_the_queue_survives_the_journal_round_trip():
    """The queue is part of the journaled state (restart and SIGKILL)."""
    rig = Rig()
    rig.cab.handle(DoorChanged("main", True))
    blob = msgspec.json.encode(rig.cab.s)
    back = Cabinet(msgspec.json.decode(blob, type=CabinetState))
    assert [e.name for e in back.s.stations[0].host.queue] == ["ac_power_applied", "slot_door_opened"]
    assert back.s.stations[0].host.next_event_id == 3


def test_an_old_journal_state_without_host_fields_decodes_with_an_empty_queue():
    """Journals written before the host link load unchanged."""
    old = b'{"version":1,"stations":[{"station":1,"credits_minor":500}]}'
    s = msgspec.json.decode(old, type=CabinetState)
    assert s.stations[0].host.queue == [] and s.stations[0].host.link == ""


def test_a_full_queue_ends_in_one_overflow_event():
    """At least 20 kept; overflow reported as 0x70 (by name), once."""
    rig = Rig()
    for _ in range(40):
        rig.cab.handle(DoorChanged("main", True))
        rig.cab.handle(DoorChanged("main", False))
    got = names(rig)
    assert len(got) == HOST_QUEUE_MAX >= 20
    assert got[-1] == "exception_buffer_overflow"
    assert got.count("exception_buffer_overflow") == 1
    rig.cab.handle(HostEventAcked(1, rig.cab.s.stations[0].host.queue[9].event_id))
    rig.cab.handle(DoorChanged("main", True))  # room again: new events queue
    assert names(rig)[-1] == "slot_door_opened"


def test_shut_down_between_rounds_disables_play_and_start_up_enables_it():
    """0x01 disables play (lamps agree, the table says so), 0x02 enables it."""
    rig = Rig()
    rig.note(10_000)
    eff = rig.cab.handle(HostCommanded(1, "shut_down"))
    assert rig.cab.legal_actions(1) == frozenset({"cash_out"})
    assert rig.cab.snapshot(1).stations[0].message == "Play disabled by the casino host"
    assert SetAcceptor(1, False, ()) in eff
    j = [e for e in eff if isinstance(e, Journal) and e.kind == "host_command"]
    assert j[0].data == {"command": "shut_down", "source": "host", "result": "done"}
    eff = rig.cab.handle(HostCommanded(1, "start_up"))
    assert "deal" in rig.cab.legal_actions(1) or "bet_up" in rig.cab.legal_actions(1)
    assert SetAcceptor(1, True, ALL_BILLS) in eff
    assert rig.cab.snapshot(2).stations[0].message == ""


def test_shut_down_mid_round_waits_for_the_round_to_end():
    """Play disabled after the round in progress, never mid-round."""
    rig = Rig()
    rig.note(10_000)
    rig.press("bet_up")
    rig.press("deal")
    if rig.cab.mode != "in_round":
        rig.press("bet_up")
        rig.press("deal")
    assert rig.cab.mode == "in_round"
    rig.cab.handle(HostCommanded(1, "shut_down"))
    st = rig.cab.s.stations[0]
    assert not st.host.disabled and st.host.disable_pending == "shut_down"
    assert rig.cab.legal_actions(1)  # the player finishes the hand
    rig.play_out()
    assert st.host.disabled and st.host.disable_pending == ""
    assert rig.cab.legal_actions(1) == frozenset({"cash_out"})


def test_a_disabled_station_returns_notes_and_cash_out_still_works():
    """While the host has play disabled no money comes in; credits go out."""
    rig = Rig()
    rig.note(2_000)
    rig.cab.handle(HostCommanded(1, "shut_down"))
    rig.cab.handle(NoteEscrowed(1, 500, "n9"))
    assert rig.cab.snapshot(3).stations[0].refusal == "Note returned: disabled by the casino host"
    rig.press("cash_out")
    assert rig.credits() == 0


def test_bill_acceptor_commands_narrow_the_settings_never_widen_them():
    """0x07 disables the acceptor, 0x06 enables it, 0x08 narrows denominations."""
    rig = Rig()
    eff = rig.cab.handle(HostCommanded(1, "disable_bill_acceptor"))
    assert SetAcceptor(1, False, ()) in eff
    eff = rig.cab.handle(HostCommanded(1, "enable_bill_acceptor"))
    assert SetAcceptor(1, True, ALL_BILLS) in eff
    eff = rig.cab.handle(HostCommanded(1, "configure_bill_denominations", bills_minor=(500, 2_000, 200_000)))
    assert SetAcceptor(1, True, (500, 2_000)) in eff
    eff = rig.cab.handle(NoteEscrowed(1, 1_000, "n1"))
    assert rig.cab.snapshot(1).stations[0].refusal == "Note returned: $10.00 notes not taken"
    from cabinet.core.effects import ReturnNote

    assert ReturnNote(1, "$10.00 is not an enabled denomination") in eff  # the log, in money


def test_set_clock_journals_the_offset_and_leaves_the_clock_alone():
    """0x7F: the host's time kept as an offset, journaled and logged."""
    rig = Rig()
    wall = rig.cab.s.wall_s
    eff = rig.cab.handle(HostCommanded(1, "set_clock", host_wall_s=wall + 90.5))
    assert rig.cab.s.host_clock_offset_s == 90.5
    assert rig.cab.s.wall_s == wall
    j = [e for e in eff if isinstance(e, Journal) and e.kind == "host_command"][0]
    assert j.data["offset_s"] == 90.5 and j.data["source"] == "host"


def test_remote_handpay_reset_resets_only_that_stations_handpay():
    """0x94 resets a pending handpay like the key, logged with the host as source."""
    rig = Rig(GameSettings(voucher_limit_minor=1_000))
    rig.note(5_000)
    rig.press("cash_out")
    assert rig.cab.mode == "handpay"
    assert names(rig)[-1] == "handpay_pending"
    eff = rig.cab.handle(HostCommanded(1, "remote_handpay_reset"))
    assert rig.cab.mode != "handpay"
    assert rig.meters().handpay_minor == 5_000
    assert names(rig)[-1] == "handpay_reset"
    j = [e for e in eff if isinstance(e, Journal) and e.kind == "host_command"][0]
    assert j.data["result"] == "done"
    eff = rig.cab.handle(HostCommanded(1, "remote_handpay_reset"))
    j = [e for e in eff if isinstance(e, Journal) and e.kind == "host_command"][0]
    assert j.data["result"].startswith("refused")
    assert rig.meters().handpay_minor == 5_000  # never twice


def test_link_state_is_journaled_and_shown_per_station():
    """The table shows "host online"; changes are in the event log."""
    rig = Rig()
    eff = rig.cab.handle(HostLinkChanged(1, True))
    assert any(isinstance(e, Journal) and e.kind == "host_link" for e in eff)
    assert rig.cab.snapshot(1).stations[0].host_link == "online"
    again = rig.cab.handle(HostLinkChanged(1, True))  # no change: nothing logged
    assert not any(isinstance(e, Journal) for e in again)
    rig.cab.handle(HostLinkChanged(1, False))
    assert rig.cab.snapshot(2).stations[0].host_link == "offline"


def test_unknown_commands_and_stations_change_nothing():
    """A hostile host message gets a clear refusal and loses nothing."""
    rig = Rig()
    rig.note(1_000)
    before = msgspec.json.encode(rig.cab.s)
    for ev in (
        HostCommanded(1, "give_credits"),
        HostCommanded(9, "shut_down"),
        HostEventAcked(9, 1),
        HostLinkChanged(9, True),
    ):
        eff = rig.cab.handle(ev)
        assert [type(e).__name__ for e in eff if not type(e).__name__.startswith("Set")] == ["Rejected"]
    assert msgspec.json.encode(rig.cab.s) == before


def test_operator_menu_entry_and_exit_are_heard_by_the_host():
    """0x82/0x83 (attendant, key only) and 0x84/0x85 (technician, key + door)."""
    rig = Rig()
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    got = names(rig)
    assert "display_meters_or_attendant_menu_entered" in got
    assert got[-1] == "display_meters_or_attendant_menu_exited"
    rig.cab.handle(DoorChanged("main", True))
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    got = names(rig)
    assert got[-1] == "self_test_or_operator_menu_exited"
    assert "self_test_or_operator_menu_entered" in got


def test_the_host_page_shows_address_link_queue_and_the_program_digest():
    """The menu's Host page: address, link state, exceptions queued, digest."""
    from cabinet.core.host_page import host_page

    from .helpers import Rig as Plain

    title, lines = host_page(Plain().cab.s, "bj 1.0", "ab12")
    assert title == "Host" and lines[0].startswith("No casino host link configured")
    rig = Rig()
    from cabinet.core.events import HostLinkConfigured

    rig.cab.handle(HostLinkConfigured(1, 5, "/dev/ttyS0", rig.wall_s))
    rig.cab.handle(HostLinkChanged(1, True))
    rig.cab.handle(DoorChanged("main", True))
    rig.cab.handle(HostCommanded(1, "shut_down"))
    _, lines = host_page(rig.cab.s, "bj 1.0", "ab12")
    assert lines[0].startswith("Station 1: SAS address 5 on /dev/ttyS0 · ONLINE since ")
    assert lines[1] == "  Exceptions queued: 2: ac power applied, slot door opened"
    assert lines[2] == "  Play DISABLED by the host"
    _, lines = host_page(rig.cab.s, "bj 1.0", "ab12", {1: (42, rig.cab.s.wall_s - 0.25)})
    assert lines[1] == "  Polls 42, last 0.2 s ago"
    assert lines[-1] == "Manifest SHA-256: ab12"


def test_a_ram_clear_queues_memory_error_reset_and_never_reuses_an_event_id(tmp_path):
    """A RAM clear gives 0x3A; the link keeps its state; ids go on increasing."""
    from cabinet.core.events import IntentReceived
    from cabinet.core.maintenance import MAIN_ITEMS

    from .menu_helpers import rig_send, set_pin, type_pin

    rig = Rig()
    set_pin(rig.cab.s)
    from cabinet.core.events import HostLinkConfigured

    rig.cab.handle(HostLinkConfigured(1, 3, "/dev/ttyS1", rig.wall_s))
    rig.cab.handle(HostLinkChanged(1, True))
    rig.cab.handle(DoorChanged("logic", True))
    rig.cab.handle(KeyChanged(True))
    before = rig.cab.s.stations[0].host.next_event_id
    for _ in range([k for k, _ in MAIN_ITEMS].index("ram_clear")):
        rig.cab.handle(IntentReceived(1, "menu_down"))
    rig.cab.handle(IntentReceived(1, "menu_select"))
    type_pin(rig_send(rig))  # the technician PIN
    for _ in range(2):
        rig.press("menu_select")
    h = rig.cab.s.stations[0].host
    assert [e.name for e in h.queue] == ["memory_error_reset"]
    assert h.queue[0].event_id == before
    assert (h.link, h.address, h.port) == ("online", 3, "/dev/ttyS1")


def test_a_ram_error_at_start_is_reported_after_power_applied():
    """0x31-0x33 RAM errors: a journal that failed its check gives 0x32."""
    from cabinet.core.events import HostLinkConfigured, PowerUp
    from cabinet.core.machine import new_state

    state = new_state()
    state.ram_error = True
    cab = Cabinet(state)
    cab.handle(HostLinkConfigured(1, 1, "/dev/pts/1", 1.8e9))
    cab.handle(PowerUp(0, 1.8e9))
    assert [e.name for e in cab.s.stations[0].host.queue] == ["ac_power_applied", "cmos_ram_error_no_data_recovered"]


def test_nothing_is_queued_without_a_host_link_and_removing_it_drops_the_queue():
    """A cabinet without a SAS port keeps no exception queue (its journal
    stays as it was); a link removed from the config drops what was queued for it."""
    from cabinet.core.events import HostLinkConfigured

    from .helpers import Rig as Plain

    plain = Plain()
    plain.cab.handle(DoorChanged("main", True))
    assert plain.cab.s.stations[0].host.queue == [] and plain.cab.s.stations[0].host.link == ""
    rig = Rig()
    assert names(rig) == ["ac_power_applied"] and rig.cab.s.stations[0].host.link == "offline"
    assert rig.cab.s.stations[0].host.link_since_s == rig.wall_s
    eff = rig.cab.handle(HostLinkConfigured(1, 0, "", rig.wall_s))
    assert rig.cab.s.stations[0].host.queue == [] and rig.cab.s.stations[0].host.link == ""
    assert any(isinstance(e, Journal) and e.kind == "host_link" for e in eff)


def test_queued_events_carry_what_their_real_time_form_reports():
    """SAS 0x0E event data is what it was when the event happened (Aristocrat Monaco
    ``Protocol/SAS/Aristocrat.Monaco.Sas/Exceptions/``): a bill's lifetime count of its
    value, a round start's wager and the coin in meter after it, a round end's win."""
    rig = Rig()
    rig.note(2_000)
    rig.note(2_000)
    bills = [e for e in rig.cab.s.stations[0].host.queue if e.name == "bill_accepted"]
    assert [(e.amount_minor, e.count) for e in bills] == [(2_000, 1), (2_000, 2)]
    rig.press("bet_up")
    rig.press("deal")
    st = rig.cab.s.stations[0]
    bet = st.last_bets_minor
    coin_in_after_bet = st.meters.coin_in_minor
    rig.play_out()
    q = {e.name: e for e in st.host.queue}
    started, ended = q["game_started"], q["game_ended"]
    assert (started.amount_minor, started.meter_minor) == (sum(bet), coin_in_after_bet) and sum(bet) > 0
    assert started.max_bet is (max(bet) >= rig.cab.rules.max_bet_minor)
    assert ended.amount_minor == st.win_minor


def test_a_printed_voucher_is_the_last_cash_out_ticket():
    """SAS 0x3D reports the last cash-out ticket: its number and amount, kept per station
    once the printer confirms it."""
    rig = Rig()
    h = rig.cab.s.stations[0].host
    assert (h.last_ticket_number, h.last_ticket_minor) == ("", 0)
    rig.note(2_000)
    rec = next(e.record for e in rig.press("cash_out") if isinstance(e, PrintVoucher))
    assert (h.last_ticket_number, h.last_ticket_minor) == ("", 0)  # not printed yet
    rig.cab.handle(PrintFinished(1, rec.validation_number, "done"))
    assert (h.last_ticket_number, h.last_ticket_minor) == (rec.validation_number, 2_000)

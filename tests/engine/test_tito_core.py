"""Tickets through the casino host, the cabinet core's side: SAS system
validation at cash-out (0x57 / 0x58) and redemption by the host (0x67 / 0x70 / 0x71 /
0x68). Pure: the host's answers arrive as ``HostCommanded``, time as ``Tick``."""

from __future__ import annotations

import random

import msgspec

from cabinet.core.effects import HoldNote, Journal, PrintVoucher, ReturnNote, StackNote
from cabinet.core.events import (
    HostCommanded,
    HostLinkChanged,
    HostLinkConfigured,
    NoteReturned,
    PowerUp,
    PrintFinished,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.records import TicketData
from cabinet.core.state import CabinetState

from .helpers import Rig

VN = "001234567890123456"


class TitoRig(Rig):
    """Station 1 on a host link with system validation, the link up."""

    def __init__(self, validation: str = "system", timeout_s: float = 10.0, denomination_minor: int = 1) -> None:
        self.cab = Cabinet(new_state(), rng=random.Random(1))
        self.now_ms, self.wall_s, self.txn = 0, 1_800_000_000.0, 0
        self.cab.handle(HostLinkConfigured(1, 1, "/dev/pts/1", self.wall_s, validation, timeout_s, denomination_minor))
        self.cab.handle(PowerUp(self.now_ms, self.wall_s))
        self.cab.handle(HostLinkChanged(1, True))

    @property
    def host(self):
        return self.cab.s.stations[0].host

    def queue(self) -> list[str]:
        return [e.name for e in self.host.queue]

    def journal(self, kind: str) -> list[Journal]:
        return [e for e in self.effects if isinstance(e, Journal) and e.kind == kind]

    def command(self, name: str, **kw):
        self.effects = self.cab.handle(HostCommanded(1, name, **kw))
        return self.effects

    def insert(self, vn: str = VN, record=None):
        self.txn += 1
        self.effects = self.cab.handle(VoucherEscrowed(1, vn, record, f"v{self.txn}"))
        return self.effects


def test_system_cash_out_waits_for_the_hosts_number_and_prints_that_number():
    """Validation "system": a cash-out raises 0x57 and waits (journaled), the
    host's 0x58 number is the one printed; 0x3D only after the printer confirms."""
    rig = TitoRig()
    rig.note(2_500)
    rig.press("cash_out")
    assert rig.cab.mode == "cash_out"
    assert rig.host.pending_cashout.amount_minor == 2_500
    assert rig.credits() == 0 and rig.cab.s.stations[0].pending_out_minor == 2_500
    assert rig.queue()[-2:] == ["cash_out_button_pressed", "system_validation_request"]
    assert rig.cab.snapshot(1).overlay_text == "Ticket for $25.00: validating with the casino host"
    assert not [e for e in rig.effects if isinstance(e, PrintVoucher)]
    rig.command("validation_number", validation_number=VN)
    (pv,) = [e for e in rig.effects if isinstance(e, PrintVoucher)]
    assert pv.record.validation_number == VN and pv.record.amount_minor == 2_500
    assert pv.record.validation == "system"
    assert "cash_out_ticket_printed" not in rig.queue()
    rig.effects = rig.cab.handle(PrintFinished(1, VN, "done"))
    assert rig.queue()[-1] == "cash_out_ticket_printed"
    assert rig.meters().vouchers_out_minor == 2_500 and rig.balanced()
    assert rig.host.pending_cashout is None and rig.cab.mode == "attract"


def test_a_cash_out_of_part_credits_goes_to_the_host_in_cents():
    """The host sees ticket amounts in cents whatever the accounting denomination (Monaco
    ``LP57SendPendingCashoutInformationParser.cs``: "cashout amount in cents"): at $0.25
    credits a $25.10 cash-out still goes to the host for a ticket of $25.10."""
    rig = TitoRig(denomination_minor=25)
    rig.note(2_510)
    rig.press("cash_out")
    assert rig.host.pending_cashout is not None and rig.host.pending_cashout.amount_minor == 2_510
    assert rig.cab.s.handpay is None
    assert rig.balanced()


def test_a_denied_validation_is_a_handpay_with_the_reason_shown():
    """0x58 denied -> no ticket: today's handpay path, nothing lost."""
    rig = TitoRig()
    rig.note(2_500)
    rig.press("cash_out")
    rig.command("validation_number", validation_number="")
    hp = rig.cab.s.handpay
    assert hp is not None and hp.amount_minor == 2_500
    assert hp.reason == "no ticket: validation denied by the casino host"
    assert rig.journal("validation_failed")[0].data["reason"] == "validation denied by the casino host"
    assert rig.queue()[-1] == "handpay_pending"
    assert "denied by the casino host" in rig.cab.snapshot(1).overlay_text
    assert rig.balanced()


def test_no_answer_within_the_timeout_is_a_handpay():
    """Research/sas.md "the host answers within about 10 s or the cash-out is
    denied": the timer runs on Tick (no clock in the core)."""
    rig = TitoRig(timeout_s=10)
    rig.note(2_500)
    rig.press("cash_out")
    rig.advance(9_900)
    assert rig.cab.s.handpay is None
    rig.advance(200)
    assert rig.cab.s.handpay.reason == "no ticket: no validation from the casino host within 10 s"
    rig.command("validation_number", validation_number=VN)  # too late: nothing prints
    assert not [e for e in rig.effects if isinstance(e, PrintVoucher)]
    assert rig.balanced()


def test_link_down_or_offline_at_cash_out_is_a_handpay():
    """Offline behaviour (default): a cash-out with the host down is a handpay."""
    rig = TitoRig()
    rig.note(2_500)
    rig.press("cash_out")
    rig.cab.handle(HostLinkChanged(1, False))
    assert rig.cab.s.handpay.reason == "no ticket: host offline"
    rig2 = TitoRig()
    rig2.cab.handle(HostLinkChanged(1, False))
    rig2.note(500)
    rig2.press("cash_out")
    assert rig2.cab.s.handpay.reason == "no ticket: host offline"
    assert rig.balanced() and rig2.balanced()


def test_a_restart_while_waiting_for_validation_is_a_handpay():
    """The request died with the link: a restart ends it as a handpay."""
    rig = TitoRig()
    rig.note(2_500)
    rig.press("cash_out")
    state = msgspec.json.decode(msgspec.json.encode(rig.cab.s), type=CabinetState)
    cab = Cabinet(state, rng=random.Random(2))
    cab.handle(PowerUp(0, rig.wall_s + 5))
    assert cab.s.handpay.amount_minor == 2_500
    assert cab.s.stations[0].host.pending_cashout is None


def test_ticket_data_from_the_host_goes_on_the_ticket():
    """0x7C/0x7D: the voucher's venue, address lines and expiry come from the host."""
    rig = TitoRig()
    rig.command(
        "set_ticket_data",
        ticket_data=TicketData(location="Lucky Strike", address1="1 Main St", address2="Reno NV", expiration_days=7),
    )
    assert rig.journal("host_command")[0].data["location"] == "Lucky Strike"
    rig.note(500)
    rig.press("cash_out")
    rig.command("validation_number", validation_number=VN)
    (pv,) = [e for e in rig.effects if isinstance(e, PrintVoucher)]
    assert pv.record.venue == "Lucky Strike"
    assert pv.record.address_lines == ("1 Main St", "Reno NV")
    assert pv.record.expires_wall_s - pv.record.issued_wall_s == 7 * 86_400


def test_validation_none_keeps_todays_own_tickets():
    """Validation "none": the cabinet draws its own number, no 0x57."""
    rig = TitoRig(validation="none")
    rig.note(500)
    rig.press("cash_out")
    assert [e for e in rig.effects if isinstance(e, PrintVoucher)]
    assert "system_validation_request" not in rig.queue()


# -- redemption ---------------------------------------------------------------------------


def test_an_inserted_ticket_is_held_for_the_host_then_credited_once_when_stacked():
    """Held in escrow, 0x67; the host's cashable 0x71 stacks it; the credit
    comes in the transaction of the stacked ticket; 0x68 and the final status."""
    rig = TitoRig()
    rig.insert()
    assert [type(e) for e in rig.effects if isinstance(e, HoldNote | StackNote | ReturnNote)] == [HoldNote]
    assert rig.queue()[-1] == "ticket_inserted"
    assert rig.host.ticket_in.status == "held"
    rig.command("redeem_ticket", validation_number=VN, amount_minor=4_200, transfer_code=0)
    assert [e for e in rig.effects if isinstance(e, StackNote)]
    assert rig.journal("voucher_escrowed")[0].data["txn"] == "v1"
    assert rig.credits() == 0  # not before it is stacked
    rig.effects = rig.cab.handle(VoucherStacked(1, VN, "v1", None))
    assert rig.credits() == 4_200
    assert rig.journal("voucher_in")[0].amount_minor == 4_200
    assert rig.queue()[-1] == "ticket_transfer_complete"
    assert rig.host.ticket_in.result == "redeemed"
    rig.effects = rig.cab.handle(VoucherStacked(1, VN, "v1", None))  # repeat vend valid
    assert rig.credits() == 4_200 and rig.meters().vouchers_in_count == 1
    assert rig.balanced()


def test_host_rejections_return_the_ticket_with_the_reason_on_the_table():
    """A rejected ticket comes back with why ("already redeemed", "expired",
    "unknown ticket"); promotional codes are refused (not metered here)."""
    for code, words in (
        (0x84, "already redeemed"),
        (0x85, "expired"),
        (0x82, "unknown ticket"),
        (0x01, "promotional tickets not taken here"),
        (0x02, "promotional tickets not taken here"),
    ):
        rig = TitoRig()
        rig.insert()
        rig.command("redeem_ticket", validation_number=VN, amount_minor=100, transfer_code=code)
        assert [e for e in rig.effects if isinstance(e, ReturnNote)], code
        assert rig.cab.s.stations[0].refusal == f"Ticket refused: {words}"
        assert rig.journal("ticket_done")[0].data["reason"] == words
        assert rig.queue()[-1] == "ticket_transfer_complete"
        assert rig.credits() == 0


def test_no_answer_link_down_and_host_offline_return_the_ticket():
    """Timeout, link pulled, host offline: the ticket comes back, nothing credited."""
    rig = TitoRig(timeout_s=5)
    rig.insert()
    rig.advance(5_000)
    assert [e for e in rig.effects if isinstance(e, ReturnNote)]
    assert rig.host.ticket_in.result == "timeout"
    assert rig.cab.s.stations[0].refusal == "Ticket refused: no answer from the casino host"
    rig.command("redeem_ticket", validation_number=VN, amount_minor=100, transfer_code=0)
    assert not [e for e in rig.effects if isinstance(e, StackNote)]  # too late

    rig = TitoRig()
    rig.insert()
    rig.effects = rig.cab.handle(HostLinkChanged(1, False))
    assert [e for e in rig.effects if isinstance(e, ReturnNote)]
    assert rig.host.ticket_in.result == "link_down"
    rig.insert()  # the host is down now
    assert [e for e in rig.effects if isinstance(e, ReturnNote)]
    assert rig.cab.s.stations[0].refusal == "Ticket refused: host offline"


def test_over_the_credit_limit_is_refused_and_a_returned_stack_credits_nothing():
    """The host's amount over the credit limit is handed back; a ticket the
    acceptor hands back itself is final "unable_now", not credited."""
    rig = TitoRig()
    rig.insert()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=10**7, transfer_code=0)
    assert rig.host.ticket_in.result == "credit_limit"
    rig.insert()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=100, transfer_code=0)
    rig.effects = rig.cab.handle(NoteReturned(1, "v2"))
    assert rig.host.ticket_in.result == "unable_now" and rig.credits() == 0


def test_a_restart_with_a_ticket_held_reports_it_not_redeemed():
    """The acceptor hands a held ticket back when nobody holds it: after a
    restart its final status is "unable_now", the host keeps it valid."""
    rig = TitoRig()
    rig.insert()
    state = msgspec.json.decode(msgspec.json.encode(rig.cab.s), type=CabinetState)
    cab = Cabinet(state, rng=random.Random(2))
    cab.handle(PowerUp(0, rig.wall_s + 5))
    assert cab.s.stations[0].host.ticket_in.result == "unable_now"


def test_a_stacking_ticket_survives_a_restart_and_is_credited_once():
    """Between the host's go and the vend valid, a restart keeps the ticket
    ``stacking``: the acceptor's recovery (VoucherStacked) credits it once."""
    rig = TitoRig()
    rig.insert()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=700, transfer_code=0)
    state = msgspec.json.decode(msgspec.json.encode(rig.cab.s), type=CabinetState)
    cab = Cabinet(state, rng=random.Random(2))
    cab.handle(PowerUp(0, rig.wall_s + 5))
    cab.handle(VoucherStacked(1, VN, "v1", None))
    cab.handle(VoucherStacked(1, VN, "v1", None))
    assert cab.s.stations[0].credits_minor == 700
    assert cab.s.stations[0].host.ticket_in.result == "redeemed"


def test_a_ticket_the_acceptor_took_but_never_reported_stacked_is_settled_once():
    """After the host's go, a ticket found in the cash box at power-up (ID-003
    0x42) is credited (the host redeemed it, it is in the box); one that may be in the
    path (STACKed, then gone) is final "unable_now", not credited, left for the
    attendant's review: the host keeps it valid, never both."""
    from cabinet.core.events import NoteUncredited

    rig = TitoRig()
    rig.insert()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=900, transfer_code=0)
    rig.effects = rig.cab.handle(NoteUncredited(1, "in_stacker", "v1", 0, VN))
    assert rig.credits() == 900 and rig.host.ticket_in.result == "redeemed"
    rig.effects = rig.cab.handle(NoteUncredited(1, "in_stacker", "v1", 0, VN))
    assert rig.credits() == 900
    rig.insert()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=500, transfer_code=0)
    rig.effects = rig.cab.handle(NoteUncredited(1, "in_path", "v2", 0, VN))
    assert rig.credits() == 900 and rig.host.ticket_in.result == "unable_now"
    assert rig.cab.s.note_reviews and rig.balanced()


def test_a_validation_handpay_is_read_by_0x1b_and_its_reset_raises_0x52():
    """Handpay through the host: the handpay a failed validation ends in is
    the station's pending handpay for 0x1B (cancelled credits, its amount); a remote
    reset (0x94) ends it and queues handpay_reset (0x52); 0xA8 is refused (no reset to
    the credit meter: the operator does not allow it), logged."""
    from cabinet.shell.host_view import SasStation, egm_view

    rig = TitoRig()
    rig.note(2_000)
    rig.press("cash_out")
    rig.command("validation_number", validation_number="")
    view = egm_view(rig.cab.s, 1, SasStation(port="p"), "", 10_000)
    assert view.handpay is not None and view.handpay.amount_credits == 2_000
    assert view.handpay.kind == "cancelled_credits"
    rig.command("handpay_reset_to_credit_meter")
    assert rig.cab.s.handpay is not None
    assert rig.journal("host_command")[0].data["result"].startswith("refused")
    rig.command("remote_handpay_reset")
    assert rig.cab.s.handpay is None and rig.queue()[-1] == "handpay_reset"
    assert rig.meters().handpay_minor == 2_000 and rig.balanced()


def test_the_view_publishes_the_pending_cash_out_and_the_tickets_0x71_status():
    """The EgmView the link answers from: 0x57's pending cash-out (cents at
    every accounting denomination: Monaco LP57SendPendingCashoutInformationParser.cs),
    the ticket in escrow (status None while the host
    decides, 0x40 while stacking, then the final 0x71 status) and 0x50's meters."""
    from cabinet.shell.host_view import SasStation, egm_view
    from drivers.sas import tito_codes as tc

    rig = TitoRig()
    sas = SasStation(port="p", accounting_denomination_minor=5)
    rig.note(1_000)
    rig.press("cash_out")
    view = egm_view(rig.cab.s, 1, sas, "", 10_000)
    assert view.validation_mode == "system"
    assert (view.pending_cashout.amount_cents, view.pending_cashout.cashout_id) == (1_000, 1)
    rig.command("validation_number", validation_number=VN)
    rig.cab.handle(PrintFinished(1, VN, "done"))
    rig.insert()
    assert egm_view(rig.cab.s, 1, sas, "", 10_000).ticket_in.status is None
    rig.command("redeem_ticket", validation_number=VN, amount_minor=500, transfer_code=0)
    assert egm_view(rig.cab.s, 1, sas, "", 10_000).ticket_in.status == tc.STATUS_PENDING
    rig.cab.handle(VoucherStacked(1, VN, f"v{rig.txn}", None))
    view = egm_view(rig.cab.s, 1, sas, "", 10_000)
    assert (view.ticket_in.status, view.ticket_in.amount_cents_final) == (tc.STATUS_CASHABLE_REDEEMED, 500)
    assert view.validation_meters[tc.VT_CASHABLE_TICKET] == (1, 1_000)  # cents (Monaco LP50)
    assert view.validation_meters[tc.VT_CASHABLE_TICKET_REDEEMED] == (1, 500)


def test_a_ram_clear_keeps_system_validation_and_never_reuses_ticket_ids():
    """The validation setting comes with the link (at start): a RAM clear keeps
    it, and the ids of cash-outs and tickets the host knows go on increasing."""
    from cabinet.core.events import DoorChanged, IntentReceived, KeyChanged
    from cabinet.core.maintenance import MAIN_ITEMS

    rig = TitoRig(timeout_s=7)
    rig.insert()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=100, transfer_code=0x84)
    from .menu_helpers import cab_send, set_pin, type_pin

    set_pin(rig.cab.s)
    rig.cab.handle(DoorChanged("logic", True))
    rig.cab.handle(KeyChanged(True))
    for _ in range([k for k, _ in MAIN_ITEMS].index("ram_clear")):
        rig.cab.handle(IntentReceived(1, "menu_down"))
    rig.cab.handle(IntentReceived(1, "menu_select"))  # the technician PIN first
    type_pin(cab_send(rig.cab))
    assert rig.cab.s.maintenance.page == "ram_clear"
    for _ in range(2):  # arm, confirm
        rig.press("menu_select")
    h = rig.host
    assert [e.name for e in h.queue] == ["memory_error_reset"]
    assert (h.validation, h.validation_timeout_ms, h.next_ticket_id) == ("system", 7_000, 2)


def test_the_engine_logs_every_ticket_outcome(tmp_path, caplog):
    """A denied validation and a refused ticket are each a log line of the
    engine (``cabinet.engine``), as well as a journal event and a table message."""
    import logging

    from cabinet.core.events import NoteStacked
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    eng = Engine(Store(tmp_path / "j.db"), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: 1_800_000_000.0)
    eng.step(HostLinkConfigured(1, 1, "/dev/pts/1", 1_800_000_000.0, "system", 10.0))
    eng.step(PowerUp(0, 1_800_000_000.0))
    eng.step(HostLinkChanged(1, True))
    eng.step(NoteStacked(1, 500, "n1"))
    with caplog.at_level(logging.INFO):
        from cabinet.core.events import IntentReceived

        eng.step(IntentReceived(1, "cash_out"))
        eng.step(HostCommanded(1, "validation_number", validation_number=""))
        eng.step(HostCommanded(1, "remote_handpay_reset"))
        eng.step(VoucherEscrowed(1, VN, None, "v1"))
        eng.step(HostCommanded(1, "redeem_ticket", validation_number=VN, transfer_code=0x84))
    text = caplog.text
    assert "validation_failed" in text and "validation denied by the casino host" in text
    assert "ticket_done" in text and "already redeemed" in text


def test_a_barcode_0x70_cannot_carry_is_handed_back_at_once():
    """0x70 sends 18 digits at most (drivers/sas/egm_view.py ``TicketIn``): a
    longer or non-digit barcode is refused at once, never held for the host."""
    for bad in ("1" * 19, "12a4", ""):
        rig = TitoRig()
        rig.insert(bad)
        assert [e for e in rig.effects if isinstance(e, ReturnNote)], bad
        assert rig.host.ticket_in is None
        assert rig.cab.s.stations[0].refusal == "Ticket refused: not a valid ticket"


def test_the_hosts_0x7b_bits_are_enforced_once_it_has_set_them():
    """The 0x7B status bits were stored, not enforced. SAS 6.02 0x7B
    (research/sas.md; ``drivers.sas.tito_codes``): bit 5 "ticket redemption" and bit 0
    "use printer as cash-out device". Once the host has set them, a ticket offered with
    bit 5 clear is handed back with why, and a cash-out with bit 0 clear is a handpay
    (nothing lost); before the host sets them the cabinet's own defaults (both on) hold."""
    rig = TitoRig()
    rig.insert()
    assert not [e for e in rig.effects if isinstance(e, ReturnNote)]  # never set: taken
    rig = TitoRig()
    rig.command("set_extended_validation_status", control=(0x0021, 0x0001, 0, 0))
    assert rig.cab.s.stations[0].host.ticket_data.validation_status == 0x0001
    rig.insert()
    assert [e for e in rig.effects if isinstance(e, ReturnNote)]
    assert rig.cab.s.stations[0].refusal == "Ticket refused: ticket redemption disabled by the casino host"
    assert rig.credits() == 0
    rig.command("set_ticket_data", ticket_data=TicketData(location="Lucky Strike"))
    assert rig.cab.s.stations[0].host.ticket_data.validation_status_set  # 0x7D keeps it

    rig = TitoRig()
    rig.command("set_extended_validation_status", control=(0x0021, 0x0020, 0, 0))
    rig.note(2_500)
    rig.press("cash_out")
    hp = rig.cab.s.handpay
    assert hp is not None and hp.amount_minor == 2_500
    assert hp.reason == "no ticket: printer not enabled for cash-out by the casino host"
    assert not [e for e in rig.effects if isinstance(e, PrintVoucher)]
    assert rig.balanced()
    rig.command("set_extended_validation_status", control=(0x0001, 0x0001, 0, 0))
    assert rig.cab.s.stations[0].host.ticket_data.validation_status == 0x0021


def test_the_hosts_0x7b_bits_survive_a_restart():
    """The 0x7B bits are committed state: after a power cut the cabinet still refuses
    tickets the host said not to take (until the host's next 0x7B at link-up)."""
    rig = TitoRig()
    rig.command("set_extended_validation_status", control=(0x0021, 0x0001, 0, 0))
    state = msgspec.json.decode(msgspec.json.encode(rig.cab.s), type=CabinetState)
    cab = Cabinet(state, rng=random.Random(2))
    cab.handle(PowerUp(0, rig.wall_s + 5))
    cab.handle(HostLinkChanged(1, True))
    eff = cab.handle(VoucherEscrowed(1, VN, None, "v9"))
    assert [e for e in eff if isinstance(e, ReturnNote)]
    assert cab.s.stations[0].refusal == "Ticket refused: ticket redemption disabled by the casino host"


def test_an_empty_0x7b_control_mask_changes_nothing_and_the_defaults_are_reported():
    """Monaco ``Handlers/LP7BExtendedValidationStatusHandler.cs``: a function whose control
    mask bit is 0 is left as it is, so ``7B 08 0000 0000 0000 0000`` (what several hosts
    send by default) changes nothing; before any 0x7B the view reports the functions the
    cabinet runs with (printer as cash-out device, ticket redemption: 0x0021) as set."""
    from cabinet.shell.host_view import SasStation, egm_view

    rig = TitoRig()
    sas = SasStation(port="p", validation="system")
    assert egm_view(rig.cab.s, 1, sas, "", 10_000).ticket_data.validation_status == 0x0021
    rig.command("set_extended_validation_status", control=(0, 0, 0, 0))
    assert egm_view(rig.cab.s, 1, sas, "", 10_000).ticket_data.validation_status == 0x0021
    rig.note(2_500)
    rig.press("cash_out")
    assert rig.cab.s.handpay is None and rig.host.pending_cashout is not None
    rig = TitoRig()
    rig.command("set_extended_validation_status", control=(0x0020, 0x0000, 0, 0))
    assert egm_view(rig.cab.s, 1, sas, "", 10_000).ticket_data.validation_status == 0x0001


def test_tito_amounts_are_cents_and_meters_credits_at_every_accounting_denomination():
    """The layouts' units, byte for byte from the station's view at 1c, 5c, 25c and $1
    credits: 0x57's amount and 0x50's cumulative amount in cents (Monaco
    ``LP57SendPendingCashoutInformationParser.cs``, ``LP50SendValidationMetersParser.cs``),
    0x70's and 0x71's amounts in cents (``LP70``/``LP71`` parsers), the credit meter (0x1A)
    and coin meters in credits of the accounting denomination."""
    from cabinet.shell.host_view import SasStation, egm_view
    from drivers.sas.crc import with_crc
    from drivers.sas.egm import EgmResponder
    from drivers.sas.host_codec import general_poll, to_wire

    def poll(view, message: bytes) -> list[bytes]:
        r = EgmResponder(1)
        r.update(view)
        out = r.receive(to_wire(general_poll(0)) + to_wire(message), 0)
        return [o for o in out if isinstance(o, bytes)]

    for d in (1, 5, 25, 100):
        rig = TitoRig(denomination_minor=d)
        sas = SasStation(port="p", accounting_denomination_minor=d, validation="system")
        rig.note(2_000)
        view = egm_view(rig.cab.s, 1, sas, "", 10_000)
        credits = f"{2_000 // d:08d}"
        assert poll(view, bytes.fromhex("01 1A")) == [with_crc(bytes.fromhex("01 1A" + credits))], d
        rig.press("cash_out")
        view = egm_view(rig.cab.s, 1, sas, "", 10_000)
        assert poll(view, bytes.fromhex("01 57")) == [with_crc(bytes.fromhex("01 57 00 0000002000"))], d
        rig.command("validation_number", validation_number=VN)
        rig.cab.handle(PrintFinished(1, VN, "done"))
        view = egm_view(rig.cab.s, 1, sas, "", 10_000)
        assert poll(view, with_crc(bytes.fromhex("01 50 00"))) == [
            with_crc(bytes.fromhex("01 50 00 00000001 0000002000"))
        ], d
        rig.insert()
        view = egm_view(rig.cab.s, 1, sas, "", 10_000)
        assert poll(view, bytes.fromhex("01 70")) == [with_crc(bytes.fromhex("01 70 10 00 0000000000 00" + VN))], (
            d
        )  # amount not known here
        redeem = with_crc(bytes.fromhex("01 71 16 00 0000002000 00" + VN + "00000000 0000"))
        assert poll(view, redeem)[0][3:9] == bytes.fromhex("40 0000002000"), d
        rig.command("redeem_ticket", validation_number=VN, amount_minor=2_000, transfer_code=0)
        rig.cab.handle(VoucherStacked(1, VN, f"v{rig.txn}", None))
        assert rig.credits() == 2_000, d
        view = egm_view(rig.cab.s, 1, sas, "", 10_000)
        assert poll(view, with_crc(bytes.fromhex("01 71 01 FF")))[0][3:9] == bytes.fromhex("00 0000002000"), d

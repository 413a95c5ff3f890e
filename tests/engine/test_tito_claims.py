"""Tickets the cabinet settles with the casino host without a ticket in escrow: a
system-validated ticket whose print is unknown after a restart (checked with the host
before any handpay), and a ticket the acceptor took into the cash box at a power cut
without crediting it (redeemed through the host on the attendant's key). Pure: the
host's 0x71 answers arrive as ``HostCommanded``."""

from __future__ import annotations

import random

import msgspec

from cabinet.core.effects import Journal, PrintVoucher, Rejected
from cabinet.core.events import (
    HistoryLoaded,
    HistoryQuery,
    HostEventAcked,
    HostLinkChanged,
    KeyChanged,
    NoteUncredited,
    PowerUp,
    Tick,
    VoucherStacked,
)
from cabinet.core.machine import Cabinet
from cabinet.core.records import VoucherRecord
from cabinet.core.shell_inputs import event_query
from cabinet.core.state import CabinetState

from .test_tito_core import VN, TitoRig

OTHER = "009999999999999999"


def _restart(rig: TitoRig, later_s: float = 5.0) -> None:
    state = msgspec.json.decode(msgspec.json.encode(rig.cab.s), type=CabinetState)
    rig.cab = Cabinet(state, rng=random.Random(2))
    rig.now_ms, rig.wall_s = 0, rig.wall_s + later_s
    rig.effects = rig.cab.handle(PowerUp(0, rig.wall_s))
    rig.effects += rig.cab.handle(HostLinkChanged(1, True))
    _ack(rig)


def _printing(amount: int = 5_000) -> TitoRig:
    """$amount cashed out, the host's number VN printing when the power goes."""
    rig = TitoRig()
    rig.note(amount)
    rig.press("cash_out")
    rig.command("validation_number", validation_number=VN)
    assert [e for e in rig.effects if isinstance(e, PrintVoucher)]
    _restart(rig)
    return rig


def _ack(rig: TitoRig) -> None:
    """The host read every queued exception (a claim waits for the previous 0x67/0x68)."""
    if rig.host.queue:
        rig.cab.handle(HostEventAcked(1, rig.host.queue[-1].event_id))
    rig.advance(100)


def test_an_unknown_print_is_checked_with_the_host_before_any_handpay():
    """Restart mid-print of a host-numbered ticket: no handpay yet; the number goes to the
    host as a ticket to settle (0x67, 0x70 with the number and amount), the station waits."""
    rig = _printing()
    assert rig.cab.s.handpay is None
    t = rig.host.ticket_in
    assert t is not None and t.validation_number == VN and t.amount_minor == 5_000
    assert t.status == "held" and t.purpose == "print_check"
    assert rig.cab.mode == "cash_out" and rig.balanced()
    assert rig.cab.s.stations[0].pending_out_minor == 5_000
    assert rig.cab.snapshot(1).overlay_text == "Ticket for $50.00: print unknown, checking with the casino host"


def test_an_unknown_print_the_host_already_redeemed_is_printed_and_redeemed_no_handpay():
    """A ticket paid elsewhere (0x71 answers 0x84 already redeemed): the print happened
    and the ticket was redeemed; no handpay is offered, the voucher is counted out."""
    rig = _printing()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=0, transfer_code=0x84)
    assert rig.cab.s.handpay is None and not rig.cab.s.handpay_queue
    assert rig.meters().vouchers_out_minor == 5_000 and rig.meters().handpay_minor == 0
    assert rig.cab.s.stations[0].pending_out_minor == 0 and rig.balanced()
    (printed,) = [e for e in rig.effects if isinstance(e, Journal) and e.kind == "voucher_printed"]
    assert printed.data["resolved"] == "redeemed at the casino host"
    assert "cash_out_ticket_printed" not in rig.queue()
    assert rig.cab.mode == "attract"


def test_an_unknown_print_the_host_voided_is_one_handpay_with_its_number():
    """0x71 answers a rejection that kills the number at the host (0x80 void, 0x82
    unknown): nobody can redeem it, so the attendant pays it, once."""
    for code in (0x80, 0x82):
        rig = _printing()
        rig.command("redeem_ticket", validation_number=VN, amount_minor=0, transfer_code=code)
        hp = rig.cab.s.handpay
        assert hp is not None and hp.amount_minor == 5_000 and hp.validation_number == VN
        rig.effects = rig.cab.handle(KeyChanged(True))
        rig.cab.handle(KeyChanged(False))
        assert rig.meters().handpay_minor == 5_000 and rig.meters().vouchers_out_minor == 0
        assert rig.balanced()


def test_an_unknown_print_pending_at_another_machine_or_host_down_keeps_waiting():
    """0x83 (pending elsewhere) or the link down: still unresolved, no handpay; asked
    again later (a new 0x67 for the same number)."""
    rig = _printing()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=0, transfer_code=0x83)
    assert rig.cab.s.handpay is None and rig.cab.mode == "cash_out"
    rig.advance(30_000)
    _ack(rig)
    t = rig.host.ticket_in
    assert t is not None and t.status == "held" and t.purpose == "print_check"
    rig.command("redeem_ticket", validation_number=VN, amount_minor=0, transfer_code=0x84)
    assert rig.meters().vouchers_out_minor == 5_000 and rig.cab.s.handpay is None


def test_an_unknown_print_survives_another_restart_unresolved():
    rig = _printing()
    _restart(rig, 10)
    assert rig.cab.s.handpay is None
    t = rig.host.ticket_in
    assert t is not None and t.purpose == "print_check" and t.validation_number == VN
    rig.command("redeem_ticket", validation_number=VN, amount_minor=0, transfer_code=0x80)
    assert rig.cab.s.handpay is not None and rig.cab.s.handpay.amount_minor == 5_000


def test_a_ticket_in_the_cash_box_is_redeemed_through_the_host_on_the_key():
    """Acceptor power cut at STACKING with the engine down, for a ticket: tilt 306; the
    attendant's key sends it to the host (0x67/0x70 with its number); the host's redeem
    credits it once, in the journal and on the credit meter; never twice."""
    rig = TitoRig()
    rig.effects = rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, VN))
    assert rig.cab.mode == "tilt" and rig.credits() == 0
    rig.effects = rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    _ack(rig)
    t = rig.host.ticket_in
    assert t is not None and t.validation_number == VN and t.purpose == "in_box"
    assert t.status == "held"
    rig.command("redeem_ticket", validation_number=VN, amount_minor=1_200, transfer_code=0)
    assert rig.credits() == 1_200 and rig.meters().vouchers_in_minor == 1_200
    assert rig.host.ticket_in.result == "redeemed" and rig.balanced()
    rig.command("redeem_ticket", validation_number=VN, amount_minor=1_200, transfer_code=0)
    rig.effects = rig.cab.handle(VoucherStacked(1, VN, "v9", None))
    rig.effects = rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, VN))
    assert rig.credits() == 1_200 and rig.cab.mode != "tilt"


def test_a_ticket_in_the_cash_box_the_host_refuses_is_recorded_not_credited():
    rig = TitoRig()
    rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, VN))
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    _ack(rig)
    rig.command("redeem_ticket", validation_number=VN, amount_minor=0, transfer_code=0x84)
    assert rig.credits() == 0 and rig.host.ticket_in.result == "rejected_by_host"
    assert rig.cab.mode != "tilt" and rig.balanced()


def test_a_ticket_in_the_cash_box_waits_for_the_host_across_a_restart():
    rig = TitoRig()
    rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, VN))
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    _restart(rig)
    t = rig.host.ticket_in
    assert t is not None and t.purpose == "in_box" and t.status == "held"
    rig.command("redeem_ticket", validation_number=VN, amount_minor=700, transfer_code=0)
    assert rig.credits() == 700 and rig.balanced()


def test_own_voucher_in_the_cash_box_is_credited_once_by_the_key():
    """Validation "none": a voucher of this cabinet found in the cash box is credited by
    the key from its record (issued, not expired), once; its record becomes redeemed."""
    from cabinet.core.effects import SetVoucherStatus

    rig = TitoRig(validation="none")
    rec = _own_voucher(rig, OTHER, 800)
    rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, OTHER))
    key = KeyChanged(True)
    query = event_query(rig.cab, key)  # the shell reads the records right before the key
    assert query == HistoryQuery(outstanding=True)
    rig.cab.handle(HistoryLoaded(query, outstanding=(rec,)))
    rig.effects = rig.cab.handle(key)
    rig.cab.handle(KeyChanged(False))
    assert rig.credits() == 800 and rig.meters().vouchers_in_minor == 800
    assert SetVoucherStatus(OTHER, "redeemed", rig.cab.s.wall_s) in rig.effects
    rig.effects = rig.cab.handle(VoucherStacked(1, OTHER, "v9", rec))
    assert rig.credits() == 800 and rig.balanced()


def _own_voucher(rig, vn: str, amount_minor: int) -> VoucherRecord:
    return VoucherRecord(
        validation_number=vn,
        sequence=1,
        amount_minor=amount_minor,
        station=1,
        issued_wall_s=rig.wall_s,
        expires_wall_s=rig.wall_s + 86_400,
        clock_adjust_s=0.0,
        status="issued",
        venue="",
        machine_number="1",
    )


def test_a_ticket_in_the_cash_box_waits_when_the_voucher_records_were_not_read():
    """Validation "none", the key turned with no records handed in: the review waits
    (nothing credited, nothing recorded as not credited); the next key with the
    records credits it once."""
    rig = TitoRig(validation="none")
    rec = _own_voucher(rig, OTHER, 800)
    rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, OTHER))
    eff = rig.cab.handle(KeyChanged(True))
    assert rig.credits() == 0 and len(rig.cab.s.note_reviews) == 1
    assert not [e for e in eff if isinstance(e, Journal) and e.kind in ("note_review_resolved", "voucher_in")]
    assert Rejected("note review", "voucher records not read: turn the key again") in eff
    rig.cab.handle(KeyChanged(False))
    rig.cab.handle(HistoryLoaded(HistoryQuery(outstanding=True), outstanding=(rec,)))
    rig.cab.handle(Tick(rig.now_ms, rig.wall_s))  # rows read for another event are spent
    rig.cab.handle(KeyChanged(True))
    assert rig.credits() == 0 and len(rig.cab.s.note_reviews) == 1
    rig.cab.handle(KeyChanged(False))
    rig.cab.handle(HistoryLoaded(HistoryQuery(outstanding=True), outstanding=(rec,)))
    eff = rig.cab.handle(KeyChanged(True))
    assert rig.credits() == 800 and not rig.cab.s.note_reviews
    assert Journal("note_review_resolved", 1, 800, {"txn": "v9", "kind": "in_stacker", "credited": True}) in eff


def test_a_ticket_in_the_cash_box_not_in_the_records_read_is_not_credited():
    """Validation "none", the records read and the ticket not among the outstanding
    vouchers (redeemed, or never issued here): recorded reviewed, not credited."""
    rig = TitoRig(validation="none")
    rig.cab.handle(NoteUncredited(1, "in_stacker", "v9", 0, OTHER))
    rig.cab.handle(HistoryLoaded(HistoryQuery(outstanding=True), outstanding=(_own_voucher(rig, VN, 500),)))
    eff = rig.cab.handle(KeyChanged(True))
    assert rig.credits() == 0 and not rig.cab.s.note_reviews
    assert Journal("note_review_resolved", 1, 0, {"txn": "v9", "kind": "in_stacker", "credited": False}) in eff

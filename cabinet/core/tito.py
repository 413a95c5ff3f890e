"""Tickets through the casino host: SAS system validation at cash-out and
ticket redemption by the host.

Owns: ``Tito``, the host owner's ticket machine (``Cabinet.tito``: ``HostState``'s
``pending_cashout``, ``ticket_in``, ``ticket_data``). Pure: no I/O, no clock (the
timeouts run on ``Tick.now_ms``).

Cash-out with ``validation == "system"`` (research/sas.md "TITO": 0x57/0x58, "the host
answers within about 10 s or the cash-out is denied"): the amount leaves the credit
meter into ``pending_out_minor`` and waits in ``HostState.pending_cashout`` (journaled
``validation_requested``: exception 0x57); the host's ``validation_number`` (0x58)
prints the ticket under THAT number (``cash_out_ticket_printed`` 0x3D once the
printer confirms, as for any voucher); a denial, no answer within the timeout, the
link going down or a restart ends it as a handpay, nothing lost, its reason on the
table and in the journal. A print whose outcome is unknown (a restart mid-print) is
settled with the host before any handpay (``cabinet.core.tito_claims``).

Redemption with ``validation == "system"`` (the host is the truth for every ticket,
ours too): an inserted ticket is held in escrow (``HoldNote``; journaled
``ticket_held``: exception 0x67), the host reads it (0x70) and answers
``redeem_ticket`` (0x71): a cashable transfer code with an amount stacks it
(``voucher_escrowed``, the same record the acceptor's crash recovery reads) and the
amount is credited in the one transaction that journals the stacked ticket
(``voucher_in``); anything else, no answer in time, the link going down or a restart
hands it back with the reason on the table. Every final outcome is journaled
``ticket_done`` (exception 0x68) and kept in ``HostState.ticket_in`` for 0x71's status
query. Promotional transfer codes (0x01 restricted, 0x02 non-restricted) are refused:
the cabinet keeps no promotional credit meters.
"""

from __future__ import annotations

import msgspec

from cabinet.core.effects import (
    Effect,
    HoldNote,
    Journal,
    PrintVoucher,
    ReturnNote,
    SaveVoucher,
    SendCue,
    SetVoucherStatus,
    StackNote,
)
from cabinet.core.errors import present
from cabinet.core.events import HostCommanded, NoteUncredited, VoucherEscrowed, VoucherStacked
from cabinet.core.queries import Machine
from cabinet.core.records import TicketData, VoucherRecord
from cabinet.core.state import PendingCashout, PrintingState, StationState, TicketIn
from cabinet.protocol.money import fmt_money
from cabinet.protocol.said import N_

#: SAS 0x71 transfer codes (research/sas.md "TITO"; nCompass ``LongPoll71Message``).
CASHABLE, RESTRICTED_PROMO, NONRESTRICTED_PROMO = 0x00, 0x01, 0x02
#: The host's rejection codes (0x80-0x8F) -> why, in the player's words.
HOST_REJECTS = {
    0x80: "refused by the casino host",
    0x81: "not a valid ticket",
    0x82: "unknown ticket",
    0x83: "ticket pending at the casino host",
    0x84: "already redeemed",
    0x85: "expired",
    0x86: "ticket information not available",
    0x87: "amount does not match",
    0x88: "over the redemption limit - see attendant",
}
#: The 0x7B status bits the cabinet can have set: printer as cash-out device (bit 0),
#: ticket redemption (bit 5) (``drivers.sas.tito_codes.VS_SUPPORTED``).
VS_PRINTER_CASHOUT = 0x0001
VS_TICKET_REDEMPTION = 0x0020
VALIDATION_STATUS_SUPPORTED = VS_PRINTER_CASHOUT | VS_TICKET_REDEMPTION


def effective_validation_status(td: TicketData) -> int:
    """The 0x7B status bits in force: the host's once it sent 0x7B, else the cabinet's
    defaults (printer as cash-out device and ticket redemption both on)."""
    return td.validation_status if td.validation_status_set else VALIDATION_STATUS_SUPPORTED


#: why, once the host has set 0x7B with that bit clear (SAS 6.02 0x7B status bits 0 and 5)
REDEMPTION_OFF = N_("ticket redemption disabled by the casino host")
PRINTER_OFF = N_("printer not enabled for cash-out by the casino host")
HOST_OFFLINE = "host offline"
NO_ANSWER = "no answer from the casino host"
PROMO_REFUSED = "promotional tickets not taken here"


class Tito(Machine):
    """Tickets validated and redeemed by the casino host (``Cabinet.tito``)."""

    def system_validation(self, st: StationState) -> bool:
        """Station ``st``'s tickets take the casino host's validation numbers (SAS system
        validation, with a host link)."""
        return st.host.validation == "system" and bool(st.host.link)

    # -- cash-out: system validation (0x57 / 0x58) --------------------------------------

    def request_validation(self, st: StationState, amount: int, out: list[Effect]) -> None:
        """The amount is already off the credit meter and in ``pending_out_minor``."""
        h = st.host
        if h.link != "online":
            self._validation_failed(st, amount, HOST_OFFLINE, out)
            return
        if h.ticket_data.validation_status_set and not h.ticket_data.validation_status & VS_PRINTER_CASHOUT:
            self._validation_failed(st, amount, PRINTER_OFF, out)
            return
        h.pending_cashout = PendingCashout(
            cashout_id=h.next_cashout_id, amount_minor=amount, requested_ms=self.s.now_ms, sequence=self.s.voucher_seq
        )
        h.next_cashout_id += 1
        out.append(
            Journal(
                "validation_requested",
                st.station,
                amount,
                {"cashout_id": h.pending_cashout.cashout_id, "timeout_ms": h.validation_timeout_ms},
            )
        )
        out.append(SendCue("ticket_printing", st.station, {"amount_minor": amount}))

    def _validation_failed(self, st: StationState, amount: int, reason: str, out: list[Effect]) -> None:
        st.host.pending_cashout = None
        out.append(Journal("validation_failed", st.station, amount, {"reason": reason}))
        self.cab.ledger.lock_handpay(st.station, amount, f"no ticket: {reason}", "", out)

    def on_validation_number(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str:
        """The host's validation number (or denial) for the cash-out waiting; returns the result."""
        p = st.host.pending_cashout
        if p is None or (ev.ref_id and ev.ref_id != p.cashout_id):
            return "refused: no cash-out waiting for validation"
        vn = ev.validation_number
        if not vn:
            self._validation_failed(st, p.amount_minor, "validation denied by the casino host", out)
            return "denied"
        if len(vn) != 18 or not vn.isdigit():
            self._validation_failed(st, p.amount_minor, "bad validation number from the host", out)
            return "refused: not 18 digits"
        s, settings, td = self.s, self.s.settings, st.host.ticket_data
        st.host.pending_cashout = None
        days = td.expiration_days or td.cashable_expiration_days or settings.voucher_expiry_days
        record = VoucherRecord(
            validation_number=vn,
            sequence=p.sequence,
            amount_minor=p.amount_minor,
            station=st.station,
            issued_wall_s=s.wall_s,
            expires_wall_s=s.wall_s + days * 86_400,
            clock_adjust_s=s.clock_adjust_s,
            status="printing",
            venue=td.location or settings.venue_name,
            machine_number=settings.machine_number,
            address_lines=tuple(a for a in (td.address1, td.address2) if a),
            validation="system",
        )
        out.append(SaveVoucher(record))
        st.printing = PrintingState(
            station=st.station, validation_number=vn, amount_minor=p.amount_minor, started_ms=s.now_ms, host_number=True
        )
        out.append(PrintVoucher(record))
        return "printing"

    def on_ticket_data(self, st: StationState, ev: HostCommanded) -> dict[str, object]:
        """0x7D/0x7C (``ticket_data``: the whole record as the link merged it) or 0x7B
        (``control``): journaled, printed on the next tickets."""
        td = st.host.ticket_data
        if ev.name == "set_extended_validation_status" and len(ev.control) == 4:
            mask, bits, cash_days, restricted_days = ev.control
            # a mask bit of 0 leaves the function as it is, the cabinet's default before
            # any 0x7B (Monaco Handlers/LP7BExtendedValidationStatusHandler.cs)
            status = ((effective_validation_status(td) & ~mask) | (bits & mask)) & VALIDATION_STATUS_SUPPORTED & 0xFFFF
            td = msgspec.structs.replace(
                td,
                validation_status=status,
                validation_status_set=True,
                cashable_expiration_days=cash_days or td.cashable_expiration_days,
                restricted_expiration_days=restricted_days or td.restricted_expiration_days,
            )
        elif ev.ticket_data is not None:  # 0x7D/0x7C: 0x7B's bits stay as they are
            td = msgspec.structs.replace(
                ev.ticket_data, validation_status=td.validation_status, validation_status_set=td.validation_status_set
            )
        st.host.ticket_data = td
        out: dict[str, object] = msgspec.to_builtins(td)
        return out

    # -- redemption through the host (0x67 / 0x70 / 0x71 / 0x68) -------------------------

    def hold_ticket(self, ev: VoucherEscrowed, out: list[Effect]) -> bool:
        """A ticket in escrow at a station whose host validates: hold it for the host
        (True), or hand it back now with why (True); False: not the host's to decide."""
        st = self.cab.station(ev.station)
        if st is None or not self.system_validation(st):
            return False
        reason = self.cab.acceptance.refuse_money_in(st, 0)
        vn = ev.validation_number
        if reason is None and not (vn.isascii() and vn.isdigit() and len(vn) <= 18):
            reason = "not a valid ticket"  # 0x70 carries 18 digits at most
        if reason is None and st.host.link != "online":
            reason = HOST_OFFLINE
        td = st.host.ticket_data
        if reason is None and td.validation_status_set and not td.validation_status & VS_TICKET_REDEMPTION:
            reason = REDEMPTION_OFF
        if reason is None and st.host.ticket_in is not None and st.host.ticket_in.status in ("held", "stacking"):
            reason = "not accepting now: a ticket is being redeemed"
        h = st.host
        if reason is not None:
            self.cab.acceptance.tell_refusal(st, N_("Ticket refused"), reason)
            out.append(ReturnNote(ev.station, reason))
            out.append(
                Journal(
                    "voucher_refused",
                    ev.station,
                    0,
                    {"validation_number": ev.validation_number[-4:], "reason": reason, "txn": ev.txn},
                )
            )
            return True
        amount = ev.record.amount_minor if ev.record is not None else 0
        h.ticket_in = TicketIn(
            ticket_id=h.next_ticket_id,
            txn=ev.txn,
            validation_number=ev.validation_number,
            amount_minor=amount,
            status="held",
            since_ms=self.s.now_ms,
        )
        h.next_ticket_id += 1
        st.refusal = ""
        out.append(
            Journal(
                "ticket_held",
                ev.station,
                amount,
                {"ticket_id": h.ticket_in.ticket_id, "txn": ev.txn, "validation_number": ev.validation_number},
            )
        )
        out.append(HoldNote(ev.station, ev.txn))
        return True

    def on_redeem(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str:
        """The host's redeem answer for the ticket held; returns the result."""
        t = st.host.ticket_in
        if t is None or t.status != "held" or (ev.ref_id and ev.ref_id != t.ticket_id):
            return "refused: no ticket waiting for the host"
        if t.purpose != "escrow":  # a claim without an escrow (tito_claims)
            if ev.validation_number and ev.validation_number != t.validation_number:
                self.cab.ticket_claims.claim_again(st, "number_mismatch", "not that ticket", out, ev.transfer_code)
                return "refused: another ticket's number"
            return self.cab.ticket_claims.claim_answer(st, ev, out)
        if ev.validation_number and ev.validation_number != t.validation_number:
            self._ticket_back(st, "number_mismatch", "not a valid ticket", out, ev.transfer_code)
            return "refused: another ticket's number"
        code = ev.transfer_code
        if code in (RESTRICTED_PROMO, NONRESTRICTED_PROMO):
            self._ticket_back(st, "not_valid_function", PROMO_REFUSED, out, code)
            return "refused: promotional credits are not metered here"
        if code != CASHABLE:
            self._ticket_back(st, "rejected_by_host", HOST_REJECTS.get(code, "refused by the casino host"), out, code)
            return f"rejected by the host (code 0x{code & 0xFF:02X})"
        if ev.amount_minor <= 0:
            self._ticket_back(st, "rejected_by_host", "no amount from the casino host", out, code)
            return "refused: no amount"
        if st.credits_minor + ev.amount_minor > self.s.settings.credit_limit_minor:
            sym = self.s.settings.currency_symbol
            self._ticket_back(
                st, "credit_limit", f"credit limit {fmt_money(self.s.settings.credit_limit_minor, sym)}", out, code
            )
            return "refused: over the credit limit"
        t.status, t.amount_minor, t.transfer_code = "stacking", ev.amount_minor, code
        out.append(
            Journal(
                "voucher_escrowed",
                st.station,
                ev.amount_minor,
                {"txn": t.txn, "validation_number": t.validation_number, "via": "host", "ticket_id": t.ticket_id},
            )
        )
        out.append(StackNote(st.station, t.txn))
        return "stacking"

    def _ticket_back(
        self, st: StationState, result: str, reason: str, out: list[Effect], code: int = -1, send: bool = True
    ) -> None:
        """Hand the held ticket back (``send``: tell the acceptor to): final status
        ``result``, ``reason`` on the table."""
        t = present(st.host.ticket_in, f"station {st.station}'s ticket for the host")
        t.status, t.result, t.reason, t.transfer_code = "returned", result, reason, code
        self.cab.acceptance.tell_refusal(st, N_("Ticket refused"), reason)
        if send:
            out.append(ReturnNote(st.station, reason))
        out.append(
            Journal(
                "ticket_done",
                st.station,
                0,
                {
                    "ticket_id": t.ticket_id,
                    "txn": t.txn,
                    "result": result,
                    "reason": reason,
                    "validation_number": t.validation_number[-4:],
                },
            )
        )

    def host_ticket_stacked(self, ev: VoucherStacked, out: list[Effect]) -> bool:
        """The acceptor stacked a ticket the host redeems: credit it, once (True)."""
        st = self.cab.station(ev.station)
        t = st.host.ticket_in if st is not None else None
        if st is None or t is None or t.txn != ev.txn or not ev.txn:
            return False
        if t.status != "stacking":
            return False
        if self.cab.acceptance.seen_txn(ev.txn):
            out.append(Journal("voucher_repeat_ignored", ev.station, 0, {"txn": ev.txn}))
            return True
        st.refusal = ""
        self.cab.acceptance.drop_review(ev.txn)
        st.credits_minor += t.amount_minor
        st.meters.add("vouchers_in_minor", t.amount_minor)
        st.meters.add("vouchers_in_count", 1)
        t.status, t.result = "redeemed", "redeemed"
        if ev.record is not None:
            out.append(SetVoucherStatus(ev.record.validation_number, "redeemed", self.s.wall_s))
        out.append(
            Journal(
                "voucher_in",
                ev.station,
                t.amount_minor,
                {"validation_number": t.validation_number, "txn": ev.txn, "via": "host"},
            )
        )
        out.append(
            Journal(
                "ticket_done",
                ev.station,
                t.amount_minor,
                {
                    "ticket_id": t.ticket_id,
                    "txn": t.txn,
                    "result": "redeemed",
                    "validation_number": t.validation_number[-4:],
                },
            )
        )
        out.append(SendCue("voucher_accepted", ev.station, {"amount_minor": t.amount_minor}))
        return True

    def host_ticket_returned(self, station: int, txn: str, out: list[Effect]) -> None:
        """The acceptor handed back a held ticket by itself (its escrow timed out, or
        the stack failed): not credited, final status ``unable_now``."""
        st = self.cab.station(station)
        t = st.host.ticket_in if st is not None else None
        if st is not None and t is not None and txn and t.txn == txn and t.status in ("held", "stacking"):
            self._ticket_back(
                st, "unable_now", "handed back by the acceptor - try again", out, t.transfer_code, send=False
            )

    def host_ticket_uncredited(self, ev: NoteUncredited, out: list[Effect]) -> bool:
        """A ticket the host said to redeem that the acceptor took without a vend valid
        (the uncredited-item paths): found in the cash box -> credited once (True); maybe in the
        path -> final ``unable_now``, not credited, and the review goes on (False)."""
        st = self.cab.station(ev.station)
        t = st.host.ticket_in if st is not None else None
        if st is None or t is None or not ev.txn or t.txn != ev.txn or t.status != "stacking":
            return False
        if ev.kind == "in_stacker":
            return self.host_ticket_stacked(VoucherStacked(ev.station, t.validation_number, ev.txn, None), out)
        self._ticket_back(
            st, "unable_now", "see attendant: ticket may be in the acceptor", out, t.transfer_code, send=False
        )
        return False

    # -- timers, the link, restarts -----------------------------------------------------

    def tito_tick(self, out: list[Effect]) -> None:
        """Time out the cash-out and the ticket waiting for the host."""
        now = self.s.now_ms
        for st in self.s.stations:
            h = st.host
            p = h.pending_cashout
            if p is not None and now - p.requested_ms >= h.validation_timeout_ms:
                self._validation_failed(
                    st,
                    p.amount_minor,
                    f"no validation from the casino host within {h.validation_timeout_ms // 1000} s",
                    out,
                )
            t = h.ticket_in
            if t is not None and t.status == "held" and now - t.since_ms >= h.validation_timeout_ms:
                if t.purpose != "escrow":
                    self.cab.ticket_claims.claim_again(st, "timeout", NO_ANSWER, out)
                else:
                    self._ticket_back(st, "timeout", NO_ANSWER, out)
        self.cab.ticket_claims.start_claims(out)

    def tito_link_down(self, st: StationState, out: list[Effect]) -> None:
        """The host link went down: what waited for the host fails or waits again."""
        p = st.host.pending_cashout
        if p is not None:
            self._validation_failed(st, p.amount_minor, HOST_OFFLINE, out)
        t = st.host.ticket_in
        if t is not None and t.status == "held" and t.purpose != "escrow":
            self.cab.ticket_claims.claim_again(st, "link_down", HOST_OFFLINE, out)
        elif t is not None and t.status == "held":
            self._ticket_back(st, "link_down", HOST_OFFLINE, out)

    def tito_power_up(self, out: list[Effect]) -> None:
        """After a restart: a cash-out still waiting is a handpay (its request died
        with the link); a ticket still held went back (the acceptor was not told to
        keep holding it). A ticket being stacked stays: the acceptor's recovery
        (``voucher_escrowed``) credits or returns it."""
        self.cab.ticket_claims.claims_power_up(out)
        for st in self.s.stations:
            p = st.host.pending_cashout
            if p is not None:
                self._validation_failed(st, p.amount_minor, "restarted while waiting for validation", out)
            t = st.host.ticket_in
            if t is not None and t.status == "held" and t.purpose == "escrow":
                t.status, t.result, t.reason = "returned", "unable_now", "restarted"
                out.append(
                    Journal(
                        "ticket_done",
                        st.station,
                        0,
                        {
                            "ticket_id": t.ticket_id,
                            "txn": t.txn,
                            "result": "unable_now",
                            "reason": "restarted: the acceptor hands it back",
                        },
                    )
                )

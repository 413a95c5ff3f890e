"""Tickets settled with the casino host without a ticket in escrow: a ticket whose
print is unknown, and a ticket found in the cash box, not credited.

Owns: ``TicketClaims``, the host owner's claims machine (``Cabinet.ticket_claims``:
``HostState.claims``). Pure: no I/O, no clock.

Both go through the host's redemption sequence, the one SAS exchange in which the
host answers for a validation number (research/sas.md "TITO": 0x67 ticket inserted,
0x70 the number and amount, 0x71 the host's transfer code, 0x68 and the 0x71 status
query for the final status); a claim is a ``TicketIn`` with ``purpose`` set, queued
in ``HostState.claims`` and sent when the link is up and no other ticket is with the
host. No answer, the link going down or a restart sends it again later: never dropped.

- ``print_check`` (a host-numbered ticket, SAS 0x58, whose print the printer never
  confirmed: a restart mid-print or the print timing out). The printer may have cut
  it and the player may hold it, so it is neither a ticket nor a handpay until the
  host says whose it is; the station waits (``cash_out`` mode). The host's answer:
  0x84 already redeemed -> it was printed and paid elsewhere: counted out as printed
  (``voucher_printed`` with ``resolved``), no handpay; 0x80 / 0x81 / 0x82 / 0x85 (void, not a
  valid number, unknown, expired) -> nobody can redeem it: one handpay of the amount
  with that number; 0x00 with the amount -> the host let this machine redeem it:
  counted printed and credited back here; anything else (0x83 pending elsewhere...)
  -> asked again ``CLAIM_RETRY_MS`` later. The host twin's side of the rule is in
  ``drivers.sim.sas_host_tickets`` (a number not confirmed printed is redeemed
  nowhere, and void when its issuing machine presents it).
- ``in_box`` (the acceptor took a ticket into the cash box at a power cut and the
  engine never credited it: tilt 306): the attendant's key sends it to the host. 0x00
  with the amount -> credited once (``voucher_in``, the acceptor's txn remembered so
  a late vend valid credits nothing); 0x83 -> asked again later; any other code ->
  not credited, recorded (``ticket_done`` with the host's reason). With validation
  "none" the cabinet's own record decides instead: an issued, unexpired voucher of
  this cabinet is credited once by the key (its record becomes ``redeemed``).
"""

from __future__ import annotations

import msgspec

from cabinet.core.context import OUTSTANDING, rows_for
from cabinet.core.effects import Effect, Journal, SendCue, SetVoucherStatus
from cabinet.core.errors import present
from cabinet.core.events import HostCommanded
from cabinet.core.queries import Machine
from cabinet.core.state import NoteReview, PrintingState, StationState, TicketIn

#: How long after an unsettled answer (or none) a claim is sent to the host again.
CLAIM_RETRY_MS = 5_000
#: 0x71 transfer codes that kill a number at the host (void, not valid, unknown, expired).
DEAD_NUMBER = frozenset({0x80, 0x81, 0x82, 0x85})
ALREADY_REDEEMED = 0x84
#: A claim waits until the host has read the previous ticket's 0x67 / 0x68 (its 0x71
#: status query then finds that ticket, not the claim).
TICKET_EXCEPTIONS = frozenset({"ticket_inserted", "ticket_transfer_complete"})
PENDING_ELSEWHERE = 0x83


class TicketClaims(Machine):
    """Unknown prints and tickets in the cash box, settled with the host."""

    def print_checks(self, st: StationState) -> list[TicketIn]:
        """Station ``st``'s claims of unknown prints (``print_checks``)."""
        return print_checks(st)

    def _claim(self, st: StationState, purpose: str, vn: str, amount: int, txn: str, out: list[Effect]) -> None:
        st.host.claims = [
            *st.host.claims,
            TicketIn(
                ticket_id=0,
                txn=txn,
                validation_number=vn,
                amount_minor=amount,
                status="waiting",
                since_ms=self.s.now_ms,
                purpose=purpose,
            ),
        ]
        out.append(
            Journal("ticket_claim", st.station, amount, {"purpose": purpose, "validation_number": vn, "txn": txn})
        )
        self.start_claims(out)

    def start_claims(self, out: list[Effect]) -> None:
        """Send each station's oldest due claim when its link is up and no ticket is
        with the host (0x67 ticket inserted, journaled ``ticket_held``)."""
        for st in self.s.stations:
            h = st.host
            busy = (h.ticket_in is not None and h.ticket_in.status in ("held", "stacking")) or any(
                e.name in TICKET_EXCEPTIONS for e in h.queue
            )
            if not h.claims or busy or h.link != "online" or h.claims[0].since_ms > self.s.now_ms:
                continue
            c = h.claims[0]
            h.claims = h.claims[1:]
            h.ticket_in = TicketIn(
                ticket_id=h.next_ticket_id,
                txn=c.txn,
                validation_number=c.validation_number,
                amount_minor=c.amount_minor,
                status="held",
                since_ms=self.s.now_ms,
                purpose=c.purpose,
            )
            h.next_ticket_id += 1
            out.append(
                Journal(
                    "ticket_held",
                    st.station,
                    c.amount_minor,
                    {
                        "ticket_id": h.ticket_in.ticket_id,
                        "txn": c.txn,
                        "purpose": c.purpose,
                        "validation_number": c.validation_number,
                    },
                )
            )

    def _claim_done(
        self, st: StationState, result: str, reason: str, code: int, out: list[Effect], amount: int = 0
    ) -> None:
        """The claim with the host is final: ``ticket_done`` (0x68) for 0x71's status."""
        t = present(st.host.ticket_in, f"station {st.station}'s ticket for the host")
        t.status = "redeemed" if result == "redeemed" else "returned"
        t.result, t.reason, t.transfer_code = result, reason, code
        if result == "redeemed":
            t.amount_minor = amount
        out.append(
            Journal(
                "ticket_done",
                st.station,
                amount,
                {
                    "ticket_id": t.ticket_id,
                    "txn": t.txn,
                    "result": result,
                    "reason": reason,
                    "purpose": t.purpose,
                    "validation_number": t.validation_number[-4:],
                },
            )
        )

    def claim_again(
        self,
        st: StationState,
        result: str,
        reason: str,
        out: list[Effect],
        code: int = -1,
        delay_ms: int = CLAIM_RETRY_MS,
    ) -> None:
        """Not settled: final ``result`` for this try, the claim queued again."""
        t = present(st.host.ticket_in, f"station {st.station}'s ticket for the host")
        self._claim_done(st, result, reason, code, out)
        st.host.claims = [
            *st.host.claims,
            TicketIn(
                ticket_id=0,
                txn=t.txn,
                validation_number=t.validation_number,
                amount_minor=t.amount_minor if t.purpose == "print_check" else 0,
                status="waiting",
                since_ms=self.s.now_ms + delay_ms,
                purpose=t.purpose,
            ),
        ]

    def claim_answer(self, st: StationState, ev: HostCommanded, out: list[Effect]) -> str:
        """The host's 0x71 for the claim held now (``ticket_in``)."""
        t = present(st.host.ticket_in, f"station {st.station}'s ticket for the host")
        code, amount = ev.transfer_code, ev.amount_minor
        redeem = code == 0x00 and amount > 0
        if t.purpose == "print_check":
            vn, owed = t.validation_number, t.amount_minor
            if code == ALREADY_REDEEMED:
                self._claim_done(st, "rejected_by_host", "already redeemed", code, out)
                self._print_resolved(st, vn, owed, "redeemed at the casino host", out)
                return "printed and redeemed: no handpay"
            if code in DEAD_NUMBER:
                self._claim_done(st, "rejected_by_host", "void at the casino host", code, out)
                out.append(SetVoucherStatus(vn, "handpay", self.s.wall_s))
                self.cab.ledger.lock_handpay(st.station, owed, "print unknown: ticket void at the casino host", vn, out)
                return "void at the host: handpay"
            if redeem and amount == owed:
                self._claim_done(st, "redeemed", "", code, out, amount)
                self._print_resolved(st, vn, owed, "redeemed here through the casino host", out)
                self._credit_ticket(st, t, amount, out)
                return "redeemed here: credited"
        elif redeem:  # in_box
            self._claim_done(st, "redeemed", "", code, out, amount)
            self._credit_ticket(st, t, amount, out)
            return "credited"
        elif code != PENDING_ELSEWHERE:
            self._claim_done(st, "rejected_by_host", f"refused by the casino host (0x{code & 0xFF:02X})", code, out)
            return f"not credited (code 0x{code & 0xFF:02X})"
        self.claim_again(st, "unable_now", "not settled: asked again", out, code)
        return f"not settled (code 0x{code & 0xFF:02X}): asked again"

    def _credit_ticket(self, st: StationState, t: TicketIn, amount: int, out: list[Effect]) -> None:
        if t.txn:
            self.cab.acceptance.seen_txn(t.txn)  # a late vend valid of that txn credits nothing
            self.cab.acceptance.drop_review(t.txn)
        st.credits_minor += amount
        st.meters.add("vouchers_in_minor", amount)
        st.meters.add("vouchers_in_count", 1)
        out.append(SetVoucherStatus(t.validation_number, "redeemed", self.s.wall_s))
        out.append(
            Journal(
                "voucher_in",
                st.station,
                amount,
                {"validation_number": t.validation_number, "txn": t.txn, "via": "host", "purpose": t.purpose},
            )
        )
        out.append(SendCue("voucher_accepted", st.station, {"amount_minor": amount}))

    def _print_resolved(self, st: StationState, vn: str, amount: int, how: str, out: list[Effect]) -> None:
        """An unknown print settled as printed: counted out, journaled ``voucher_printed``
        with ``resolved`` (no 0x3D for it: the host already holds that number's fate)."""
        st.pending_out_minor -= amount
        st.meters.add("vouchers_out_minor", amount)
        st.meters.add("vouchers_out_count", 1)
        out.append(SetVoucherStatus(vn, "redeemed", self.s.wall_s))
        out.append(Journal("voucher_printed", st.station, amount, {"validation_number": vn, "resolved": how}))

    # -- hooks ----------------------------------------------------------------------------

    def check_print_with_host(self, st: StationState, p: PrintingState, out: list[Effect]) -> bool:
        """An unknown print of a host-numbered ticket: settled with the host (True)."""
        if not p.host_number or st.host.validation != "system":
            return False
        out.append(Journal("print_unknown", st.station, p.amount_minor, {"validation_number": p.validation_number}))
        self._claim(st, "print_check", p.validation_number, p.amount_minor, "", out)
        return True

    def needs_own_record(self, r: NoteReview) -> bool:
        """The key on review ``r`` decides from this cabinet's own voucher records: a
        ticket in the cash box, its station not validated by a linked casino host."""
        st = self.cab.station(r.station)
        if st is None or not r.validation_number or r.kind != "in_stacker":
            return False
        return not (st.host.validation == "system" and st.host.link)

    def ticket_in_box(self, r: NoteReview, out: list[Effect]) -> bool:
        """The key on a ticket found in the cash box: to the host (system validation),
        or credited from this cabinet's own record, the outstanding vouchers the shell
        read for the key (``context.rows_for``; the caller holds the review when they
        were not read: ``needs_own_record``). False: not credited here."""
        st = self.cab.station(r.station)
        if st is None or not r.validation_number or r.kind != "in_stacker":
            return False
        if st.host.validation == "system" and st.host.link:
            out.append(
                Journal(
                    "note_review_resolved",
                    r.station,
                    0,
                    {"txn": r.txn, "kind": r.kind, "credited": False, "via": "host"},
                )
            )
            self._claim(st, "in_box", r.validation_number, 0, r.txn, out)
            return True
        records = rows_for(self.cab.handed, OUTSTANDING)
        issued = records.outstanding_vouchers() if records is not None else []
        rec = next((v for v in issued if v.validation_number == r.validation_number), None)
        if rec is None or self.cab.acceptance.expired(rec) or (r.txn and r.txn in self.s.recent_txns):
            return False
        if r.txn:
            self.cab.acceptance.seen_txn(r.txn)
        st.credits_minor += rec.amount_minor
        st.meters.add("vouchers_in_minor", rec.amount_minor)
        st.meters.add("vouchers_in_count", 1)
        out.append(SetVoucherStatus(rec.validation_number, "redeemed", self.s.wall_s))
        out.append(
            Journal(
                "voucher_in",
                st.station,
                rec.amount_minor,
                {"validation_number": rec.validation_number, "txn": r.txn, "via": "attendant"},
            )
        )
        out.append(
            Journal(
                "note_review_resolved", r.station, rec.amount_minor, {"txn": r.txn, "kind": r.kind, "credited": True}
            )
        )
        return True

    def claims_power_up(self, out: list[Effect]) -> None:
        """After a restart: a claim with the host is sent again; waiting ones are due now."""
        for st in self.s.stations:
            t = st.host.ticket_in
            if t is not None and t.purpose != "escrow" and t.status == "held":
                self.claim_again(st, "unable_now", "restarted: asked again", out, delay_ms=0)
            st.host.claims = [msgspec.structs.replace(c, since_ms=self.s.now_ms) for c in st.host.claims]


def print_checks(st: StationState) -> list[TicketIn]:
    """Station ``st``'s unknown prints not yet settled with the host (held first)."""
    t = st.host.ticket_in
    held = [t] if t is not None and t.purpose == "print_check" and t.status == "held" else []
    return held + [c for c in st.host.claims if c.purpose == "print_check"]

"""Money in: notes and vouchers in escrow, stacked, returned or uncredited, repeat
transactions, note reviews, refusals told to the player.

Owns: ``Acceptance``, the acceptance machine (``Cabinet.acceptance``): money coming
in on each station's credits and meters, ``recent_txns``, ``note_reviews``, the
escrows being handed back (memory only) and the refusals told to the player. Reads
the rest through ``cabinet.core.queries.CabinetQueries``. Pure.
"""

from __future__ import annotations

from typing import Any

from cabinet.core.context import OUTSTANDING, rows_for
from cabinet.core.effects import (
    Effect,
    Journal,
    Rejected,
    ReturnNote,
    SendCue,
    SetVoucherStatus,
    StackNote,
)
from cabinet.core.errors import FAULTS
from cabinet.core.events import (
    NoteEscrowed,
    NoteReturned,
    NoteStacked,
    NoteUncredited,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.maintenance import bill_test
from cabinet.core.queries import CabinetQueries, Machine
from cabinet.core.records import VoucherRecord
from cabinet.core.state import NoteReview, StationState
from cabinet.protocol.money import fmt_money
from cabinet.protocol.said import N_, english, said

#: Why an expired voucher comes back (journaled; the screen sends the player to the
#: attendant, who can check it in the voucher log).
EXPIRED_REASON = N_("expired - see attendant")
#: How many stacked-note transaction ids are remembered to refuse repeats.
TXN_MEMORY = 64


class Acceptance(Machine):
    """Notes and vouchers in: credited exactly once."""

    def __init__(self, cab: CabinetQueries) -> None:
        super().__init__(cab)
        #: station -> (txn, reason) of an escrow being handed back, until its
        #: return is journaled (not critical: lost on a restart)
        self.returning: dict[int, tuple[str, str]] = {}

    def tell_refusal(self, st: StationState | None, what: str, reason: str, amount_minor: int = 0) -> None:
        """Show station ``st`` why its note or voucher came back.

        ``what`` is ``"Note returned"`` or ``"Voucher refused"``; ``reason`` is a
        ``ReturnNote`` reason of this module, put in the player's words
        (``"credit limit $1,000.00"``, ``"expired - see attendant"``).
        """
        if st is None:
            return
        sym = self.s.settings.currency_symbol
        words = {
            "over the credit limit": said("credit limit {limit_minor}", limit_minor=self.s.settings.credit_limit_minor),
            "not issued by this cabinet": said("not issued here"),
            EXPIRED_REASON: said(EXPIRED_REASON),
            "voucher is redeemed": said("already redeemed - see attendant"),
            "voucher is handpaid": said("already paid by hand - see attendant"),
            "voucher is handpay": said("waiting for a handpay - see attendant"),
            "voucher is printing": said("not printed yet - see attendant"),
            "not an enabled denomination": said("{note_minor} notes not taken", note_minor=amount_minor),
            "station out of service": said("station out of service"),
            "disabled by the casino host": said("disabled by the casino host"),
        }
        text = words.get(reason)
        if text is None and reason.startswith("voucher is "):
            text = said("{state} - see attendant", state=reason.removeprefix("voucher is "))
        elif text is None and reason.startswith("not accepting"):
            text = said("not accepting now")
        # The parts too, each screen saying them in its language (joined by ": ")
        st.refusal_said = [said(what), text or said(reason)]
        st.refusal = f"{what}: {english(st.refusal_said[1], sym)}"

    def on_note_escrow(self, ev: NoteEscrowed, out: list[Effect]) -> None:
        """A note in escrow: stack it, or hand it back with the reason."""
        if self.cab.station(ev.station) is not None and bill_test.on_escrow(self.s, ev, out):
            return  # a test note, no meter
        st = self.cab.station(ev.station)
        reason = self.refuse_money_in(st, ev.denomination_minor)
        if reason is None and ev.denomination_minor not in self.cab.host_link.host_bills_minor(
            ev.station, tuple(self.s.settings.denominations_minor)
        ):
            reason = (
                f"{fmt_money(ev.denomination_minor, self.s.settings.currency_symbol)} is not an enabled denomination"
            )
        if reason is not None:
            self.tell_refusal(
                st,
                N_("Note returned"),
                "not an enabled denomination" if reason.endswith("denomination") else reason,
                ev.denomination_minor,
            )
            out.append(ReturnNote(ev.station, reason))
        else:
            out.append(Journal("note_escrowed", ev.station, ev.denomination_minor, {"txn": ev.txn}))
            out.append(StackNote(ev.station, ev.txn))

    def refuse_money_in(self, st: StationState | None, amount: int) -> str | None:
        """Why station ``st`` may not take ``amount`` (minor units) now, or ``None``."""
        if st is None:
            return "no such station"
        if not self.cab.display_shows(st.station):
            return "no display showing the table"
        if not self.cab.accepting():
            return f"not accepting in {self.cab.mode}"
        if self.cab.cashing_out(st):
            return "not accepting in cash_out"
        if st.faults:
            return "station out of service"
        if st.host.disabled or st.host.bills_disabled:
            return "disabled by the casino host"
        if st.credits_minor + amount > self.s.settings.credit_limit_minor:
            return "over the credit limit"
        return None

    def seen_txn(self, txn: str) -> bool:
        """The acceptor's transaction ``txn`` was credited already; remembers it if not
        (the last ``TXN_MEMORY``)."""
        if txn in self.s.recent_txns:
            return True
        self.s.recent_txns = (self.s.recent_txns + [txn])[-TXN_MEMORY:]
        return False

    def on_note_stacked(self, ev: NoteStacked, out: list[Effect]) -> None:
        """A note stacked: credit it exactly once (a repeated ``txn`` is ignored)."""
        st = self.cab.station(ev.station)
        if st is None or ev.denomination_minor <= 0:
            out.append(Rejected("note stacked", "no such station or bad amount"))
            return
        if bill_test.on_stacked(self.s, ev, out):
            return  # a test note, counted apart
        if self.seen_txn(ev.txn):
            out.append(Journal("note_repeat_ignored", ev.station, ev.denomination_minor, {"txn": ev.txn}))
            return
        # A stacked note is always credited, whatever the mode: it is in the box.
        self.drop_review(ev.txn)  # a resumed VEND VALID credits it
        self._credit_note(st, ev.denomination_minor, ev.txn, out)

    def _credit_note(self, st: StationState, amount: int, txn: str, out: list[Effect], via: str = "") -> None:
        st.refusal = ""
        st.credits_minor += amount
        st.meters.add("bills_in_minor", amount)
        st.meters.add("bills_in_count", 1)
        st.meters.count_bill(amount)
        st.last_bills_minor = (st.last_bills_minor + [amount])[-5:]
        data = {"txn": txn, "via": via} if via else {"txn": txn}
        out.append(Journal("bill_stacked", st.station, amount, data))
        out.append(SendCue("bill_stacked", st.station, {"amount_minor": amount}))

    def drop_review(self, txn: str) -> None:
        """Forget the review of the note of ``txn`` (settled), and its fault with it."""
        if txn and any(r.txn == txn for r in self.s.note_reviews):
            self.s.note_reviews = [r for r in self.s.note_reviews if r.txn != txn]
            self._review_faults()

    def _review_faults(self) -> None:
        """The tilt codes follow the reviews still waiting (errors.FAULTS 306/307)."""
        kinds = {f"note_{r.kind}" for r in self.s.note_reviews}
        faults = {c: t for c, t in self.s.faults.items() if not c.startswith("note_in_") or c in kinds}
        for code in sorted(kinds - set(faults)):
            faults[code] = FAULTS[code][1]
        self.s.faults = faults

    def on_note_uncredited(self, ev: NoteUncredited, out: list[Effect]) -> None:
        """Journal the uncredited item and lock up for the attendant."""
        st = self.cab.station(ev.station)
        if st is None or ev.kind not in ("in_stacker", "in_path"):
            out.append(Rejected("note uncredited", "no such station or kind"))
            return
        if bill_test.on_uncredited(self.s, ev, out):
            return  # a test note, never a real credit
        data = {"txn": ev.txn, "validation_number": ev.validation_number[-4:]}
        if self.cab.tito.host_ticket_uncredited(ev, out):  # the host said redeem
            return
        credited = bool(ev.txn) and ev.txn in self.s.recent_txns
        if credited and ev.kind == "in_stacker":
            out.append(Journal(f"note_{ev.kind}", ev.station, ev.denomination_minor, {**data, "credited": True}))
            return  # already credited and in the box: nothing owed
        if ev.txn and any(r.txn == ev.txn for r in self.s.note_reviews):
            return
        # A credited note possibly in the path (a jam after VEND VALID): the meters are
        # above the cash box by its value until the attendant looks (307, no credit).
        self.s.note_reviews = [
            *self.s.note_reviews,
            NoteReview(
                station=ev.station,
                txn=ev.txn,
                amount_minor=ev.denomination_minor,
                kind=ev.kind,
                validation_number=ev.validation_number,
            ),
        ]
        self._review_faults()
        out.append(Journal(f"note_{ev.kind}", ev.station, ev.denomination_minor, {**data, "credited": credited}))

    def resolve_review(self, out: list[Effect]) -> None:
        """The attendant's key on the oldest review: a note in the cash box of known
        value is credited (once: its txn is remembered); anything else is recorded
        as reviewed, not credited. A ticket settled from this cabinet's own records
        waits, reviewed later, when the shell did not read them for this key
        (``shell_inputs.event_query``): never settled on no records."""
        r = self.s.note_reviews[0]
        if self.cab.ticket_claims.needs_own_record(r) and rows_for(self.cab.handed, OUTSTANDING) is None:
            out.append(Rejected("note review", "voucher records not read: turn the key again"))
            return
        self.s.note_reviews = self.s.note_reviews[1:]
        self._review_faults()
        if self.cab.ticket_claims.ticket_in_box(r, out):  # a ticket: the host's, or our own record
            return
        st = self.cab.station_of(r.station)
        credit = (
            r.kind == "in_stacker"
            and r.amount_minor > 0
            and not r.validation_number
            and not (r.txn and self.seen_txn(r.txn))
        )
        if credit:
            self._credit_note(st, r.amount_minor, r.txn, out, via="attendant")
        out.append(
            Journal(
                "note_review_resolved",
                r.station,
                r.amount_minor if credit else 0,
                {"txn": r.txn, "kind": r.kind, "credited": credit},
            )
        )

    def _voucher_refusal(self, st: StationState | None, rec: VoucherRecord | None) -> str | None:
        if rec is None:
            return "not issued by this cabinet"
        if rec.status != "issued":
            return f"voucher is {rec.status}"
        if self.expired(rec):
            return EXPIRED_REASON
        return self.refuse_money_in(st, rec.amount_minor)

    def expired(self, rec: VoucherRecord) -> bool:
        """Past its expiry counted from its issue as journaled: the clock jumps journaled
        since the issue do not count (a ticket printed on a slow clock
        stays good for its days once the clock is corrected)."""
        return self.s.wall_s - (self.s.clock_adjust_s - rec.clock_adjust_s) > rec.expires_wall_s

    def on_voucher_escrow(self, ev: VoucherEscrowed, out: list[Effect]) -> None:
        """A voucher in escrow: to the host, stacked, or handed back with the reason."""
        if self.cab.tito.hold_ticket(ev, out):  # the casino host decides
            return
        reason = self._voucher_refusal(self.cab.station(ev.station), ev.record)
        if reason is not None or ev.record is None:
            reason = reason or "not issued by this cabinet"
            self.tell_refusal(self.cab.station(ev.station), N_("Voucher refused"), reason)
            vn = ev.validation_number if ev.record is not None else ev.validation_number[-4:]
            out.append(ReturnNote(ev.station, reason))
            out.append(
                Journal("voucher_refused", ev.station, 0, {"validation_number": vn, "reason": reason, "txn": ev.txn})
            )
        else:
            out.append(
                Journal(
                    "voucher_escrowed",
                    ev.station,
                    ev.record.amount_minor,
                    {"txn": ev.txn, "validation_number": ev.validation_number},
                )
            )
            out.append(StackNote(ev.station, ev.txn))

    def on_voucher_stacked(self, ev: VoucherStacked, out: list[Effect]) -> None:
        """A voucher stacked: credit it exactly once and mark it redeemed."""
        st = self.cab.station(ev.station)
        rec = ev.record
        if self.cab.tito.host_ticket_stacked(ev, out):  # redeemed by the host
            return
        if self.seen_txn(ev.txn):
            out.append(Journal("voucher_repeat_ignored", ev.station, 0, {"txn": ev.txn}))
            return
        if st is None or rec is None or rec.status != "issued" or self.expired(rec):
            out.append(
                Journal(
                    "voucher_stacked_invalid",
                    ev.station,
                    0,
                    {"validation_number": ev.validation_number[-4:], "txn": ev.txn},
                )
            )
            return
        st.refusal = ""
        self.drop_review(ev.txn)  # a resumed VEND VALID credits it
        st.credits_minor += rec.amount_minor
        st.meters.add("vouchers_in_minor", rec.amount_minor)
        st.meters.add("vouchers_in_count", 1)
        out.append(SetVoucherStatus(rec.validation_number, "redeemed", self.s.wall_s))
        out.append(
            Journal(
                "voucher_in", ev.station, rec.amount_minor, {"validation_number": rec.validation_number, "txn": ev.txn}
            )
        )
        out.append(SendCue("voucher_accepted", ev.station, {"amount_minor": rec.amount_minor}))

    def remember_return(self, station: int, txn: str, out: list[Effect]) -> None:
        """An escrow handed back: keep why until its return is journaled."""
        reasons = [e.reason for e in out if isinstance(e, ReturnNote) and e.station == station]
        if reasons:
            self.returning[station] = (txn, reasons[-1])

    def on_note_returned(self, ev: NoteReturned, out: list[Effect]) -> None:
        """A note or voucher handed back: journal it, with why when the cabinet returned it."""
        if bill_test.on_returned(self.s, ev, out):
            self.returning.pop(ev.station, None)
            return  # a test note, counted apart
        data: dict[str, Any] = {"txn": ev.txn}
        txn, reason = self.returning.get(ev.station, (None, ""))
        if txn == ev.txn:
            data["reason"] = reason  # why we handed it back
            del self.returning[ev.station]
        out.append(Journal("note_returned", ev.station, 0, data))
        self.cab.tito.host_ticket_returned(ev.station, ev.txn, out)

"""Cash-out and handpays: vouchers out, the printer's verdict, handpay lockups and
their reset.

Owns: ``Ledger``, the ledger machine (``Cabinet.ledger``): credits leaving a station
(``pending_out_minor``), ``voucher_seq``, the prints in flight (``printing``) and
the handpay lockups (``handpay``, ``handpay_queue``, ``handpay_reset``). Reads the
rest through ``cabinet.core.queries.CabinetQueries``. Pure.
"""

from __future__ import annotations

from cabinet.core.effects import (
    Effect,
    Journal,
    PrintVoucher,
    Rejected,
    SaveVoucher,
    SendCue,
    SetVoucherStatus,
)
from cabinet.core.errors import present
from cabinet.core.events import PrintFinished
from cabinet.core.queries import Machine
from cabinet.core.records import VoucherRecord
from cabinet.core.state import HandpayState, PrintingState, StationState
from cabinet.protocol.said import N_


class Ledger(Machine):
    """Credits out: a printed voucher, or a handpay."""

    def _validation_number(self) -> str:
        return str(self.cab.rng.randrange(10**17, 10**18))

    def _printer_ready(self, st: StationState) -> bool:
        return not any(code.startswith("printer_") for code in [*self.s.faults, *st.faults])

    def cash_out(self, st: StationState, out: list[Effect]) -> None:
        """Pay station ``st``'s credits out: a voucher to print (the host's number under system
        validation), or a handpay over the voucher limit or without a printer."""
        s = self.s
        if not self.cab.table.self_audit(out):
            return
        self.cab.bets.clear_finished_round()
        amount = st.credits_minor
        st.bets_minor = [0] * self.cab.rules.max_spots_per_seat
        st.chip_log = []
        st.ready = False
        s.voucher_seq += 1
        settings = s.settings
        to_handpay = amount > settings.voucher_limit_minor or not self._printer_ready(st)
        if self.cab.tito.system_validation(st) and not to_handpay:  # the host's number
            st.credits_minor -= amount
            st.pending_out_minor += amount
            out.append(Journal("cash_out", st.station, amount, {"validation": "system", "sequence": s.voucher_seq}))
            self.cab.tito.request_validation(st, amount, out)
            return
        vn = self._validation_number()
        record = VoucherRecord(
            validation_number=vn,
            sequence=s.voucher_seq,
            amount_minor=amount,
            station=st.station,
            issued_wall_s=s.wall_s,
            expires_wall_s=s.wall_s + settings.voucher_expiry_days * 86_400,
            clock_adjust_s=s.clock_adjust_s,
            status="handpay" if to_handpay else "printing",
            venue=settings.venue_name,
            machine_number=settings.machine_number,
        )
        st.credits_minor -= amount
        st.pending_out_minor += amount
        out.append(SaveVoucher(record))
        out.append(Journal("cash_out", st.station, amount, {"validation_number": vn, "sequence": s.voucher_seq}))
        if to_handpay:
            reason = N_("over the voucher limit") if amount > settings.voucher_limit_minor else N_("printer not ready")
            self.lock_handpay(st.station, amount, reason, vn, out)
        else:
            st.printing = PrintingState(
                station=st.station, validation_number=vn, amount_minor=amount, started_ms=s.now_ms
            )
            out.append(PrintVoucher(record))
            out.append(SendCue("ticket_printing", st.station, {"amount_minor": amount}))

    def lock_handpay(
        self, station: int, amount: int, reason: str, vn: str, out: list[Effect], kind: str = "cancelled_credits"
    ) -> None:
        """Lock up for the attendant (or queue behind the lockup already shown)."""
        hp = HandpayState(station=station, amount_minor=amount, reason=reason, validation_number=vn, kind=kind)
        if self.s.handpay is None:
            self.s.handpay = hp
        else:
            self.s.handpay_queue = [*self.s.handpay_queue, hp]
        out.append(Journal("handpay", station, amount, {"validation_number": vn, "reason": reason, "kind": kind}))

    def _take_print(self, ev: PrintFinished) -> PrintingState | None:
        """The print ``ev`` answers, no longer pending; ``None`` for none."""
        st = self.cab.station(ev.station)
        mine = st.printing if st is not None else None
        if st is not None and mine is not None and mine.validation_number == ev.validation_number:
            st.printing = None
            return mine
        held = self.s.printing
        if held is not None and held.validation_number == ev.validation_number:
            self.s.printing = None
            return held
        return None

    def on_print(self, ev: PrintFinished, out: list[Effect]) -> None:
        """A printer's verdict on its station's voucher (each station prints on its own
        printer, so the verdicts of several stations come in any order)."""
        p = self._take_print(ev)
        if p is None:
            out.append(Rejected(f"print result for {ev.validation_number[-4:]}", "no such print pending"))
            return
        st = self.cab.station_of(p.station)
        if ev.result == "done":
            st.pending_out_minor -= p.amount_minor
            st.meters.add("vouchers_out_minor", p.amount_minor)
            st.meters.add("vouchers_out_count", 1)
            out.append(SetVoucherStatus(p.validation_number, "issued", self.s.wall_s))
            out.append(
                Journal("voucher_printed", st.station, p.amount_minor, {"validation_number": p.validation_number})
            )
            out.append(SendCue("ticket_printed", st.station, {"amount_minor": p.amount_minor}))
        elif ev.result == "unknown" and self.cab.ticket_claims.check_print_with_host(st, p, out):
            pass  # the host's number: settled with the host first (tito_claims)
        else:
            out.append(SetVoucherStatus(p.validation_number, "handpay", self.s.wall_s))
            self.lock_handpay(st.station, p.amount_minor, f"print {ev.result}", p.validation_number, out)

    def reset_handpay(self, out: list[Effect]) -> None:
        """The attendant paid the handpay shown: meter it, close its voucher, show the next.
        ``InvariantError`` when no handpay is locked up."""
        hp = present(self.s.handpay, "the handpay being reset")
        st = self.cab.station_of(hp.station)
        st.pending_out_minor -= hp.amount_minor
        if hp.kind == "jackpot":
            st.meters.add("jackpot_handpay_minor", hp.amount_minor)
            st.meters.add("jackpot_handpay_count", 1)
        else:
            st.meters.add("handpay_minor", hp.amount_minor)
            st.meters.add("handpay_count", 1)
        queue = self.s.handpay_queue
        self.s.handpay = queue[0] if queue else None
        self.s.handpay_queue = queue[1:]
        if hp.validation_number:
            out.append(SetVoucherStatus(hp.validation_number, "handpaid", self.s.wall_s))
        out.append(
            Journal(
                "handpay_reset",
                hp.station,
                hp.amount_minor,
                {"validation_number": hp.validation_number, "kind": hp.kind},
            )
        )

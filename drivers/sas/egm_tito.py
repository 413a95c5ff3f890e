"""The EGM's answers to the TITO long polls, from the ``EgmView``.

Owns: ``TitoResponder`` (handlers for 0x50, 0x57, 0x58, 0x70, 0x71, 0x7B, 0x7C, 0x7D,
0xA8, used by ``egm.EgmResponder``) and ``HostDataRejected`` (an output saying which
host message was refused and why, for the link's log).
Must not import: serial, time, threading, cabinet.*.  Pure: no I/O, no clock.

Rules (layouts in ``tito_wire``, codes in ``tito_codes``; sources there):
- 0x57: the pending cash-out (type, amount) while ``validation_mode`` is ``system`` and
  ``view.pending_cashout`` is set; else type 0x80 "not waiting" and amount 0.
- 0x58: hands ``HostCommand("validation_number")`` once per cash-out id and ACKs (00);
  system ID or number not BCD -> NACK (Monaco ``LP58ReceiveValidationNumberParser.cs``);
  no cash-out waiting -> 0x80; a second, different number for the same cash-out -> 0x81
  (improper validation rejected).  A system ID of 00 is a denial, handed over as such.
- 0x70: the ticket in escrow (status 00, amount, 18 digits) while ``view.ticket_in`` waits
  for the host; else status FF "no ticket".
- 0x71 redeem or reject: checked against the ticket in escrow, then handed as
  ``HostCommand("redeem_ticket")`` once per ticket id and answered 0x40 "pending" at once;
  the engine decides and publishes the final status in ``view.ticket_in.status``.
  0x71 FF (status query): that final status, 0x40 while undecided, FF without a ticket.
  A redeem for no ticket in escrow (or a decided one, with another number) -> 0xC0; a
  number not the escrowed ticket's -> 0x81; an unknown transfer code or a parsing code
  other than 00 -> 0x82; a non-BCD amount -> 0x83.  Any other malformed data -> NACK.
- 0x50: ``view.validation_meters`` for the asked type (zeros when not kept); a type not
  in ``tito_codes.VALIDATION_TYPES`` -> NACK.
- 0x7B: the new settings handed as ``HostCommand`` and answered at once from the view
  with the request applied (``tito_codes.apply_validation_status``: a mask bit of 0
  leaves the function as it is; only the functions the cabinet has, and none without
  system validation: Monaco ``Handlers/LP7BExtendedValidationStatusHandler.cs``; a 0 expiration
  keeps the current one: Monaco ``LP7BExtendedValidationStatusParser.cs``).  Malformed
  data -> NACK.
- 0x7C/0x7D: the fields the host sent merged onto ``view.ticket_data`` (a 0x7D field
  left off or of length 00 keeps its value) and handed as ``HostCommand``; reply flag
  01 "set", 00 for invalid data or nothing to set (Monaco ``LP7DSetTicketDataParser.cs``,
  ``LP7CSetExtendedTicketDataParser.cs``, ``Handlers/SetTicketDataHandler.cs``).
- 0xA8: handed as ``HostCommand("handpay_reset_to_credit_meter")``; the reply code is 2
  without a handpay, 1 when asked for the credit meter and the handpay does not allow
  it (``HandpayInfo.credit_reset_allowed``), else 0.  A method other than 0/1 -> NACK.
Every refusal also emits ``HostDataRejected`` with the reason.  Money amounts (0x50,
0x57, 0x70, 0x71) are in cents whatever the accounting denomination (Monaco
``LPParsers/LP50``, ``LP57``, ``LP70``, ``LP71`` parsers: "amount in cents").  They are
never wrapped: one that does not fit 5 BCD bytes (or a negative one) makes the poll a
NACK (``EgmResponder``, counted in ``bad_data``), so the host issues or redeems nothing
for a wrong amount; only the 0x50 meters wrap, as meters do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers.errors import ProtocolError
from drivers.sas import egm_meters, replies, tito_wire
from drivers.sas import tito_codes as tc
from drivers.sas.codec import LongPoll
from drivers.sas.egm_view import EgmView, HostCommand, TicketIn


@dataclass(frozen=True, slots=True)
class HostDataRejected:
    """The host sent ``command`` with data the EGM refused (logged by the link).

    Attributes:
        command: the long poll's command byte.
        reason: a sentence saying why (the bytes in hex where they matter).
        reply: what the EGM answered: ``nack`` or the status code byte (``0x81``...).
    """

    command: int
    reason: str
    reply: str


Out = list[Any]  # the responder's output list (egm.Output items)
Handler = Callable[[EgmView, LongPoll, Out], "bytes | None"]


def _number(ticket: TicketIn) -> str | None:
    """The ticket's validation number as 18 digits, None when it cannot be sent."""
    n = ticket.validation_number
    if not n.isascii() or not n.isdigit() or len(n) > tito_wire.VALIDATION_DIGITS:
        return None
    return n.zfill(tito_wire.VALIDATION_DIGITS)


class TitoResponder:
    """TITO long poll handlers for one EGM; ``handlers`` maps the handler names the rows of
    ``layouts.LAYOUTS`` give -> handler.

    State: which cash-out id got its 0x58 and which ticket id its 0x71 (each handed to
    the engine once); ``forget_except`` drops what the view no longer holds.
    """

    def __init__(self) -> None:
        self._validations: dict[int, bytes] = {}  # cashout_id -> the 0x58 data handed
        self._redeems: dict[int, bytes] = {}  # ticket_id -> the 0x71 data handed
        #: handler name (a row's ``handler`` in ``layouts.LAYOUTS``) -> handler
        self.handlers: dict[str, Handler] = {
            "validation_meters": self._lp_50,
            "pending_cashout": self._lp_57,
            "validation_number": self._lp_58,
            "ticket_validation_data": self._lp_70,
            "redeem_ticket": self._lp_71,
            "extended_validation_status": self._lp_7b,
            "set_extended_ticket_data": self._lp_7c,
            "set_ticket_data": self._lp_7d,
            "handpay_reset_method": self._lp_a8,
        }

    def forget_except(self, view: EgmView) -> None:
        """Keep the dedup memory only for the view's current cash-out and ticket."""
        keep_c = view.pending_cashout.cashout_id if view.pending_cashout else None
        keep_t = view.ticket_in.ticket_id if view.ticket_in else None
        self._validations = {k: v for k, v in self._validations.items() if k == keep_c}
        self._redeems = {k: v for k, v in self._redeems.items() if k == keep_t}

    @staticmethod
    def _refuse(out: Out, event: LongPoll, reason: str, reply: bytes, code: int | None = None) -> bytes:
        out.append(HostDataRejected(event.command, reason, "nack" if code is None else f"0x{code:02X}"))
        return reply

    def _nack(self, out: Out, event: LongPoll, reason: str) -> bytes:
        return self._refuse(out, event, reason, replies.nack(event.address))

    # --- system validation -------------------------------------------------------------

    def _lp_57(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        pc = view.pending_cashout
        if view.validation_mode != "system" or pc is None:
            return tito_wire.pending_cashout_reply(event.address, tc.CASHOUT_NOT_WAITING, 0)
        return tito_wire.pending_cashout_reply(event.address, pc.cashout_type, pc.amount_cents)

    def _lp_58(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        a = event.address
        try:
            system_id, number = tito_wire.parse_validation_number(event.data)
        except ProtocolError as exc:
            return self._nack(out, event, str(exc))
        pc = view.pending_cashout
        if view.validation_mode != "system" or pc is None:
            return self._refuse(
                out,
                event,
                "no cash-out is waiting for a validation number",
                tito_wire.validation_number_status(a, tc.VN_NOT_IN_CASHOUT),
                tc.VN_NOT_IN_CASHOUT,
            )
        handed = self._validations.get(pc.cashout_id)
        if handed is not None:
            if handed == event.data:
                return tito_wire.validation_number_status(a, tc.VN_ACK)
            return self._refuse(
                out,
                event,
                f"cash-out {pc.cashout_id} already has its validation number",
                tito_wire.validation_number_status(a, tc.VN_IMPROPER),
                tc.VN_IMPROPER,
            )
        self._validations[pc.cashout_id] = bytes(event.data)
        out.append(
            HostCommand(
                "validation_number",
                0x58,
                cashout_id=pc.cashout_id,
                validation_system_id=system_id,
                validation_number=number,
            )
        )
        return tito_wire.validation_number_status(a, tc.VN_ACK)

    # --- redemption --------------------------------------------------------------------

    def _lp_70(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        t = view.ticket_in
        number = None if t is None or t.status is not None else _number(t)
        if t is None or number is None:
            return tito_wire.ticket_validation_data(event.address, tc.NO_TICKET_IN_ESCROW)
        return tito_wire.ticket_validation_data(event.address, tc.TICKET_IN_ESCROW, t.amount_cents, number)

    @staticmethod
    def _status(address: int, t: TicketIn, number: str) -> bytes:
        if t.status is None:
            return tito_wire.redeem_status(address, tc.STATUS_PENDING, t.amount_cents, number)
        return tito_wire.redeem_status(address, t.status, t.amount_cents_final, number)

    def _lp_71(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        a = event.address
        try:
            req = tito_wire.parse_redeem(event.data)
        except ProtocolError as exc:
            if str(exc).startswith("0x71 amount"):
                return self._refuse(
                    out, event, str(exc), tito_wire.redeem_status(a, tc.STATUS_BAD_AMOUNT), tc.STATUS_BAD_AMOUNT
                )
            return self._nack(out, event, str(exc))
        t = view.ticket_in
        number = None if t is None else _number(t)
        if req.status_query:
            if t is None or number is None:
                return tito_wire.redeem_status(a, tc.STATUS_NO_INFO)
            return self._status(a, t, number)
        if t is None or number is None:
            return self._refuse(
                out,
                event,
                "redeem with no ticket in escrow",
                tito_wire.redeem_status(a, tc.STATUS_NOT_IN_CYCLE),
                tc.STATUS_NOT_IN_CYCLE,
            )
        if req.validation_number != number:
            code = tc.STATUS_NOT_IN_CYCLE if t.status is not None else tc.STATUS_NUMBER_MISMATCH
            return self._refuse(
                out,
                event,
                f"validation number {req.validation_number} is not the ticket's {number}",
                tito_wire.redeem_status(a, code, 0, req.validation_number),
                code,
            )
        if t.status is not None or t.ticket_id in self._redeems:
            return self._status(a, t, number)  # the host asked again: it gets what it would have
        if req.transfer_code not in tc.TC_REDEEM | tc.TC_REJECT or req.parsing_code != 0:
            return self._refuse(
                out,
                event,
                f"transfer code {req.transfer_code:02X} / parsing code {req.parsing_code:02X} not taken",
                tito_wire.redeem_status(a, tc.STATUS_BAD_TRANSFER_CODE, 0, number),
                tc.STATUS_BAD_TRANSFER_CODE,
            )
        self._redeems[t.ticket_id] = bytes(event.data)
        out.append(
            HostCommand(
                "redeem_ticket",
                0x71,
                ticket_id=t.ticket_id,
                transfer_code=req.transfer_code,
                amount_cents=req.amount,
                parsing_code=req.parsing_code,
                validation_number=req.validation_number,
                restricted_expiration=req.restricted_expiration,
                pool_id=req.pool_id,
                target_id=req.target_id,
            )
        )
        return tito_wire.redeem_status(a, tc.STATUS_PENDING, req.amount, number)

    # --- meters and settings -----------------------------------------------------------

    def _lp_50(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        kind = event.data[0]
        if kind not in tc.VALIDATION_TYPES:
            return self._nack(out, event, f"validation type {kind:02X} is not in Table 15.13c")
        count, amount = view.validation_meters.get(kind, (0, 0))
        return tito_wire.validation_meters_reply(
            event.address, kind, egm_meters.wrap(count, 4), egm_meters.wrap(amount, 5)
        )

    def _lp_7b(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        try:
            mask, bits, cashable, restricted = tito_wire.parse_extended_validation_status(event.data)
        except ProtocolError as exc:
            return self._nack(out, event, str(exc))
        td = view.ticket_data
        supported = tc.VS_SUPPORTED if view.validation_mode == "system" else 0
        status = tc.apply_validation_status(td.validation_status, mask, bits, supported)
        cashable = cashable or td.cashable_expiration_days
        restricted = restricted or td.restricted_expiration_days
        out.append(
            HostCommand("set_extended_validation_status", 0x7B, validation_control=(mask, bits, cashable, restricted))
        )
        return tito_wire.extended_validation_status_reply(
            event.address, view.asset_number & 0xFFFFFFFF, status, cashable, restricted
        )

    def _lp_7d(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        try:
            req = tito_wire.parse_ticket_data(event.data)
        except ProtocolError as exc:
            return self._not_set(out, event, str(exc))
        if not req.sets_data:
            return tito_wire.ticket_data_reply(event.address, 0x7D, tito_wire.TICKET_DATA_NOT_SET)
        td = view.ticket_data
        changes: dict[str, Any] = {
            k: v
            for k, v in (
                ("host_id", req.host_id),
                ("expiration_days", req.expiration_days),
                ("location", req.location),
                ("address1", req.address1),
                ("address2", req.address2),
            )
            if v is not None
        }
        data = dataclasses.replace(td, **changes)
        out.append(HostCommand("set_ticket_data", 0x7D, ticket_data=data))
        return tito_wire.ticket_data_reply(event.address, 0x7D)

    def _lp_7c(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        try:
            fields: dict[str, Any] = dict(tito_wire.parse_extended_ticket_data(event.data))
        except ProtocolError as exc:
            return self._not_set(out, event, str(exc))
        if not fields:
            return tito_wire.ticket_data_reply(event.address, 0x7C, tito_wire.TICKET_DATA_NOT_SET)
        out.append(HostCommand("set_ticket_data", 0x7C, ticket_data=dataclasses.replace(view.ticket_data, **fields)))
        return tito_wire.ticket_data_reply(event.address, 0x7C)

    def _not_set(self, out: Out, event: LongPoll, reason: str) -> bytes:
        """0x7C/0x7D invalid data: the flag-false reply (Monaco ``SetTicketDataHandler.cs``)."""
        flag = tito_wire.TICKET_DATA_NOT_SET
        return self._refuse(out, event, reason, tito_wire.ticket_data_reply(event.address, event.command, flag), flag)

    def _lp_a8(self, view: EgmView, event: LongPoll, out: Out) -> bytes:
        method = event.data[0]
        if method not in (tc.RESET_STANDARD_HANDPAY, tc.RESET_TO_CREDIT_METER):
            return self._nack(out, event, f"handpay reset method {method:02X} is not 00 or 01")
        out.append(HostCommand("handpay_reset_to_credit_meter", 0xA8, reset_method=method))
        hp = view.handpay
        if hp is None:
            code = 2
        elif method == tc.RESET_TO_CREDIT_METER and not hp.credit_reset_allowed:
            code = 1
        else:
            code = 0
        return tito_wire.reset_method_reply(event.address, code)

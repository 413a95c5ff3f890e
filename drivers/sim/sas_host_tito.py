"""The host twin's ticket flow: what the casino system does on the TITO exceptions.

Owns: ``TitoConfig`` (the knobs: deny, delay or never answer validation, ticket expiry,
the venue lines sent with 0x7D) and ``TicketFlow``: per machine a small queue of jobs,
each run on that machine's poll thread with a ``poll(command, data)`` function that
exchanges one long poll and returns the reply.  The ticket record is ``TicketDb``.
Must not import: serial, cabinet.*.

Who sends what (SAS 6.02 system validation and ticket redemption; layouts in
``drivers.sas.tito_wire``):

====================  =========================================================
EGM exception         host
====================  =========================================================
0x57 system           0x57 -> cash-out type and amount; records a new ticket
validation request    (``issued``) and, ``validation_delay_s`` later, sends 0x58
                      with its number if it is still ``issued`` (system ID 00
                      when ``deny_validation``; nothing at all when
                      ``answer_validation`` is False).  0x58 answered 80/81: the
                      ticket is void.
0x3D ticket printed   the machine's latest issued ticket is ``printed``; then 0x50
                      type 00 (tickets printed: count, cents) -> ``on_meters``.
0x51 handpay pending  the machine's unconfirmed tickets are void (it paid by hand).
0x67 ticket inserted  0x70 -> the number and amount; decides (``TicketDb.claim``:
                      pending there in the same transaction, or a reject code; a
                      number not yet confirmed printed is refused, 83, and void
                      when its issuing machine presents it, 80) and
                      sends 0x71 redeem / reject; the EGM answers 0x40 pending.
0x68 transfer         0x71 FF -> the final status; redeemed (or released on a
complete              rejection) in one transaction; 0x40 again: asks later.  Then
                      0x50 type 80 (tickets redeemed: count, cents).
link up               for each ticket pending at the machine (a host restarted
                      mid-redemption): 0x71 FF; undecided (0x40) -> the redeem is
                      sent again (the EGM hands it to its engine once); decided ->
                      recorded.  Then 0x70: a ticket in escrow is handled as on 0x67.
                      (Nothing is polled at link-up when no ticket is pending there.)
                      With ``ticket_data`` set: 0x7D (venue lines, expiry) and 0x7B.
====================  =========================================================
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers.errors import ProtocolError
from drivers.sas import tito_codes as tc
from drivers.sas import tito_wire as tw
from drivers.sas.host_codec import Busy, DataReply, Reply
from drivers.sim.sas_host_tickets import TicketDb

#: ``poll(command, data)`` -> the reply (None: no valid reply after the line's tries).
Poll = Callable[[int, bytes], "Reply | None"]
#: How long after an undecided status the host asks again.
RECHECK_S = 1.0
#: A job whose first poll was answered busy runs again this much later, up to BUSY_TRIES times.
BUSY_RETRY_S = 0.2
BUSY_TRIES = 5
#: 0x50 validation type -> the host's meter names for (count, amount in cents).
VALIDATION_METERS = {
    tc.VT_CASHABLE_TICKET: ("tickets_out", "tickets_out_cents"),
    tc.VT_CASHABLE_TICKET_REDEEMED: ("tickets_in", "tickets_in_cents"),
}
#: 0x7B bits the host turns on: printer as cash-out device, ticket redemption.
VALIDATION_BITS = tc.VS_PRINTER_CASHOUT | tc.VS_TICKET_REDEMPTION


@dataclass
class TitoConfig:
    """The host's ticket settings (change them at any time; read at each job).

    Attributes:
        system_id: the validation system ID (1..99), the printed number's first 2 digits.
        deny_validation: answer 0x57 with a denial (0x58 system ID 00).
        answer_validation: False: never answer 0x57 (the EGM's timeout path).
        validation_delay_s: wait this long after exception 0x57 before answering.
        expiry_days: a ticket issued now expires this many days later (None: never).
        ticket_data: ``(host_id, expiration_days, location, address1, address2)`` sent
            with 0x7D (and 0x7B with the expiry) at each link-up; None: not sent.
    """

    system_id: int = 1
    deny_validation: bool = False
    answer_validation: bool = True
    validation_delay_s: float = 0.0
    expiry_days: float | None = 30.0
    ticket_data: tuple[int, int, str, str, str] | None = None


@dataclass
class _Jobs:
    due: list[tuple[float, str, str]] = field(default_factory=list)  # (when, kind, ticket number)


class TicketFlow:
    """The casino system's ticket logic for every machine of one host twin.

    Args:
        db: the ticket database (shared by all machines: a ticket is redeemed once).
        config: the knobs.
        wall: Unix seconds (ticket times, expiry).
        on_meters: gets ``(address, command, {name: value})`` for each 0x50 read
            (names in ``VALIDATION_METERS``); the host keeps them with its meters.
    Attributes:
        counts: ``issued``, ``denied``, ``redeemed``, ``refused``, ``released``,
            ``bad_replies``, ``no_replies``, ``busy`` (a job met busy: it runs again
            ``BUSY_RETRY_S`` later, up to ``BUSY_TRIES`` times).
    """

    def __init__(
        self,
        db: TicketDb,
        config: TitoConfig,
        wall: Callable[[], float],
        on_meters: Callable[[int, int, dict[str, int]], None] | None = None,
    ) -> None:
        self.db, self.config, self._wall, self._on_meters = db, config, wall, on_meters
        self._jobs: dict[int, _Jobs] = {}
        self._lock = threading.Lock()
        self._local = threading.local()  # ``busy``: the running job (this poll thread's) met busy
        self._busy_tries: dict[tuple[int, str, str], int] = {}
        self.counts: dict[str, int] = dict(
            issued=0, denied=0, redeemed=0, refused=0, released=0, bad_replies=0, no_replies=0, busy=0
        )

    # --- scheduling (the machine's poll thread) ----------------------------------------------

    def _add(self, address: int, due: float, kind: str, number: str = "") -> None:
        with self._lock:
            jobs = self._jobs.setdefault(address, _Jobs())
            if (due, kind, number) not in jobs.due:
                jobs.due.append((due, kind, number))
                jobs.due.sort()

    def on_exception(self, address: int, code: int, now: float) -> None:
        """An exception read from machine ``address`` at monotonic ``now``."""
        at = self._wall()
        if code == 0x57 and self.config.answer_validation:
            self._add(address, now, "validate")
        elif code == 0x57:
            self.db.log(address, at, "validation_unanswered")
        elif code == 0x3D:
            self.db.mark_printed(address, at)
            self._add(address, now, "meters_00")
        elif code == 0x51:
            self.db.void_issued(address, at, "handpay instead of a ticket")
        elif code == 0x67:
            self._add(address, now, "redeem")
        elif code == 0x68:
            self._add(address, now, "complete")
            self._add(address, now, "meters_80")

    def on_link_up(self, address: int, now: float) -> None:
        """Machine ``address``'s link came up: recover pending tickets, send ticket data."""
        if self.db.pending_at(address):
            self._add(address, now, "recover")
        if self.config.ticket_data is not None:
            self._add(address, now, "ticket_data")

    def due(self, address: int, now: float) -> bool:
        """True when a job of machine ``address`` is due."""
        with self._lock:
            jobs = self._jobs.get(address)
            return bool(jobs and jobs.due and jobs.due[0][0] <= now)

    def run(self, address: int, now: float, poll: Poll) -> None:
        """Run machine ``address``'s next due job with ``poll`` (its poll thread)."""
        with self._lock:
            jobs = self._jobs.get(address)
            if not jobs or not jobs.due or jobs.due[0][0] > now:
                return
            _, kind, number = jobs.due.pop(0)
        self._local.busy = False
        self._job(address, now, poll, kind, number)
        key = (address, kind, number)
        with self._lock:
            again = self._local.busy and self._busy_tries.get(key, 0) < BUSY_TRIES
            if again:
                self._busy_tries[key] = self._busy_tries.get(key, 0) + 1
            else:
                self._busy_tries.pop(key, None)
        if again:  # the EGM was busy: ask again soon
            self._add(address, now + BUSY_RETRY_S, kind, number)

    def _job(self, address: int, now: float, poll: Poll, kind: str, number: str) -> None:
        if kind == "send_number":
            self._send_number(address, number, poll)
            return
        if kind.startswith("meters_"):
            self._validation_meters(address, int(kind[7:], 16), poll)
            return
        {
            "validate": self._validate,
            "redeem": self._redeem,
            "complete": self._complete,
            "recover": self._recover,
            "ticket_data": self._ticket_data,
        }[kind](address, now, poll)

    def forget(self, address: int) -> None:
        """Drop machine ``address``'s queued jobs (its link went down)."""
        with self._lock:
            self._jobs.pop(address, None)

    # --- helpers -------------------------------------------------------------------------

    def _data(self, reply: Reply | None, command: int) -> bytes | None:
        if isinstance(reply, DataReply) and reply.command == command:
            return reply.data
        if isinstance(reply, Busy):
            self._local.busy = True
            self.counts["busy"] += 1
            return None
        self.counts["no_replies" if reply is None else "bad_replies"] += 1
        return None

    def _ticket(self, address: int, poll: Poll, command: int, data: bytes = b"") -> tw.TicketReply | None:
        got = self._data(poll(command, data), command)
        if got is None:
            return None
        try:
            return tw.parse_ticket_reply(got, command)
        except ProtocolError as exc:
            self.counts["bad_replies"] += 1
            self.db.log(address, self._wall(), "bad_reply", code=command, detail=str(exc))
            return None

    # --- jobs ----------------------------------------------------------------------------

    def _validate(self, address: int, now: float, poll: Poll) -> None:
        got = self._data(poll(0x57, b""), 0x57)
        if got is None:
            return
        at = self._wall()
        try:
            cashout_type, amount = tw.parse_pending_cashout(got)
        except ProtocolError as exc:
            self.counts["bad_replies"] += 1
            self.db.log(address, at, "bad_reply", code=0x57, detail=str(exc))
            return
        if cashout_type == tc.CASHOUT_NOT_WAITING:
            return
        cfg = self.config
        if cfg.deny_validation:
            self.counts["denied"] += 1
            self.db.log(address, at, "validation_denied", detail=f"{amount} cents")
            poll(0x58, tw.validation_number_request(tc.VALIDATION_DENIED, ""))
            return
        expires = None if cfg.expiry_days is None else at + cfg.expiry_days * 86400.0
        number = self.db.issue(address, amount, cashout_type, cfg.system_id, at, expires)
        self.counts["issued"] += 1
        if cfg.validation_delay_s > 0:
            self._add(address, now + cfg.validation_delay_s, "send_number", number)
        else:
            self._send_number(address, number, poll)

    def _send_number(self, address: int, number: str, poll: Poll) -> None:
        row = self.db.get(number)
        if row is None or row["state"] != "issued":
            return  # void meanwhile (the machine paid by hand): never sent
        got = self._data(poll(0x58, tw.validation_number_request(int(row["system_id"]), number[2:])), 0x58)
        if got and got[0] in (tc.VN_NOT_IN_CASHOUT, tc.VN_IMPROPER):
            self.db.void(number, address, self._wall(), f"0x58 answered {got[0]:02X}")
        # no reply: the ticket stays ``issued``; 0x3D (printed) or 0x51 (handpay) settles it

    def _redeem(self, address: int, now: float, poll: Poll) -> None:
        ticket = self._ticket(address, poll, 0x70)
        if ticket is None or ticket.status != tc.TICKET_IN_ESCROW:
            return
        self._decide_and_send(address, now, poll, ticket.validation_number, ticket.amount)

    def _decide_and_send(self, address: int, now: float, poll: Poll, number: str, machine_amount: int) -> None:
        decision = self.db.claim(number, address, machine_amount, self._wall())
        if not decision.redeem:
            self.counts["refused"] += 1
        answer = self._ticket(address, poll, 0x71, tw.redeem_request(decision.transfer_code, decision.amount, number))
        if answer is None:
            if decision.redeem:
                self._add(address, now + RECHECK_S, "complete")  # find out what the machine did
            return
        self._settle(address, now, answer, number)

    def _settle(self, address: int, now: float, answer: tw.TicketReply, number: str | None = None) -> str:
        if number is not None and answer.validation_number != number:
            return "ignored"
        if answer.status == tc.STATUS_PENDING:
            return "pending"
        if answer.status == tc.STATUS_NO_INFO:
            return "ignored"
        outcome = self.db.complete(answer.validation_number, address, answer.status, answer.amount, self._wall())
        if outcome in ("redeemed", "released"):
            self.counts[outcome] += 1
        return outcome

    def _complete(self, address: int, now: float, poll: Poll) -> None:
        answer = self._ticket(address, poll, 0x71, tw.STATUS_QUERY)
        if answer is None or self._settle(address, now, answer) == "pending":
            if self.db.pending_at(address):
                self._add(address, now + RECHECK_S, "complete")

    def _recover(self, address: int, now: float, poll: Poll) -> None:
        handled: set[str] = set()
        for number, _amount in self.db.pending_at(address):
            answer = self._ticket(address, poll, 0x71, tw.STATUS_QUERY)
            if answer is None or answer.validation_number != number:
                continue  # outcome unknown: stays pending (refused elsewhere) until the machine says
            handled.add(number)
            if answer.status == tc.STATUS_PENDING:
                self._decide_and_send(address, now, poll, number, 0)  # the same redeem again
            else:
                self._settle(address, now, answer, number)
        ticket = self._ticket(address, poll, 0x70)
        if ticket is not None and ticket.status == tc.TICKET_IN_ESCROW and ticket.validation_number not in handled:
            self._decide_and_send(address, now, poll, ticket.validation_number, ticket.amount)

    def _validation_meters(self, address: int, kind: int, poll: Poll) -> None:
        got = self._data(poll(0x50, bytes((kind,))), 0x50)
        if got is None:
            return
        try:
            vtype, count, credits = tw.parse_validation_meters(got)
        except ProtocolError as exc:
            self.counts["bad_replies"] += 1
            self.db.log(address, self._wall(), "bad_reply", code=0x50, detail=str(exc))
            return
        names = VALIDATION_METERS.get(vtype)
        if names is not None and vtype == kind and self._on_meters is not None:
            self._on_meters(address, 0x50, {names[0]: count, names[1]: credits})

    def _ticket_data(self, address: int, now: float, poll: Poll) -> None:
        td = self.config.ticket_data
        if td is None:
            return
        host_id, days, location, address1, address2 = td
        poll(0x7D, tw.ticket_data_request(host_id, days, location, address1, address2))
        poll(0x7B, tw.extended_validation_status_request(VALIDATION_BITS, VALIDATION_BITS, days, 0))

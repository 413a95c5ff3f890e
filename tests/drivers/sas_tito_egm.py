"""A test EGM for the host twin's ticket tests: the real pure responder
(``drivers.sas.egm.EgmResponder``, with ``egm_tito``) on the host's pty, and a tiny
stand-in engine that publishes ``EgmView``s the way the cabinet's engine is meant to
(the contract in ``drivers/sas/egm_view.py``).

Engine rules here: ``cash_out(amount)`` sets ``pending_cashout`` and queues 0x57; a
0x58 number prints a ticket (``printed``, 0x3D), a denial or ``validation_timeout_s``
without an answer makes a handpay (``handpays``, 0x51).  ``insert(number)`` escrows a
ticket and queues 0x67; a 0x71 redeem credits the amount once (by ticket id), a reject
or ``redeem_timeout_s`` returns it (``returned``); either way the final status goes
in ``ticket_in.status`` and 0x68 is queued.  ``hold = True`` keeps a redeem undecided
until ``release()``.  ``mangle[command]`` rewrites that command's reply data (the CRC
is made good again): a malformed reply; ``busy[command] = n`` answers the next n
of those polls with busy (``address 00``).  Not the cabinet: a test peer.
"""

from __future__ import annotations

import dataclasses
import os
import select
import termios
import threading
import time
import tty
from collections.abc import Callable

from drivers.sas import tito_codes as tc
from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder, ExceptionAcked
from drivers.sas.egm_view import EgmView, HandpayInfo, HostCommand, HostException, PendingCashout, TicketIn
from drivers.sas.messages import MachineInfo

INFO = MachineInfo("BJ", "001", 0x01, 25, 0, b"\x00\x00", "BJ6D01", "9950")


class TitoEgm:
    """The ticket test EGM at ``address`` on the pty slave ``path``."""

    __test__ = False

    def __init__(
        self,
        path: str,
        address: int,
        *,
        credits: int = 0,
        validation_timeout_s: float = 8.0,
        redeem_timeout_s: float = 8.0,
    ) -> None:
        self.address = address
        self.responder = EgmResponder(address)
        self.view = EgmView(
            address=address,
            validation_mode="system",
            asset_number=1000 + address,
            machine_info=INFO,
            serial_number=f"TITO-{address}",
        )
        self.responder.update(self.view)  # before the first view the responder answers busy
        self.credits = credits
        self.validation_timeout_s, self.redeem_timeout_s = validation_timeout_s, redeem_timeout_s
        self.printed: list[tuple[str, int]] = []
        self.handpays: list[int] = []
        self.returned: list[tuple[str, int]] = []  # (number, transfer code or status)
        self.redeemed: list[tuple[str, int]] = []
        self.commands: list[HostCommand] = []
        self.hold = False
        self.crash = ""
        self.mangle: dict[int, Callable[[bytes], bytes]] = {}
        self.busy: dict[int, int] = {}  # command -> how many more replies to it are "busy" (address 00)
        self._held: HostCommand | None = None
        self._next_id = 1
        self._since = 0.0
        self.lock = threading.RLock()
        self.fd = -1
        self._stop = threading.Event()
        self.open(path)
        self._thread = threading.Thread(target=self._run, name=f"tito-egm-{address}", daemon=True)
        self._thread.start()

    # --- the test's hands --------------------------------------------------------------------

    def open(self, path: str) -> None:
        """(Re)open the line (after the host twin restarted on a new pty)."""
        with self.lock:
            if self.fd >= 0:
                os.close(self.fd)
            self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
            tty.setraw(self.fd)
            termios.tcflush(self.fd, termios.TCIFLUSH)
            self.responder.reset_line()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        if self.fd >= 0:
            os.close(self.fd)

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _queue(self, name: str) -> None:
        self._publish(exceptions=(*self.view.exceptions, HostException(self._id(), name)))

    def _publish(self, **changes: object) -> None:
        self.view = dataclasses.replace(self.view, **changes)  # type: ignore[arg-type]
        self.responder.update(self.view)

    def cash_out(self, amount: int) -> None:
        """Start a cash-out of ``amount`` credits to a ticket (system validation)."""
        with self.lock:
            self._since = time.monotonic()
            self._publish(pending_cashout=PendingCashout(self._id(), amount))
            self._queue("system_validation_request")

    def insert(self, number: str, amount: int = 0) -> None:
        """A ticket with ``number`` is escrowed (``amount`` as read, 0: unknown)."""
        with self.lock:
            self._since = time.monotonic()
            self._publish(ticket_in=TicketIn(self._id(), number, amount))
            self._queue("ticket_inserted")

    def release(self) -> None:
        """Decide the held redeem now."""
        with self.lock:
            held, self._held = self._held, None
            if held is not None:
                self._decide(held)

    def status(self) -> int | None:
        with self.lock:
            return None if self.view.ticket_in is None else self.view.ticket_in.status

    # --- the engine --------------------------------------------------------------------------

    def _on(self, out: object) -> None:
        if isinstance(out, ExceptionAcked):
            self._publish(exceptions=tuple(e for e in self.view.exceptions if e.exception_id != out.exception_id))
        elif isinstance(out, HostCommand):
            self.commands.append(out)
            if out.name == "validation_number":
                self._validated(out)
            elif out.name == "redeem_ticket":
                if self.hold:
                    self._held = out
                else:
                    self._decide(out)

    def _validated(self, cmd: HostCommand) -> None:
        pc = self.view.pending_cashout
        if pc is None or pc.cashout_id != cmd.cashout_id:
            return
        if cmd.validation_system_id == tc.VALIDATION_DENIED:
            self._handpay(pc.amount_cents)
            return
        self.printed.append((f"{cmd.validation_system_id:02d}{cmd.validation_number}", pc.amount_cents))
        self.credits -= pc.amount_cents
        self._publish(pending_cashout=None, validation_meters=self._meter(tc.VT_CASHABLE_TICKET, pc.amount_cents))
        self._queue("cash_out_ticket_printed")

    def _meter(self, kind: int, amount: int) -> dict[int, tuple[int, int]]:
        count, credits = self.view.validation_meters.get(kind, (0, 0))
        return {**self.view.validation_meters, kind: (count + 1, credits + amount)}

    def _handpay(self, amount: int) -> None:
        self.handpays.append(amount)
        self.credits -= amount
        self._publish(pending_cashout=None, handpay=HandpayInfo(amount, handpay_id=self._id()))
        self._queue("handpay_pending")

    def _decide(self, cmd: HostCommand) -> None:
        t = self.view.ticket_in
        if t is None or t.ticket_id != cmd.ticket_id or t.status is not None:
            return
        if cmd.transfer_code == tc.TC_CASHABLE:
            self.credits += cmd.amount_cents
            self.redeemed.append((t.validation_number, cmd.amount_cents))
            t = dataclasses.replace(
                t, status=tc.STATUS_CASHABLE_REDEEMED, transfer_code=0, amount_cents_final=cmd.amount_cents
            )
            self._publish(validation_meters=self._meter(tc.VT_CASHABLE_TICKET_REDEEMED, cmd.amount_cents))
        else:
            assert cmd.transfer_code is not None
            self.returned.append((t.validation_number, cmd.transfer_code))
            t = dataclasses.replace(t, status=tc.STATUS_REJECTED_BY_HOST, transfer_code=cmd.transfer_code)
        self._publish(ticket_in=t)
        self._queue("ticket_transfer_complete")

    def _timeouts(self) -> None:
        waited = time.monotonic() - self._since
        if self.view.pending_cashout is not None and waited > self.validation_timeout_s:
            self._handpay(self.view.pending_cashout.amount_cents)
        t = self.view.ticket_in
        if t is not None and t.status is None and waited > self.redeem_timeout_s and self._held is None:
            self.returned.append((t.validation_number, tc.STATUS_TIMEOUT))
            self._publish(ticket_in=dataclasses.replace(t, status=tc.STATUS_TIMEOUT))
            self._queue("ticket_transfer_complete")

    # --- the line ----------------------------------------------------------------------------

    def _write(self, reply: bytes) -> None:
        if len(reply) > 4 and self.busy.get(reply[1], 0) > 0:
            self.busy[reply[1]] -= 1
            reply = bytes((self.address, 0x00))
        fix = self.mangle.get(reply[1]) if len(reply) > 4 else None
        if fix is not None:
            reply = with_crc(reply[:2] + fix(reply[2:-2]))
        try:
            os.write(self.fd, reply)
        except OSError:  # the host closed its end (restart): the reply is lost, as on a pulled cable
            pass

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException:
            import traceback

            self.crash = traceback.format_exc()
            raise

    def _loop(self) -> None:
        while not self._stop.is_set():
            fd = self.fd
            try:
                ready, _, _ = select.select([fd], [], [], 0.02)
            except (OSError, ValueError):  # reopened (closed) under us: take the new one
                time.sleep(0.01)
                continue
            now_ms = int(time.monotonic() * 1000)
            with self.lock:
                if fd != self.fd:
                    continue
                if not ready:
                    self.responder.tick(now_ms)
                    self._timeouts()
                    continue
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    time.sleep(0.01)
                    continue
                for byte in data:
                    for out in self.responder.receive(bytes((byte,)), now_ms):
                        if isinstance(out, bytes):
                            self._write(out)
                        else:
                            self._on(out)
                self._timeouts()

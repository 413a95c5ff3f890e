"""The host twin: a simulated casino management system polling EGMs over SAS.

Owns: one pseudo-terminal per machine (an EGM, i.e. one cabinet station; the cabinet
opens the slave path), a poll thread per machine that polls like a real host, what it
read (in memory and in its own SQLite database, ``sas_host_db``), and a thread-safe
control API for tests, ``cabinet sim-host`` and its control socket.  One message's
exchange with one EGM (timeouts, implied NACK and ACK, busy, the late 0x21) is
``sas_host_line.HostLine``; the pty is ``sas_pty.HostPty``.
Must not import: serial, cabinet.*.

How it polls (research/sas.md "Physical and link layer", "Timing"):

- A general poll (``0x80|address``) every ``poll_interval_s`` (default 200 ms); the
  exception byte is logged when not 00.  Between general polls, long polls: the
  ones asked for through ``send`` first, then the schedule: at link-up 0x1F, 0x54,
  0x51, 0x1C, 0x1A and 0x1E; 0x1C and 0x1A every ``meter_interval_s``; 0x1E every
  ``bill_meter_interval_s``; 0x1B after exception 0x51 (handpay pending); 0x1C and
  0x1A after 0x7F (game ended) and the bill exceptions 0x47-0x4E.
- Every message goes out as the EGM's PARMRK stream (``host_codec.to_wire``: wakeup
  on the first byte).  A reply is complete when the codec says so; no byte for
  ``reply_timeout_s`` (default 100 ms; the EGM owes 20 ms) after the poll or after
  the last byte received is no reply.  No valid reply (silence, garbage, a bad CRC,
  a wrong address) is an implied NACK: the host drains the line and sends the *same*
  message again, up to ``tries`` (3) in all; the EGM then sends its reply again.
- Implied ACK: the EGM counts a poll identical to the one before it on the line as a
  repeat (``drivers.sas.codec``), so after a valid reply the host never sends the
  same message twice in a row: it puts a general poll to address 0 (broadcast,
  never answered; nCompass ``SASInterface.cpp`` does the same) in between.  A
  general poll that got no valid reply is sent again before any long poll, so a
  different poll cannot acknowledge an exception the host never read.
- Busy (``address 00``) is a valid reply: the long poll is asked again after the
  next general poll, up to ``busy_retries`` times.  A NACK is final (not repeated:
  the EGM would repeat its NACK).
- The link is up from the first valid reply and down after ``link_down_s`` (5 s)
  without one; while down, polls the EGM never read are flushed from the pty.
- ROM signature 0x21 (assumption, see ``rom_signature``): the EGM may answer at once,
  or (while it computes) answer nothing or busy and send the whole 0x21 reply later
  in place of a general poll's exception byte.  Both are accepted until
  ``rom_timeout_s``; meanwhile the schedule waits (a late reply must not land in
  another long poll's reply).
- Real-time events (``real_time_events``): after the EGM ACKs 0x0E 01 every reply may
  be an event (``address FF event CRC``); an event answering a long poll is recorded
  like one from a general poll and the long poll is sent again after the implied ACK.
  The EGM forgets the setting on a restart: ``real_time_events`` again then.
- Tickets: the casino's ticket database (``sas_host_tickets.TicketDb``, in
  the same SQLite file) and what the host does on 0x57, 0x3D, 0x51, 0x67, 0x68 and at
  link-up (``sas_host_tito.TicketFlow``, configured by ``tito``): its jobs run on the
  machine's poll thread between general polls, before the schedule.
"""

from __future__ import annotations

import collections
import contextlib
import datetime as dt
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from drivers.errors import ProtocolError
from drivers.sas.exception_codes import EXCEPTION_NAMES
from drivers.sas.host_codec import (
    Ack,
    Busy,
    DataReply,
    EventReply,
    ExceptionReply,
    HostCodec,
    Nack,
    Reply,
    general_poll,
    long_poll,
    parse_machine_info,
    parse_meters_1c,
    parse_rom_signature,
    parse_sas_version,
    parse_two_digit_count,
    rom_signature_request,
)
from drivers.sas.messages import Meters1C
from drivers.sim.sas_host_data import (
    METER_NAMES,
    MachineStatus,
    SeenException,
    bill_mask,
    date_time_data,
    meter_values,
    parse_handpay,
)
from drivers.sim.sas_host_db import HostDb
from drivers.sim.sas_host_line import HostLine
from drivers.sim.sas_host_meters import MeterAlarm, MeterWatch
from drivers.sim.sas_host_tickets import MachineTickets, TicketDb
from drivers.sim.sas_host_tito import TicketFlow, TitoConfig
from drivers.sim.sas_pty import HostPty

LINK_UP_POLLS = (0x1F, 0x54, 0x51, 0x1C, 0x1A, 0x1E)
BILL_EXCEPTIONS = frozenset(range(0x47, 0x4F))
log = logging.getLogger("drivers.sim.sas_host")
#: Events taken in place of one long poll's reply before it counts as unanswered.
EVENTS_PER_POLL = 32


def exception_name(code: int) -> str:
    """The name of exception ``code`` (``unknown_XX`` when not in ``exception_codes``)."""
    return EXCEPTION_NAMES.get(code, f"unknown_{code:02x}")


@dataclass(eq=False)
class _Request:
    message: bytes
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None
    busy_left: int = 0


@dataclass(eq=False)
class _Machine:
    address: int
    pty: HostPty
    line: HostLine
    wake: threading.Event = field(default_factory=threading.Event)
    idle: threading.Event = field(default_factory=threading.Event)  # paused, between exchanges
    lock: threading.Lock = field(default_factory=threading.Lock)
    demand: collections.deque[_Request] = field(default_factory=collections.deque)
    held: list[tuple[float, _Request]] = field(default_factory=list)  # busy: not before
    schedule: collections.deque[int] = field(default_factory=collections.deque)
    link_up: bool = False
    last_valid: float | None = None
    last_written: float = 0.0
    gp_unanswered: bool = False
    rom: _Request | None = None
    rom_deadline: float = 0.0
    next_gp: float = 0.0
    next_meters: float = 0.0
    next_bills: float = 0.0
    meters: dict[str, int] = field(default_factory=dict)
    watch: MeterWatch = field(default_factory=MeterWatch)
    alarms: list[MeterAlarm] = field(default_factory=list)
    seen: list[SeenException] = field(default_factory=list)
    info: dict[str, object] = field(default_factory=dict)
    counts: collections.Counter[str] = field(default_factory=collections.Counter)  # busy, bad_data


class SasHost:
    """A SAS host polling ``addresses``, one pty (one line) per machine.

    Args:
        addresses: SAS addresses 1..127, one machine each.
        directory: if given, machine N's pty gets the symlink ``directory/sas-N``.
        db_path: the host database (default in memory).
        poll_interval_s, reply_timeout_s, link_down_s, tries, busy_retries,
        meter_interval_s, bill_meter_interval_s, rom_timeout_s: see the module
            docstring.
        clock: monotonic seconds (timeouts); wall: Unix seconds (database times).
        on_link: called ``(address, up)`` from the poll thread when a link goes up or down.
        tito: the ticket settings (``TitoConfig``; change ``host.tito.config`` at any time).
        rng: draws validation numbers (tests pass a seeded ``random.Random``).

    Raises:
        ValueError: an address outside 1..127 or given twice, or no address.
    """

    def __init__(
        self,
        addresses: Iterable[int],
        *,
        directory: str | Path | None = None,
        db_path: str | Path = ":memory:",
        poll_interval_s: float = 0.2,
        reply_timeout_s: float = 0.1,
        link_down_s: float = 5.0,
        tries: int = 3,
        busy_retries: int = 5,
        meter_interval_s: float = 3.0,
        bill_meter_interval_s: float = 30.0,
        rom_timeout_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        on_link: Callable[[int, bool], None] | None = None,
        tito: TitoConfig | None = None,
        rng: random.Random | None = None,
    ) -> None:
        addrs = list(addresses)
        if not addrs or len(set(addrs)) != len(addrs) or any(not 1 <= a <= 127 for a in addrs):
            raise ValueError(f"machine addresses {addrs!r}: give distinct addresses 1..127")
        self.poll_interval_s, self.reply_timeout_s, self.link_down_s = (poll_interval_s, reply_timeout_s, link_down_s)
        self.tries, self.busy_retries, self.rom_timeout_s = tries, busy_retries, rom_timeout_s
        self.meter_interval_s, self.bill_meter_interval_s = meter_interval_s, bill_meter_interval_s
        self._clock, self._wall, self._on_link = clock, wall, on_link
        self.db = HostDb(db_path)
        self.tickets = TicketDb(db_path, rng)
        self.tito = TicketFlow(self.tickets, tito or TitoConfig(), wall, self._validation_meters)
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._machines: dict[int, _Machine] = {}
        folder = Path(directory) if directory is not None else None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        for a in addrs:
            p = HostPty(folder / f"sas-{a}" if folder is not None else None)
            self._machines[a] = _Machine(
                a, p, HostLine(a, p, self._stop, clock), watch=MeterWatch(self.db.last_meters(a))
            )
            self.db.add_machine(a, p.tty, p.path)
        self._threads = [
            threading.Thread(target=self._run, args=(m,), name=f"sas-host-{a}", daemon=True)
            for a, m in self._machines.items()
        ]
        for t in self._threads:
            t.start()

    # --- control API (any thread) ------------------------------------------------

    @property
    def addresses(self) -> list[int]:
        """The machines' addresses, in the order given."""
        return list(self._machines)

    def tty(self, machine: int) -> str:
        """The pty slave path (``/dev/pts/N``) machine ``machine``'s cabinet opens."""
        return self._m(machine).pty.tty

    def path(self, machine: int) -> str:
        """The symlink (or the tty when there is no directory) for machine ``machine``."""
        return self._m(machine).pty.path

    def send(self, machine: int, command: int, data: bytes = b"", timeout_s: float | None = None) -> Reply | None:
        """Send long poll ``command`` (``data`` as its layout wants) and wait for the reply.

        Returns:
            The valid reply (``DataReply``, ``Ack``, ``Nack``, ``Busy`` after
            ``busy_retries`` busy answers), or None when none came (``tries`` tries;
            for 0x21 until ``rom_timeout_s``) or ``timeout_s`` passed.

        Raises:
            KeyError: unknown machine.
            ValueError: a command or data the layout table refuses.
        """
        m = self._m(machine)
        message = (
            rom_signature_request(machine, int.from_bytes(data, "little"))
            if command == 0x21
            else long_poll(machine, command, data)
        )
        HostCodec().send(message)  # raises ValueError now for a reply shape nobody knows
        if timeout_s is None:
            timeout_s = (self.rom_timeout_s if command == 0x21 else 0.0) + 10.0
        req = _Request(message, busy_left=self.busy_retries)
        with m.lock:
            m.demand.append(req)
        m.wake.set()
        req.done.wait(timeout_s)
        return req.reply

    def _ack(self, machine: int, command: int, data: bytes = b"") -> bool:
        return isinstance(self.send(machine, command, data), Ack)

    def real_time_events(self, machine: int, enable: bool = True) -> bool:
        """0x0E: turn real-time event reporting on (off); True when the EGM ACKed.  From
        then on exceptions arrive as events with their data (``SeenException.data``)."""
        return self._ack(machine, 0x0E, b"\x01" if enable else b"\x00")

    def shut_down(self, machine: int) -> bool:
        """0x01 shut down (disable play); True when the EGM ACKed."""
        return self._ack(machine, 0x01)

    def start_up(self, machine: int) -> bool:
        """0x02 start up (enable play); True when ACKed."""
        return self._ack(machine, 0x02)

    def enable_bill_acceptor(self, machine: int) -> bool:
        """0x06; True when ACKed."""
        return self._ack(machine, 0x06)

    def disable_bill_acceptor(self, machine: int) -> bool:
        """0x07; True when ACKed."""
        return self._ack(machine, 0x07)

    def configure_bills(self, machine: int, bills_minor: Sequence[int], keep_enabled: bool = True) -> bool:
        """0x08 accepted bill denominations (``sas_host_data.bill_mask``), action flag
        bit 0 = keep the acceptor enabled after a bill; True when ACKed.

        Raises:
            ValueError: a bill value without a SAS denomination bit.
        """
        return self._ack(machine, 0x08, bill_mask(bills_minor) + bytes((int(keep_enabled),)))

    def enter_maintenance(self, machine: int) -> bool:
        """0x0A enter maintenance mode; True when ACKed."""
        return self._ack(machine, 0x0A)

    def exit_maintenance(self, machine: int) -> bool:
        """0x0B exit maintenance mode; True when ACKed."""
        return self._ack(machine, 0x0B)

    def set_date_time(self, machine: int, when: dt.datetime | None = None) -> bool:
        """0x7F the host's date and time (default: now, local); True when ACKed."""
        return self._ack(machine, 0x7F, date_time_data(when or dt.datetime.fromtimestamp(self._wall())))

    def remote_handpay_reset(self, machine: int) -> int | None:
        """0x94 remote handpay reset: the EGM's one code byte, None without a reply."""
        reply = self.send(machine, 0x94)
        return reply.data[0] if isinstance(reply, DataReply) and reply.data else None

    def rom_signature(self, machine: int, seed: int) -> int | None:
        """0x21 with ``seed`` (16-bit, sent low byte first): the signature, or None when
        none came within ``rom_timeout_s`` (an immediate or a late reply, see module)."""
        if not 0 <= seed <= 0xFFFF:
            raise ValueError(f"seed {seed!r} is not 16-bit")
        reply = self.send(machine, 0x21, seed.to_bytes(2, "little"))
        return parse_rom_signature(reply.data) if isinstance(reply, DataReply) else None

    def read_meters(self, machine: int) -> Meters1C | None:
        """Long poll 0x1C now; None without a valid reply."""
        reply = self.send(machine, 0x1C)
        return parse_meters_1c(reply.data) if isinstance(reply, DataReply) else None

    def pause(self, timeout_s: float = 5.0) -> None:
        """Stop automatic polling (general polls, schedule); ``send`` still works.

        Returns once every poll thread has finished the exchange it was in (or after
        ``timeout_s``), so nothing the host sent before is still awaiting its reply.
        """
        for m in self._machines.values():
            m.idle.clear()
        self._paused.set()
        for m in self._machines.values():
            m.wake.set()
        deadline = self._clock() + timeout_s
        for m in self._machines.values():
            m.idle.wait(max(0.0, deadline - self._clock()))

    def resume(self) -> None:
        """Resume automatic polling."""
        self._paused.clear()
        for m in self._machines.values():
            m.wake.set()

    def exceptions(self, machine: int) -> list[SeenException]:
        """Every exception read from ``machine``, oldest first, each once."""
        m = self._m(machine)
        with m.lock:
            return list(m.seen)

    def meters(self, machine: int) -> dict[str, int]:
        """The last value read of each meter (names in ``sas_host_data.METER_NAMES``)."""
        m = self._m(machine)
        with m.lock:
            return dict(m.meters)

    def meter_alarms(self, machine: int) -> list[MeterAlarm]:
        """Lifetime meters ``machine`` reported lower than the host had read them (in
        this session or an earlier one: ``sas_host_meters``), oldest first."""
        m = self._m(machine)
        with m.lock:
            return list(m.alarms)

    def link_up(self, machine: int) -> bool:
        """True while the host counts ``machine``'s link as up."""
        return self._m(machine).link_up

    def status(self) -> list[MachineStatus]:
        """Every machine as the host sees it, in address order given."""
        now = self._clock()
        out = []
        for m in self._machines.values():
            with m.lock:
                out.append(
                    MachineStatus(
                        m.address,
                        m.pty.tty,
                        m.pty.path,
                        m.link_up,
                        None if m.last_valid is None else now - m.last_valid,
                        dict(m.meters),
                        tuple(e.name for e in m.seen[-5:]),
                        str(m.info.get("game_id", "")),
                        str(m.info.get("serial_number", "")),
                        str(m.info.get("sas_version", "")),
                        m.info.get("rom_signature"),  # type: ignore[arg-type]
                        dict(m.line.counts + m.counts),
                    )
                )
        return out

    def ticket_summary(self) -> list[MachineTickets]:
        """Tickets issued, redeemed, outstanding per machine (address order), then the floor."""
        return self.tickets.summary(self.addresses)

    def close(self) -> None:
        """Stop polling, close the ptys (removing their symlinks) and the database."""
        self._stop.set()
        for m in self._machines.values():
            m.wake.set()
        for t in self._threads:
            t.join(timeout=2)
        for m in self._machines.values():
            m.pty.close()
            with m.lock:
                pending = list(m.demand) + [r for _, r in m.held] + ([m.rom] if m.rom else [])
                m.demand.clear()
            for req in pending:
                req.done.set()
        self.db.close()
        self.tickets.close()

    def __enter__(self) -> SasHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _m(self, machine: int) -> _Machine:
        try:
            return self._machines[machine]
        except KeyError:
            raise KeyError(f"no machine at address {machine} (host polls {self.addresses})") from None

    # --- the poll thread ---------------------------------------------------------

    def _run(self, m: _Machine) -> None:
        m.next_gp = self._clock()
        while not self._stop.is_set():
            now = self._clock()
            self._check_link(m, now)
            if m.held:
                self._release(m, now)
            paused = self._paused.is_set()
            if m.gp_unanswered and m.link_up and not paused:
                self._general_poll(m)
                continue
            with m.lock:
                req = m.demand.popleft() if m.demand else None
            if req is not None:
                m.idle.clear()
                self._serve(m, req)
                continue
            if m.link_up and m.rom is None and not paused and self.tito.due(m.address, now):
                self.tito.run(m.address, now, lambda command, data: self._poll_now(m, command, data))
                continue
            if paused:
                m.idle.set()
                m.wake.wait(0.02 if m.held else 0.05)
                m.wake.clear()
                continue
            if now >= m.next_gp:
                m.next_gp = max(m.next_gp + self.poll_interval_s, now)
                self._general_poll(m)
                self._plan(m, now)
                continue
            if m.link_up and m.schedule and m.rom is None:
                command = m.schedule.popleft()
                self._serve(m, _Request(long_poll(m.address, command), busy_left=self.busy_retries))
                continue
            m.wake.wait(
                max(0.0, min(m.next_gp, *(t for t, _ in m.held)) - now) if m.held else max(0.0, m.next_gp - now)
            )
            m.wake.clear()

    def _plan(self, m: _Machine, now: float) -> None:
        if not m.link_up:
            return
        if now >= m.next_meters:
            m.next_meters = now + self.meter_interval_s
            self._want(m, 0x1C, 0x1A)
        if now >= m.next_bills:
            m.next_bills = now + self.bill_meter_interval_s
            self._want(m, 0x1E)

    @staticmethod
    def _want(m: _Machine, *commands: int) -> None:
        for c in commands:
            if c not in m.schedule:
                m.schedule.append(c)

    @staticmethod
    def _release(m: _Machine, now: float) -> None:
        due = [req for t, req in m.held if t <= now]
        if due:
            m.held = [(t, req) for t, req in m.held if t > now]
            with m.lock:
                m.demand.extend(due)

    def _check_link(self, m: _Machine, now: float) -> None:
        if m.rom is not None and now > m.rom_deadline:
            self._finish(m, m.rom, None)
            m.rom = None
        if m.link_up and (m.last_valid is None or now - m.last_valid > self.link_down_s):
            m.link_up = False
            m.gp_unanswered = False
            m.schedule.clear()
            self.tito.forget(m.address)
            self._link_changed(m, False)

    def _link_changed(self, m: _Machine, up: bool) -> None:
        self.db.add_link_event(m.address, self._wall(), up)
        if self._on_link is not None:
            with contextlib.suppress(Exception):  # a printing callback must not stop the polls
                self._on_link(m.address, up)

    def _valid(self, m: _Machine) -> None:
        now = self._clock()
        m.last_valid = now
        if not m.link_up:
            m.link_up = True
            m.next_meters = now + self.meter_interval_s
            m.next_bills = now + self.bill_meter_interval_s
            m.schedule.clear()
            self._want(m, *LINK_UP_POLLS)
            self._link_changed(m, True)
            self.tito.on_link_up(m.address, now)
        wall = self._wall()
        if wall - m.last_written >= 1.0:  # the database need not see every poll
            m.last_written = wall
            self.db.update_machine(m.address, last_reply_at=wall)

    # --- one exchange ------------------------------------------------------------

    def _exchange(self, m: _Machine, message: bytes, tries: int) -> tuple[Reply | None, int, bytes]:
        reply, used, got = m.line.exchange(message, tries, self.reply_timeout_s, flush=not m.link_up)
        if reply is not None:
            self._valid(m)
        return reply, used, got

    def _general_poll(self, m: _Machine) -> None:
        if m.rom is None:
            reply, _tries, _got = self._exchange(m, general_poll(m.address), self.tries)
        else:
            reply = m.line.general_poll_rom_pending(self.tries, self.reply_timeout_s, flush=not m.link_up)
            if reply is not None:
                self._valid(m)
        m.gp_unanswered = reply is None and m.link_up
        if isinstance(reply, ExceptionReply):
            self._exception(m, reply.code)
        elif isinstance(reply, EventReply):
            self._exception(m, reply.code, reply.data)
        elif isinstance(reply, DataReply) and m.rom is not None:  # the late 0x21
            self.db.add_command(m.address, self._wall(), 0x21, m.rom.message, reply.raw, "late", 1)
            self._record(m, reply)
            self._finish(m, m.rom, reply)
            m.rom = None

    def _serve(self, m: _Machine, req: _Request) -> None:
        command = req.message[1]
        rom = command == 0x21
        if rom and m.rom is not None:  # a new seed replaces the one still pending
            self._finish(m, m.rom, None)
            m.rom = None
        if rom:
            self.db.update_machine(m.address, rom_seed=int.from_bytes(req.message[2:4], "little"))
        reply, tries, got = self._exchange(m, req.message, 1 if rom else self.tries)
        for _ in range(EVENTS_PER_POLL):
            if not isinstance(reply, EventReply):
                break
            self._exception(m, reply.code, reply.data)  # an event in place of the reply:
            reply, tries, got = self._exchange(m, req.message, 1 if rom else self.tries)  # ask again
        outcome = type(reply).__name__.lower().removesuffix("reply") if reply is not None else "none"
        self.db.add_command(m.address, self._wall(), command, req.message, got, outcome, tries)
        if rom and not isinstance(reply, DataReply | Nack):
            m.rom, m.rom_deadline = req, self._clock() + self.rom_timeout_s  # answered late
            return
        if command == 0x0E and isinstance(reply, Ack):
            m.line.codec.real_time_events = req.message[2] == 1
        if isinstance(reply, Busy) and req.busy_left > 0:
            req.busy_left -= 1
            m.counts["busy"] += 1
            m.held.append((self._clock() + self.poll_interval_s, req))  # ask again later
            return
        if isinstance(reply, DataReply):
            self._record(m, reply)
        self._finish(m, req, reply)

    def _validation_meters(self, address: int, command: int, values: dict[str, int]) -> None:
        m = self._machines[address]
        with m.lock:
            m.meters.update(values)
        self.db.add_meters(address, self._wall(), command, values)

    def _poll_now(self, m: _Machine, command: int, data: bytes) -> Reply | None:
        """One long poll from the poll thread itself (ticket jobs): the reply, busy included."""
        req = _Request(long_poll(m.address, command, data))
        self._serve(m, req)
        return req.reply

    @staticmethod
    def _finish(m: _Machine, req: _Request, reply: Reply | None) -> None:
        req.reply = reply
        req.done.set()

    # --- what was read -----------------------------------------------------------

    def _exception(self, m: _Machine, code: int, data: bytes = b"") -> None:
        if code == 0:
            return
        seen = SeenException(code, exception_name(code), self._wall(), data)
        with m.lock:
            m.seen.append(seen)
        self.db.add_exception(m.address, seen.at, code, seen.name)
        self.tito.on_exception(m.address, code, self._clock())
        if code == 0x51:
            self._want(m, 0x1B)
        elif code in (0x7F, 0x4F) or code in BILL_EXCEPTIONS:
            self._want(m, 0x1C, 0x1A)

    def _record(self, m: _Machine, reply: DataReply) -> None:
        at, command, data = self._wall(), reply.command, reply.data
        try:
            if command in METER_NAMES:
                values = meter_values(command, data)
                with m.lock:
                    m.meters.update(values)
                    alarms = m.watch.check(values, at)
                    m.alarms += alarms
                self.db.add_meters(m.address, at, command, values)
                for a in alarms:
                    log.warning(
                        "machine %d: meter %s went back from %d to %d (memory set back?)",
                        m.address,
                        a.name,
                        a.last,
                        a.now,
                    )
                    self.db.add_meter_alarm(m.address, at, a.name, a.last, a.now)
            elif command == 0x1F:
                info = parse_machine_info(data)
                fields = dict(
                    game_id=info.game_id,
                    additional_id=info.additional_id,
                    denomination=info.denomination,
                    max_bet=info.max_bet,
                    paytable_id=info.paytable_id,
                    base_percent=info.base_percent,
                )
                m.info.update(fields)
                self.db.update_machine(m.address, **fields)
            elif command == 0x54:
                version, serial = parse_sas_version(data)
                m.info.update(sas_version=version, serial_number=serial)
                self.db.update_machine(m.address, sas_version=version, serial_number=serial)
            elif command == 0x51:
                games = parse_two_digit_count(data)
                m.info["games"] = games
                self.db.update_machine(m.address, games=games)
            elif command == 0x21:
                m.info["rom_signature"] = parse_rom_signature(data)
                self.db.update_machine(m.address, rom_signature=m.info["rom_signature"])
            elif command == 0x1B:
                self.db.add_handpay(m.address, at, parse_handpay(data), reply.raw)
        except ProtocolError:
            m.counts["bad_data"] += 1
            with contextlib.suppress(Exception):
                self.db.add_command(m.address, at, command, b"", reply.raw, "bad_data", 0)

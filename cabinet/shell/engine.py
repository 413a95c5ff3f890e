"""The engine's imperative shell: one asyncio loop around the pure cabinet.

Owns: booting from the journal, the clock (``Tick``), the event queue that
device threads and UI clients feed, and the order of every step: handle the
event, commit the new state and journal effects in one transaction, then run
device effects, then publish the snapshot (STYLE.md 5.9; DESIGN.md "Money
moves exactly once"). A core exception tilts the cabinet; it never kills the
process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from cabinet.core.context import RandomSource
from cabinet.core.effects import (
    Effect,
    ExportAudit,
    Journal,
    Rejected,
    ReturnNote,
    SendCue,
    SetAcceptor,
    SetLamps,
    SetTowerLight,
)
from cabinet.core.errors import StoreError
from cabinet.core.events import (
    DeviceFaulted,
    Event,
    HistoryLoaded,
    HistoryQuery,
    HostPollsRead,
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    PowerUp,
    StorageFailed,
    Tick,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.shell_inputs import event_query, history_query, read_history, shows_host_polls
from cabinet.core.state import CabinetState
from cabinet.protocol.faults import FaultCode
from cabinet.protocol.ipc import Cue
from cabinet.protocol.snapshot import Snapshot
from cabinet.shell.audit_export import export_dir, write_audit
from cabinet.shell.host_links import HostLinks
from cabinet.shell.station_devices import Post
from cabinet.shell.store import Store

log = logging.getLogger("cabinet.engine")
#: Journal kinds of the tickets through the host that the engine also logs:
#: each outcome, refusal and handpay instead of a ticket, with its reason.
TICKET_LOG = frozenset(
    {"validation_requested", "validation_failed", "ticket_held", "ticket_done", "voucher_refused", "host_command"}
)

TICK_MS = 100


class Devices(Protocol):
    """The engine's view of its hardware (real or simulated).

    ``start(post)``: begin reporting device events by calling ``post(event)``
    (thread-safe; returns a future that completes with the step's effects once
    the event is journaled and its device effects ran: an escrow's answer is read
    from them, ``cabinet.shell.escrow``). ``run(effect)``: carry out a device effect (lamps, acceptor,
    stack/return, print); must not block the loop for long. ``stop()``.
    """

    def start(self, post: Post) -> None: ...

    def run(self, effect: Effect) -> None: ...

    def stop(self) -> None: ...


class NoDevices:
    """No hardware at all (tests of the engine alone)."""

    def start(self, post: Post) -> None:
        pass

    def run(self, effect: Effect) -> None:
        pass

    def stop(self) -> None:
        pass


@dataclass
class _Pending:
    event: Event
    done: concurrent.futures.Future[list[Effect]] = field(default_factory=concurrent.futures.Future)


def boot(store: Store, rng: RandomSource | None = None) -> Cabinet:
    """Restore the cabinet from the journal (RAM error if nothing good is left)."""
    loaded = store.load()
    state = loaded.state
    if loaded.ram_error or state is None and loaded.round_state is not None:
        # a salvaged journal's verified state is kept for the technician to read
        state = state if loaded.salvaged and state is not None else new_state()
        state.ram_error = True
        if loaded.findings:  # what was found, for the RAM-error screen
            state.faults = {FaultCode.RAM_ERROR: "; ".join(loaded.findings)}
        log.error("critical memory failed its check: RAM error")
    for name in loaded.repaired:
        log.warning("critical row %s: bad copy rebuilt from the good one", name)
    round_state = None if loaded.round_corrupt or (state and state.ram_error) else loaded.round_state
    return Cabinet(state, round_state, rng=rng if rng is not None else secrets.SystemRandom())


class Engine:
    """Runs the cabinet.

    Args:
        store: the open journal.
        devices: the device set (``NoDevices`` for none).
        rng: random source (``secrets.SystemRandom`` by default).
        clock_ms, wall_s: monotonic ms and Unix seconds (injectable for tests).
    """

    def __init__(
        self,
        store: Store,
        devices: Devices | None = None,
        rng: RandomSource | None = None,
        clock_ms: Callable[[], int] = lambda: time.monotonic_ns() // 1_000_000,
        wall_s: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.devices = devices or NoDevices()
        self.cab = boot(store, rng)
        self.clock_ms = clock_ms
        self.wall_s = wall_s
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue[_Pending] | None = None
        self.seq = 0
        self._last_snapshot: bytes = b""
        self.snapshot: Snapshot | None = None
        self.listeners: list[Callable[[Snapshot | Cue], None]] = []
        self.handled = 0
        self.commit_ms: list[float] = []
        #: Why the journal cannot be written (storage tilt), else ``None``.
        self.storage_fault: str | None = None
        self._committed = self._baseline()
        #: Events handled right after ``PowerUp``, before any device starts (the
        #: program integrity verdict).
        self.boot_events: list[Event] = []
        #: The stations' casino host links, or ``None``: each gets the
        #: committed state after every step.
        self.host_links: HostLinks | None = None
        #: What the open page was last given (``HistoryLoaded``, ``HostPollsRead``).
        self._shown: HistoryQuery | None = None
        self._polls_shown: tuple[tuple[int, tuple[object, ...]], ...] | None = None
        #: The cabinet's displays (``cabinet.toml`` ``[display] screens``), told
        #: to the table UIs in every snapshot (``Snapshot.screens``).
        self.screens = ""

    def _baseline(self) -> tuple[bytes, bytes]:
        """What a restart would load now: the state and round as last committed."""
        return (msgspec.json.encode(self.cab.s), self.store._encode_round(self.cab.round_dict()))

    # -- feeding events ---------------------------------------------------------------

    def post(self, event: Event) -> concurrent.futures.Future[list[Effect]]:
        """Queue an event from any thread.

        Returns:
            A future that completes with the effects of the event's step (``step``)
            once its state and journal effects are committed and its device effects
            ran, or with the step's error (``StoreError`` in a storage tilt).
        """
        pending = _Pending(event)
        assert self.loop is not None and self.queue is not None
        self.loop.call_soon_threadsafe(self.queue.put_nowait, pending)
        return pending.done

    def step(self, event: Event) -> list[Effect]:
        """Handle one event on the loop thread: core, commit, devices, publish.

        Raises:
            StoreError: the step could not be journaled (the cabinet is then in a
                storage tilt, its core back at the last commit) or the cabinet
                already is in one (the event is refused, not handled).
        """
        if self.storage_fault is not None and not self._storage_event(event):
            return []
        query = event_query(self.cab, event)
        if query is not None:  # the journal rows the event decides on, read right before
            self.step(self._read(query))
            self._shown = None  # the open page's own rows are handed in again after it
        if isinstance(event, VoucherEscrowed | VoucherStacked) and event.record is None:
            # the journal's record of the voucher, read right before the core decides
            try:
                record = self.store.voucher(event.validation_number)
            except sqlite3.Error as e:  # EIO on read: the same storage tilt
                self._storage_tilt(f"journal read failed: {e}")
                raise StoreError(f"journal read failed: {e}") from None
            event = dataclasses.replace(event, record=record)
        try:
            effects = self.cab.handle(event)
        except Exception as e:  # a bug in the core: tilt, keep money
            log.exception("core fault on %r", event)
            effects = self.cab.handle(DeviceFaulted("engine", FaultCode.ENGINE_FAULT, f"{type(e).__name__}: {e}"))
        state = self.cab.s
        round_state = self.cab.round_dict()  # once: the round's dict costs a shoe's cards
        journaled = self.store.needs_commit(state, round_state, effects)
        if journaled:
            t0 = time.perf_counter()
            try:
                self.store.commit(state, round_state, effects, state.wall_s)
            except StoreError as e:
                if self.store.committed is not None:  # the database commit may have
                    self._committed = self.store.committed  # passed, its record not
                self._storage_tilt(str(e))
                raise
            self.commit_ms.append((time.perf_counter() - t0) * 1000)
            if self.store.committed is not None:
                self._committed = self.store.committed
        self.handled += 1
        follow: list[Event] = []
        for eff in effects:
            if isinstance(eff, Journal) and eff.kind in TICKET_LOG:
                log.info("station %d: %s %s", eff.station, eff.kind, eff.data)
            if isinstance(eff, Rejected):
                log.info("rejected %s: %s", eff.what, eff.reason)
                if isinstance(event, IntentReceived):  # the player is told
                    self._publish(
                        Cue(name="refused", station=event.station, data={"action": event.action, "reason": eff.reason})
                    )
            elif isinstance(eff, ExportAudit):  # the audit report
                follow.append(write_audit(eff, export_dir(self.store.path.parent), self.wall_s()))
            elif isinstance(eff, SendCue):
                self._publish(Cue(name=eff.name, station=eff.station, data=eff.data))
            else:
                try:
                    self.devices.run(eff)
                except Exception:  # a device error must not stop the loop
                    log.exception("device effect %r failed", eff)
        if not isinstance(event, HistoryLoaded | HostPollsRead):
            effects = effects + self._load_shown(journaled)
        self._publish_snapshot()
        for ev in follow:
            effects = effects + self.step(ev)
        return effects

    # -- what an open page shows ---------------------------------------------------

    def _load_shown(self, journaled: bool) -> list[Effect]:
        """Hand the core what its open page shows, read here: the journal rows
        (``HistoryLoaded``) when the page opens or a commit may have changed them,
        the host links' live status (``HostPollsRead``) while the Host page is open
        and it changed. Returns the effects of those steps.

        Raises:
            StoreError: the journal could not be read (the storage tilt).
        """
        out: list[Effect] = []
        query = history_query(self.cab)
        if query is not None and (query != self._shown or journaled):
            out += self.step(self._read(query))
        self._shown = query
        if self.host_links is not None and shows_host_polls(self.cab):
            polls = self.host_links.live_status()
            if polls != self._polls_shown:
                self._polls_shown = polls
                out += self.step(HostPollsRead(polls))
        else:
            self._polls_shown = None
        return out

    def _read(self, query: HistoryQuery) -> HistoryLoaded:
        """The journal rows ``query`` asks for.

        Raises:
            StoreError: the journal could not be read (the storage tilt).
        """
        try:
            return read_history(self.store, query)
        except sqlite3.Error as e:  # EIO on read: the same storage tilt
            self._storage_tilt(f"journal read failed: {e}")
            raise StoreError(f"journal read failed: {e}") from None

    # -- storage tilt ------------------------------------------------------------

    def _storage_tilt(self, reason: str, first: bool = True) -> None:
        """A commit failed: put the core back at the last commit, tilt, tell the devices
        only what the tilt calls for (acceptor off, lamps, tower). Logged once."""
        if first:
            log.error(
                "%s: storage tilt; the step is discarded, play stopped until a "
                "restart or an operator clear once storage works",
                reason,
            )
            self.storage_fault = reason
        blob, rblob = self._committed
        self.cab = Cabinet(msgspec.json.decode(blob, type=CabinetState), json.loads(rblob), rng=self.cab.rng)
        self._shown = self._polls_shown = None
        self._run_outputs(self.cab.handle(StorageFailed(str(self.storage_fault))))
        self._publish_snapshot()

    def _run_outputs(self, effects: list[Effect]) -> None:
        for eff in effects:
            if isinstance(eff, SetLamps | SetAcceptor | SetTowerLight):
                try:
                    self.devices.run(eff)
                except Exception:
                    log.exception("device effect %r failed", eff)

    def _storage_event(self, event: Event) -> bool:
        """In a storage tilt: the operator key re-verifies the journal and, if it is
        good and writable, ends the tilt (returns True: handle the event). Anything
        else is refused (``StoreError``); escrowed money is handed back; ticks are
        dropped quietly (returns False)."""
        if isinstance(event, Tick):
            return False
        if isinstance(event, KeyChanged) and event.on:
            try:
                self.cab = boot(self.store, self.cab.rng)
                self.store.commit(self.cab.s, self.cab.round_dict(), [], self.cab.s.wall_s)
            except (StoreError, sqlite3.Error, OSError) as e:
                log.warning("operator clear: the journal still cannot be written (%s)", e)
                self._storage_tilt(str(self.storage_fault), first=False)
                raise StoreError(f"storage tilt: {e}") from None
            log.warning("operator clear: journal re-verified and writable; storage tilt ended")
            self.storage_fault = None
            self._committed = self._baseline()
            self._shown = self._polls_shown = None
            self.cab.resend_outputs()
            return True
        if isinstance(event, NoteEscrowed | VoucherEscrowed):
            try:
                self.devices.run(ReturnNote(event.station, "storage fault"))
            except Exception:
                log.exception("returning an escrow failed")
        if isinstance(event, IntentReceived):  # a press: logged and the player told
            log.info("rejected %s from station %d: storage tilt", event.action, event.station)
            self._publish(
                Cue(name="refused", station=event.station, data={"action": event.action, "reason": "storage tilt"})
            )
        log.debug("storage tilt: %r not handled", event)
        raise StoreError(f"storage tilt: {self.storage_fault}")

    # -- publishing -------------------------------------------------------------------------

    def _publish_snapshot(self) -> None:
        if self.host_links is not None:
            try:
                self.host_links.publish(self.cab)
            except Exception:
                log.exception("host link view failed")
        snap = self.cab.snapshot(0)
        key = msgspec.json.encode(snap)
        if key == self._last_snapshot:
            return
        self._last_snapshot = key
        self.seq += 1
        self.snapshot = msgspec.structs.replace(snap, seq=self.seq, screens=self.screens)
        self._publish(self.snapshot)

    def _publish(self, msg: Snapshot | Cue) -> None:
        for listener in list(self.listeners):
            try:
                listener(msg)
            except Exception:
                log.exception("snapshot listener failed")

    # -- running ------------------------------------------------------------------------------

    async def run(self, started: Callable[[], None] | None = None, stop: asyncio.Event | None = None) -> None:
        """Boot (``PowerUp``), start devices and ticks, and handle events until ``stop``."""
        self.loop = asyncio.get_running_loop()
        self.queue = asyncio.Queue()
        try:
            if self.host_links is not None or any(st.host.link for st in self.cab.s.stations):
                stations = [st.station for st in self.cab.s.stations]
                links = self.host_links or HostLinks({})
                for ev in links.configure_events(stations, self.wall_s()):
                    self.step(ev)  # before PowerUp queues 0x17
            self.step(PowerUp(self.clock_ms(), self.wall_s()))
            for ev in self.boot_events:
                self.step(ev)
        except StoreError:
            pass  # storage tilt from the start: stay up, say so
        self.devices.start(self.post)
        if self.host_links is not None:
            self.host_links.start(self.post)
            self.host_links.publish(self.cab)
        self.cab.resend_outputs()
        if self.storage_fault is not None:  # the tilt's outputs, now the devices run
            self._run_outputs(self.cab.outputs())
        try:
            self.step(Tick(self.clock_ms(), self.wall_s()))
        except StoreError:
            pass
        if started is not None:
            started()
        stop = stop or asyncio.Event()
        ticker = asyncio.create_task(self._ticks(stop))
        try:
            while not stop.is_set():
                getter = asyncio.create_task(self.queue.get())
                waiter = asyncio.create_task(stop.wait())
                done, _ = await asyncio.wait({getter, waiter}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    break
                waiter.cancel()
                pending = getter.result()
                try:
                    pending.done.set_result(self.step(pending.event))
                except StoreError as e:  # storage tilt: logged once by step
                    pending.done.set_exception(e)
                except Exception as e:  # store failure: the event is not kept
                    log.exception("event %r could not be journaled", pending.event)
                    pending.done.set_exception(e)
        finally:
            ticker.cancel()
            self.devices.stop()
            if self.host_links is not None:
                self.host_links.stop()

    async def _ticks(self, stop: asyncio.Event) -> None:
        assert self.queue is not None
        while not stop.is_set():
            await asyncio.sleep(TICK_MS / 1000)
            self.queue.put_nowait(_Pending(Tick(self.clock_ms(), self.wall_s())))

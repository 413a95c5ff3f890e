"""The bridge between the engine and ``drivers``: device events in, effects out.

Owns: ``DriverDevices`` (the runtime's ``Devices`` built on
``drivers.factory``): turning driver callbacks into cabinet events on the
engine loop, the escrow decision and the credit point (each returns only
after the engine journaled it), lamps, the tower light, printing on a worker
thread, a printer status watch, the start-up and on-demand device state
report (``PollDevices``), and, in simulation, applying a sim control command
to this station's twins (the commands themselves: ``cabinet.shell.sim_control``).
Every station's set behind one ``Devices`` and the sim control socket:
``cabinet.shell.station_devices`` (``StationDevices``, re-exported here).

Only ``cabinet/shell`` modules may import ``drivers`` (STYLE.md 5.28,
tests/test_layers.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import logging
import threading
from collections.abc import Callable
from typing import Any

from cabinet.core.effects import (
    Effect,
    HoldNote,
    PollDevices,
    PrintTestTicket,
    PrintVoucher,
    ReturnNote,
    SetAcceptor,
    SetLamps,
    SetTowerLight,
    StackNote,
)
from cabinet.core.events import (
    DeviceCleared,
    DeviceFaulted,
    DoorChanged,
    DoorOpenedWhileOff,
    Event,
    IntentReceived,
    KeyChanged,
    NoteEscrowed,
    NoteReturned,
    NoteStacked,
    NoteUncredited,
    PrintFinished,
    VoucherEscrowed,
    VoucherStacked,
)
from cabinet.protocol.faults import FaultCode
from cabinet.shell.escrow import DECIDE_WAIT_S, HeldTicket, decision_in
from cabinet.shell.sim_control import parse_sim_command, sim_apply
from cabinet.shell.station_devices import SIM_LINE_LIMIT, Post, StationDevices
from drivers import events as dev
from drivers.factory import DriverSet, DriverSettings, build_drivers
from drivers.interfaces import OpenTransaction, PrinterState
from drivers.voucher import Voucher

log = logging.getLogger("cabinet.hardware")

#: How long a driver thread waits for the engine to journal a credit.
JOURNAL_WAIT_S = 5.0
#: How often the printer's status is read while idle.
PRINTER_WATCH_S = 2.0

#: A bill acceptor's device code (``drivers.events.DeviceFault.code``) -> the fault;
#: any other code ``c`` of a device is ``<device>_<c>`` (``FAULTS`` has each one:
#: tests/engine/test_fault_table.py).
_BILL_FAULTS = {
    "jam_in_acceptor": FaultCode.BILL_JAM,
    "jam_in_stacker": FaultCode.BILL_JAM,
    "stacker_full": FaultCode.BILL_STACKER_FULL,
    "stacker_open": FaultCode.BILL_STACKER_OPEN,
    "cheated": FaultCode.BILL_CHEAT,
    "failure": FaultCode.BILL_FAILURE,
    "link_garbled": FaultCode.BILL_LINK_CONFIG,
}
_PRINTER_FAULTS = {
    PrinterState.PAPER_OUT: FaultCode.PRINTER_PAPER_OUT,
    PrinterState.COVER_OPEN: FaultCode.PRINTER_COVER_OPEN,
    PrinterState.ERROR: FaultCode.PRINTER_FAILURE,
    PrinterState.OFFLINE: FaultCode.PRINTER_OFFLINE,
}
_DEVICE_PREFIX = {
    dev.Device.BILL_ACCEPTOR: "bill",
    dev.Device.PULSE_ACCEPTOR: "bill",
    dev.Device.PRINTER: "printer",
    dev.Device.PANEL: "panel",
}
_DOORS = {dev.Door.MAIN: "main", dev.Door.CASH_BOX: "cashbox", dev.Door.LOGIC: "logic"}
_CHIPS = {dev.Action.CHIP_1: 100, dev.Action.CHIP_5: 500, dev.Action.CHIP_25: 2_500, dev.Action.CHIP_100: 10_000}
_SPOTS = {dev.Action.SPOT_1: 1, dev.Action.SPOT_2: 2, dev.Action.SPOT_3: 3}
_TOWER = {"off": {"green"}, "service": {"amber"}, "tilt": {"red"}, "handpay": {"red", "amber"}}

__all__ = [
    "DECIDE_WAIT_S",
    "JOURNAL_WAIT_S",
    "PRINTER_WATCH_S",
    "SIM_LINE_LIMIT",
    "DriverDevices",
    "Post",
    "StationDevices",
]


class DriverDevices:
    """One station's real or simulated hardware, through ``drivers``.

    Args:
        settings: which drivers (``mode="sim"`` for the twins).
        legal_actions: reads the engine's legal intents for a station (loop thread).
        open_transaction: the journal's unclosed escrow after a restart.
        station: the station these devices belong to (1-3).
        tower_light: this set drives the cabinet's tower light (station 1's).
    """

    def __init__(
        self,
        settings: DriverSettings,
        legal_actions: Callable[[int], frozenset[str]],
        open_transaction: OpenTransaction | None = None,
        station: int = 1,
        tower_light: bool = True,
    ) -> None:
        self.station = station
        self.tower_light = tower_light
        self.settings = settings
        self.legal_actions = legal_actions
        self.open_transaction = open_transaction
        self.drivers: DriverSet | None = None
        self.post: Post | None = None
        #: The ticket held for the casino host, if any (set on the loop thread).
        self._held: HeldTicket | None = None
        self._printing = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="printer")
        self._stop = threading.Event()
        self._printer_fault: str | None = None
        self._printer_recheck = threading.Event()  # report the next reading
        self._printer_wake = threading.Event()  # read now (PollDevices, stop)
        self.loop: asyncio.AbstractEventLoop | None = None

    # -- life ------------------------------------------------------------------------------

    def start(self, post: Post) -> None:
        self.post = post
        self.loop = asyncio.get_running_loop()
        self.drivers = build_drivers(
            self.settings,
            decide=self._decide,
            credit=self._credit,
            sink=self._sink,
            open_transaction=self.open_transaction,
        )
        self.drivers.panel.start(self._panel_event, loop=self.loop)
        if self.drivers.bill_acceptor is not None:
            self.drivers.bill_acceptor.start()
        try:
            self.drivers.printer.open()
        except Exception as e:  # offline: the watch reports it
            log.warning("printer not available at start: %s", e)
        self._pool.submit(self._watch_printer)

    def stop(self) -> None:
        self._stop.set()
        self._printer_wake.set()
        if self.drivers is not None:
            self.drivers.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- driver callbacks (driver threads) -----------------------------------------------

    def _wait(self, event: Event) -> None:
        assert self.post is not None
        self.post(event).result(JOURNAL_WAIT_S)

    def _decide(self, esc: dev.BillEscrowed | dev.VoucherEscrowed) -> dev.EscrowDecision:
        """Escrow: the engine decides and journals it; its step's effects are the answer.

        The engine's step returns once the escrow is journaled (and its device
        effects ran), so the acceptor hears STACK only after the journal has the
        escrow. Returns RETURN when the engine cannot answer within
        ``DECIDE_WAIT_S``; a held ticket asked again gets the answer a later step
        gave (``HeldTicket.ask``).

        Raises:
            StoreError: the step could not be journaled (storage tilt); the driver
                then returns the item.
        """
        assert self.post is not None
        held = self._held
        if held is not None and held.txn == esc.transaction_id:  # asked again
            answer = held.ask()
            if answer is not dev.EscrowDecision.HOLD:
                self._held = None
            return answer
        self._held = None
        if isinstance(esc, dev.VoucherEscrowed):
            event: Event = VoucherEscrowed(self.station, esc.validation_number, None, esc.transaction_id)
        else:
            event = NoteEscrowed(self.station, esc.denomination_minor, esc.transaction_id)
        try:
            effects = self.post(event).result(DECIDE_WAIT_S)
        except concurrent.futures.TimeoutError:
            log.warning("escrow %s: no decision within %.1f s, returning it", esc.transaction_id, DECIDE_WAIT_S)
            return dev.EscrowDecision.RETURN
        answer = decision_in(effects, self.station, esc.transaction_id)
        if answer is dev.EscrowDecision.HOLD:
            log.info("escrow %s: held for the casino host", esc.transaction_id)
        return answer

    def _credit(self, ev: dev.NoteStacked | dev.VoucherStacked | dev.PulseTrainCounted) -> None:
        """Credit point: returns only once the engine committed the credit."""
        if isinstance(ev, dev.VoucherStacked):
            self._wait(VoucherStacked(self.station, ev.validation_number, ev.transaction_id, None))
        else:
            self._wait(
                NoteStacked(
                    self.station,
                    ev.denomination_minor if isinstance(ev, dev.NoteStacked) else ev.amount_minor,
                    ev.transaction_id,
                )
            )

    def _sink(self, ev: Any) -> None:
        """Non-money driver events (any thread): faults, online/offline, returns.

        An item the acceptor took but never credited is
        money: this returns only once it is journaled, and raises otherwise
        (``TimeoutError`` or the store's error) so the driver reports it again.
        """
        assert self.post is not None
        if isinstance(ev, dev.BillFoundInStacker | dev.BillPossiblyInPath):
            kind = "in_stacker" if isinstance(ev, dev.BillFoundInStacker) else "in_path"
            self._wait(
                NoteUncredited(
                    self.station, kind, ev.transaction_id or "", ev.denomination_minor, ev.validation_number or ""
                )
            )
            return
        out = self._translate(ev)
        if out is not None:
            self.post(out)

    def _own(self, prefix: str) -> int:
        """The station a device's fault stops: this one for its own bill
        acceptor and printer, 0 (the whole cabinet) for anything shared."""
        return self.station if prefix in ("bill", "printer") else 0

    def _translate(self, ev: Any) -> Event | None:
        if isinstance(ev, dev.DeviceFault):
            prefix = _DEVICE_PREFIX.get(ev.device, "device")
            code = _BILL_FAULTS.get(ev.code, f"{prefix}_{ev.code}") if prefix == "bill" else f"{prefix}_{ev.code}"
            return DeviceFaulted(prefix, code, ev.text, self._own(prefix))
        if isinstance(ev, dev.DeviceOffline):
            prefix = _DEVICE_PREFIX.get(ev.device, "device")
            return DeviceFaulted(prefix, f"{prefix}_offline", "", self._own(prefix))
        if isinstance(ev, dev.DeviceOnline | dev.DeviceFaultCleared):
            prefix = _DEVICE_PREFIX.get(ev.device, "device")
            firmware = ev.firmware if isinstance(ev, dev.DeviceOnline) else ""
            return DeviceCleared(prefix, self._own(prefix), firmware)
        if isinstance(ev, dev.BillReturned):
            return NoteReturned(self.station, ev.transaction_id)
        log.info("device: %r", ev)
        return None

    def _panel_event(self, ev: Any) -> None:
        """Panel events arrive on the engine loop (``panel.start(loop=...)``)."""
        assert self.post is not None
        if isinstance(ev, dev.ButtonPressed):
            intent = self._intent_for(ev.action)
            if intent is not None:
                self.post(intent)
        elif isinstance(ev, dev.DoorOpened | dev.DoorClosed):
            self.post(DoorChanged(_DOORS.get(ev.door, str(ev.door)), isinstance(ev, dev.DoorOpened)))
        elif isinstance(ev, dev.KeySwitchTurned):
            self.post(KeyChanged(ev.on))
        elif isinstance(ev, dev.DoorOpenedWhileOff):
            done = self.post(DoorOpenedWhileOff(_DOORS.get(ev.door, str(ev.door))))
            done.add_done_callback(self._clear_door_latch)
        else:
            self._sink(ev)

    def _clear_door_latch(self, done: concurrent.futures.Future[list[Effect]]) -> None:
        """Reset the door latch once its reading is journaled (kept if it was not)."""
        if done.cancelled() or done.exception() is not None or self.drivers is None:
            log.warning("door latch reading not journaled: the latch is kept")
            return
        self.drivers.panel.clear_door_latch()

    def _intent_for(self, action: dev.Action) -> IntentReceived | None:
        if action in _CHIPS:
            return IntentReceived(self.station, "chip", _CHIPS[action])
        if action in _SPOTS:
            return IntentReceived(self.station, "place", _SPOTS[action])
        name = action.value
        legal = self.legal_actions(self.station)
        if name == "stand" and "decline" in legal:  # Stand answers "no insurance"
            name = "decline"
        # in maintenance the button goes as it is: the core maps it to a menu
        # move, or shows it on the Device test page (cabinet.core.maintenance.press)
        return IntentReceived(self.station, name)

    # -- effects (loop thread) ---------------------------------------------------------------

    def run(self, effect: Effect) -> None:
        d = self.drivers
        if d is None:
            return
        if isinstance(effect, StackNote | ReturnNote) and effect.station == self.station:
            held = self._held  # the answer to an escrow in its own step: ``_decide``
            if held is not None:
                held.settle(effect)
        elif isinstance(effect, HoldNote) and effect.station == self.station:
            self._held = HeldTicket(effect.txn)
        elif isinstance(effect, SetLamps) and effect.station == self.station:
            d.lamps.set_lamps(self._lamps_for(effect.actions))
        elif isinstance(effect, SetAcceptor) and effect.station == self.station:
            if d.bill_acceptor is not None:
                # The bill test needs an escrow; a pulse acceptor has none
                pulse = effect.test and self.settings.bill_acceptor == "pulse"
                d.bill_acceptor.set_accepting(effect.enabled and not pulse)
        elif isinstance(effect, SetTowerLight) and self.tower_light:
            try:
                d.lamps.set_tower_light(_TOWER.get(effect.state, set()))
            except Exception as e:  # tower not wired
                log.debug("tower light: %s", e)
        elif isinstance(effect, PrintVoucher) and effect.record.station == self.station:
            self._pool.submit(self._print, effect)
        elif isinstance(effect, PrintTestTicket) and effect.station == self.station:
            self._pool.submit(self._print_test, effect)
        elif isinstance(effect, PollDevices):
            self._poll_devices()

    @staticmethod
    def _lamps_for(actions: frozenset[str]) -> list[dev.Action]:
        lit = [dev.Action(a) for a in actions if a in dev.Action.__members__.values()]
        if "decline" in actions:
            lit.append(dev.Action.STAND)
        if "chip" in actions:
            lit += list(_CHIPS)
        if "place" in actions:
            lit += list(_SPOTS)
        return lit

    # -- the printer (worker threads) ---------------------------------------------------------

    def _print(self, effect: PrintVoucher) -> None:
        r = effect.record
        assert self.drivers is not None and self.post is not None
        voucher = Voucher(
            validation_number=r.validation_number,
            amount_minor=r.amount_minor,
            sequence=r.sequence,
            issued_at=dt.datetime.fromtimestamp(r.issued_wall_s),
            expires_at=dt.datetime.fromtimestamp(r.expires_wall_s),
            venue=r.venue,
            machine_number=r.machine_number,
            address_lines=r.address_lines,
        )
        with self._printing:
            try:
                result = self.drivers.printer.print_voucher(voucher).value
            except Exception as e:
                log.exception("print failed: %s", e)
                result = "unknown"
        self.post(PrintFinished(r.station, r.validation_number, result))

    def _print_test(self, effect: PrintTestTicket) -> None:
        """The Diagnostics page's test ticket (VOID / TEST; nothing to journal
        but the request, which the core did): the outcome is only logged."""
        from drivers.void_ticket import render_test_ticket

        assert self.drivers is not None
        job = render_test_ticket(effect.venue, effect.machine_number, dt.datetime.now(), effect.lines)
        with self._printing:
            try:
                result = self.drivers.printer.print_job(job, "test ticket").value
            except Exception as e:
                log.exception("test ticket failed: %s", e)
                result = "unknown"
        log.info("test ticket at station %d: %s", self.station, result)

    def _watch_printer(self) -> None:
        """Read the printer at once, then every ``PRINTER_WATCH_S``; report changes.

        The first reading is reported whatever it says: a fault
        journaled by an earlier process clears when this one finds the printer
        healthy, and ``PollDevices`` (the Faults page) has one read and reported now.
        """
        self._check_printer(report=True)
        while True:
            self._printer_wake.wait(PRINTER_WATCH_S)
            self._printer_wake.clear()
            if self._stop.is_set():
                return
            self._check_printer(report=self._printer_recheck.is_set())

    def _check_printer(self, report: bool) -> None:
        """One status reading; posts it if it changed, or if ``report``.

        Skipped (and a ``report`` kept for the next reading) while a voucher prints.
        """
        if self.drivers is None or self.post is None:
            return
        if not self._printing.acquire(blocking=False):
            if report:
                self._printer_recheck.set()
            return
        self._printer_recheck.clear()
        try:
            status = self.drivers.printer.status()
        except Exception:
            status = None
        finally:
            self._printing.release()
        fault = _PRINTER_FAULTS.get(status.state) if status is not None else FaultCode.PRINTER_OFFLINE
        if fault != self._printer_fault or report:
            self._printer_fault = fault
            self.post(
                DeviceFaulted("printer", fault, status.detail if status else "", self.station)
                if fault
                else DeviceCleared("printer", self.station)
            )

    def _poll_devices(self) -> None:
        """``PollDevices``: every device of this station reports its state now."""
        assert self.drivers is not None
        self._printer_recheck.set()
        self._printer_wake.set()
        acceptor = self.drivers.bill_acceptor
        if acceptor is not None:
            acceptor.report_state()

    # -- simulation (commands from StationDevices' control socket) ---------------------------

    def sim_command(self, line: str) -> dict[str, Any]:
        """Apply one sim control command (JSON object) to this station's twins.

        Commands: ``{"cmd": "press", "action": "hit"}``, ``{"cmd": "door", "door":
        "main", "open": true}``, ``{"cmd": "key", "on": true}``, ``{"cmd": "note",
        "amount_minor": 2000}``, ``{"cmd": "voucher", "validation_number": "..."}``,
        ``{"cmd": "bill", "line": "jam"}`` and ``{"cmd": "printer", "line": "out"}``
        (the keyboard commands of ``cabinet sim-device``), ``{"cmd": "tickets"}``.

        Fields are checked before anything moves: ``action`` names a wired button
        (``drivers.events.Action``), ``door`` is main, cashbox or logic, ``open`` and
        ``on`` are JSON booleans, ``amount_minor`` is a JSON integer (minor units) the
        acceptor's currency table has, ``validation_number`` is a string of 1-18
        digits 0-9 (the cabinet's have 18), ``line`` is a string.

        Returns:
            ``{"ok": true, ...}``, or ``{"ok": false, "error": "<one line>"}`` for a
            command refused as a whole (nothing was done).  Never raises for bad input.
        """
        try:
            msg = parse_sim_command(line)
        except ValueError as e:
            return {"ok": False, "error": str(e)}
        return self.sim_apply(msg)

    def sim_apply(self, msg: dict[str, Any]) -> dict[str, Any]:
        """``sim_command`` on an already parsed object (``parse_sim_command``)."""
        return sim_apply(self.drivers, msg)

"""Doors, the operator key, faults and time: door lockups, entering the menu,
device faults and their clearing, ticks, clock jumps and power-up.

Owns: ``Service``, the service machine (``Cabinet.service``): ``doors_open``,
``door_opens``, ``key_on``, ``faults``, ``maintenance`` (entering the menu; the menu
itself is ``cabinet.core.maintenance``), ``now_ms``, ``wall_s``, ``clock_adjust_s``,
``power_ups``. Reads the rest through ``cabinet.core.queries.CabinetQueries``. Pure.
"""

from __future__ import annotations

from cabinet.core.effects import Effect, Journal
from cabinet.core.errors import FAULTS, fault_text
from cabinet.core.events import (
    DeviceCleared,
    DeviceFaulted,
    DoorChanged,
    DoorOpenedWhileOff,
    KeyChanged,
    PowerUp,
    PrintFinished,
    Tick,
)
from cabinet.core.maintenance import bill_test, pin
from cabinet.core.modes import MODE_TABLE
from cabinet.core.queries import Machine
from cabinet.core.state import EntryState, HandpayState, MaintState
from cabinet.protocol.said import Said, english, said

#: How long a print may take before its outcome counts as unknown.
PRINT_TIMEOUT_MS = 30_000
#: Wall time that moves this many seconds more or less than the monotonic clock
#: between two ticks (or is behind the journal at power-up) is a clock jump.
CLOCK_JUMP_S = 2.0


class Service(Machine):
    """Doors, key, faults, ticks and power-up."""

    def on_door(self, ev: DoorChanged, out: list[Effect]) -> None:
        """A door opened or shut: the door lock-up, its count and journal row."""
        s = self.s
        if ev.open and ev.door not in s.doors_open:
            s.doors_open = s.doors_open + [ev.door]
            s.door_opens[ev.door] = s.door_opens.get(ev.door, 0) + 1
            out.append(Journal("door_open", 0, 0, {"door": ev.door}))
        elif not ev.open and ev.door in s.doors_open:
            s.doors_open = [d for d in s.doors_open if d != ev.door]
            out.append(Journal("door_closed", 0, 0, {"door": ev.door}))
            if not s.doors_open:
                s.door_closed_notice = True
                s.door_closed_ms = s.now_ms
                s.games_since_door_close = 0

    def on_door_while_off(self, ev: DoorOpenedWhileOff, out: list[Effect]) -> None:
        """An opening nobody saw: counted and journaled (shown in the Event log)."""
        s = self.s
        s.door_opens[ev.door] = s.door_opens.get(ev.door, 0) + 1
        out.append(Journal("door_opened_while_powered_off", 0, 0, {"door": ev.door}))

    def on_key(self, ev: KeyChanged, out: list[Effect]) -> None:
        """The operator key turned: open or leave the menu, or reset the handpay shown."""
        s = self.s
        was_on, s.key_on = s.key_on, ev.on
        if ev.on and was_on:
            return  # a position report (start-up, re-poll), not a turn
        if not ev.on and s.handpay is None:
            s.handpay_reset = None  # said, or nobody is left to read it
        if ev.on:
            if s.handpay is not None:
                s.handpay_reset = s.handpay  # confirmed on the screen that follows
                self.cab.ledger.reset_handpay(out)
            elif s.note_reviews:
                self.cab.acceptance.resolve_review(out)
            elif s.maintenance is None and self._may_enter_maintenance():
                self._enter_menu(out)
            elif s.maintenance is None:
                # The menu opens when the round (or the ticket) is over,
                # if the key is still on; the table says so meanwhile
                out.append(Journal("maintenance_requested", 0, 0, {"after": "round" if s.round_open else "ticket"}))
        elif s.maintenance is not None:
            m = s.maintenance
            level, s.maintenance, self.cab.secret = m.level, None, ""
            if m.draft:
                out.append(Journal("settings_discarded", 0, 0, {"keys": sorted(m.draft), "why": "key turned off"}))
            out.append(Journal("maintenance_exit", 0, 0, {"level": level}))
        elif was_on and not s.ram_error and (s.round_open or self.cab.prints()):
            # the "maintenance after this round" request of the key on is withdrawn
            out.append(Journal("maintenance_request_cancelled", 0, 0, {"after": "round" if s.round_open else "ticket"}))

    def _may_enter_maintenance(self) -> bool:
        """Between rounds, with no ticket printing, no handpay and no note review waiting (research I
        "Audit / test mode": "any time except during play or cash-out")."""
        s = self.s
        return s.ram_error or (not s.round_open and not self.cab.prints() and s.handpay is None and not s.note_reviews)

    def enter_maintenance_if_keyed(self, out: list[Effect]) -> None:
        """The key on opens the menu as soon as it may: at once, or when the round
        ends, the ticket is out or the last handpay is reset."""
        s = self.s
        if s.key_on and s.maintenance is None and self._may_enter_maintenance():
            self._enter_menu(out)

    def _enter_menu(self, out: list[Effect]) -> None:
        """The key opens the menu at the attendant level; a cabinet that
        needs its settings asks for the technician PIN first (the Settings page is
        the technician's)."""
        s = self.s
        reset = (
            english(handpay_reset_said(s.handpay_reset), s.settings.currency_symbol)
            if s.handpay_reset is not None
            else ""
        )
        s.maintenance, s.handpay_reset = MaintState(page="main", confirm=reset), None
        self.cab.secret = ""
        out.append(Journal("maintenance_enter", 0, 0, {"level": "attendant"}))
        if s.needs_config:
            s.maintenance.entry = EntryState(
                kind="pin", then="settings", message="Configuration required: technician PIN"
            )

    def on_fault(self, ev: DeviceFaulted, out: list[Effect]) -> None:
        """A shared device's fault (``station`` 0) tilts the cabinet; a station's
        own device stops that station only, or tilts a one-station cabinet."""
        st = self.cab.station(ev.station) if ev.station else None
        faults = st.faults if st is not None else self.s.faults
        if ev.code not in faults:
            text = ev.text or FAULTS.get(ev.code, (0, ev.code))[1]
            if st is not None:
                st.faults = {**faults, ev.code: text}
            else:
                self.s.faults = {**faults, ev.code: text}
            out.append(
                Journal(
                    "fault",
                    ev.station if st is not None else 0,
                    0,
                    {"device": ev.device, "code": ev.code, "text": text},
                )
            )

    def on_cleared(self, ev: DeviceCleared, out: list[Effect]) -> None:
        """A device reports it works: its faults clear (and its firmware is noted)."""
        if ev.firmware:  # the Diagnostics page shows it
            self.cab.firmware[(ev.station, ev.device)] = ev.firmware
        prefix = ev.device + "_"
        st = self.cab.station(ev.station) if ev.station else None
        # a cabinet-wide fault of this device kind clears too: journals written before
        # faults were kept per station hold a station's device fault there, and every
        # device reports its real state at start-up, so one still failing
        # is reported again as its station's own
        cleared = [c for c in self.s.faults if c.startswith(prefix)]
        if cleared:
            self.s.faults = {c: t for c, t in self.s.faults.items() if c not in cleared}
            out.append(Journal("fault_cleared", 0, 0, {"device": ev.device, "codes": cleared}))
        for other in self.s.stations if st is None else [st]:
            mine = [c for c in other.faults if c.startswith(prefix)]
            if mine:
                other.faults = {c: t for c, t in other.faults.items() if c not in mine}
                out.append(Journal("fault_cleared", other.station, 0, {"device": ev.device, "codes": mine}))

    def fault_lines(self) -> list[str]:
        """Every fault as ``"300 Bill acceptor jam"``, a station's own named
        ``"Station 2: 300 Bill acceptor jam"`` on a table of several stations."""
        lines = [fault_text(c) for c in self.s.faults]
        many = len(self.s.stations) > 1
        for st in self.s.stations:
            lines += [f"Station {st.station}: {fault_text(c)}" if many else fault_text(c) for c in st.faults]
        return lines

    def _clock_jump(self, old_wall_s: float, new_wall_s: float, jump_s: float, out: list[Effect]) -> None:
        """Journal a wall-clock jump and remember it for voucher ages."""
        self.s.clock_adjust_s += jump_s
        out.append(
            Journal(
                "clock_jump", 0, 0, {"old_wall_s": old_wall_s, "new_wall_s": new_wall_s, "jump_s": round(jump_s, 3)}
            )
        )

    def on_tick(self, ev: Tick, out: list[Effect]) -> None:
        """The clock advanced: clock jumps, timeouts (prints, host, screens) and the bet and
        decision timers."""
        s = self.s
        if s.now_ms or s.wall_s:
            jump = (ev.wall_s - s.wall_s) - (ev.now_ms - s.now_ms) / 1000
            if abs(jump) > CLOCK_JUMP_S:
                self._clock_jump(s.wall_s, ev.wall_s, jump, out)
        pin.elapse(s.operator.pin, ev.now_ms)  # the PIN lockout
        s.now_ms = ev.now_ms
        s.wall_s = ev.wall_s
        self.cab.tito.tito_tick(out)
        self.cab.displays.display_tick(out)
        timer = MODE_TABLE[self.cab.mode].timer
        for p in self.cab.prints():  # each station's printer has its own timeout
            if s.now_ms - p.started_ms > PRINT_TIMEOUT_MS:
                self.cab.ledger.on_print(PrintFinished(p.station, p.validation_number, "unknown"), out)
        if timer == "bet" and s.bet_deadline_ms is not None and s.now_ms >= s.bet_deadline_ms:
            self.cab.table.start_round(out)
        elif (
            timer == "decision"
            and s.decision_deadline_ms is not None
            and s.now_ms >= s.decision_deadline_ms
            and self.cab.round is not None
        ):
            prompt = self.cab.round.prompt
            # a player whose screen is dark is not timed out: the turn waits for it
            if prompt is not None and self.cab.display_shows(prompt.seat):
                action = "decline" if prompt.kind == "insurance" else "stand"
                out.append(Journal("decision_timeout", prompt.seat, 0, {"decision": action}))
                self.cab.table.decide(action, out)

    def on_power_up(self, ev: PowerUp, out: list[Effect]) -> None:
        """The engine started: settle what a power cut left in flight (prints, the round, tickets)."""
        s = self.s
        if s.wall_s and ev.wall_s < s.wall_s - CLOCK_JUMP_S:  # behind the journal's last time
            self._clock_jump(s.wall_s, ev.wall_s, ev.wall_s - s.wall_s, out)
        s.now_ms = ev.now_ms
        s.wall_s = ev.wall_s
        pin.power_up(s.operator.pin, ev.now_ms)
        if s.maintenance is not None:  # a restart ends the technician's visit
            pin.end_visit(s.maintenance)
        if s.maintenance is None or s.maintenance.page != bill_test.PAGE:
            bill_test.leave(s, out)  # the bill test ends with its page
        s.power_ups += 1
        s.games_since_power_up = 0
        out.append(Journal("power_up", 0, 0, {"power_ups": s.power_ups}))
        # Deadlines were on the old monotonic clock: start them again.
        if s.bet_deadline_ms is not None:
            s.bet_deadline_ms = s.now_ms + self.cab.rules.bet_timer_s * 1000
        if s.round_open:
            if self.cab.round_unrestorable or self.cab.round is None:
                self.cab.table.void_round("stored round failed its integrity check", out)
                self.cab.round_unrestorable = False
            else:
                self.cab.table.arm_decision_timer()
        self.cab.tito.tito_power_up(out)  # nothing waits on a dead link
        for p in self.cab.prints():  # the print's outcome is unknown: never reprint
            self.cab.ledger.on_print(PrintFinished(p.station, p.validation_number, "unknown"), out)


def handpay_reset_said(hp: HandpayState) -> Said:
    """The confirmation of handpay ``hp``'s reset by the operator key, as ``Said``."""
    return said(
        "Handpay reset: {amount_minor} at station {n}, paid by the attendant",
        amount_minor=hp.amount_minor,
        n=hp.station,
    )

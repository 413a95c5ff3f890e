"""The stations' SAS links, wired to the engine.

Owns: ``HostLinks``: one ``drivers.sas_link.SasLink`` per station that has a host
link configured; after every step the engine hands it the cabinet
(``publish``), and each link gets its station's ``EgmView`` of the committed state;
what a link reports (a host command, an acknowledged exception, the link going up or
down) is posted to the engine as a core event, never waited for (the link thread must
answer the next poll within 20 ms whatever the engine is doing).

Thread-safety: ``publish`` runs on the engine's loop thread; the links read the view
they were last given (an atomic reference swap); ``post`` is thread-safe.
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cabinet.core.events import (
    Event,
    HostCommanded,
    HostEventAcked,
    HostLinkChanged,
    HostLinkConfigured,
)
from cabinet.core.records import TicketData
from cabinet.shell.host_view import SasStation, egm_view

log = logging.getLogger("cabinet.host")

#: The engine's thread-safe entry (``Engine.post``); a report is posted, never waited for.
Post = Callable[[Event], object]


class HostLinks:
    """The SAS links of the stations that have one.

    Args:
        stations: station number -> its link settings.
        serial_number: the cabinet's serial number (0x54).
        program_files: the program's files in manifest order (0x21 ROM signature).
        link_factory: builds a link (tests inject a fake); default ``SasLink``.
    """

    def __init__(
        self,
        stations: dict[int, SasStation],
        serial_number: str = "",
        program_files: Sequence[Path] = (),
        link_factory: Callable[..., Any] | None = None,
    ) -> None:
        self.stations = dict(stations)
        self.serial_number = serial_number
        self.program_files = list(program_files)
        self._factory = link_factory
        self.links: dict[int, Any] = {}
        self._post: Post | None = None
        #: The host's clock minus ours (0x7F), so 0x7E reads back what the host set.
        self.clock_offset_s = 0.0

    def configure_events(self, stations: Sequence[int], wall_s: float) -> list[Event]:
        """What the engine handles before ``PowerUp``: each station's link settings
        (address 0 for a station without a link: its queue is dropped)."""
        out: list[Event] = []
        for n in stations:
            sas = self.stations.get(n)
            out.append(
                HostLinkConfigured(
                    n,
                    sas.address if sas else 0,
                    sas.port if sas else "",
                    wall_s,
                    sas.validation if sas else "none",
                    float(sas.validation_timeout_s) if sas else 10.0,
                    sas.accounting_denomination_minor if sas else 1,
                )
            )
        return out

    def wall_clock(self) -> tuple[int, int, int, int, int, int]:
        """The cabinet's local date and time as the host set it (0x7E after a 0x7F)."""
        t = time.localtime(time.time() + self.clock_offset_s)
        return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, min(t.tm_sec, 59))

    def start(self, post: Post) -> None:
        """Open every link; its reports go to ``post`` (the engine's thread-safe queue)."""
        self._post = post
        if self._factory is None:
            from drivers.sas_link import SasLink

            factory: Callable[..., Any] = SasLink
        else:
            factory = self._factory
        for n, sas in sorted(self.stations.items()):
            link = factory(
                sas.port,
                sas.address,
                on_output=lambda out, n=n: self._report(n, out),
                program_files=self.program_files,
                wall_clock=self.wall_clock,
            )
            self.links[n] = link
            link.start()
            log.info("station %d: SAS link on %s, address %d", n, sas.port, sas.address)

    def publish(self, cab: Any) -> None:
        """Hand each link its station's view of ``cab``'s state (as last committed)."""
        self.clock_offset_s = float(cab.s.host_clock_offset_s)
        for n, link in self.links.items():
            try:
                view = egm_view(cab.s, n, self.stations[n], self.serial_number, cab.rules.max_bet_minor)
            except ValueError:  # the station is gone (fewer stations)
                continue
            link.update(view)

    def live_status(self) -> tuple[tuple[int, tuple[object, ...]], ...]:
        """Each link's live status for the Host page (``HostPollsRead``): station ->
        (polls seen, Unix time of the last poll or ``None``, port open, polls for
        other addresses, line errors by kind); a link that cannot tell is left out."""
        out: list[tuple[int, tuple[object, ...]]] = []
        for n, link in sorted(self.links.items()):
            try:
                out.append(
                    (
                        n,
                        (
                            int(link.polls),
                            link.last_poll_wall_s,
                            bool(link.port_open),
                            int(link.counts.get("other_address", 0)),
                            dict(link.line_errors),
                        ),
                    )
                )
            except (AttributeError, TypeError):
                continue
        return tuple(out)

    def stop(self) -> None:
        for link in self.links.values():
            try:
                link.stop()
            except Exception:
                log.exception("stopping a SAS link failed")

    def _report(self, station: int, out: Any) -> None:
        """A link's report (on its own thread) -> a core event, posted without waiting."""
        event = to_event(station, out)
        if event is None or self._post is None:
            return
        try:
            self._post(event)
        except Exception:  # the engine is stopping
            log.debug("could not post %r", event, exc_info=True)


def to_event(station: int, out: Any) -> Event | None:
    """A link's report as a core event (``None`` for what the engine need not hear).

    ``HostCommand`` -> ``HostCommanded`` (0x7F's local date and time -> Unix seconds
    in the cabinet's time zone; TITO: 0x58's system ID and 16 digits -> the
    18-digit number printed, ``""`` when denied (system ID 0) or not two digits; 0x71's
    amount is in cents, the cabinet's minor units, at every accounting denomination);
    ``ExceptionAcked`` ->
    ``HostEventAcked``; ``LinkChanged`` -> ``HostLinkChanged``.
    """
    kind = type(out).__name__
    if kind == "HostCommand":
        wall = None
        if out.date_time is not None:
            try:
                wall = datetime.datetime(*out.date_time).timestamp()
            except (ValueError, OverflowError):
                log.warning("station %d: host sent an impossible date %r", station, out.date_time)
                return None
        tito = _tito_fields(station, out)
        return HostCommanded(station, out.name, tuple(out.bills_minor), wall, **tito)
    if kind == "ExceptionAcked":
        return HostEventAcked(station, out.exception_id)
    if kind == "LinkChanged":
        return HostLinkChanged(station, out.up)
    return None


def _tito_fields(station: int, out: Any) -> dict[str, Any]:
    """The TITO fields of a ``HostCommand`` as ``HostCommanded`` takes them."""
    name = getattr(out, "name", "")
    if name == "validation_number":
        sid = getattr(out, "validation_system_id", None) or 0
        digits = str(getattr(out, "validation_number", "") or "")
        number = f"{sid:02d}{digits}" if 0 < sid < 100 and len(digits) == 16 else ""
        if sid and not number:
            log.warning("station %d: host validation %r/%r is not 18 digits: denied", station, sid, digits)
        return {"validation_number": number, "ref_id": getattr(out, "cashout_id", None) or 0}
    if name == "redeem_ticket":
        code = getattr(out, "transfer_code", None)
        return {
            "validation_number": str(getattr(out, "validation_number", "") or ""),
            "amount_minor": int(getattr(out, "amount_cents", 0) or 0),  # cents = minor units
            "transfer_code": -1 if code is None else int(code),
            "ref_id": getattr(out, "ticket_id", None) or 0,
        }
    if name == "set_ticket_data" and getattr(out, "ticket_data", None) is not None:
        td = out.ticket_data
        return {
            "ticket_data": TicketData(
                host_id=td.host_id,
                expiration_days=td.expiration_days,
                location=td.location,
                address1=td.address1,
                address2=td.address2,
                restricted_title=td.restricted_title,
                debit_title=td.debit_title,
                validation_status=td.validation_status,
                cashable_expiration_days=td.cashable_expiration_days,
                restricted_expiration_days=td.restricted_expiration_days,
            )
        }
    if name == "set_extended_validation_status" and getattr(out, "validation_control", None):
        return {"control": tuple(int(x) for x in out.validation_control)}
    return {}

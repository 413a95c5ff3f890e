"""The host twin with real-time event reporting on (0x0E), against the cabinet's own SAS
link (``drivers/sas_link.py`` with ``EgmResponder``) over a pty: events read with their
data, and a long poll answered by an event is sent again and gets its own reply.
Layouts: Aristocrat Monaco ``Protocol/SAS/Aristocrat.Sas.Client/SasClient.cs``."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable

from drivers.sas.egm import ExceptionAcked
from drivers.sas.egm_view import EgmView, HostException
from drivers.sas.host_codec import DataReply
from drivers.sas_link import SasLink
from drivers.sim.sas_host import SasHost


def wait_for(cond: Callable[[], object], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


class MiniEngine:
    """Journals nothing but drops an exception once the host acknowledged it, as the
    engine does after its commit: the link's view is all the EGM answers from."""

    def __init__(self, view: EgmView) -> None:
        self.view, self.lock = view, threading.Lock()
        self.link: SasLink | None = None

    def on_output(self, out: object) -> None:
        if isinstance(out, ExceptionAcked):
            with self.lock:
                self.view = dataclasses.replace(
                    self.view, exceptions=tuple(e for e in self.view.exceptions if e.exception_id != out.exception_id)
                )
                assert self.link is not None
                self.link.update(self.view)

    def queue(self, *excs: HostException) -> None:
        with self.lock:
            self.view = dataclasses.replace(self.view, exceptions=(*self.view.exceptions, *excs))
            assert self.link is not None
            self.link.update(self.view)


def test_twin_reads_events_and_a_long_poll_answered_by_an_event_is_asked_again() -> None:
    host = SasHost([1], poll_interval_s=2.0, link_down_s=30.0, meter_interval_s=3600.0, bill_meter_interval_s=3600.0)
    engine = MiniEngine(EgmView(address=1, current_credits=4321))
    link = SasLink(host.tty(1), 1, engine.on_output, pty=True)
    engine.link = link
    link.update(engine.view)
    link.start()
    try:
        wait_for(lambda: host.link_up(1))
        time.sleep(0.5)  # the link-up long polls are done
        assert host.real_time_events(1)
        host.pause()  # no general poll: only the long poll can carry it
        engine.queue(HostException(1, "bill_accepted", amount_credits=2000, bill_minor=2000, count=3))
        reply = host.send(1, 0x1A)  # answered by the event first
        assert isinstance(reply, DataReply) and reply.command == 0x1A and reply.data == bytes.fromhex("00004321")
        seen = host.exceptions(1)
        assert [(e.code, e.data) for e in seen] == [(0x4F, bytes.fromhex("37 04 00000003"))]
        host.resume()
        engine.queue(HostException(2, "game_ended", amount_credits=40))
        wait_for(lambda: len(host.exceptions(1)) == 2)  # at the next general poll
        assert (host.exceptions(1)[1].code, host.exceptions(1)[1].data) == (0x7F, bytes.fromhex("00000040"))
        assert host.real_time_events(1, False)
        engine.queue(HostException(3, "slot_door_opened"))
        wait_for(lambda: len(host.exceptions(1)) == 3)
        assert (host.exceptions(1)[2].code, host.exceptions(1)[2].data) == (0x11, b"")
        wait_for(lambda: not engine.view.exceptions)  # each acknowledged once, none left
    finally:
        link.stop()
        host.close()

"""The devices' side of the Diagnostics page: the printer's test ticket
(marked VOID / TEST, no amount, no validation number, no barcode; printed through the
ESC/POS driver on the twin) and the acceptor's firmware version read at start-up."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from drivers.interfaces import PrintResult
from drivers.sim.printer_device import SimPrinterDevice
from drivers.ticket_printer import EscPosTicketPrinter
from drivers.void_ticket import render_test_ticket

pytestmark = pytest.mark.timeout(20)


def test_test_ticket_prints_void_and_test_with_no_barcode_and_no_amount(tmp_path: Path) -> None:
    """The twin cuts one ticket reading TEST TICKET and VOID - NO CASH VALUE,
    with the venue, machine and program lines, and no barcode or money on it."""
    sim = SimPrinterDevice(link_path=str(tmp_path / "printer"), out_dir=tmp_path / "tickets")
    sim.start()
    printer = EscPosTicketPrinter(sim.path, status_timeout_s=0.1, print_timeout_s=0.5, reopen_interval_s=0.0)
    try:
        printer.open()
        job = render_test_ticket(
            "GOLDEN ACE CASINO", "042", datetime(2026, 12, 1, 9, 30, 0), ["PROGRAM blackjack-cabinet 0.1.0"]
        )
        assert printer.print_job(job, "test ticket") is PrintResult.DONE
        (ticket,) = sim.tickets
        text = ticket.txt_path.read_text()
        for expected in (
            "GOLDEN ACE CASINO",
            "*** TEST TICKET ***",
            "VOID - NO CASH VALUE",
            "MACHINE # 042",
            "DATE 2026-12-01",
            "TIME 09:30:00",
            "PROGRAM blackjack-cabinet 0.1.0",
        ):
            assert expected in text, text
        assert ticket.barcodes == []
        assert "$" not in text and "VALIDATION" not in text
    finally:
        printer.close()
        sim.close()


def test_the_device_bridge_prints_the_test_ticket_on_its_own_station_only() -> None:
    """``PrintTestTicket`` reaches the printer of the station it names, as a
    raw job laid out by ``render_test_ticket``; another station's bridge ignores it."""
    import threading
    from types import SimpleNamespace

    from cabinet.core.effects import PrintTestTicket
    from cabinet.shell.devices import DriverDevices
    from drivers.factory import DriverSettings

    jobs: list[bytes] = []
    done = threading.Event()

    class Printer:
        def print_job(self, job: bytes, what: str = "job") -> PrintResult:
            jobs.append(job)
            done.set()
            return PrintResult.DONE

    bridges = [DriverDevices(DriverSettings(), lambda n: frozenset(), station=n) for n in (1, 2)]
    for d in bridges:
        d.drivers = SimpleNamespace(printer=Printer())  # type: ignore[assignment]
        d.run(PrintTestTicket(2, "VENUE", "007", ("PROGRAM x",)))
    assert done.wait(5)
    for d in bridges:
        d._pool.shutdown(wait=True)
    assert len(jobs) == 1
    assert b"*** TEST TICKET ***" in jobs[0] and b"MACHINE # 007" in jobs[0]


def test_acceptor_reads_its_firmware_at_start_up_and_the_bridge_passes_it_on(tmp_path: Path) -> None:
    """The ID-003 driver asks the version (0x88) after its start-up: the
    ``DeviceOnline`` it reports carries it, and the bridge's ``DeviceCleared`` too."""
    from cabinet.core.events import DeviceCleared
    from cabinet.shell.devices import DriverDevices
    from drivers import events as dev
    from drivers.factory import DriverSettings
    from drivers.id003_acceptor import Id003BillAcceptor
    from drivers.sim.id003_device import SimId003Device

    sim = SimId003Device(link_path=str(tmp_path / "bill"))
    sim.start()
    seen: list[object] = []
    acc = Id003BillAcceptor(
        sim.path, decide=lambda e: dev.EscrowDecision.RETURN, credit=lambda e: None, sink=seen.append
    )
    try:
        acc.connect()
    finally:
        acc.close()
        sim.close()
    online = [e for e in seen if isinstance(e, dev.DeviceOnline)]
    assert acc.firmware == "ID003-SIM 1.0" and online[-1].firmware == "ID003-SIM 1.0"
    bridge = DriverDevices(DriverSettings(), lambda n: frozenset(), station=1)
    assert bridge._translate(online[-1]) == DeviceCleared("bill", 1, "ID003-SIM 1.0")

"""Voucher layout (golden bytes), the printer simulator and the ESC/POS driver on a pty."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from drivers.interfaces import PrinterState, PrintResult
from drivers.sim import itf
from drivers.sim.printer_device import SimPrinterDevice
from drivers.ticket_format import amount_in_figures, amount_in_words, render_voucher
from drivers.ticket_printer import EscPosTicketPrinter, valid_status_byte
from drivers.voucher import Voucher, format_validation_number

pytestmark = pytest.mark.timeout(20)

GOLDEN = Path(__file__).with_name("golden") / "voucher_2550.escpos"
VOUCHER = Voucher(
    validation_number="001234567890123456",
    amount_minor=2550,
    sequence=17,
    issued_at=datetime(2025, 1, 31, 14, 5, 9),
    expires_at=datetime(2025, 3, 2, 14, 5),
    venue="GOLDEN ACE CASINO",
    machine_number="042",
)


@pytest.mark.parametrize(
    ("minor", "words"),
    [
        (2550, "TWENTY-FIVE DOLLARS AND 50 CENTS"),
        (100, "ONE DOLLAR AND 00 CENTS"),
        (1, "ZERO DOLLARS AND 01 CENT"),
        (120000, "ONE THOUSAND TWO HUNDRED DOLLARS AND 00 CENTS"),
        (
            1_234_567_899,
            "TWELVE MILLION THREE HUNDRED FORTY-FIVE THOUSAND SIX HUNDRED SEVENTY-EIGHT DOLLARS AND 99 CENTS",
        ),
    ],
)
def test_amount_in_words(minor: int, words: str) -> None:
    assert amount_in_words(minor) == words


@given(st.integers(1, 10**11))
def test_amount_in_figures_round_trips(minor: int) -> None:
    text = amount_in_figures(minor)
    assert int(text.lstrip("$").replace(",", "").replace(".", "")) == minor
    assert amount_in_words(minor).endswith("CENTS") or amount_in_words(minor).endswith("CENT")


def test_voucher_bytes_match_golden() -> None:
    data = render_voucher(VOUCHER)
    assert data.startswith(b"\x1b@")
    assert b"\x1dkF\x12001234567890123456" in data  # GS k, ITF function B, 18 digits
    assert data.endswith(b"\x1dV\x00")
    if not GOLDEN.exists():  # first run writes the fixture; review it in git
        GOLDEN.write_bytes(data)
    assert data == GOLDEN.read_bytes()


def test_the_hosts_address_lines_print_under_the_venue() -> None:
    """The venue's address lines as the casino host set them (0x7C/0x7D) are
    printed under its name, before the ticket type; without them the layout is the
    golden one."""
    import dataclasses

    data = render_voucher(dataclasses.replace(VOUCHER, address_lines=("1 MAIN ST", "RENO NV")))
    venue, street, town, kind = (
        data.index(t) for t in (b"GOLDEN ACE CASINO", b"1 MAIN ST", b"RENO NV", b"CASHOUT TICKET")
    )
    assert venue < street < town < kind
    assert b"1 MAIN ST" not in render_voucher(VOUCHER)


def test_validation_number_rules() -> None:
    assert format_validation_number("001234567890123456") == "00-1234-5678-9012-3456"
    with pytest.raises(ValueError):
        Voucher("12345", 100, 1, datetime(2025, 1, 1), None, "V", "1")
    with pytest.raises(ValueError):
        Voucher("001234567890123456", 0, 1, datetime(2025, 1, 1), None, "V", "1")


def test_itf_encode_decode_round_trip() -> None:
    widths = {"n": 2, "w": 5}
    runs = [(False, 20)] + [(bar, widths[w]) for bar, w in itf.encode("0123456789")] + [(False, 20)]
    assert itf.decode_runs(runs) == "0123456789"
    with pytest.raises(ValueError):
        itf.decode_runs(runs[:-6])


def decode_png_barcode(path: Path) -> str:
    """Scan the rendered ticket row by row until a line decodes as ITF."""
    img = Image.open(path).convert("L")
    w, h = img.size
    px = img.load()
    for y in range(0, h, 2):
        row = [px[x, y] < 128 for x in range(w)]
        try:
            return itf.decode_runs(itf.runs_of(row))
        except ValueError:
            continue
    raise AssertionError("no ITF barcode found in the PNG")


@pytest.fixture
def sim_printer(tmp_path: Path):  # type: ignore[no-untyped-def]
    dev = SimPrinterDevice(link_path=str(tmp_path / "printer"), out_dir=tmp_path / "tickets")
    dev.start()
    yield dev
    dev.close()


@pytest.fixture
def printer(sim_printer: SimPrinterDevice):  # type: ignore[no-untyped-def]
    p = EscPosTicketPrinter(sim_printer.path, status_timeout_s=0.1, print_timeout_s=0.5, reopen_interval_s=0.0)
    p.open()
    yield p
    p.close()


def test_printed_voucher_reads_back(sim_printer: SimPrinterDevice, printer: EscPosTicketPrinter) -> None:
    assert printer.status().state is PrinterState.READY
    assert printer.print_voucher(VOUCHER) is PrintResult.DONE
    (ticket,) = sim_printer.tickets
    text = ticket.txt_path.read_text()
    for expected in (
        "GOLDEN ACE CASINO",
        "CASHOUT TICKET",
        "$25.50",
        "TWENTY-FIVE DOLLARS AND 50 CENTS",
        "00-1234-5678-9012-3456",
        "TICKET # 0000017",
        "MACHINE # 042",
        "DATE 2025-01-31",
        "TIME 14:05:09",
        "VOID AFTER 2025-03-02 14:05",
    ):
        assert expected in text
    assert [b.data for b in ticket.barcodes] == ["001234567890123456"]
    assert decode_png_barcode(ticket.png_path) == VOUCHER.validation_number


def test_paper_out_before_print_fails_and_prints_nothing(
    sim_printer: SimPrinterDevice, printer: EscPosTicketPrinter
) -> None:
    sim_printer.set_paper(out=True)
    assert printer.status().state is PrinterState.PAPER_OUT
    assert printer.print_voucher(VOUCHER) is PrintResult.FAILED
    sim_printer.set_paper(out=False)
    assert sim_printer.tickets == [] and sim_printer.buffered == 0


def test_paper_out_during_print_is_unknown_and_never_prints_later(
    sim_printer: SimPrinterDevice, printer: EscPosTicketPrinter
) -> None:
    sim_printer.run_out_after(150)
    assert printer.print_voucher(VOUCHER) is PrintResult.UNKNOWN
    assert sim_printer.tickets == [] and sim_printer.partial.items  # torn ticket
    assert printer.status().state is PrinterState.PAPER_OUT
    sim_printer.set_paper(out=False)  # attendant reloads: the rest must not come out
    assert printer.status().state is PrinterState.READY
    assert sim_printer.tickets == [] and sim_printer.buffered == 0
    assert printer.print_voucher(VOUCHER) is PrintResult.DONE
    assert len(sim_printer.tickets) == 1


@pytest.mark.parametrize(
    ("setup", "state"),
    [
        (lambda d: d.set_cover_open(True), PrinterState.COVER_OPEN),
        (lambda d: d.set_offline(True), PrinterState.OFFLINE),
        (lambda d: setattr(d, "silent", True), PrinterState.OFFLINE),
        (lambda d: setattr(d, "garbage_status", True), PrinterState.OFFLINE),
    ],
    ids=["cover_open", "offline", "silent", "garbage_reply"],
)
def test_not_ready_printer_fails_the_print(
    sim_printer: SimPrinterDevice,
    printer: EscPosTicketPrinter,
    setup,
    state,  # type: ignore[no-untyped-def]
) -> None:
    setup(sim_printer)
    assert printer.status().state is state
    assert printer.print_voucher(VOUCHER) is PrintResult.FAILED
    assert sim_printer.tickets == []


def test_paper_low_still_prints(sim_printer: SimPrinterDevice, printer: EscPosTicketPrinter) -> None:
    sim_printer.set_paper(low=True)
    status = printer.status()
    assert status.state is PrinterState.PAPER_LOW and status.can_print
    assert printer.print_voucher(VOUCHER) is PrintResult.DONE


def test_unplugged_printer_reads_offline_then_recovers(
    sim_printer: SimPrinterDevice, printer: EscPosTicketPrinter
) -> None:
    sim_printer.link.unplug()
    assert printer.status().state is PrinterState.OFFLINE
    assert printer.print_voucher(VOUCHER) is PrintResult.FAILED
    sim_printer.link.replug()
    assert printer.status().state is PrinterState.READY
    assert printer.print_voucher(VOUCHER) is PrintResult.DONE


def test_status_byte_validation() -> None:
    assert valid_status_byte(0x12) and valid_status_byte(0x12 | 0x08 | 0x60)
    assert not valid_status_byte(0x00) and not valid_status_byte(0x93) and not valid_status_byte(0xFF)


def test_python_escpos_is_pinned_to_the_version_the_golden_ticket_was_made_with():
    """The voucher's bytes come from python-escpos (``Dummy``); the golden
    ``voucher_2550.escpos`` was made with 3.1, so the project pins 3.1: another release
    may lay the ticket out differently, and that must be a deliberate upgrade."""
    import importlib.metadata
    import tomllib

    root = Path(__file__).resolve().parents[2]
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [d for d in deps if d.startswith("python-escpos")] == ["python-escpos==3.1"]
    assert importlib.metadata.version("python-escpos") == "3.1"


def test_the_longest_lines_fit_the_printed_paper(sim_printer: SimPrinterDevice, printer: EscPosTicketPrinter) -> None:
    """A line as long as the layout allows (42 columns of font A) fits on the twin's
    72 mm of paper as on a printer: nothing drawn in the outer 4 dots of either edge."""
    from dataclasses import replace

    long = replace(VOUCHER, amount_minor=11_500)  # ONE HUNDRED FIFTEEN DOLLARS AND 00 CENTS
    assert len(amount_in_words(long.amount_minor)) == 40
    assert printer.print_voucher(long) is PrintResult.DONE
    (ticket,) = sim_printer.tickets
    img = Image.open(ticket.png_path).convert("L")
    w, h = img.size
    px = img.load()
    edges = [px[x, y] for y in range(h) for x in (*range(4), *range(w - 4, w))]
    assert min(edges) > 128, "text drawn to the paper's edge"
    assert decode_png_barcode(ticket.png_path) == VOUCHER.validation_number

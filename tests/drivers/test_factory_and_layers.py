"""The one factory, the twins wired together, the sim-device CLI, and import rules."""

from __future__ import annotations

import ast
import io
from pathlib import Path
from typing import Any

import pytest
from conftest import Recorder, wait_for
from test_ticket_printer import VOUCHER

from drivers.errors import ConfigError
from drivers.events import Action, ButtonPressed, Door, DoorClosed, DoorOpened
from drivers.factory import DriverSettings, build_drivers
from drivers.id003_codec import Status
from drivers.interfaces import PrintResult
from drivers.sim.cli import main as sim_device_main
from drivers.wiring import PulseWiring, Wiring

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]


def test_sim_mode_runs_every_driver_against_its_twin(tmp_path: Path) -> None:
    rec = Recorder()
    ds = build_drivers(
        DriverSettings(mode="sim", sim_dir=tmp_path),
        decide=rec.decide,
        credit=rec.credit,
        sink=rec.sink,
    )
    try:
        assert ds.sim is not None
        assert (tmp_path / "bill-acceptor").is_symlink() and (tmp_path / "printer").is_symlink()
        ds.bill_acceptor.poll_interval_s = 0.01  # type: ignore[union-attr]
        ds.bill_acceptor.start()
        ds.bill_acceptor.set_accepting(True)
        wait_for(lambda: ds.sim.bill.state == Status.IDLING, 5)
        ds.sim.bill.insert_bill_minor(500)
        wait_for(lambda: rec.total_minor == 500, 5)

        ds.printer.open()
        assert ds.printer.print_voucher(VOUCHER) is PrintResult.DONE
        assert (tmp_path / "tickets" / "ticket-0001.png").exists()

        events: list[Any] = []
        ds.panel.start(events.append)
        assert DoorClosed(Door.MAIN, events[0].at_s) in events  # the twin starts shut
        events.clear()
        ds.sim.press(Action.CASH_OUT)
        ds.sim.set_door(Door.MAIN, True)
        wait_for(lambda: (ds.panel.poll(), len(events) >= 2)[1], 2)
        assert [type(e) for e in events] == [ButtonPressed, DoorOpened]
        assert events[0].action is Action.CASH_OUT and events[1].door is Door.MAIN
        ds.lamps.set_lamps([Action.CASH_OUT])
        assert ds.lamps.lamps_lit() == {Action.CASH_OUT}
    finally:
        ds.close()


def test_pulse_mode_needs_its_wiring(tmp_path: Path) -> None:
    rec = Recorder()
    with pytest.raises(ConfigError, match="pulse_acceptor"):
        build_drivers(
            DriverSettings(mode="sim", sim_dir=tmp_path, bill_acceptor="pulse"),
            decide=rec.decide,
            credit=rec.credit,
            sink=rec.sink,
        )
    wiring = Wiring(pulse=PulseWiring(pin=4))
    ds = build_drivers(
        DriverSettings(mode="sim", sim_dir=tmp_path / "p", bill_acceptor="pulse", wiring=wiring),
        decide=rec.decide,
        credit=rec.credit,
        sink=rec.sink,
    )
    assert type(ds.bill_acceptor).__name__ == "PulseAcceptor"
    ds.close()


def test_sim_device_cli(tmp_path: Path) -> None:
    out = io.StringIO()
    script = io.StringIO("20\nv 001234567890123456\njam\nstatus\nrepeat 2\nquit\n")
    assert sim_device_main(["bill", "--link", str(tmp_path / "b")], stdin=script, stdout=out) == 0
    text = out.getvalue()
    assert f"listening on {tmp_path / 'b'}" in text and "inserted $20" in text
    assert "JAM_IN_ACCEPTOR" in text and "repeat 2" in text
    out = io.StringIO()
    script = io.StringIO("out\nstatus\nbogus\n")
    assert sim_device_main(["printer", "--out", str(tmp_path / "t")], stdin=script, stdout=out) == 0
    assert "paper_out=True" in out.getvalue() and "commands:" in out.getvalue()
    assert sim_device_main(["toaster"], stdin=io.StringIO(), stdout=io.StringIO()) == 2


def test_sim_device_cli_refuses_bad_lines_with_one_line_errors_and_carries_on(tmp_path: Path) -> None:
    lines = [
        "3",
        "v " + "x" * 10000,
        "v 1234567890123456789",
        "v",
        "v 12 34",
        "drop x",
        "drop \u00b2",
        "drop 9999999",
        "jam now",
        "-5",
        "bogus",
        "20",
        "v 001234567890123456",
        "status",
    ]
    out = io.StringIO()
    script = io.StringIO("\n".join(lines) + "\nquit\n")
    assert sim_device_main(["bill", "--link", str(tmp_path / "b")], stdin=script, stdout=out) == 0
    replies = out.getvalue().splitlines()[-len(lines) :]
    assert replies[:-1] == [
        "error: no $3 bill in the currency table (it has $1, $5, $10, $20, $50, $100)",
        "error: a ticket barcode is 1-18 digits 0-9, not 'xxxxxxxxxxxxxxxxxxxx... (10000 characters)",
        "error: a ticket barcode is 1-18 digits 0-9, not '1234567890123456789'",
        "error: v takes one argument, the voucher's barcode digits (1-18)",
        "error: v takes one argument, the voucher's barcode digits (1-18)",
        "error: drop takes one count N, a whole number 0-999999, not 'x'",
        "error: drop takes one count N, a whole number 0-999999, not '\u00b2'",
        "error: drop takes one count N, a whole number 0-999999, not '9999999'",
        "error: jam takes no argument, got 'now'",
        "error: unknown bill command '-5' (help lists them)",
        "error: unknown bill command 'bogus' (help lists them)",
        "inserted $20",
        "inserted voucher 001234567890123456",
    ]
    assert replies[-1].startswith("POWER_UP inhibited=True stacked=0 returned=0 rejected=0")
    out = io.StringIO()
    script = io.StringIO("cover please\nlist\nexplode\nquit\n")
    assert sim_device_main(["printer", "--out", str(tmp_path / "t")], stdin=script, stdout=out) == 0
    assert out.getvalue().splitlines()[-3:] == [
        "error: cover takes no argument, got 'please'",
        "no tickets",
        "error: unknown printer command 'explode' (help lists them)",
    ]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_drivers_import_gpiozero_or_serial() -> None:
    offenders = []
    for package in ("cabinet", "ui", "drivers"):
        for path in sorted((ROOT / package).rglob("*.py")):
            found = _imports(path) & {"gpiozero", "serial", "escpos"}
            rel = path.relative_to(ROOT)
            if package != "drivers" and found:
                offenders.append(f"{rel} imports {sorted(found)}")
            if package == "drivers" and _imports(path) & {"cabinet", "ui"}:
                offenders.append(f"{rel} imports the engine or UI")
    assert offenders == []


def test_inside_drivers_serial_is_opened_in_one_module() -> None:
    users = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "drivers").rglob("*.py") if "serial" in _imports(p))
    assert users == ["drivers/serial_port.py"]


def test_importing_the_contract_does_not_pull_in_hardware_libraries() -> None:
    import subprocess
    import sys

    code = (
        "import sys, drivers, drivers.events, drivers.interfaces; "
        "bad = [m for m in ('gpiozero', 'serial', 'escpos') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr

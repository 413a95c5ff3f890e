"""Fault numbers live in one table, ``cabinet.core.errors.FAULTS``: every
number is unique, each ``FaultCode`` has one row, and every fault code the device
bridge or the engine can put on the cabinet is a ``FaultCode`` with its number and
words there (no "999 bill pause" on the Faults page)."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import drivers.events as dev
from cabinet.core.errors import FAULTS, fault_text
from cabinet.protocol.faults import FaultCode
from cabinet.shell.devices import _PRINTER_FAULTS, DriverDevices
from drivers import id003_codec

ROOT = Path(__file__).resolve().parents[2]
#: Fault codes the drivers pass in a variable: where each comes from.
DRIVER_CODE_VARIABLES = {
    ("drivers/id003_host.py", "name"): "FAULT_NAMES of ERROR_STATUSES",
    ("drivers/id003_acceptor.py", "self._host.fault"): "FAULT_NAMES of ERROR_STATUSES",
}


def _calls(pkg: str, names: set[str]):
    for path in sorted((ROOT / pkg).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name in names:
                    yield path.relative_to(ROOT).as_posix(), name, node


def _driver_events() -> list[object]:
    """Every ``DeviceFault``/``DeviceOffline`` a driver can report, read from the
    source: literal codes, and the ID-003 error statuses' names."""
    status_names = [id003_codec.FAULT_NAMES[s] for s in sorted(id003_codec.ERROR_STATUSES)]
    out: list[object] = []
    for rel, name, call in _calls("drivers", {"DeviceFault", "DeviceOffline"}):
        device = dev.Device[ast.unparse(call.args[0]).removeprefix("Device.")]
        if name == "DeviceOffline":
            out.append(dev.DeviceOffline(device, ""))
            continue
        code = call.args[1]
        if isinstance(code, ast.Constant):
            out.append(dev.DeviceFault(device, code.value, ""))
        else:
            assert (rel, ast.unparse(code)) in DRIVER_CODE_VARIABLES, (
                f"{rel}:{call.lineno}: a fault code this test does not know: {ast.unparse(code)}"
            )
            out += [dev.DeviceFault(device, n, "") for n in status_names]
    return out


def _bridge_codes() -> set[str]:
    """What the device bridge (``cabinet.shell.devices``) turns driver reports into."""
    bridge = SimpleNamespace(station=1, _own=lambda prefix: 1)
    codes = set()
    for ev in _driver_events():
        faulted = DriverDevices._translate(bridge, ev)  # the bridge's own mapping
        codes.add(faulted.code)
    return codes | {c for c in _PRINTER_FAULTS.values() if c}


def _code(node: ast.expr | None) -> str | None:
    """A fault code written in the source: ``"bill_jam"`` or ``FaultCode.BILL_JAM``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "FaultCode":
        return FaultCode[node.attr].value
    return None


def _engine_codes() -> set[str]:
    """Codes the engine sets itself: ``DeviceFaulted(..., code)`` and ``faults``
    dict keys written as literals or ``FaultCode`` members anywhere in ``cabinet/``,
    and the note reviews'."""
    codes = {"note_in_stacker", "note_in_path"}  # money_in: f"note_{review.kind}"
    for _, _, call in _calls("cabinet", {"DeviceFaulted"}):
        if len(call.args) > 1 and (code := _code(call.args[1])) is not None:
            codes.add(code)
    for path in sorted((ROOT / "cabinet").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Attribute) and t.attr == "faults" for t in node.targets)
                and isinstance(node.value, ast.Dict)
            ):
                codes |= {c for k in node.value.keys if (c := _code(k)) is not None}
    return codes


def test_the_table_has_one_row_per_fault_code_and_the_journal_keeps_its_strings():
    """``FaultCode`` is the one set of codes; its values are the journal's strings."""
    assert list(FAULTS) == list(FaultCode)
    assert FaultCode.BILL_JAM == "bill_jam" and FAULTS["storage_failure"] == FAULTS[FaultCode.STORAGE_FAILURE]
    assert fault_text(FaultCode.PRINTER_PAPER_OUT) == "401 Printer out of paper"


def test_every_fault_number_is_unique():
    """One number, one fault (100 was both ``DriverError`` and ``ram_error``)."""
    numbers = [num for num, _ in FAULTS.values()]
    assert len(numbers) == len(set(numbers)), sorted(numbers)
    assert all(100 <= n <= 998 for n in numbers)  # 999: fault_text's "not in the table"


def test_every_fault_a_device_can_cause_has_its_number():
    """Each code the bridge makes of a driver's report is in ``FAULTS``."""
    codes = _bridge_codes()
    assert {
        "bill_jam",
        "bill_offline",
        "bill_pause",
        "bill_line_stuck",
        "printer_paper_out",
    } <= codes  # the scan sees the drivers
    missing = sorted(c for c in codes if c not in FAULTS)
    assert not missing, missing
    assert codes <= set(FaultCode)
    assert fault_text("bill_pause").startswith("309 ")


def test_every_fault_the_engine_sets_has_its_number():
    codes = _engine_codes()
    assert {"engine_fault", "program_mismatch", "ram_error", "storage_failure"} <= codes
    missing = sorted(c for c in codes if c not in FAULTS)
    assert not missing, missing
    assert codes <= set(FaultCode)


def test_no_exception_class_carries_a_fault_number_of_its_own():
    """The ``fault_code`` class attributes (unused, colliding with FAULTS) are gone."""
    for pkg in ("cabinet", "drivers", "confspec"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            assert "fault_code" not in path.read_text(), path

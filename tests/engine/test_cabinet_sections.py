"""``Cabinet`` is composed of machines, one module each, not mixed in: no class of
``cabinet/core`` is a mixin (more than one base, but for an exception that also
speaks a builtin or a protocol that extends another), and none grows past 400
lines or 30 methods. Every machine reads the cabinet through
``cabinet.core.queries.CabinetQueries`` and is what ``Cabinet`` holds."""

from __future__ import annotations

import ast
from pathlib import Path

from cabinet.core.context import NoHistory
from cabinet.core.machine import Cabinet

CORE = Path(__file__).resolve().parents[2] / "cabinet" / "core"
MAX_LINES = 400
MAX_METHODS = 30
MACHINES = {
    "ledger": "Ledger",
    "bets": "Betting",
    "table": "Table",
    "acceptance": "Acceptance",
    "host_link": "HostLink",
    "tito": "Tito",
    "ticket_claims": "TicketClaims",
    "service": "Service",
    "displays": "Displays",
}


def _classes() -> list[tuple[str, ast.ClassDef]]:
    out = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                out.append((str(path.relative_to(CORE)), node))
    return out


def _exception_or_protocol(node: ast.ClassDef) -> bool:
    bases = [ast.unparse(b) for b in node.bases]
    return "Protocol" in bases or any(b.endswith(("Error", "Exception")) for b in bases)


def test_no_class_of_the_core_is_a_mixin():
    mixed = [
        f"{where}: {c.name}({', '.join(ast.unparse(b) for b in c.bases)})"
        for where, c in _classes()
        if len(c.bases) > 1 and not _exception_or_protocol(c)
    ]
    assert mixed == []
    assert Cabinet.__bases__ == (object,)


def test_no_class_of_the_core_is_over_400_lines_or_30_methods():
    big = []
    for where, c in _classes():
        lines = c.end_lineno - c.lineno + 1
        methods = sum(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) for f in c.body)
        if lines > MAX_LINES or methods > MAX_METHODS:
            big.append(f"{where}: {c.name} {lines} lines, {methods} methods")
    assert big == []


def test_the_cabinet_holds_one_of_each_machine_reading_it_back():
    cab = Cabinet()
    for attr, name in MACHINES.items():
        machine = getattr(cab, attr)
        assert type(machine).__name__ == name
        assert machine.cab is cab
    assert not (CORE / "base.py").exists()


def test_a_ram_clear_leaves_the_machines_reading_the_new_state():
    cab = Cabinet()
    old = cab.s
    cab.ram_clear([], NoHistory())
    assert cab.s is not old
    assert all(getattr(cab, attr).s is cab.s for attr in MACHINES)

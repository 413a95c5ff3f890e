"""The modes are named, ordered and described in one place (``cabinet.core.modes``):
no other module of the cabinet or the UI decides by a mode's name, the wire's names
are the table's, and ``docs/reference/modes.md`` is what the table generates."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import msgspec

from cabinet.core.machine import new_state
from cabinet.core.modes import MODE_TABLE, PRECEDENCE, Mode, mode_of, reference_markdown
from cabinet.core.state import HandpayState, MaintState
from cabinet.protocol.snapshot import ModeName, Snapshot, WireMode

ROOT = Path(__file__).resolve().parents[2]
NAMES = {m.value for m in Mode}
#: Where the names are spelled: the table, and the wire's ``Literal``.
SPELLED = {"cabinet/core/modes.py", "cabinet/protocol/snapshot.py"}


def _is_mode(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "mode") or (
        isinstance(node, ast.Attribute) and node.attr == "mode"
    )


def _names_in(node: ast.AST) -> list[str]:
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [e.value for e in items if isinstance(e, ast.Constant) and e.value in NAMES]


def _decisions_by_name(path: Path) -> list[str]:
    """``mode == "tilt"``, ``x.mode in ("attract", ...)``, and per-mode dicts keyed by
    three or more mode names, in ``path``."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            if any(_is_mode(p) for p in parts) and any(_names_in(p) for p in parts):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and k.value in NAMES]
            if len(keys) >= 3:
                found.append(f"{where}:{node.lineno}: a dict keyed by modes {keys}")
    return found


def test_only_the_modes_module_decides_by_a_mode_name():
    files = sorted((ROOT / "cabinet").rglob("*.py")) + sorted((ROOT / "ui").rglob("*.py"))
    found = [f for p in files if str(p.relative_to(ROOT)) not in SPELLED for f in _decisions_by_name(p)]
    assert found == []


def test_the_checker_sees_a_decision_by_name(tmp_path):
    bad = tmp_path / "probe.py"
    bad.write_text('def f(s):\n    return s.mode in ("attract", "betting") or s.mode != "tilt"\n')
    assert len(_decisions_by_name(bad)) == 2
    bad.write_text('T = {"attract": 1, "tilt": 2, "handpay": 3}\n')
    assert len(_decisions_by_name(bad)) == 1


def test_every_mode_has_facts_and_a_precedence_rule():
    assert set(MODE_TABLE) == set(Mode)
    assert [r.mode for r in PRECEDENCE].count(Mode.ATTRACT) == 1 and PRECEDENCE[-1].mode is Mode.ATTRACT
    assert {r.mode for r in PRECEDENCE} == set(Mode)


def test_the_wire_names_are_the_tables():
    assert set(get_args(ModeName)) == {f.wire for f in MODE_TABLE.values()}
    assert {v for k, v in vars(WireMode).items() if k.isupper()} == set(get_args(ModeName))
    assert all(getattr(WireMode, k) == k.lower() for k in vars(WireMode) if k.isupper())
    # a lock-up the UI has no screen of its own for shows as a tilt
    assert MODE_TABLE[Mode.RAM_ERROR].wire == MODE_TABLE[Mode.NEEDS_CONFIG].wire == "tilt"
    assert all(MODE_TABLE[m].wire == m.value for m in Mode if m not in (Mode.RAM_ERROR, Mode.NEEDS_CONFIG))


def test_the_wire_bytes_keep_the_modes_spelling():
    snap = Snapshot(seq=1, mode=MODE_TABLE[Mode.IN_ROUND].wire, variant="classic", variant_name="Classic")
    raw = msgspec.json.encode(snap)
    assert b'"mode":"in_round"' in raw
    assert msgspec.json.decode(raw, type=Snapshot).mode == "in_round"


def test_the_precedence_puts_the_lockups_first():
    s = new_state()
    never = lambda st: False  # noqa: E731
    assert mode_of(s, never) is Mode.ATTRACT
    s.stations[0].credits_minor = 500
    assert mode_of(s, never) is Mode.BETTING
    s.round_open = True
    assert mode_of(s, never) is Mode.IN_ROUND
    s.needs_config = True
    assert mode_of(s, never) is Mode.NEEDS_CONFIG
    assert mode_of(s, lambda st: True) is Mode.CASH_OUT  # the only station cashes out
    s.stations[0].faults = {"printer_paper_out": "Printer: out of paper"}
    assert mode_of(s, lambda st: True) is Mode.TILT
    s.doors_open = ["main"]
    assert mode_of(s, never) is Mode.DOOR_OPEN
    s.handpay = HandpayState(station=1, amount_minor=500, reason="cash out", validation_number="")
    assert mode_of(s, never) is Mode.HANDPAY
    s.ram_error = True
    assert mode_of(s, never) is Mode.RAM_ERROR
    s.maintenance = MaintState()
    assert mode_of(s, never) is Mode.MAINTENANCE


def test_the_modes_reference_is_what_the_table_generates():
    """``python -m cabinet.core.modes --write-docs`` writes it again."""
    assert (ROOT / "docs" / "reference" / "modes.md").read_text(encoding="utf-8") == reference_markdown()

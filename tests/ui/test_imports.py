"""The UI imports only ``cabinet.protocol.ipc``, ``cabinet.protocol.snapshot`` and
``cabinet.protocol.money`` (the formatter it shares) and ``cabinet.protocol.said``
(the snapshot's texts as templates and arguments) and ``cabinet.protocol.languages``
(the languages the table speaks, which ``cabinet run`` checks too) from the engine side
(STYLE.md 28)."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "ui"
ALLOWED = {
    "cabinet.protocol.ipc",
    "cabinet.protocol.snapshot",
    "cabinet.protocol.money",
    "cabinet.protocol.said",
    "cabinet.protocol.languages",
}


def test_ui_imports_only_the_contract() -> None:
    bad = []
    for f in sorted(UI.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for n in names:
                root = n.split(".")[0]
                if (root == "cabinet" and n not in ALLOWED) or root == "drivers":
                    bad.append(f"{f.relative_to(UI.parent)}: {n}")
    assert not bad, bad

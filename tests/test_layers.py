"""The layers of DESIGN.md hold (STYLE.md 5.28): the rules core imports nothing
of the cabinet; only the engine's composition modules import ``drivers``; no
engine module imports ``ui``; the UI imports only the shared message modules."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRIVER_BRIDGES = {"cabinet/__main__.py", "cabinet/hardware.py", "cabinet/cli.py"}
UI_MAY_IMPORT = {"cabinet.ipc", "cabinet.snapshot"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _files(pkg: str) -> list[Path]:
    return sorted((ROOT / pkg).rglob("*.py"))


def test_rules_core_imports_only_itself_and_the_stdlib():
    for path in _files("cabinet/game"):
        bad = {m for m in _imports(path)
               if m.split(".")[0] in {"cabinet", "drivers", "ui", "pygame", "serial",
                                      "gpiozero", "msgspec", "sqlite3", "random", "time",
                                      "logging", "socket", "os"}
               and not m.startswith("cabinet.game")}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_only_the_bridges_import_drivers_and_no_engine_module_imports_ui():
    for path in _files("cabinet"):
        rel = str(path.relative_to(ROOT))
        mods = _imports(path)
        if rel not in DRIVER_BRIDGES:
            assert not any(m.split(".")[0] == "drivers" for m in mods), rel
        assert not any(m.split(".")[0] == "ui" for m in mods), rel


def test_ui_imports_only_the_shared_message_modules():
    for path in _files("ui"):
        for m in _imports(path):
            if m.split(".")[0] == "cabinet":
                assert m in UI_MAY_IMPORT, f"{path.relative_to(ROOT)} imports {m}"
            assert m.split(".")[0] not in {"drivers", "gpiozero", "serial"}, path

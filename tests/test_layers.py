"""The layers of DESIGN.md hold (STYLE.md 5.28), one room of ``cabinet/`` at a time:
``game`` (the rules core) imports nothing of the cabinet; ``core`` (the
cabinet state machine) imports no clock, OS, SQLite, asyncio, logging, ``secrets``
or ``random``, and nothing of the shell, the tools, ``drivers`` or ``ui``;
``protocol`` (the engine-UI messages) imports only itself; only ``shell`` imports
``drivers``; ``drivers/sim`` is imported, lazily, only where the simulation is
chosen; the UI imports only ``cabinet.protocol``; ``confspec`` (the one
``ConfigError``, shared by the core, the shell and the drivers) imports none of them."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOMS = {"game", "core", "protocol", "shell", "tools", "strategy"}
#: What the cabinet core may not import: clock, OS, storage, concurrency, logging,
#: randomness, and every other layer.
CORE_FORBIDDEN = {
    "time",
    "os",
    "sys",
    "sqlite3",
    "asyncio",
    "logging",
    "secrets",
    "random",
    "socket",
    "threading",
    "subprocess",
    "signal",
    "fcntl",
    "shutil",
    "tempfile",
    "pathlib",
    "platformdirs",
    "concurrent",
    "drivers",
    "ui",
    "pygame",
    "serial",
    "gpiozero",
}
CORE_MAY_IMPORT = ("cabinet.game", "cabinet.core", "cabinet.protocol")
#: The modules that choose the simulation, and import ``drivers.sim`` lazily there.
SIM_CHOOSERS = {"drivers/factory.py", "cabinet/shell/sim_control.py"}


def _import_nodes(path: Path) -> list[tuple[str, bool]]:
    """``(module, at_module_level)`` of every absolute import in ``path``; imports
    under ``if TYPE_CHECKING:`` count as not at module level (never run)."""
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                out.extend((a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                out.append((child.module, top))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, False)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(child, False)
            else:
                visit(child, top)

    visit(tree, True)
    return out


def _imports(path: Path) -> set[str]:
    return {m for m, _ in _import_nodes(path)}


def _files(pkg: str) -> list[Path]:
    return sorted((ROOT / pkg).rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_every_cabinet_module_lives_in_a_room():
    """A reader knows from the folder what a file may touch."""
    loose = [
        _rel(p)
        for p in _files("cabinet")
        if p.parent == ROOT / "cabinet"
        and p.name not in {"__init__.py", "__main__.py"}
        or p.parent != ROOT / "cabinet"
        and p.relative_to(ROOT / "cabinet").parts[0] not in ROOMS
    ]
    assert not loose, loose
    assert _imports(ROOT / "cabinet" / "__main__.py") == {"sys", "cabinet.tools.cli"}


def test_rules_core_imports_only_itself_and_the_stdlib():
    for path in _files("cabinet/game"):
        bad = {
            m
            for m in _imports(path)
            if m.split(".")[0]
            in {
                "cabinet",
                "drivers",
                "ui",
                "pygame",
                "serial",
                "gpiozero",
                "msgspec",
                "sqlite3",
                "random",
                "time",
                "logging",
                "socket",
                "os",
            }
            and not m.startswith("cabinet.game")
        }
        assert not bad, f"{_rel(path)} imports {bad}"


def test_cabinet_core_imports_no_clock_os_storage_logging_or_randomness():
    """Cabinet/core is pure: no clock, OS, SQLite, asyncio, logging,
    ``secrets`` or ``random``; of the cabinet only game, core and protocol."""
    for path in _files("cabinet/core"):
        for m in _imports(path):
            assert m.split(".")[0] not in CORE_FORBIDDEN, f"{_rel(path)} imports {m}"
            if m.split(".")[0] == "cabinet":
                assert m.startswith(CORE_MAY_IMPORT), f"{_rel(path)} imports {m}"


def test_cabinet_core_reads_no_clock_through_datetime():
    """``datetime`` formats a given time in the core; it never asks the clock."""
    for path in _files("cabinet/core"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute):
                assert node.attr not in {"now", "today", "utcnow", "monotonic"}, (
                    f"{_rel(path)}:{node.lineno} reads the clock ({node.attr})"
                )


def test_protocol_imports_only_itself_and_msgspec():
    """The messages the UI shares import nothing of the engine."""
    for path in _files("cabinet/protocol"):
        for m in _imports(path):
            root = m.split(".")[0]
            assert root not in {
                "drivers",
                "ui",
                "sqlite3",
                "asyncio",
                "logging",
                "random",
                "secrets",
                "time",
                "os",
                "socket",
            }, f"{_rel(path)} imports {m}"
            if root == "cabinet":
                assert m.startswith("cabinet.protocol"), f"{_rel(path)} imports {m}"


def test_shell_does_not_import_the_tools():
    """The tools use the shell, never the other way round."""
    for pkg in ("cabinet/shell", "cabinet/core", "cabinet/protocol", "cabinet/game"):
        for path in _files(pkg):
            assert not any(m.startswith("cabinet.tools") for m in _imports(path)), _rel(path)


def test_only_the_shell_imports_drivers_and_no_engine_module_imports_ui():
    for path in _files("cabinet"):
        rel = _rel(path)
        mods = _imports(path)
        if not rel.startswith("cabinet/shell/"):
            assert not any(m.split(".")[0] == "drivers" for m in mods), rel
        assert not any(m.split(".")[0] == "ui" for m in mods), rel


def test_drivers_sim_is_imported_only_lazily_where_the_simulation_is_chosen():
    """Production code never imports ``drivers/sim`` except where the
    simulation is chosen (``drivers/factory.py``, the sim control of the shell), and
    there only inside a function (or for type checking)."""
    for pkg in ("cabinet", "drivers", "ui"):
        for path in _files(pkg):
            rel = _rel(path)
            if rel.startswith("drivers/sim/"):
                continue
            for m, top in _import_nodes(path):
                if m == "drivers.sim" or m.startswith("drivers.sim."):
                    assert rel in SIM_CHOOSERS and not top, f"{rel} imports {m}"


def test_ui_imports_only_the_protocol():
    for path in _files("ui"):
        for m in _imports(path):
            if m.split(".")[0] == "cabinet":
                assert m.startswith("cabinet.protocol."), f"{_rel(path)} imports {m}"
            assert m.split(".")[0] not in {"drivers", "gpiozero", "serial"}, path


def test_the_config_checker_imports_only_the_stdlib_and_msgspec():
    """``confspec`` holds the one ``ConfigError`` and the one way a config
    is checked, shared by ``cabinet.core`` (settings), ``cabinet.shell`` (engine
    config) and ``drivers`` (wiring); those may not import each other, so it imports
    none of them: only the standard library and msgspec."""
    files = _files("confspec")
    assert files
    for path in files:
        for m in _imports(path):
            root = m.split(".")[0]
            assert root in sys.stdlib_module_names | {"msgspec", "confspec", "__future__"}, f"{_rel(path)} imports {m}"
            assert root not in {"logging", "socket", "sqlite3", "asyncio"}, _rel(path)

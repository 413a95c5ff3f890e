"""No import cycle anywhere in ``cabinet/``, ``confspec/``, ``drivers/`` or ``ui/``.

The graph is read from the source (AST), not by importing: an edge for every
import, at module level or inside a function (a lazy import that closes a cycle
only moves the failure to run time), and for imports under ``if TYPE_CHECKING:``
too (a cycle the type checker needs is a cycle in the design; breaking it with
a lazy import or a TYPE_CHECKING guard does not make it go away). ``from X import
Y`` is an edge to ``X`` (``Y`` is read from the package's namespace, so its
``__init__`` must have run), and also to ``X.Y`` when that is a module of the tree:
a package whose ``__init__`` imports a module that takes a name from the package
is a cycle through that ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cabinet", "confspec", "drivers", "ui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def import_graph(sources: dict[str, str] | None = None) -> dict[str, set[str]]:
    """``module -> modules of the tree it imports`` (every import, see the module doc).

    ``sources``: ``module name -> source text`` to read instead of the tree; a name that
    prefixes another's (``pkg`` of ``pkg.a``) is a package."""
    if sources is None:
        sources = {name: path.read_text() for name, path in _modules().items()}
    packages = {name.rsplit(".", 1)[0] for name in sources if "." in name}
    graph: dict[str, set[str]] = {}
    for name, text in sources.items():
        is_pkg = name in packages
        out: set[str] = set()
        for node in ast.walk(ast.parse(text, name)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                    pkg = pkg[: len(pkg) - node.level + 1]
                    base = ".".join(pkg + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in sources]
            else:
                continue
            out |= {t for t in targets if t in sources and t != name}
        graph[name] = out
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def strongconnect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    """The finder itself works: a -> b -> c -> a is one cycle; d is not in it."""
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_and_type_checking_imports():
    """Function-level and TYPE_CHECKING imports are edges too."""
    graph = import_graph()
    assert "cabinet.tools.views_cli" in graph["cabinet.tools.cli"]  # imported in main()
    assert "drivers.sim.twins" in graph["drivers.factory"]  # lazy and TYPE_CHECKING


def test_the_graph_sees_a_submodule_taken_from_its_package():
    """``from package import module`` depends on the package's ``__init__`` as well as the
    module: a package that re-exports a module which does this is a cycle."""
    tree = {"pkg": "from pkg.a import f\n", "pkg.a": "from pkg import b\n", "pkg.b": ""}
    graph = import_graph(tree)
    assert graph["pkg.a"] == {"pkg", "pkg.b"}
    assert find_cycles(graph) == [["pkg", "pkg.a"]]


def test_no_import_cycle_in_cabinet_drivers_or_ui():
    """A new import cycle anywhere in cabinet/, drivers/, ui/ fails here."""
    assert find_cycles(import_graph()) == []

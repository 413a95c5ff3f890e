"""The README and the docs speak of what a clone has, and say what a newcomer needs.

A user reads the README and the docs in a fresh clone: every file they name must be in
the clone (nothing under ``../shared/``, which only the developers have). The README
stays short (what the cabinet is, a screenshot, the two commands, why each dependency,
one paragraph of architecture, where to read on); the try-it guide must say where
``cabinet run`` puts the UI socket, how to play a multi-station table and that the run
stops when the engine dies."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TRY_IT = (ROOT / "docs" / "guide" / "try-it.md").read_text(encoding="utf-8")
#: The pages written for readers (``docs/research/`` quotes other projects' paths), and
#: the measurements' pages.
DOC_PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted(p for sub in ("guide", "reference", "design") for p in (ROOT / "docs" / sub).glob("*.md")),
    *sorted((ROOT / "bench" / "results").glob("*.md")),
]

# a backticked token that names a file or folder of the tree: has a slash or a known suffix
_PATH = re.compile(r"`((?:\.\./)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.*-]+)+/?|[A-Za-z0-9_-]+\.(?:md|py|toml|json|txt))`")


def _named_paths(text: str) -> set[str]:
    names = set()
    for m in _PATH.finditer(text):
        name = m.group(1)
        if "*" in name or name.startswith(("/", "~")) or "YYYY" in name:
            continue
        names.add(name)
    return names


def test_the_pages_are_read() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in DOC_PAGES}
    assert {"README.md", "docs/guide/install.md", "docs/design/money.md", "docs/reference/wiring.md"} <= names


def test_the_docs_name_no_file_outside_the_clone() -> None:
    outside = sorted(
        f"{page.relative_to(ROOT)}: {n}"
        for page in DOC_PAGES
        for n in _named_paths(page.read_text(encoding="utf-8"))
        if n.startswith("../")
    )
    assert outside == []


def test_every_repo_path_the_docs_name_exists() -> None:
    roots = {p.name for p in ROOT.iterdir()}
    generated = set((ROOT / ".gitignore").read_text().split())  # made by a command, not shipped
    made_in = {g.strip("/") for g in generated if g.endswith("/")}  # folders a command fills
    missing = []
    for page in DOC_PAGES:
        for name in _named_paths(page.read_text(encoding="utf-8")) - generated:
            first = name.split("/")[0]
            if "/" in name and first in roots and first not in made_in and not (ROOT / name.rstrip("/")).exists():
                missing.append(f"{page.relative_to(ROOT)}: {name}")
    assert sorted(missing) == []


def test_docs_the_readme_relies_on_are_in_the_repo() -> None:
    assert "`docs/RULES.md`" in README  # the games' rules, named where the README says what it is
    guides = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "guide").glob("*.md"))
    for doc in ("docs/RULES.md", "docs/SCENARIOS.md", "docs/DESIGN.md"):
        assert (ROOT / doc).is_file(), doc
        assert f"`{doc}`" in README + guides, doc


def test_the_readme_is_short_and_says_what_the_cabinet_is() -> None:
    assert len(README.encode("utf-8")) <= 10 * 1024
    intro = README.split("\n## ", 1)[0]
    for fact in ("Raspberry Pi", "three blackjack games", "banknotes", "voucher", "SAS", "operator menu"):
        assert fact in intro, fact
    image = re.search(r"!\[[^\]]+\]\((docs/images/[^)]+\.png)\)", README)
    assert image is not None and (ROOT / image.group(1)).is_file()


def test_the_readme_keeps_the_two_commands_and_the_suite_s_time() -> None:
    """``.ci/run`` runs "the README's test command": ``make test``, as the README says."""
    commands = README.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    assert "make run     # sets up .venv, then runs the whole cabinet with simulated hardware" in commands
    assert "make test    # sets up .venv, then runs the whole test suite (what CI runs)" in commands
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "pytest -n 2" in commands and "pytest -q -n 2" in (ROOT / "Makefile").read_text()
    assert "bench/results/suite-time.md" in commands


def test_the_readme_says_why_each_dependency_is_there() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    table = README.split("## Dependencies", 1)[1]
    names = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    for requirement in names:
        name = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]
        assert name.lower() in table.lower(), name


def test_the_readme_leads_to_each_guide() -> None:
    for page in ("try-it.md", "install.md", "operate.md", "develop.md"):
        assert f"(docs/guide/{page})" in README, page
    for page in ("CHANGELOG.md", "docs/design/README.md", "docs/README.md"):
        assert f"({page}" in README, page


def test_try_it_says_where_the_ui_socket_is_and_how_to_seat_more_players() -> None:
    run = TRY_IT.split("## Running the cabinet", 1)[1].split("\n## ", 1)[0]
    assert "ui.sock" in run  # where cabinet run puts the UI socket
    assert "--station 2" in run  # a second station's UI
    assert "when the engine" in run  # the run stops when the engine dies
    assert "started it again" in run  # ...not when one station's screen does


def test_try_it_says_a_bare_engine_takes_no_money_until_a_display_draws() -> None:
    """A note sent to a bare engine's sim control answers "ok" and is handed back: the
    try-it guide's part on driving a headless cabinet says why, and what to start first."""
    run = TRY_IT.split("**Driving a headless cabinet by hand.**", 1)[1].split("\n\n", 1)[0]
    assert "takes no money until a display draws" in run
    assert "display dark: notes refused" in run  # the engine's log line (cabinet.ui_server)
    assert "python -m ui --socket" in run

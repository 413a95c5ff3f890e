"""The README speaks of what a clone has.

A user reads the README in a fresh clone: every file it names must be in the
clone (nothing under ``../shared/``, which only the developers have), and it
must say where ``cabinet run`` puts the UI socket, how to play a multi-station
table and that the run stops when either process dies."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

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


def test_the_readme_names_no_file_outside_the_clone() -> None:
    outside = sorted(n for n in _named_paths(README) if n.startswith("../"))
    assert outside == []


def test_every_repo_path_the_readme_names_exists() -> None:
    roots = {p.name for p in ROOT.iterdir()}
    generated = set((ROOT / ".gitignore").read_text().split())  # made by a command, not shipped
    made_in = {g.strip("/") for g in generated if g.endswith("/")}  # folders a command fills
    missing = []
    for name in _named_paths(README) - generated:
        first = name.split("/")[0]
        if "/" in name and first in roots and first not in made_in and not (ROOT / name.rstrip("/")).exists():
            missing.append(name)
    assert sorted(missing) == []


def test_docs_the_readme_relies_on_are_in_the_repo() -> None:
    for doc in ("docs/RULES.md", "docs/SCENARIOS.md", "docs/DESIGN.md"):
        assert (ROOT / doc).is_file(), doc
        assert f"`{doc}`" in README, doc


def test_readme_says_where_the_ui_socket_is_and_how_to_seat_more_players() -> None:
    run = README.split("## Running the cabinet", 1)[1].split("\n## ", 1)[0]
    assert "ui.sock" in run  # where cabinet run puts the UI socket
    assert "--station 2" in run  # a second station's UI
    assert "when the engine" in run  # the run stops when the engine dies
    assert "started it again" in run  # ...not when one station's screen does (cabinet run trial)


def test_readme_says_a_bare_engine_takes_no_money_until_a_display_draws() -> None:
    """A note sent to a bare engine's sim control answers "ok" and is handed back: the
    README's part on driving a headless cabinet says why, and what to start first."""
    run = README.split("**Driving a headless cabinet by hand.**", 1)[1].split("\n\n", 1)[0]
    assert "takes no money until a display draws" in run
    assert "display dark: notes refused" in run  # the engine's log line (cabinet.ui_server)
    assert "python -m ui --socket" in run

"""The generated reference pages (``docs/reference/cli.md``, ``config.md``,
``faults.md``) are what the code gives now: a changed option, config key or fault
fails here until ``python -m tests.docs_reference`` writes the pages again."""

from __future__ import annotations

import re

import pytest

from tests import docs_reference


@pytest.fixture(scope="module")
def pages() -> dict:
    return docs_reference.pages()


def test_every_generated_page_is_up_to_date(pages) -> None:
    stale = [
        path.relative_to(docs_reference.ROOT).as_posix()
        for path, text in pages.items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"run: .venv/bin/python -m tests.docs_reference ({stale})"


def test_the_cli_page_has_every_sub_command_and_option(pages) -> None:
    from cabinet.tools.cli import _build_parser

    text = pages[docs_reference.REFERENCE / "cli.md"]
    from cabinet.tools.cli import GROUPS, TOP

    sub = next(a for a in _build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == {*TOP, *GROUPS}
    for name in TOP:
        assert f"\n## cabinet {name}\n" in text, name
    for group, (_, subs) in GROUPS.items():
        for sub_name, flat in subs.items():
            assert f"\n## cabinet {group} {sub_name}\n" in text, (group, sub_name)
            assert flat == f"{group} {sub_name}" or f"`cabinet {flat}` (`{group} {sub_name}`)" in text
    section = text.split("\n## cabinet run\n", 1)[1].split("\n## ", 1)[0]
    for option in ("--stations", "--screens", "--tickets", "--variant", "--pin", "--rounds", "--headless"):
        assert f"| `{option}` |" in section, option
    simulate = text.split("\n## cabinet math simulate\n", 1)[1].split("\n## ", 1)[0]
    assert "| `--seed` |" in simulate and "| `--compiled` |" in simulate


def test_the_config_page_has_every_key(pages) -> None:
    from cabinet.core.settings import GameSettings
    from cabinet.shell.config import DevicesConfig, SasSection
    from drivers.wiring import PulseWiring

    text = pages[docs_reference.REFERENCE / "config.md"]
    for struct in (DevicesConfig, SasSection, PulseWiring, GameSettings):
        for key in struct.__struct_fields__:
            assert f"| `{key}` |" in text, (struct.__name__, key)
    for section in ("[devices]", "[sas]", "[display]", "[journal]", "[stationN]", "[stationN.sas]", "[door_latch]"):
        assert f"### `{section}`" in text, section


def test_the_faults_page_lists_every_fault_once(pages) -> None:
    from cabinet.core.errors import FAULTS

    text = pages[docs_reference.REFERENCE / "faults.md"]
    listed = [int(n) for n in re.findall(r"^\| (\d+) \|", text, re.M)]
    assert listed == sorted(num for num, _ in FAULTS.values())
    for key, (num, words) in FAULTS.items():
        assert f"| {num} | `{key}` | {words} |" in text, key


def test_a_fault_without_help_is_refused(monkeypatch) -> None:
    from cabinet.core import errors

    monkeypatch.setitem(errors.FAULTS, "new_fault", (999, "New fault"))
    with pytest.raises(KeyError, match="new_fault"):
        docs_reference.faults_page()

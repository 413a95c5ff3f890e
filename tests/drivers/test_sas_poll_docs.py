"""The long poll tables people read are the rows of ``drivers/sas/layouts.py``: the
package docstring's table and ``docs/reference/sas-polls.md`` equal the text
``drivers/sas/poll_docs.py`` generates from them (``python -m drivers.sas.poll_docs
--write`` regenerates both)."""

from __future__ import annotations

import pytest

import drivers.sas
from drivers.sas import poll_docs
from drivers.sas.layouts import LAYOUTS


def test_package_docstring_table_is_generated_from_the_rows() -> None:
    """The table in ``drivers/sas/__init__.py``, line for line, and the whole file."""
    doc = drivers.sas.__doc__ or ""
    lines = [line for line in doc.splitlines() if line.startswith("    0x")]
    assert lines == poll_docs.docstring_table()
    assert len(lines) == len(LAYOUTS)
    source = poll_docs.PACKAGE_INIT.read_text(encoding="utf-8")
    assert poll_docs.spliced_docstring_source(source) == source


def test_reference_is_generated_from_the_rows() -> None:
    """``docs/reference/sas-polls.md`` is exactly the generated text."""
    assert poll_docs.REFERENCE.read_text(encoding="utf-8") == poll_docs.reference_markdown()


def test_check_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``--check`` exits 0 on the committed files; the generator names every poll once."""
    assert poll_docs.main(["--check"]) == 0
    text = poll_docs.reference_markdown()
    for command, row in LAYOUTS.items():
        assert text.count(f"| 0x{command:02X} | `{row.name}` |") == 1


def test_a_changed_row_changes_the_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The texts follow the rows: a row routed elsewhere reads so in both tables."""
    import dataclasses

    row = dataclasses.replace(LAYOUTS[0x1A], view_reply=None, handler="host_command")
    monkeypatch.setitem(LAYOUTS, 0x1A, row)
    assert "    0x1A  R         0         4  host_command           nCompass LongPoll1AMessage.cpp" in (
        poll_docs.docstring_table()
    )
    assert "| 0x1A | `current_credits` | R: `address command`; reply 4 data bytes, CRC | handler `host_command` |" in (
        poll_docs.reference_markdown()
    )
    monkeypatch.setitem(LAYOUTS, 0x1A, dataclasses.replace(row, handler=None))
    assert "| handler `host_command` |" not in poll_docs.reference_markdown().split("| 0x1A |")[1].split("\n")[0]

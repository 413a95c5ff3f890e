"""The long poll table of ``docs/reference/sas-polls.md`` (which the README links to)
agrees with ``drivers/sas/layouts.py``: every layout has a row that names the file its
layout comes from and says what the cabinet answers, and every poll in the table has a
layout.  The file is generated from the rows (``tests/drivers/test_sas_poll_docs.py``
holds it to them); this reads it as a reader would, cell by cell."""

from __future__ import annotations

import re
from pathlib import Path

from drivers.sas.layouts import LAYOUTS, Layout

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "sas-polls.md"
HEADER = "| poll | name | framing | answered by | what the cabinet answers | layout source |"
CODE = re.compile(r"^0x([0-9A-F]{2})(?:-0x([0-9A-F]{2}))?$")
FILE = re.compile(r"\b([A-Za-z0-9_]+\.(?:cpp|h|cs|py))\b")


def table_rows(text: str) -> list[list[str]]:
    """The cells of each row of the table under ``HEADER``."""
    lines = text.splitlines()
    start = lines.index(HEADER) + 2  # the header and its |---| line
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return rows


def poll_codes(cell: str) -> list[int]:
    """``0x0F, 0x10-0x17 / 0x19`` -> [0x0F, 0x10, ..., 0x17, 0x19].

    Raises:
        ValueError: a part that is not ``0xNN`` or ``0xNN-0xMM``.
    """
    out: list[int] = []
    for part in re.split(r"\s*[,/]\s*", cell):
        m = CODE.match(part)
        if m is None:
            raise ValueError(f"poll cell part {part!r} is not 0xNN or 0xNN-0xMM")
        first = int(m.group(1), 16)
        last = int(m.group(2), 16) if m.group(2) else first
        out.extend(range(first, last + 1))
    return out


def source_key(layout: Layout) -> str:
    """What the row must name: the layout's source file, or UNVERIFIED."""
    if not layout.verified:
        return "UNVERIFIED"
    m = FILE.search(layout.source)
    assert m is not None, f"0x{layout.command:02X} source names no file: {layout.source!r}"
    return m.group(1)


def test_poll_cells_parse() -> None:
    assert poll_codes("0x0F, 0x10-0x12 / 0x19") == [0x0F, 0x10, 0x11, 0x12, 0x19]


def test_every_row_is_a_layout_with_its_source_and_every_layout_has_a_row() -> None:
    rows = table_rows(REFERENCE.read_text())
    assert len(rows) >= 20
    seen: dict[int, str] = {}
    for cells in rows:
        assert len(cells) == 6, f"row {cells!r} has not 6 cells ({HEADER})"
        for code in poll_codes(cells[0]):
            assert code in LAYOUTS, f"row for 0x{code:02X} has no layout in layouts.py"
            assert code not in seen, f"0x{code:02X} has two rows"
            seen[code] = cells[5]
            layout = LAYOUTS[code]
            key = source_key(layout)
            assert key in cells[5], f"0x{code:02X}: its row's source {cells[5]!r} does not name {key!r}"
            assert cells[4], f"0x{code:02X}: the row says nothing of what the cabinet answers"
            assert f"`{layout.name}`" == cells[1], f"0x{code:02X}: the row names {cells[1]!r}"
            kind = {"R": "R:", "S": "S:", "M": "M:"}[layout.kind.value]
            assert cells[2].startswith(kind), f"0x{code:02X}: framing {cells[2]!r} is not {layout.kind.value}"
    missing = sorted(set(LAYOUTS) - set(seen))
    assert not missing, f"layouts without a row: {[f'0x{c:02X}' for c in missing]}"

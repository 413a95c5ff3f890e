"""The long poll tables people read, generated from the rows of ``layouts.LAYOUTS``: the
table in the ``drivers/sas`` package docstring and ``docs/reference/sas-polls.md``.

Owns: ``docstring_table`` and ``reference_markdown`` (rows -> text, pure),
``spliced_docstring_source`` (the package ``__init__.py`` with its table replaced), and the
command that rewrites both files or checks them::

    python -m drivers.sas.poll_docs --write    # regenerate both
    python -m drivers.sas.poll_docs --check    # exit 1 when either differs from the rows

Must not import: serial, time, threading, cabinet.*.  Only ``main`` touches files.
``tests/drivers/test_sas_poll_docs.py`` fails while either file differs from the rows.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from drivers.sas.layouts import LAYOUTS, MONACO, NC, Kind, Layout

ROOT = Path(__file__).resolve().parents[2]
#: The package whose docstring holds the short table.
PACKAGE_INIT = ROOT / "drivers" / "sas" / "__init__.py"
#: The full table.
REFERENCE = ROOT / "docs" / "reference" / "sas-polls.md"
#: The line that opens the docstring table; the table runs to its last ``    0x`` line.
DOCSTRING_HEADER = "Long poll table (kind, request data bytes, reply data bytes, EGM answer, source):"
_OLD_DOCSTRING_HEADERS = (
    DOCSTRING_HEADER,
    "Layout table (kind, request data bytes, reply data bytes, EGM builder, source):",
)
#: The header of the reference table (``tests/drivers/test_sas_readme_table.py`` reads it).
REFERENCE_HEADER = "| poll | name | framing | answered by | what the cabinet answers | layout source |"


def answered_by(row: Layout) -> str:
    """How the EGM answers ``row``'s poll in one word: its handler's name, its view reply
    builder's name, or ``-`` (framed, never answered)."""
    if row.handler is not None:
        return row.handler
    if row.view_reply is not None:
        return row.view_reply.__name__
    return "-"


def _request(row: Layout) -> str:
    return "len byte" if row.kind is Kind.M else str(row.data_len)


def _reply(row: Layout) -> str:
    shapes = {"ack": "ACK", "length": "len byte", None: "unknown"}
    return str(row.reply) if isinstance(row.reply, int) else shapes[row.reply]


def _short_source(row: Layout) -> str:
    """The file the layout comes from, its folder shortened (``UNVERIFIED`` when none states it)."""
    if not row.verified:
        return "UNVERIFIED (assumed)"
    return (
        row.source.split(" (")[0].replace(NC, "nCompass ").replace("saspy sas.py ", "saspy ").replace(MONACO, "Monaco ")
    )


def docstring_table() -> list[str]:
    """The package docstring's table: one line per long poll, by command."""
    lines = []
    for command in sorted(LAYOUTS):
        row = LAYOUTS[command]
        lines.append(
            f"    0x{command:02X}  {row.kind.value}  {_request(row):>8}  {_reply(row):>8}  "
            f"{answered_by(row):<22} {_short_source(row)}".rstrip()
        )
    return lines


def spliced_docstring_source(init_source: str) -> str:
    """``init_source`` (the package ``__init__.py``) with its table replaced by the rows'.

    Raises:
        ValueError: the source has no table header line.
    """
    lines = init_source.split("\n")
    start = next((i for i, line in enumerate(lines) if line in _OLD_DOCSTRING_HEADERS), None)
    if start is None:
        raise ValueError(f"no line {DOCSTRING_HEADER!r} in the package docstring")
    end = start + 1
    while end < len(lines) and (lines[end] == "" or lines[end].startswith("    0x")):
        end += 1
    while lines[end - 1] == "":
        end -= 1
    return "\n".join([*lines[:start], DOCSTRING_HEADER, "", *docstring_table(), *lines[end:]])


def _bytes(count: int | None) -> str:
    return "1 data byte" if count == 1 else f"{count} data bytes"


def _framing(row: Layout) -> str:
    if row.kind is Kind.R:
        request = "R: `address command`"
    elif row.kind is Kind.S:
        request = f"S: {_bytes(row.data_len)}, CRC" if row.data_len else "S: no data, CRC"
    else:
        least = f" (at least {row.min_len})" if row.min_len else ""
        request = f"M: length byte{least}, data, CRC"
    if row.reply == "ack":
        reply = "ACK"
    elif row.reply == "length":
        reply = "length byte, data, CRC"
    elif row.reply is None:
        reply = "not known"
    else:
        reply = f"{_bytes(row.reply)}, CRC"
    return f"{request}; reply {reply}"


def _answered_by_cell(row: Layout) -> str:
    if row.handler is not None:
        cell = f"handler `{row.handler}`"
    elif row.view_reply is not None:
        module = row.view_reply.__module__.rsplit(".", 1)[-1]
        cell = f"view `{module}.{row.view_reply.__name__}`"
    else:
        cell = "not answered"
    if row.broadcast:
        cell += "; also from address 0 (never answered)"
    if row.ignored_under_system_validation:
        cell += '; silent with `validation = "system"`'
    return cell


def _source_cell(row: Layout) -> str:
    short = _short_source(row)
    for label in ("nCompass ", "Monaco "):
        if short.startswith(label):
            return f"{label}`{short[len(label) :]}`"
    return short


_INTRO = """\
# SAS 6.02 long polls

The long polls the cabinet's SAS link knows (the gaming machine side, `drivers/sas/`),
one row per poll. This file is generated from the rows of `drivers/sas/layouts.py`
(`LAYOUTS`), the same rows that frame each poll (`drivers/sas/codec.py`) and route it to
its answer (`drivers/sas/egm.py`): edit a row, then run
`python -m drivers.sas.poll_docs --write`. `tests/drivers/test_sas_poll_docs.py` fails
while this file differs from the rows.

Columns:

- **framing**: the request as the host sends it, then the reply (research/sas.md
  "Message kinds", sharpened by nCompass). R: `address command`, no CRC. S: `address
  command data CRC` with a fixed number of data bytes. M: `address command length data
  CRC`, the length byte counting the data bytes, not the CRC; a length below the
  minimum is NACKed. Reply: ACK (the address byte alone), a fixed number of data bytes
  between the command and the CRC, or a length byte and then the data.
- **answered by**: `handler` names the link's handler (`drivers/sas/egm.py`, the TITO
  ones in `drivers/sas/egm_tito.py`; `host_command`: ACK, and the command handed to the
  engine under the poll's name); `view` names the builder that answers from the
  engine's view alone; "not answered": framed and counted, never answered. Flags: taken
  from address 0 too (a broadcast, never answered); silent while tickets are validated
  through the host.
- **what the cabinet answers**: in the field's terms and units
  (`drivers/sas/poll_answers.py`).
- **layout source**: the file the layout comes from. "Monaco" is Aristocrat's EGM
  platform (tejvirc/Platform `Protocol/SAS/Aristocrat.Sas.Client/LPParsers/`),
  "nCompass" is lakeshsharma/nCompass `Sentinel/SASProtocol/`, saspy is
  thomas-pythonas/saspy `sas.py`; UNVERIFIED where no public source states it.

"""

_OUTRO = """
## Errors, repeats and broadcasts

A long poll to this machine that it cannot take (bad CRC, bad BCD, a length or a value
outside its layout, a reply the view cannot fill) is NACKed (`address | 0x80`), as
Monaco's `SasClient.cs` and its parsers' `NackLongPoll` do (a variable-length poll whose
length byte is below its layout's minimum is first read to the end that byte promises
and its CRC, as Monaco's `LongPollTable.cs` frames it); the same to the broadcast
address gets no answer; a long poll not implemented gets none either. The third
identical poll in a row is the host's final NACK: it is not answered and an exception
it carried goes back to the queue unsent, to go out at the next general poll (Monaco
`HostAcknowledgementProvider.cs`: "SAS will repeat the same message 3 times (2 NACKs)",
then `ClearPendingException` in
`Aristocrat.Monaco.Sas/Exceptions/SasPriorityExceptionQueue.cs`).
`tests/drivers/test_sas_conformance.py` checks each of these in bytes, the Monaco file
named beside each; `tests/drivers/test_sas_interop.py` sends the EGM the polls a
third-party host library (`sas-comm-py` from PyPI) builds.

Every host command is journaled (`host_command`, with `"source": "host"`) and changes
nothing a rule forbids now (mid-round shut downs wait for the round's end; a remote
handpay reset needs that station's handpay on screen and no menu open).
`bench/sas.py` measures the reply delay while the engine plays rounds.
"""


def reference_markdown() -> str:
    """``docs/reference/sas-polls.md``: the intro, one table row per long poll (a text
    shared with an earlier row reads "as 0xNN"), and the rules every poll follows."""
    rows = [REFERENCE_HEADER, "|---|---|---|---|---|---|"]
    first_with: dict[str, int] = {}
    for command in sorted(LAYOUTS):
        row = LAYOUTS[command]
        answer = row.answer
        if answer in first_with:
            answer = f"as 0x{first_with[answer]:02X}"
        else:
            first_with[answer] = command
        cells = (
            f"0x{command:02X}",
            f"`{row.name}`",
            _framing(row),
            _answered_by_cell(row),
            answer,
            _source_cell(row),
        )
        rows.append("| " + " | ".join(cells) + " |")
    return _INTRO + "\n".join(rows) + "\n" + _OUTRO


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite (``--write``) or check (``--check``) both generated texts.

    Returns:
        0 when written, or when both files already match; 1 when ``--check`` finds a
        difference (the files named on stderr).
    """
    parser = argparse.ArgumentParser(prog="python -m drivers.sas.poll_docs", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the package docstring table and the reference")
    mode.add_argument("--check", action="store_true", help="exit 1 when either differs from the rows")
    args = parser.parse_args(argv)
    init_source = PACKAGE_INIT.read_text(encoding="utf-8")
    wanted = {
        PACKAGE_INIT: spliced_docstring_source(init_source),
        REFERENCE: reference_markdown(),
    }
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} differs from drivers/sas/layouts.py: run --write", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""JSON nesting has one limit on every Python: ``cabinet.protocol.nesting``.

Python 3.13's ``json`` and msgspec on 3.13 parse 2,000 levels that 3.11 refused with
``RecursionError``; the cabinet refuses anything deeper than ``MAX_JSON_DEPTH``
itself, before parsing, so the answer does not depend on the interpreter."""

from __future__ import annotations

import pytest

from cabinet.protocol import ipc
from cabinet.protocol.nesting import MAX_JSON_DEPTH, too_deep


def _nested(depth: int) -> bytes:
    """A cue whose whole text nests ``depth`` (>= 2) levels."""
    return b'{"type":"cue","name":"x","data":{"a":' + b"[" * (depth - 2) + b"]" * (depth - 2) + b"}}"


@pytest.mark.parametrize(
    "depth,deep", [(2, False), (MAX_JSON_DEPTH, False), (MAX_JSON_DEPTH + 1, True), (1_000, True), (100_000, True)]
)
def test_depth_counts_objects_and_arrays(depth: int, deep: bool) -> None:
    assert too_deep(_nested(depth)) is deep
    assert too_deep(_nested(depth).decode()) is deep


def test_brackets_inside_strings_do_not_count() -> None:
    text = b'{"a": "' + b"[{" * 5_000 + b'\\"]", "b": [[1, {"c": "}}}"}]]}'
    assert not too_deep(text)
    assert too_deep(b'{"a": "\\\\", "b": ' + b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1) + b"}")


def test_malformed_text_is_left_for_the_parser() -> None:
    assert not too_deep(b"]]]]{{")
    assert not too_deep(b'{"a": "unterminated')


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1_000, 20_000])
def test_the_ipc_decoder_refuses_deep_nesting_as_malformed(depth: int) -> None:
    with pytest.raises(ipc.MessageError, match="nested too deep"):
        ipc.decode(_nested(depth))
    assert isinstance(ipc.decode(_nested(MAX_JSON_DEPTH)), ipc.Cue)

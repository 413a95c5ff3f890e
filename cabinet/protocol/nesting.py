"""How deep a JSON text nests, checked before it is parsed.

Owns: ``MAX_JSON_DEPTH`` and ``too_deep``. Python's ``json`` and msgspec stop deep
nesting at the interpreter's recursion limit, which is not the same on every Python
(3.11 refuses about 1,000 levels with ``RecursionError``; 3.13 parses far more), so
every JSON reader of the cabinet (engine-UI messages, scenarios, the simulators'
control lines) refuses more than ``MAX_JSON_DEPTH`` levels itself: one answer on
every interpreter, and no parser recursion near its limit. Pure (no I/O).
"""

from __future__ import annotations

import re

#: Deepest nesting of objects and arrays accepted (the cabinet's own messages nest
#: fewer than 10 levels).
MAX_JSON_DEPTH = 100

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_INNERMOST = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def too_deep(text: bytes | str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``text`` nests objects and arrays more than ``limit`` levels deep.

    Brackets inside strings do not count. Text that is not JSON (unbalanced
    brackets, an unterminated string) is left for the parser to refuse: ``False``
    unless its brackets alone go deeper than ``limit``.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return False  # too few brackets to nest that deep
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    for _ in range(limit):  # each pass removes the innermost level
        brackets, removed = _INNERMOST.subn(b"", brackets)
        if not brackets or not removed:
            return False
    return bool(_INNERMOST.search(brackets))

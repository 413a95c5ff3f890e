"""Interleaved 2 of 5: bar/space widths for the printer simulator, and a decoder.

Owns: encoding digits to module runs (what a printer draws for ``GS k`` ITF) and
decoding runs of pixels back to digits (used by tests to read a rendered ticket).
Must not import: serial, gpiozero, cabinet.*.
"""

from __future__ import annotations

from collections.abc import Sequence

# n = narrow, w = wide, for the 5 elements of each digit.
PATTERNS = {
    "0": "nnwwn",
    "1": "wnnnw",
    "2": "nwnnw",
    "3": "wwnnn",
    "4": "nnwnw",
    "5": "wnwnn",
    "6": "nwwnn",
    "7": "nnnww",
    "8": "wnnwn",
    "9": "nwnwn",
}
_BY_PATTERN = {v: k for k, v in PATTERNS.items()}
START = "nnnn"  # bar, space, bar, space
STOP = "wnn"  # bar, space, bar


def encode(digits: str) -> list[tuple[bool, str]]:
    """Digits -> [(is_bar, "n"|"w"), ...] from start to stop pattern.

    Raises:
        ValueError: odd length or non-digits.
    """
    if len(digits) % 2 or not digits.isdigit():
        raise ValueError("ITF needs an even number of digits")
    widths = START
    for i in range(0, len(digits), 2):
        bars, spaces = PATTERNS[digits[i]], PATTERNS[digits[i + 1]]
        widths += "".join(b + s for b, s in zip(bars, spaces, strict=True))
    widths += STOP
    return [(i % 2 == 0, w) for i, w in enumerate(widths)]


def runs_of(row: Sequence[bool]) -> list[tuple[bool, int]]:
    """Run-length encode one scan line: True = dark pixel."""
    out: list[tuple[bool, int]] = []
    for dark in row:
        if out and out[-1][0] == dark:
            out[-1] = (dark, out[-1][1] + 1)
        else:
            out.append((dark, 1))
    return out


def decode_runs(runs: Sequence[tuple[bool, int]]) -> str:
    """Decode one scan line's runs (quiet zones allowed at both ends) to digits.

    Raises:
        ValueError: no valid start/stop pattern or a bad digit.
    """
    body = list(runs)
    while body and not body[0][0]:
        body.pop(0)
    while body and not body[-1][0]:
        body.pop()
    if len(body) < 7:
        raise ValueError("too few bars")
    widths = [w for _, w in body]
    threshold = (min(widths) + max(widths)) / 2
    kinds = "".join("w" if w > threshold else "n" for w in widths)
    if not kinds.startswith(START) or not kinds.endswith(STOP):
        raise ValueError("no ITF start/stop pattern")
    middle = kinds[len(START) : -len(STOP)]
    if len(middle) % 10:
        raise ValueError("truncated ITF symbol")
    digits = []
    for i in range(0, len(middle), 10):
        chunk = middle[i : i + 10]
        try:
            digits.append(_BY_PATTERN[chunk[0::2]])
            digits.append(_BY_PATTERN[chunk[1::2]])
        except KeyError:
            raise ValueError(f"bad ITF pattern at element {i}") from None
    return "".join(digits)

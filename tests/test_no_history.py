"""Code, tests and docs say what and why, never how they came to be (STYLE.md, the
owner's house rules): no tracker numbers ("issue N", "issue N.M"), no work sessions
("session N"), no user trials ("new-user trial", "new-user finding") in code, docstrings, test names,
systemd units, the README or docs/. History belongs in CHANGELOG.md, and dated
measurements in ``bench/results/``; neither is scanned.

Citations of other projects' trackers ("pyserial #59", "issues #14") are sources,
not history, and are written with a ``#``, which the pattern does not match."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Folders scanned whole, and single files or globs at the top.
FOLDERS = ("cabinet", "confspec", "drivers", "ui", "tests", "systemd", "docs")
TOP_GLOBS = ("bench/*.py", "README.md")
#: Not prose: images, fonts, compiled catalogues, databases.
BINARY_SUFFIXES = {".png", ".jpg", ".ttf", ".otf", ".mo", ".db", ".pyc", ".bin", ".wav", ".ogg"}
#: Work-history markers. Case-insensitive; "issue" as a verb ("issue a ticket") has
#: no number after it and does not match, nor does a ``#``-numbered citation.
MARKERS = re.compile(
    r"(?<![a-z])issues?[ _]?\d"  # a tracker number, prose or identifier
    r"|\bsessions?[ _-]\d"  # a work session
    r"|\bnew[- ](?:user|player)[- ](?:trials?|findings?|tests?)\b",  # a user trial
    re.IGNORECASE,
)


def _scanned() -> list[Path]:
    paths: list[Path] = []
    for folder in FOLDERS:
        paths.extend(p for p in (ROOT / folder).rglob("*") if p.is_file())
    for pattern in TOP_GLOBS:
        paths.extend(ROOT.glob(pattern))
    return sorted(p for p in paths if p.suffix not in BINARY_SUFFIXES and "__pycache__" not in p.parts)


def _hits(path: Path) -> list[str]:
    data = path.read_bytes()
    if b"\0" in data:
        return []
    rel = path.relative_to(ROOT).as_posix()
    return [
        f"{rel}:{n}: {line.strip()[:120]}"
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1)
        if MARKERS.search(line)
    ]


def test_the_pattern_tells_history_from_the_field_s_words() -> None:
    history = [
        "(issue 14)",
        '"""Issue 11.1: a resumed',
        "# issue 17 latency",
        "session 7 (commit d1dcc2c)",
        "Session 6's notes",
        "New-user trial:",
        "new-player trial",
        "New-user finding:",
        "Session-5 finding",
        "ui_issue17.txt",
        "def test_issue_12_rule",
    ]
    words = [
        "issue a ticket",
        "the host may issue vouchers",
        "Issue: 0x3D",
        "issues #14 #16",
        "pyserial #59",
        "the session clock",
        "a player's session 's net",
        "reissued 3",
    ]
    assert [h for h in history if not MARKERS.search(h)] == []
    assert [w for w in words if MARKERS.search(w)] == []


def test_no_issue_numbers_or_work_history_in_code_tests_or_docs() -> None:
    scanned = _scanned()
    assert len(scanned) > 300, "the scan found too few files; the layout moved?"
    hits = [h for p in scanned if p != Path(__file__).resolve() for h in _hits(p)]
    assert hits == [], f"{len(hits)} history markers:\n" + "\n".join(hits)

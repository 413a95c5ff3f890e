"""Every relative link of the README and the docs leads somewhere: the file (or
folder) exists in the clone, and a ``#fragment`` into a Markdown file names one of
its headings (GitHub's anchors: lower case, punctuation dropped, spaces to ``-``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``[text](target)`` and ``![alt](target)``, the target without a title.
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return pages + sorted((ROOT / "bench" / "results").glob("*.md"))


def _links(text: str) -> list[str]:
    text = _FENCE.sub("", text)
    return [m.group(1) for m in _LINK.finditer(_CODE.sub("", text))]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: ``"Checking a cabinet: `cabinet doctor`"`` ->
    ``"checking-a-cabinet-cabinet-doctor"``."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def test_anchor_is_github_s() -> None:
    assert anchor("Checking a cabinet: `cabinet doctor`") == "checking-a-cabinet-cabinet-doctor"
    assert anchor("Tickets through the host: `cabinet run --tickets host`") == (
        "tickets-through-the-host-cabinet-run---tickets-host"
    )
    assert anchor("Connecting the casino host (SAS)") == "connecting-the-casino-host-sas"


def test_the_pages_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _pages()}
    assert {"README.md", "docs/guide/try-it.md", "docs/reference/faults.md"} <= names


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in _pages():
        for target in _links(page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path_part, _, fragment = target.partition("#")
            dest = (page.parent / path_part).resolve() if path_part else page
            rel = dest.relative_to(ROOT).as_posix() if dest.is_relative_to(ROOT) else str(dest)
            where = f"{page.relative_to(ROOT).as_posix()}: {target}"
            if not dest.is_relative_to(ROOT):
                broken.append(f"{where} (outside the clone)")
            elif not dest.exists():
                broken.append(f"{where} (no {rel})")
            elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
                broken.append(f"{where} (no heading #{fragment} in {rel})")
    assert broken == []

"""The commit record's file: the last durable commit, kept outside the database.

Owns: the file's two formats and writing it in place. A record is one JSON object
(``seq``, ``event_id``, ``chain``, ``mac``). The file holds two fixed slots of
``SLOT_BYTES`` each, written alternately in place (``pwrite`` then ``fdatasync``:
one flush, no rename, no folder sync), so a write torn by a power cut spoils only
the slot being written and the other still holds the commit before it. A file of
one JSON object (written by the earlier whole-file replace) is read too, and
replaced atomically by the two-slot file at its first write. I/O: that file only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cabinet.shell.journal.keys import fsync_dir

#: Bytes of one slot: a record (about 170 bytes) padded with spaces, then a newline.
SLOT_BYTES = 256
SLOTS = 2


def read_records(path: Path) -> list[dict[str, Any]] | None:
    """Every record the file holds that parses (not yet checked against its ``mac``):
    one for a single-object file, up to ``SLOTS`` for a slotted one.

    Returns:
        ``None`` when the file cannot be read or holds no record at all.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        whole = json.loads(data)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        return [whole]
    out = []
    for i in range(0, min(len(data), SLOTS * SLOT_BYTES), SLOT_BYTES):
        try:
            rec = json.loads(data[i : i + SLOT_BYTES])
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out or None


def _slot(rec: dict[str, Any]) -> bytes:
    line = json.dumps(rec, separators=(",", ":")).encode()
    if len(line) >= SLOT_BYTES:
        raise ValueError(f"commit record of {len(line)} bytes exceeds its slot")
    return line.ljust(SLOT_BYTES - 1) + b"\n"


class RecordFile:
    """The commit record's file, held open for writing in place (see the module doc)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._next = 0

    def write(self, rec: dict[str, Any]) -> None:
        """Record ``rec`` durably: in the slot after the last one written.

        Raises:
            OSError: the file cannot be written or flushed.
        """
        slot = _slot(rec)
        if self._fd is None:
            self._create(slot)
            return
        os.pwrite(self._fd, slot, self._next * SLOT_BYTES)
        os.fdatasync(self._fd)
        self._next = (self._next + 1) % SLOTS

    def _create(self, slot: bytes) -> None:
        """A fresh two-slot file (both slots ``slot``) replacing whatever was there
        atomically (fsynced, renamed, the folder synced), then held open."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, slot * SLOTS)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        fsync_dir(self.path.parent)
        self._fd = os.open(self.path, os.O_WRONLY)
        self._next = 0

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

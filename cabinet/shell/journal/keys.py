"""The journal's keyed checksums and its key file.

Owns: the plain SHA-256 row checksum of old journals, the keyed checksum
(HMAC-SHA256) of a critical row, the event log's hash-chain link, and the
per-cabinet secret in a 0600 file beside the journal. I/O: the key file only.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cabinet.core.errors import StoreError

#: Prefix of a keyed checksum (HMAC-SHA256); a bare hex digest is the old plain SHA-256.
MAC_PREFIX = "hmac:"
log = logging.getLogger("cabinet.store")


def checksum(name: str, seq: int, blob: bytes) -> str:
    """SHA-256 over the row's name, commit number and contents (hex)."""
    h = hashlib.sha256()
    h.update(f"{name}:{seq}:".encode())
    h.update(blob)
    return h.hexdigest()


def mac(key: bytes, name: str, seq: int, blob: bytes) -> str:
    """Keyed checksum of a critical row: ``"hmac:"`` + HMAC-SHA256 hex."""
    return MAC_PREFIX + hmac.digest(key, f"{name}:{seq}:".encode() + blob, "sha256").hex()


def event_link(key: bytes, prev: str, row: Sequence[Any]) -> str:
    """The hash chain over the event log: HMAC-SHA256 of the previous link and the
    row ``(id, seq, wall_s, kind, station, amount_minor, data)`` as stored (hex)."""
    msg = f"{prev}\x1f{row[0]}\x1f{row[1]}\x1f{float(row[2])!r}\x1f{row[3]}\x1f{row[4]}\x1f{row[5]}\x1f{row[6]}"
    return hmac.digest(key, msg.encode(), "sha256").hex()


def load_key(path: Path, create: bool) -> tuple[bytes | None, bool]:
    """The per-cabinet secret: 32 random bytes, hex in a 0600 file beside the journal.

    With ``create`` (a read-write open) a key file of ours that others may read is
    made 0600 again (a copy restored from a backup keeps the copy's mode), logged.

    Returns:
        ``(key, created)``; ``(None, False)`` when the file is missing and
        ``create`` is false, or cannot be read (another user).

    Raises:
        StoreError: the file exists but does not hold a key, or cannot be created.
    """
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        if not create:
            return None, False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise StoreError(f"journal key {path}: cannot create: {e.strerror or e}") from None
        fsync_dir(path.parent)
        log.warning("journal key created: %s", path)
        return load_key(path, False)[0], True
    except OSError:
        return None, False
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise StoreError(f"journal key {path}: not a key file")
    if create:
        owner_only_key(path)
    return key, False


def owner_only_key(path: Path) -> None:
    """chmod the key file 0600 when it is ours and others may read it (logged)."""
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and st.st_mode & 0o077:
            os.chmod(path, 0o600)
            log.warning("journal key %s had mode %04o: made 0600", path, stat.S_IMODE(st.st_mode))
    except OSError as e:
        raise StoreError(f"journal key {path}: cannot make it owner-only: {e.strerror or e}") from None


def fsync_dir(folder: Path) -> None:
    """fsync a folder (a file created or replaced in it stays); errors ignored."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

"""Where the audit report goes, and writing it: the shell's side of the
menu's Export item (the core builds the rows, ``cabinet.core.maintenance.export``,
and asks with ``ExportAudit``).

Owns: ``usb_mounts`` (mounted removable media under ``/media``, ``/run/media``
or ``/mnt``, read from ``/proc/mounts``), ``export_dir`` (``CABINET_EXPORT_DIR``,
else the first USB stick mounted, else ``exports/`` beside the journal) and
``write_audit`` (the CSV, written to a temporary name and renamed, then
fsynced; returns the ``AuditExported`` event the engine feeds back).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from cabinet.core.effects import ExportAudit
from cabinet.core.events import AuditExported

#: Where desktop automounters and ``udisks`` mount a USB stick.
MOUNT_ROOTS = ("/media/", "/run/media/", "/mnt/")


def usb_mounts(mounts: str) -> list[Path]:
    """Mount points of removable media in ``mounts`` (the text of ``/proc/mounts``),
    in order: a ``vfat``/``exfat``/``ntfs``/``ext4`` file system mounted under
    ``MOUNT_ROOTS``. Octal escapes (``\\040`` for a space) are decoded."""
    found = []
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].encode().decode("unicode_escape")
        if point.startswith(MOUNT_ROOTS) and parts[2] in ("vfat", "exfat", "ntfs", "ntfs3", "ext4", "fuseblk"):
            found.append(Path(point))
    return found


def export_dir(journal_dir: Path, mounts_file: Path = Path("/proc/mounts")) -> Path:
    """Where the report goes: ``CABINET_EXPORT_DIR``, else the first writable USB stick
    (``usb_mounts``), else ``journal_dir / "exports"``."""
    env = os.environ.get("CABINET_EXPORT_DIR")
    if env:
        return Path(env)
    try:
        text = mounts_file.read_text()
    except OSError:
        text = ""
    for point in usb_mounts(text):
        if os.access(point, os.W_OK):
            return point
    return journal_dir / "exports"


def write_csv(rows: list[tuple[str, ...]] | tuple[tuple[str, ...], ...], path: Path) -> None:
    """Write ``rows`` to ``path`` as CSV, atomically (temporary file, fsync, rename).

    Raises:
        OSError: the folder cannot be made or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def write_audit(eff: ExportAudit, folder: Path, wall_s: float) -> AuditExported:
    """Write ``eff``'s report into ``folder``; the event says where, or why not."""
    path = folder / eff.name
    try:
        write_csv(eff.rows, path)
    except OSError as e:
        return AuditExported(str(path), f"{type(e).__name__}: {e.strerror or e}", wall_s)
    return AuditExported(str(path), "", wall_s)

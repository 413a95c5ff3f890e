"""Default places for the journal and the UI socket.

Owns: ``default_data_dir`` and ``default_socket`` (platformdirs), overridable
by the ``CABINET_DATA_DIR`` and ``CABINET_SOCKET`` environment variables and
by command-line flags; ``private_dir`` and ``private_file``, which make (or
check) the owner-only folders and files the journal, the socket and its token
live in. I/O: the environment and those permission checks.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import platformdirs

APP = "blackjack-cabinet"


def default_data_dir() -> Path:
    """Where the journal lives: ``$CABINET_DATA_DIR`` or the user data directory."""
    env = os.environ.get("CABINET_DATA_DIR")
    return Path(env) if env else Path(platformdirs.user_data_dir(APP))


def default_journal() -> Path:
    return default_data_dir() / "journal.db"


def default_socket() -> Path:
    """The UI socket: ``$CABINET_SOCKET``, else ``/run/cabinet/ui.sock`` when that
    folder is writable (systemd's RuntimeDirectory), else the user runtime dir."""
    env = os.environ.get("CABINET_SOCKET")
    if env:
        return Path(env)
    run = Path("/run/cabinet")
    if run.is_dir() and os.access(run, os.W_OK):
        return run / "ui.sock"
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(base) / APP / "ui.sock"


def lock_file(journal: Path) -> Path:
    """The engine's lock beside the journal (one engine per journal)."""
    return journal.with_name(journal.name + ".lock")


def key_file(journal: Path) -> Path:
    """The per-cabinet HMAC secret beside the journal, mode 0600."""
    return journal.with_name(journal.name + ".key")


def commit_file(journal: Path) -> Path:
    """The fsynced, HMAC'd record of the last durable commit number."""
    return journal.with_name(journal.name + ".commit")


def private_dir(path: Path, *, group_ok: bool = False, tighten: bool = False) -> Path:
    """Make ``path`` (and its parents) if missing, owner-only; refuse one others could use.

    A folder this call creates gets mode 0700 whatever the umask. An existing
    one must be a real folder (not a symlink) owned by our effective user and
    writable by no one else; ``group_ok`` also allows group read/search (0750:
    systemd's ``RuntimeDirectoryMode`` for a UI user in the group). With
    ``tighten`` an existing folder of ours that others may read is chmod-ed to
    0700 (the cabinet's own state folder) instead of refused.

    Returns: ``path``.

    Raises:
        PermissionError: not a folder, not ours (e.g. a ``blackjack-cabinet``
            folder another user made first in the shared temp dir), or open to
            others; the message names the folder, its owner and mode.
    """
    try:
        path.mkdir(mode=0o700, parents=True)
        os.chmod(path, 0o700)  # mkdir's mode is cut by the umask; be exact
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise PermissionError(f"{path}: not a folder (a symlink or a file); refusing it")
    if st.st_uid != os.geteuid():
        raise PermissionError(f"{path}: owned by uid {st.st_uid}, not by us (uid {os.geteuid()}); refusing it")
    problem = open_to_others(path, group_ok=group_ok)
    if problem is not None:
        if tighten:
            os.chmod(path, stat.S_IMODE(st.st_mode) & (0o750 if group_ok else 0o700))
        else:
            raise PermissionError(problem)
    return path


def open_to_others(path: Path, *, group_ok: bool = False) -> str | None:
    """Why the mode of folder ``path`` lets others in (any bit for others, or group
    write; group read/search too unless ``group_ok``), or ``None`` when it does not.

    Raises:
        OSError: ``path`` cannot be stat-ed.
    """
    mode = stat.S_IMODE(os.stat(path).st_mode)
    allowed = 0o750 if group_ok else 0o700
    if mode & ~allowed & 0o777:
        return f"{path}: mode {mode:04o} lets others in (at most {allowed:04o}); chmod it or choose another folder"
    return None


def private_file(path: Path, mode: int = 0o600) -> None:
    """Create ``path`` empty with exactly ``mode`` if missing (umask-independent),
    or chmod an existing file of ours to ``mode`` (someone else's is left as it
    is: the open that follows fails or succeeds on its own terms); never follows
    a symlink.

    Raises:
        PermissionError: ``path`` is a symlink or not a regular file.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            raise PermissionError(f"{path}: not a regular file (a symlink?); refusing it") from None
        if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) != mode:
            os.chmod(path, mode)
        return
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)

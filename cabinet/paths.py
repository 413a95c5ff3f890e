"""Default places for the journal and the UI socket.

Owns: ``default_data_dir`` and ``default_socket`` (platformdirs), overridable
by the ``CABINET_DATA_DIR`` and ``CABINET_SOCKET`` environment variables and
by command-line flags. Pure apart from reading the environment.
"""

from __future__ import annotations

import os
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
    """The engine's lock beside the journal (one engine per journal, issue 11.5)."""
    return journal.with_name(journal.name + ".lock")


def key_file(journal: Path) -> Path:
    """The per-cabinet HMAC secret beside the journal, mode 0600 (issue 11.14)."""
    return journal.with_name(journal.name + ".key")


def commit_file(journal: Path) -> Path:
    """The fsynced, HMAC'd record of the last durable commit number (issue 11.2)."""
    return journal.with_name(journal.name + ".commit")

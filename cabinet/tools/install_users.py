"""``cabinet install``'s users: the engine's, the table UI's, and who owns the journal.

Owns: ``Accounts`` (the two system users and their supplementary groups), creating
them (``create``: no login, no home, safe to run again) and the journal folder's
owner and modes (``own_state``). The split:

- the engine's user (``cabinet``) owns the journal folder ``STATE_DIR`` (0700) and
  everything in it (the journal, its key, its commit record: owner-only); its groups
  are the devices' (gpio, dialout, i2c: the hardware counter) and the UI's group, so that it can hand the UI
  socket's folder, the socket and the token file to that group
  (``CABINET_SOCKET_GROUP`` in ``cabinet-engine.service``);
- the table UI's user (``cabinet-ui``) is in the display, input and sound groups and
  its own group, which is the socket's; it is not in the engine's group, so the
  journal, the key and the config (``root:cabinet`` 0640) are closed to it.

Commands go through the installer (``Installer.command``): under ``--root`` they are
printed as skipped. I/O: through the installer only; ``id`` to see whether a user exists.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

#: The UI's user has no home (the engine's: its journal folder).
UI_HOME = PurePosixPath("/nonexistent")
NOLOGIN = "/usr/sbin/nologin"


@dataclass(frozen=True)
class Accounts:
    """The two system users. ``ui`` is also the name of the UI's own group (the
    socket's group, which the engine's user joins)."""

    engine: str = "cabinet"
    ui: str = "cabinet-ui"
    engine_groups: tuple[str, ...] = ("gpio", "dialout", "i2c")
    ui_groups: tuple[str, ...] = ("video", "render", "input", "audio", "tty")


class _Installer(Protocol):
    """What these steps use of ``cabinet.tools.install.Installer``."""

    @property
    def accounts(self) -> Accounts: ...

    @property
    def run_cmd(self) -> object: ...

    def command(self, *argv: str, check: bool = True) -> None: ...

    def at(self, path: PurePosixPath) -> object: ...


def exists(name: str) -> bool:
    """A user ``name`` is known to the system (``id -u``)."""
    return subprocess.run(["id", "-u", name], capture_output=True).returncode == 0


def create(inst: _Installer, engine_home: PurePosixPath) -> None:
    """The groups, then the UI's user, then the engine's (who joins the UI's group):
    system users with no login and no home made (``engine_home``: the journal folder,
    named as the engine user's home); each one's supplementary groups set to exactly
    its list (an older install's single user loses the display's)."""
    acc = inst.accounts
    for group in (*acc.engine_groups, *acc.ui_groups):
        inst.command("groupadd", "--force", "--system", group)
    for name, home, groups in (
        (acc.ui, UI_HOME, acc.ui_groups),
        (acc.engine, engine_home, (*acc.engine_groups, acc.ui)),
    ):
        if inst.run_cmd is None or not exists(name):
            inst.command(
                "useradd",
                "--system",
                "--home-dir",
                str(home),
                "--no-create-home",
                "--shell",
                NOLOGIN,
                "--user-group",
                name,
            )
        inst.command("usermod", "--groups", ",".join(groups), name)


def own_state(inst: _Installer, state_dir: PurePosixPath) -> None:
    """The journal folder and all in it the engine user's and owner-only (a restored
    copy keeps its copy's owner and modes; this puts them back)."""
    acc = inst.accounts
    path = str(inst.at(state_dir))
    inst.command("chown", "-R", f"{acc.engine}:{acc.engine}", path)
    inst.command("chmod", "-R", "go=", path)

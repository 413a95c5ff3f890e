"""Named screenshots of a ``cabinet run``, taken by its table UI processes.

Owns: ``Shots`` (one per UI process: SIGUSR1 for a settled screenshot, the UI's
own mode-change frames, copied into the run folder), and following a UI that
was restarted (``follow``). Used by ``cabinet.tools.launcher``. Nothing here
imports pygame.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

#: How long a settled screenshot may take.
SHOT_TIMEOUT_S = 15.0


class Shots:
    """Named screenshots in the run folder, taken by the UI process.

    ``settled(name)`` sends the UI SIGUSR1 and waits for its ``shot-NNN.png``
    (saved once the animations are over); ``grab(pattern, name)`` keeps the
    newest of the UI's own mode-change screenshots matching ``pattern``.
    Both copy to ``NN-name.png`` in the run folder.
    """

    def __init__(self, ui: Any, frames: Path, out: Path, prefix: str = "") -> None:
        """``ui``: the launcher's ``Child`` running the UI (its ``proc`` is signalled)."""
        self.ui = ui
        self._lock = threading.Lock()  # the shared screen's players ask from their threads
        self.prefix = prefix  # ``station2-``: whose screen
        self.frames = frames
        self.out = out
        self.count = 0
        self.signals = 0
        self.saved: list[Path] = []

    def follow(self, ui: Any, frames: Path) -> None:
        """The UI was restarted as ``ui`` with its screenshots in ``frames`` (a new
        folder: the new process numbers its ``shot-NNN.png`` from 001 again)."""
        with self._lock:
            self.ui, self.frames, self.signals = ui, frames, 0

    def _keep(self, src: Path, name: str, prefix: str | None = None) -> Path:
        self.count += 1
        dst = self.out / f"{self.prefix if prefix is None else prefix}{self.count:02d}-{name}.png"
        shutil.copyfile(src, dst)
        self.saved.append(dst)
        return dst

    def settled(self, name: str, prefix: str | None = None) -> Path | None:
        with self._lock:
            self.signals += 1
            path = self.frames / f"shot-{self.signals:03d}.png"
            try:
                os.kill(self.ui.proc.pid, signal.SIGUSR1)
            except ProcessLookupError:  # the UI died; the launcher restarts it
                print(f"cabinet run: screenshot {name}: the table UI is gone", file=sys.stderr)
                return None
            deadline = time.monotonic() + SHOT_TIMEOUT_S
            while time.monotonic() < deadline:
                if path.exists():
                    return self._keep(path, name, prefix)
                if self.ui.proc.poll() is not None:
                    break  # it died before saving: no waiting for a dead UI
                time.sleep(0.05)
        print(f"cabinet run: screenshot {name} timed out", file=sys.stderr)
        return None

    def grab(self, pattern: str, name: str, prefix: str | None = None) -> Path | None:
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            found = sorted(p for p in self.frames.glob(pattern) if not p.name.startswith("."))
            if found:
                return self._keep(found[-1], name, prefix)
            time.sleep(0.05)
        return None

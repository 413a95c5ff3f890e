"""``cabinet run``: watching the table UI processes, and starting a station's again.

Owns: ``UIKeeper``, which the launcher's loop asks which UI's end ends the run.
On a multi-station cabinet with a screen per station one player's screen dying
must not end the others' game: a station UI that crashed or was killed is started
again after ``RESTART_S`` (as ``systemd/cabinet-ui@.service`` does, ``Restart=always``,
``RestartSec=2``), with a line saying so, and the run goes on. The run still ends when
a window is closed by its player (status 0 in a window: F10 or the close button),
when a UI was started ``MAX_RESTARTS`` times and died again (a UI that cannot start:
a run is not a cabinet in the field, whose unit has no start limit), and whenever a
single UI (one station, or the shared screen) ends. The processes are started by the
``start`` callable the launcher hands in; nothing here imports pygame.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Seconds between a station UI's death and its new start (``RestartSec=2``).
RESTART_S = 2.0
#: Starts again per station in one run before its death ends the run.
MAX_RESTARTS = 5


class UIKeeper:
    """The run's table UIs (``uis[i]`` draws station ``i + 1``; the launcher's ``Child``).

    Args:
        uis: the UI processes, station 1's first; replaced in place when one is started again.
        children: the launcher's list of every child (stopped in reverse at the end);
            a UI started again takes the old one's place in it.
        shots: each UI's ``run_shots.Shots`` (told where the new UI saves its screenshots).
        start: ``start(station, frames) -> Child``: start station's UI saving its
            screenshots in ``frames``.
        frames: each station UI's screenshot folder (a restart uses ``restart-N`` in it).
        restart: start a dead UI again (several per-station screens); ``False``: the
            first UI to end ends the run.
        windowed: a UI that exits 0 in a window was closed by its player: the run ends.
    """

    def __init__(
        self,
        uis: list[Any],
        children: list[Any],
        shots: list[Any],
        start: Callable[[int, Path], Any],
        frames: list[Path],
        *,
        restart: bool,
        windowed: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.uis = uis
        self.children = children
        self.shots = shots
        self.start = start
        self.frames = frames
        self.restart = restart
        self.windowed = windowed
        self.clock = clock
        self.restarts = [0] * len(uis)
        self._died: dict[int, float] = {}
        self._drawing: dict[int, Path] = {}

    def ended(self) -> Any | None:
        """The UI whose end ends the run, or ``None`` (all running, or one being
        started again). Starts again a dead station UI whose ``RESTART_S`` is up."""
        for i, ui in enumerate(self.uis):
            if ui.running:
                if i in self._drawing and ui.wait_line("first frame", 0.01) is not None:
                    # only now may it be signalled: SIGUSR1 before its handler kills it
                    self.shots[i].follow(ui, self._drawing.pop(i))
                continue
            self._drawing.pop(i, None)
            status = ui.proc.returncode
            closed = self.windowed and status == 0
            if not self.restart or closed or self.restarts[i] >= MAX_RESTARTS:
                return ui
            now = self.clock()
            if i not in self._died:
                self._died[i] = now
                print(
                    f"cabinet run: station {i + 1}'s table UI stopped (status {status}); "
                    f"starting it again in {RESTART_S:g} s (see {ui.log_path})",
                    file=sys.stderr,
                    flush=True,
                )
            if now - self._died[i] >= RESTART_S:
                self._start_again(i)
        return None

    def _start_again(self, i: int) -> None:
        old = self.uis[i]
        old.stop()  # already dead: closes its log, joins its reader
        self.restarts[i] += 1
        frames = self.frames[i] / f"restart-{self.restarts[i]}"
        frames.mkdir(parents=True, exist_ok=True)
        new = self.start(i + 1, frames)
        self.uis[i] = new
        self.children[self.children.index(old)] = new
        self._drawing[i] = frames  # ``shots`` follow it once it draws (``ended``)
        del self._died[i]
        print(
            f"cabinet run: station {i + 1}'s table UI stopped (status {old.proc.returncode}); "
            f"started it again (pid {new.proc.pid}, restart {self.restarts[i]} of "
            f"{MAX_RESTARTS}); the other stations play on",
            file=sys.stderr,
            flush=True,
        )

"""The engine and the table UI as real processes in a temporary folder.

Used by ``test_end_to_end.py``, ``test_process_life.py`` and ``bench/table_ui.py``.
The engine runs with every device simulated (``--devices sim``); the UI runs
on SDL's dummy driver with ``--screenshot-dir``, so SIGUSR1 saves a settled
screenshot and the UI prints its path. Every wait has a timeout, and
``stop()`` (call it in ``finally``) leaves no process behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

from cabinet.tools.launcher import Child
from tests.procs import START_DEADLINE_S

#: "engine ready" / "first frame" on a loaded machine (a backstop: ``tests.procs``).
START_TIMEOUT_S = START_DEADLINE_S


class TableProcs:
    """An engine and (optionally) a UI process sharing ``workdir``."""

    def __init__(self, workdir: Path, *, size: str = "800x480") -> None:
        self.dir = workdir
        self.journal = workdir / "journal.db"
        self.sock = workdir / "ui.sock"
        self.sim_sock = workdir / "ui.sock.sim"
        self.sim_dir = workdir / "sim"
        self.shots = workdir / "shots"
        self.size = size
        self.engine: Child | None = None
        self.ui: Child | None = None
        self._shot_count = 0
        self._taken = 0
        self.env = {
            **os.environ,
            "CABINET_LOG": "INFO",
            "SDL_VIDEODRIVER": "dummy",
            "SDL_AUDIODRIVER": "dummy",
            "PYGAME_HIDE_SUPPORT_PROMPT": "1",
        }

    def start_engine(self) -> None:
        self.engine = Child(
            "engine",
            [
                sys.executable,
                "-m",
                "cabinet",
                "engine",
                "--journal",
                str(self.journal),
                "--socket",
                str(self.sock),
                "--devices",
                "sim",
                "--sim-dir",
                str(self.sim_dir),
            ],
            env=self.env,
            log=self.dir / "engine.log",
        )
        if self.engine.wait_line("engine ready", START_TIMEOUT_S) is None:
            raise RuntimeError("engine did not start: " + (self.dir / "engine.log").read_text()[-2000:])

    def start_ui(self) -> None:
        self._shot_count = 0  # a new UI process counts its SIGUSR1 shots from 1
        self.ui = Child(
            "ui",
            [
                sys.executable,
                "-m",
                "ui",
                "--socket",
                str(self.sock),
                "--size",
                self.size,
                "--no-sound",
                "--screenshot-dir",
                str(self.shots),
            ],
            env=self.env,
            log=self.dir / "ui.log",
        )
        if self.ui.wait_line("first frame", START_TIMEOUT_S) is None:
            raise RuntimeError("UI did not start: " + (self.dir / "ui.log").read_text()[-2000:])

    def shot(self, timeout_s: float = 60.0) -> Path:
        """SIGUSR1 the UI; once saved, a copy of the settled screenshot (``taken-NN.png``).

        Raises:
            TimeoutError: the UI did not report it within ``timeout_s``.
        """
        assert self.ui is not None
        self._shot_count += 1
        expected = self.shots / f"shot-{self._shot_count:03d}.png"
        os.kill(self.ui.proc.pid, signal.SIGUSR1)
        line = self.ui.wait_line(f"screenshot {expected}", timeout_s)
        if line is None:
            raise TimeoutError(
                f"no screenshot {expected}: " + (self.dir / "ui.log").read_text(errors="replace")[-2000:]
            )
        self._taken += 1  # a restarted UI numbers from 1 again: keep each under its own name
        kept = self.shots / f"taken-{self._taken:02d}.png"
        shutil.copyfile(expected, kept)
        return kept

    def kill(self, which: str) -> None:
        """SIGKILL the engine or the UI and reap it."""
        child = self.engine if which == "engine" else self.ui
        assert child is not None
        child.proc.kill()
        child.proc.wait(10)
        child.stop()

    def stop(self) -> None:
        for child in (self.ui, self.engine):
            if child is not None:
                child.stop()


def felt_green_fraction(path: Path) -> float:
    """Share of pixels that are the table's felt green (green well above red and blue)."""
    from PIL import Image

    img = Image.open(path).convert("RGB").resize((160, 96))
    data = img.tobytes()
    px = [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]
    return sum(1 for r, g, b in px if g > r + 25 and g > b + 10) / len(px)


def decode_itf_png(path: Path) -> str:
    """Scan a printed ticket PNG row by row until a line decodes as ITF (as tests/drivers do)."""
    from PIL import Image

    from drivers.sim import itf

    img = Image.open(path).convert("L")
    w, h = img.size
    px = img.load()
    for y in range(0, h, 2):
        row = [px[x, y] < 128 for x in range(w)]
        try:
            return itf.decode_runs(itf.runs_of(row))
        except ValueError:
            continue
    raise AssertionError("no ITF barcode found in the PNG")

"""The hardware monotonic counter's twin: its value in a file of its own.

Owns: ``FileCounter``. The file must sit outside the journal's folder (elsewhere than
the SD card's copy of the journal: a USB stick, another partition, or in tests a
folder an image restore does not touch); a missing file reads 0, as a new chip does.
Each step is written to a temporary file, fsynced and renamed over the old one.
Must not import: cabinet.*. I/O: the counter file.
"""

from __future__ import annotations

import os
from pathlib import Path

from drivers.errors import DeviceOfflineError, ProtocolError
from drivers.interfaces import MonotonicCounter

#: The ATECC608's limit (its counters stop at 2,097,151); the twin keeps the same.
COUNTER_MAX = 2_097_151


class FileCounter(MonotonicCounter):
    """A ``MonotonicCounter`` in the file ``path`` (decimal text)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def read(self) -> int:
        try:
            text = self.path.read_text().strip()
        except FileNotFoundError:
            return 0
        except OSError as e:
            raise DeviceOfflineError(f"counter twin {self.path}: {e.strerror or e}") from None
        if not text.isdigit():
            raise ProtocolError(f"counter twin {self.path}: not a counter value: {text[:20]!r}")
        return int(text)

    def increment(self) -> int:
        value = self.read() + 1
        if value > COUNTER_MAX:
            raise ProtocolError(f"counter twin {self.path}: at its limit {COUNTER_MAX}")
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(f"{value}\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as e:
            raise DeviceOfflineError(f"counter twin {self.path}: {e.strerror or e}") from None
        return value

    def close(self) -> None:
        pass

"""The hardware monotonic counter beside the journal's commit record.

Owns: opening the fitted counter (``[journal] counter`` of ``cabinet.toml``, see
``drivers.factory.open_counter``), the value each commit record carries, when the
counter steps, and the finding at start. A counter lives off the SD card, so an
image of the card restored over the journal brings back an older commit record
whose value is behind the counter: "journal rolled back" (a RAM error at start,
a failing ``cabinet doctor``).

The counter steps once per durable commit that added to the event log (money and
meter events: a note, a round, a cash-out), not per press: the ATECC608's counters
stop at 2,097,151. The record is written first, then the counter steps, so a power
cut between the two leaves the record one ahead of the counter, never behind: only
a record behind the counter is a rollback.
A driver's errors (``drivers.errors``: ``ConfigError`` and ``ProtocolError`` are
``ValueError``, ``DeviceOfflineError`` an ``OSError``) are caught as those builtins, so
the journal loads no driver module unless a counter is named. Whoever opens the
counter (``open_fitted``: the engine, ``cabinet doctor``) closes it; a ``Store`` given
one only uses it.
I/O: the counter's device (through ``drivers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cabinet.core.errors import ConfigError, StoreError

if TYPE_CHECKING:  # the drivers' contracts load only with a counter named
    # named here for the tools, which may not import drivers (tests/test_layers.py)
    from drivers.interfaces import MonotonicCounter as MonotonicCounter

#: The config key naming the fitted counter (``cabinet.shell.config.JournalSection``).
KEY = "journal.counter"


def open_fitted(spec: str, source: str = "") -> MonotonicCounter | None:
    """The counter ``spec`` (``[journal] counter``) names, opened; ``None`` for ``none``.

    Args:
        source: the config file, named in the error.

    Raises:
        ConfigError: keyed ``journal.counter``: a spec that names no counter, or a
            bus that cannot be opened (I2C not enabled, no such bus, no permission:
            nothing a restart mends).
    """
    if spec.strip() in ("", "none"):
        return None
    from drivers.factory import open_counter  # the drivers' chooser: only when one is named

    try:
        return open_counter(spec)
    except ConfigError as e:
        raise ConfigError(KEY, e.reason, source) from None
    except (ValueError, OSError) as e:
        raise ConfigError(KEY, f"{spec!r}: {e}", source) from None


class CounterRecord:
    """The fitted ``counter`` and what the journal knows of it: ``value`` (last read
    or stepped to) and ``event_id`` (the event log's last id when a record was last
    written or read: the log grown past it steps the counter)."""

    def __init__(self, counter: MonotonicCounter) -> None:
        self.counter = counter
        self.value: int | None = None
        self.event_id: int | None = None

    def check(self, recorded: int | None, event_id: int) -> list[str]:
        """Findings for a commit record that carries ``recorded`` (``None``: written
        before the counter was fitted) and ends at event ``event_id``."""
        try:
            self.value = self.counter.read()
        except (ValueError, OSError) as e:
            return [f"the hardware counter cannot be read: {e}"]
        self.event_id = event_id
        if recorded is not None and recorded < self.value:
            return [
                f"journal rolled back: the hardware counter reads {self.value}, the "
                f"journal's commit record {recorded} (an older copy of the journal, "
                "e.g. a restored SD-card image)"
            ]
        return []

    def next_value(self, event_id: int) -> int:
        """The value the record about to be written carries: one past the counter
        when the event log grew since the last record, else the counter's.

        Raises:
            StoreError: the counter cannot be read.
        """
        try:
            if self.value is None:
                self.value = self.counter.read()
        except (ValueError, OSError) as e:
            raise StoreError(f"hardware counter cannot be read: {e}") from None
        return self.value + 1 if event_id != self.event_id else self.value

    def written(self, value: int, event_id: int) -> None:
        """The record carrying ``value`` is on disk: step the counter up to it.

        Raises:
            StoreError: the counter did not step (the commit is then not done).
        """
        self.event_id = event_id
        try:
            while self.value is not None and self.value < value:
                self.value = self.counter.increment()
        except (ValueError, OSError) as e:
            raise StoreError(f"hardware counter did not step: {e}") from None

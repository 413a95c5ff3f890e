"""systemd's service notifications for the engine: ready, watchdog pings, stopping.

Owns: telling systemd (``Type=notify``) that the engine is ready once its journal
check and device start-up are done, and the watchdog pings (``WatchdogSec=``) sent
from the engine's asyncio event loop and from nowhere else: a loop blocked longer
than ``WatchdogSec`` sends none, and systemd kills and restarts the engine (a
loop blocked for 15 s would otherwise go unnoticed, holding a note at vend valid).

The messages go through ``cysystemd`` (libsystemd's own ``sd_notify()``, which
knows ``$NOTIFY_SOCKET`` paths, abstract ``@`` names and the newer transports).
Without ``$NOTIFY_SOCKET`` (not started by systemd: a development run, most
tests) every call does nothing and ``cysystemd`` is not even imported. I/O: a
shell module (a datagram per message).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping

log = logging.getLogger("cabinet.sd_notify")

#: Pings per ``WatchdogSec``: systemd's advice is at least two (sd_watchdog_enabled(3)).
PINGS_PER_PERIOD = 3


def watchdog_interval_s(environ: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """Seconds between watchdog pings, or ``None`` when systemd asked for none.

    From ``$WATCHDOG_USEC`` (``WatchdogSec=`` in microseconds) divided by
    ``PINGS_PER_PERIOD``; ``None`` when it is unset, not a positive integer, or
    ``$WATCHDOG_PID`` names another process (the rules of sd_watchdog_enabled(3)).
    """
    env = os.environ if environ is None else environ
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    if usec <= 0:
        return None
    owner = env.get("WATCHDOG_PID")
    if owner and owner.isdigit() and int(owner) != (os.getpid() if pid is None else pid):
        return None
    return usec / 1_000_000 / PINGS_PER_PERIOD


class Notifier:
    """Sends ``READY=1``, ``WATCHDOG=1`` and ``STOPPING=1`` to systemd, if it listens.

    Args:
        environ: the environment to read ``$NOTIFY_SOCKET``/``$WATCHDOG_USEC`` from
            (``os.environ`` by default; ``cysystemd`` itself reads the process's).
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.enabled = bool(env.get("NOTIFY_SOCKET"))
        self.interval_s = watchdog_interval_s(env) if self.enabled else None
        #: Messages sent per name (``{"READY": 1, "WATCHDOG": 40}``): diagnostics, tests.
        self.sent: dict[str, int] = {}

    def _send(self, name: str) -> None:
        if not self.enabled:
            return
        from cysystemd.daemon import Notification, notify

        result = notify(Notification[name])  # an exception is returned, not raised
        if isinstance(result, Exception):
            log.warning("sd_notify %s=1 failed: %s", name, result)
            return
        self.sent[name] = self.sent.get(name, 0) + 1

    def ready(self) -> None:
        """``READY=1``: the journal is checked and the devices are started."""
        self._send("READY")

    def stopping(self) -> None:
        """``STOPPING=1``: a clean shutdown has begun."""
        self._send("STOPPING")

    def ping(self) -> None:
        """``WATCHDOG=1`` now (the watchdog task calls it from the event loop)."""
        self._send("WATCHDOG")

    async def watchdog(self) -> None:
        """Ping every ``interval_s`` from the running event loop until cancelled.

        Runs only as a task on the engine's loop: anything that blocks the loop
        (a handler that sleeps, a hung call) stops the pings with it. Returns at
        once when systemd asked for no watchdog.
        """
        if self.interval_s is None:
            return
        while True:
            self.ping()
            await asyncio.sleep(self.interval_s)

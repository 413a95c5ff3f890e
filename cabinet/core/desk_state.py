"""``PlayerDesk``: what the players' own panels hold between events.

Owns: the state behind ``cabinet.core.player_desk`` (kept apart so that the core's
contexts can name it without importing the operator menu package, which imports
them back). Memory only, never journaled: a restart closes the panels and takes a
reminder off the screen. The sessions and the Service calls are committed state
(``StationState.session``, ``service_called``).
"""

from __future__ import annotations

from cabinet.protocol.snapshot import RealityCheck, RoundLine


class PlayerDesk:
    """The stations' own panels: station -> its History rows while open; station ->
    the reality check on its screen (``cabinet.core.sessions``)."""

    def __init__(self) -> None:
        self.history: dict[int, list[RoundLine]] = {}
        self.shown: dict[int, RealityCheck] = {}

"""``PlayerDesk``: what the players' own panels hold between events (issue 17).

Owns: the state behind ``cabinet.core.player_desk`` (kept apart so that the core's
contexts can name it without importing the operator menu package, which imports
them back). Memory only, never journaled: a restart closes the panels, cancels the
Service calls and starts the sessions again at the next credit in.
"""

from __future__ import annotations

from cabinet.core.sessions import Session
from cabinet.protocol.snapshot import RoundLine


class PlayerDesk:
    """The stations' own panels: station -> its History rows while open; station ->
    its player's session (``cabinet.core.sessions``); the stations calling the
    attendant (``service``)."""

    def __init__(self) -> None:
        self.history: dict[int, list[RoundLine]] = {}
        self.sessions: dict[int, Session] = {}
        self.service: set[int] = set()

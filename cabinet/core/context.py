"""What the rest of the core may see of the ``Cabinet``: narrow contexts.

Owns: the protocols the cabinet core is written against, so that the operator
menu (``maintenance``) and the snapshot builder (``view``) take a context, not
the ``Cabinet`` class (no import cycle between them and ``machine``):
``RandomSource`` and ``History`` (handed in by the shell; ``NoRandom`` and
``NoHistory`` stand in for them in a cabinet given none), ``MaintenanceContext``
and ``ViewContext`` (what ``Cabinet`` offers them). Pure: types only.
"""

from __future__ import annotations

from typing import Any, Protocol

from cabinet.core.desk_state import PlayerDesk
from cabinet.core.effects import Effect
from cabinet.core.modes import Mode
from cabinet.core.records import RecallEntry, VoucherRecord
from cabinet.core.settings import GameSettings
from cabinet.core.state import CabinetState
from cabinet.game import Round, RuleSet


class RandomSource(Protocol):
    """Shuffles and validation numbers: ``secrets.SystemRandom()`` in production."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


class History(Protocol):
    """Read-only journal history for maintenance screens (the store provides it)."""

    def recall(self, station: int, limit: int) -> list[RecallEntry]: ...

    def events(self, limit: int) -> list[dict[str, Any]]: ...

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` events of one of ``kinds``, newest first."""
        ...

    def vouchers(self, limit: int) -> list[VoucherRecord]: ...

    def outstanding_vouchers(self) -> list[VoucherRecord]: ...


class MaintenanceContext(Protocol):
    """What the operator menu reads and does (``cabinet.core.maintenance``):
    the critical state, the rules in force, the journal's history, the fault
    lines and program identity; it changes the cabinet only by ``apply_settings``
    and ``ram_clear`` (and through ``s``'s menu fields). ``rng``: the shell's random
    source (a PIN's salt); ``secret``: the digits of a PIN being typed, in memory
    only (never journaled)."""

    s: CabinetState
    rules: RuleSet
    history: History
    rng: RandomSource
    secret: str
    program_id: str
    program_digest: str
    host_polls: dict[int, tuple[Any, ...]]
    program_status: str
    #: (station, device) -> firmware version reported (station 0: shared).
    firmware: dict[tuple[int, str], str]

    def fault_lines(self) -> list[str]: ...

    def apply_settings(self, settings: GameSettings, out: list[Effect], level: str = "") -> str | None: ...

    def ram_clear(self, out: list[Effect]) -> None: ...


class ViewContext(MaintenanceContext, Protocol):
    """What the snapshot builder reads (``cabinet.core.view``): the menu's context
    plus the mode, the open round and what each station may do."""

    round: Round | None
    #: the players' own panels (History), memory only
    desk: PlayerDesk

    @property
    def mode(self) -> Mode: ...

    @property
    def uses_chips(self) -> bool: ...

    def seats_in_play(self) -> list[int]: ...

    def legal_actions(self, n: int) -> frozenset[str]: ...


class NoRandom:
    """The random source of a cabinet given none: drawing from it is a bug."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise RuntimeError("no random source: the shell hands the cabinet one")


class NoHistory:
    """The history of a cabinet given none: empty."""

    def recall(self, station: int, limit: int) -> list[RecallEntry]:
        return []

    def events(self, limit: int) -> list[dict[str, Any]]:
        return []

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, Any]]:
        return []

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        return []

    def outstanding_vouchers(self) -> list[VoucherRecord]:
        return []

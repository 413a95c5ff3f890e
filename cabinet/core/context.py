"""What the rest of the core may see of the ``Cabinet``: narrow contexts.

Owns: the protocols the cabinet core is written against, so that the operator
menu (``maintenance``) and the snapshot builder (``view``) take a context, not
the ``Cabinet`` class (no import cycle between them and ``machine``):
``RandomSource`` (handed in by the shell; ``NoRandom`` stands in for it in a
cabinet given none), ``History`` (the journal reader only the shell reads;
``NoHistory``: an empty one), ``LoadedHistory`` (journal rows as the shell loaded
them: ``HistoryLoaded``) and ``rows_for`` (the rows handed in for the event being
handled), ``MaintenanceContext`` and ``ViewContext`` (what ``Cabinet`` offers
them). Pure: types only.
"""

from __future__ import annotations

from typing import Any, Protocol

from cabinet.core.desk_state import PlayerDesk
from cabinet.core.effects import Effect
from cabinet.core.events import HistoryLoaded, HistoryQuery
from cabinet.core.modes import Mode
from cabinet.core.records import RecallEntry, VoucherRecord
from cabinet.core.settings import GameSettings
from cabinet.core.state import CabinetState
from cabinet.game import Round, RuleSet


class RandomSource(Protocol):
    """Shuffles and validation numbers: ``secrets.SystemRandom()`` in production."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


class History(Protocol):
    """Read-only journal history (the store provides it). The core never reads it
    while it handles an event: the shell reads the rows (``shell_inputs.read_history``)
    and hands them in as data (``HistoryLoaded``, answered by ``LoadedHistory``)."""

    def recall(self, station: int, limit: int) -> list[RecallEntry]: ...

    def events(self, limit: int) -> list[dict[str, Any]]: ...

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` events of one of ``kinds``, newest first."""
        ...

    def vouchers(self, limit: int) -> list[VoucherRecord]: ...

    def outstanding_vouchers(self) -> list[VoucherRecord]: ...


class MaintenanceContext(Protocol):
    """What the operator menu reads and does (``cabinet.core.maintenance``):
    the critical state, the rules in force, the journal rows handed in, the fault
    lines and program identity; it changes the cabinet only by ``apply_settings``
    and ``ram_clear`` (``vouchers``: the outstanding vouchers read for it), and
    through ``s``'s menu fields. ``rng``: the shell's random source (a PIN's salt);
    ``secret``: the digits of a PIN being typed, in memory only (never journaled)."""

    s: CabinetState
    rules: RuleSet
    #: the journal rows the open page shows (``HistoryLoaded``): a snapshot reads these
    shown: History
    #: the rows the shell read for the event being handled (``shell_inputs.event_query``),
    #: ``None`` once another event was handled (read them through ``rows_for``)
    handed: HistoryLoaded | None
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

    def ram_clear(self, out: list[Effect], vouchers: History) -> None: ...


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


class LoadedHistory:
    """The journal rows an open menu page shows, as the shell loaded them
    (``HistoryLoaded``; empty before the first load). Answers the ``History``
    protocol from those rows, newest first; pure and cheap, so a snapshot never
    touches the journal."""

    def __init__(self, loaded: HistoryLoaded | None = None) -> None:
        self.loaded = loaded

    def recall(self, station: int, limit: int) -> list[RecallEntry]:
        """The loaded recall rows of ``station`` (0: every station), at most ``limit``."""
        rows = self.loaded.recall if self.loaded is not None else ()
        return [e for e in rows if station in (0, e.station)][:limit]

    def events(self, limit: int) -> list[dict[str, Any]]:
        """The loaded event rows, at most ``limit``."""
        return list(self.loaded.events[:limit]) if self.loaded is not None else []

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, Any]]:
        """The loaded event rows of one of ``kinds``, at most ``limit``."""
        rows = self.loaded.events if self.loaded is not None else ()
        return [r for r in rows if r["kind"] in kinds][:limit]

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        """The loaded vouchers, at most ``limit``."""
        return list(self.loaded.vouchers[:limit]) if self.loaded is not None else []

    def outstanding_vouchers(self) -> list[VoucherRecord]:
        """The loaded vouchers not yet redeemed."""
        return list(self.loaded.outstanding) if self.loaded is not None else []


#: The vouchers not yet redeemed: what a ticket found in the cash box is credited
#: from (validation "none") and what a RAM clear records it keeps.
OUTSTANDING = HistoryQuery(outstanding=True)


def rows_for(handed: HistoryLoaded | None, query: HistoryQuery) -> LoadedHistory | None:
    """The rows handed in for the event being handled, if the shell read exactly
    ``query`` (``shell_inputs.event_query``); ``None``: not read, and a decision on
    them is held or refused, never taken on no rows."""
    return LoadedHistory(handed) if handed is not None and handed.query == query else None

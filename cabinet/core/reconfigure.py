"""Reconfiguring the cabinet from the operator menu: a RAM clear and a change of the
game settings.

Owns: ``ram_clear`` (what is erased and what is kept, research C "RAM clear") and
``apply_settings`` (the settings changed between rounds, journaled old and new),
each called through ``Cabinet.ram_clear`` / ``Cabinet.apply_settings`` by the menu
after it checked the access level. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cabinet.core import maintenance
from cabinet.core.effects import ClearJournal, Effect, Journal
from cabinet.core.maintenance import bill_test
from cabinet.core.settings import GameSettings
from cabinet.core.state import CabinetState, MaintState, StationState

if TYPE_CHECKING:
    from cabinet.core.queries import CabinetQueries


def new_state(settings: GameSettings | None = None) -> CabinetState:
    """A fresh cabinet state (first boot or after a RAM clear)."""
    settings = settings or GameSettings()
    settings.validate()
    return CabinetState(settings=settings, stations=[StationState(station=n) for n in range(1, settings.stations + 1)])


def ram_clear(cab: CabinetQueries, summary: dict[str, Any], out: list[Effect]) -> None:
    """research C "RAM clear": zero credits, meters and history; configure again.

    The caller (the maintenance menu) has checked the access level
    (``maintenance.ram_clear_refusal``). Kept: the settings, the power-up
    count, the voucher sequence and recent acceptor transactions (so an
    outstanding voucher, whose record the journal keeps, is redeemed
    exactly once), the doors' and devices' present state, and the clock.
    The ``ram_clear`` event records what was erased: ``summary``
    (``maintenance.ram_clear_summary``, read before the clear).
    """
    old = cab.s
    cab.s = new_state(old.settings)
    s = cab.s
    s.power_ups, s.voucher_seq, s.recent_txns = old.power_ups, old.voucher_seq, old.recent_txns
    s.doors_open, s.now_ms, s.wall_s = old.doors_open, old.now_ms, old.wall_s
    for st, was in zip(s.stations, old.stations, strict=False):  # the host link lives on;
        h = was.host  # event ids never repeat
        st.host.link, st.host.address, st.host.port = h.link, h.address, h.port
        st.host.link_since_s, st.host.next_event_id = h.link_since_s, h.next_event_id
        st.host.validation, st.host.validation_timeout_ms = h.validation, h.validation_timeout_ms
        st.host.next_ticket_id, st.host.next_cashout_id = h.next_ticket_id, h.next_cashout_id
    s.faults = {c: t for c, t in old.faults.items() if c.startswith(("bill_", "printer_"))}
    s.operator = maintenance.carry_operator(old)  # PIN, lifetime meters
    bill_test.carry(old, s)
    s.needs_config = True
    s.maintenance = MaintState(
        page="settings",
        confirm=maintenance.RAM_CLEARED,
        level=old.maintenance.level if old.maintenance is not None else "attendant",
    )
    s.key_on = True
    cab.round = None
    cab.round_unrestorable = False
    out.append(ClearJournal())
    out.append(
        Journal(
            "ram_clear",
            0,
            sum(summary["credits_minor"].values()),
            {**summary, "access": maintenance.access_name(old)},
        )
    )


def apply_settings(cab: CabinetQueries, settings: GameSettings, out: list[Effect], level: str = "") -> str | None:
    """Change the game settings between rounds; returns an error message or None.
    ``level``: the access level that saved them, journaled."""
    from cabinet.core.errors import ConfigError

    if cab.s.round_open:
        return "finish the round first"
    try:
        rules = settings.validate()
    except ConfigError as e:
        return str(e)
    old = cab.s.settings
    stations = cab.s.stations
    while len(stations) < settings.stations:
        stations.append(StationState(station=len(stations) + 1))
    if settings.stations < len(stations) and any(
        st.credits_minor or st.pending_out_minor for st in stations[settings.stations :]
    ):
        return "stations: a station being removed still holds credits"
    del stations[settings.stations :]
    cab.s.settings = settings
    cab.rules = rules
    for st in stations:
        st.bets_minor = [0] * rules.max_spots_per_seat
        st.chip_log = []
        st.selected_chip_minor = None
        st.last_bets_minor = []
    cab.s.shoe = None
    cab.s.needs_config = False
    cab.round = None
    out.append(
        Journal(
            "settings_changed",
            0,
            0,
            {"old": _settings_dict(old), "new": _settings_dict(settings), **({"level": level} if level else {})},
        )
    )
    return None


def _settings_dict(s: GameSettings) -> dict[str, Any]:
    import msgspec

    out: dict[str, Any] = msgspec.to_builtins(s)
    return out

"""Fixture snapshots of the operator menu's history, Faults, Host and Change PIN pages,
made by the cabinet core itself from a fixed journal history, so the
goldens show what the engine really sends."""

from __future__ import annotations

import random
from typing import Any

from cabinet.core.events import (
    DeviceFaulted,
    HostLinkChanged,
    HostLinkConfigured,
    HostPollsRead,
    IntentReceived,
    KeyChanged,
    PowerUp,
    ProgramChecked,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.records import VoucherRecord
from cabinet.core.shell_inputs import history_query, read_history
from cabinet.protocol.snapshot import Snapshot
from tests.engine.menu_helpers import set_pin, type_pin

WALL = 1_800_000_000.0  # 2027-01-15 08:00 UTC


class _History:
    """A journal's history, fixed: three vouchers, two handpays (one reset by the key,
    one by the casino host)."""

    def recall(self, station: int, limit: int) -> list[Any]:
        return []

    def events(self, limit: int) -> list[dict[str, Any]]:
        return []

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, Any]]:
        rows = [
            _row(6, 5, WALL - 60, "handpay_reset", 1, 250_000),  # one transaction
            _row(5, 5, WALL - 61, "host_command", 1, 0, command="remote_handpay_reset"),
            _row(4, 4, WALL - 900, "handpay", 1, 250_000, hp_kind="jackpot"),
            _row(3, 3, WALL - 3_000, "handpay_reset", 1, 9_800),
            _row(2, 2, WALL - 3_100, "handpay", 1, 9_800, hp_kind="cancelled_credits"),
        ]
        return [r for r in rows if r["kind"] in kinds][:limit]

    def vouchers(self, limit: int) -> list[VoucherRecord]:
        def v(seq: int, number: str, amount: int, status: str, ago_s: float) -> VoucherRecord:
            return VoucherRecord(
                validation_number=number,
                sequence=seq,
                amount_minor=amount,
                station=1,
                issued_wall_s=WALL - ago_s,
                expires_wall_s=WALL - ago_s + 30 * 86_400,
                status=status,
                venue="Casino Royale",
                machine_number="0001",
            )

        return [
            v(3, "004417359902718845", 4_550, "issued", 300),
            v(2, "001928374655647382", 12_000, "redeemed", 7_200),
            v(1, "009988776655443322", 2_500, "issued", 86_400),
        ][:limit]


def _row(id_: int, seq: int, wall_s: float, kind: str, station: int, amount: int, **data: Any) -> dict[str, Any]:
    return {
        "id": id_,
        "seq": seq,
        "wall_s": wall_s,
        "kind": kind,
        "station": station,
        "amount_minor": amount,
        "data": {("kind" if k == "hp_kind" else k): v for k, v in data.items()},
    }


def _cabinet() -> Cabinet:
    cab = Cabinet(new_state(), rng=random.Random(1))
    cab.handle(ProgramChecked("blackjack-cabinet 0.1.0", "3f2a9c01" * 8, "development"))
    cab.handle(HostLinkConfigured(1, 1, "/dev/ttyAMA0", WALL))
    cab.handle(PowerUp(0, WALL))
    return cab


def _press(cab: Cabinet, action: str, value: int | None = None) -> None:
    cab.handle(IntentReceived(1, action, value))


def _open(cab: Cabinet, page: str) -> None:
    cab.handle(KeyChanged(True))
    _press(cab, "menu_pick", [k for k, _ in MAIN_ITEMS].index(page))
    query = history_query(cab)
    if query is not None:  # the page opened: the shell reads what it shows
        cab.handle(read_history(_History(), query))  # type: ignore[arg-type]


def _snap(cab: Cabinet, seq: int) -> Snapshot:
    snap = cab.snapshot(seq)
    assert isinstance(snap, Snapshot)
    return snap


def page_cases() -> list[tuple[str, Snapshot]]:
    """``[(case name, snapshot)]`` for the Voucher and Handpay history, Faults, Host and
    Change PIN pages, and the first-use New PIN entry."""
    out = []
    for name, page, seq in (("maintenance_vouchers", "vouchers", 300), ("maintenance_handpays", "handpays", 301)):
        cab = _cabinet()
        _open(cab, page)
        out.append((name, _snap(cab, seq)))
    cab = _cabinet()
    cab.handle(DeviceFaulted("printer", "printer_paper_out", "paper out", station=1))
    _open(cab, "faults")
    out.append(("maintenance_faults", _snap(cab, 302)))
    cab = _cabinet()
    cab.handle(HostLinkChanged(1, True))
    # the link's live status: polls, the last one's age, line errors on the wire
    cab.handle(HostPollsRead(((1, (1234, WALL - 0.2, True, 0, {"crc": 3, "marker": 1})),)))
    _open(cab, "host")
    out.append(("maintenance_host", _snap(cab, 303)))
    cab = _cabinet()
    set_pin(cab.s)
    _open(cab, "pin_change")  # the technician PIN first
    type_pin(lambda action, value=None: _press(cab, action, value))
    out.append(("maintenance_pin_change", _snap(cab, 304)))
    cab = _cabinet()  # a new cabinet: the factory PIN
    _open(cab, "settings")
    type_pin(lambda action, value=None: _press(cab, action, value), "0000")
    out.append(("maintenance_pin_new", _snap(cab, 305)))
    return out

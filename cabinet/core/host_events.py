"""Which journaled cabinet events the casino host hears of, and under what name.

Owns: ``host_events_for`` (a ``Journal`` effect -> the protocol-neutral host event
names it raises) and ``HOST_QUEUE_MAX``. Pure. The names are the ones of SAS
general poll exceptions (``drivers/sas/exception_codes.py``; research/sas.md
"Exceptions"), but nothing here is SAS wire format: the link maps each name to its
code (``bill_accepted`` by the bill's denomination).

A cabinet-wide event (station 0: doors, power, RAM clear, the operator menu) is heard
by every station's EGM; a station's own event by that station's only.
"""

from __future__ import annotations

from typing import Any

from cabinet.core.effects import Journal

#: Queue length per station (research/sas.md: "FIFO of at least 20, non-volatile"):
#: 31 events and the last slot for ``exception_buffer_overflow``.
HOST_QUEUE_MAX = 32
OVERFLOW = "exception_buffer_overflow"

_DOORS = {
    "main": ("slot_door_opened", "slot_door_closed"),
    "cashbox": ("cash_box_door_opened", "cash_box_door_closed"),
    "logic": ("card_cage_opened", "card_cage_closed"),
}

#: Device fault codes (``cabinet.core.errors.FAULTS``) -> host event.
_FAULTS = {
    "bill_jam": "bill_jam",
    "bill_stacker_full": "cash_box_full",
    "bill_failure": "bill_acceptor_hardware_failure",
    "bill_cheat": "bill_acceptor_hardware_failure",
    "bill_offline": "bill_acceptor_hardware_failure",
    "printer_offline": "printer_communication_error",
    "printer_failure": "printer_communication_error",
    "printer_paper_out": "printer_paper_out",
    "display_dark": "general_tilt",
}

#: Journal kinds that map one to one.
_SIMPLE = {
    "power_up": "ac_power_applied",
    "ram_clear": "memory_error_reset",
    "settings_changed": "operator_changed_options",
    "voucher_printed": "cash_out_ticket_printed",
    "handpay": "handpay_pending",
    "handpay_reset": "handpay_reset",
    "cash_out": "cash_out_button_pressed",
    "round_end": "game_ended",
    # tickets through the host (SAS 0x57, 0x67, 0x68)
    "validation_requested": "system_validation_request",
    "ticket_held": "ticket_inserted",
    "ticket_done": "ticket_transfer_complete",
    # A player's Service call (the "change lamp", SAS 0x71/0x72)
    "service_called": "change_lamp_on",
    "service_cancelled": "change_lamp_off",
}


def host_events_for(j: Journal, technician: bool) -> list[tuple[int, str, int]]:
    """The host events a journaled event raises: ``[(station, name, amount_minor)]``.

    ``station`` 0 means every station. ``technician``: the access level now is the
    technician's (the operator menu is then SAS's "self test or operator menu",
    0x84/0x85; the attendant's key alone opens the "attendant menu", 0x82/0x83).
    ``round_start`` raises ``game_started`` at each station with a bet in it.
    """
    kind, data = j.kind, j.data
    if kind == "voucher_printed" and data.get("resolved"):
        return []  # an unknown print the host settled (tito_claims): it knows
    if kind in _SIMPLE:
        return [(j.station, _SIMPLE[kind], 0)]
    if kind in ("door_open", "door_closed"):
        names = _DOORS.get(str(data.get("door")))
        return [] if names is None else [(0, names[kind == "door_closed"], 0)]
    if kind == "bill_stacked":
        return [(j.station, "bill_accepted", j.amount_minor)]
    if kind == "note_returned" and data.get("reason"):
        return [(j.station, "bill_rejected", 0)]
    if kind == "fault":
        name = _FAULTS.get(str(data.get("code")))
        return [] if name is None else [(j.station, name, 0)]
    if kind == "round_start":
        bets: dict[Any, Any] = data.get("bets", {})
        return [(int(n), "game_started", 0) for n in bets]
    if kind in ("maintenance_enter", "maintenance_exit"):
        entered = kind == "maintenance_enter"
        if technician:
            name = "self_test_or_operator_menu_" + ("entered" if entered else "exited")
        else:
            name = "display_meters_or_attendant_menu_" + ("entered" if entered else "exited")
        return [(0, name, 0)]
    if kind == "maintenance_page" and data.get("page") == "recall":
        return [(0, "game_recall_entry_displayed", 0)]
    return []

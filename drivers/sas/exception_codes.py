"""General poll exception codes (the one byte an EGM answers to a general poll).

Source: ``research/sas.md`` "Exceptions (general poll codes)", which takes them from
saspy ``models/GPoll.py`` / ``dictionaries/gpoll.json`` and nCompass
``Sentinel/SASProtocol/`` (``SASGeneralPoll.h``).  Only the codes listed there are here;
add others with their source.
Must not import: serial, time, cabinet.*.
"""

from __future__ import annotations

#: 00: no exception pending (research/sas.md "Message kinds").
NO_ACTIVITY = 0x00

#: name -> code, every entry from research/sas.md "Exceptions".
EXCEPTION_CODES: dict[str, int] = {
    "no_activity": NO_ACTIVITY,
    "slot_door_opened": 0x11,
    "slot_door_closed": 0x12,
    "drop_door_opened": 0x13,
    "drop_door_closed": 0x14,
    "card_cage_opened": 0x15,
    "card_cage_closed": 0x16,
    "ac_power_applied": 0x17,
    "ac_power_lost": 0x18,
    "cash_box_door_opened": 0x19,
    "cash_box_door_closed": 0x1A,
    # nCompass ``SASGeneralPoll.h`` ``GPE_GENERAL_TILT = 0x20`` (a tilt no other code
    # names; not yet in research/sas.md): a station whose screen stays dark
    "general_tilt": 0x20,
    "cash_box_full": 0x27,
    "bill_jam": 0x28,
    "bill_acceptor_hardware_failure": 0x29,
    "reverse_bill_detected": 0x2A,
    "bill_rejected": 0x2B,
    "counterfeit_bill_detected": 0x2C,
    "cmos_ram_error_data_recovered": 0x31,
    "cmos_ram_error_no_data_recovered": 0x32,
    "cmos_ram_error_bad_device": 0x33,
    "memory_error_reset": 0x3A,
    "operator_changed_options": 0x3C,
    "cash_out_ticket_printed": 0x3D,
    "handpay_validated": 0x3E,
    "validation_id_not_configured": 0x3F,
    # 0x47-0x4E: bill accepted, one code per denomination (non-RTE); research/sas.md
    # does not say which denomination each code is, so they are named by code.
    "bill_accepted_47": 0x47,
    "bill_accepted_48": 0x48,
    "bill_accepted_49": 0x49,
    "bill_accepted_4a": 0x4A,
    "bill_accepted_4b": 0x4B,
    "bill_accepted_4c": 0x4C,
    "bill_accepted_4d": 0x4D,
    "bill_accepted_4e": 0x4E,
    "handpay_pending": 0x51,
    "handpay_reset": 0x52,
    "system_validation_request": 0x57,
    "printer_communication_error": 0x60,
    "printer_paper_out": 0x61,
    "cash_out_button_pressed": 0x66,
    "ticket_inserted": 0x67,
    "ticket_transfer_complete": 0x68,
    "exception_buffer_overflow": 0x70,
    # The player's Service (attendant call) lamp; saspy dictionaries/gpoll.json
    # and nCompass name 0x71/0x72 "change lamp on/off" (not yet in research/sas.md)
    "change_lamp_on": 0x71,
    "change_lamp_off": 0x72,
    "printer_paper_low": 0x74,
    "game_started": 0x7E,
    "game_ended": 0x7F,
    "display_meters_or_attendant_menu_entered": 0x82,
    "display_meters_or_attendant_menu_exited": 0x83,
    "self_test_or_operator_menu_entered": 0x84,
    "self_test_or_operator_menu_exited": 0x85,
    "game_recall_entry_displayed": 0x8A,
    # 0x98-0x9B: doors opened while powered off; research/sas.md does not name
    # which door each code is, so they are named by code.
    "power_off_door_opened_98": 0x98,
    "power_off_door_opened_99": 0x99,
    "power_off_door_opened_9a": 0x9A,
    "power_off_door_opened_9b": 0x9B,
}

#: code -> name (the inverse of ``EXCEPTION_CODES``).
EXCEPTION_NAMES: dict[int, str] = {code: name for name, code in EXCEPTION_CODES.items()}

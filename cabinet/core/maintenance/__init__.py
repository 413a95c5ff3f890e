"""The operator's maintenance menu: pages, navigation, settings, RAM clear.

The menu's pages and what Up/Down/Select/Back do on each
(research/cabinet-features.md I "Audit / test mode"), one concern per module:

- ``menu``: navigation (``press``, ``handle``), the panel-button map, the button test's presses;
- ``diagnostics``, ``bill_test``: the Diagnostics page and its tests;
- ``pages``: every page's title, lines and list as the UI draws it (``view``);
- ``settings_editor``: the Settings page (rows, draft, save), its choices
  derived from ``cabinet.core.settings``' declarations;
- ``ram_clear``: what a RAM clear erases and keeps, and who may do it;
- ``event_log``: the Event log page's lines;
- ``pin``, ``entry``: the technician PIN and typed entry;
- ``meters_page``, ``history``, ``export``: the Meters page with its RTP, the
  bill / voucher / handpay history and the Event log's filter, the audit report.

Pure: it takes a ``MaintenanceContext`` (``cabinet.core.context``), not the
``Cabinet``; it changes the cabinet only through its methods and reads
journal rows only as handed in (``shown``, ``handed``). Entered with the operator key,
between rounds only; play is impossible inside it and notes are refused.
This package re-exports what the rest of the cabinet uses.
"""

from __future__ import annotations

from cabinet.core.maintenance.event_log import EVENT_LOG_DEPTH, EVENT_LOG_HIDDEN, event_line
from cabinet.core.maintenance.export import exported as audit_exported
from cabinet.core.maintenance.menu import (
    BUTTON_MENU,
    BUTTON_NAMES,
    TEST_EXIT_MS,
    button_name,
    handle,
    press,
)
from cabinet.core.maintenance.meters_page import carry as carry_operator
from cabinet.core.maintenance.pages import (
    DEVICE_TEST_HINT,
    FAULTS_ITEM,
    HINT,
    MAIN_ITEMS,
    PAGE_LINES,
    program_line,
    view,
)
from cabinet.core.maintenance.ram_clear import RAM_CLEARED, access_name, ram_clear_refusal, ram_clear_summary
from cabinet.core.maintenance.settings_editor import MONEY_SETTINGS, SETTING_CHOICES

__all__ = [
    "BUTTON_MENU",
    "BUTTON_NAMES",
    "DEVICE_TEST_HINT",
    "EVENT_LOG_DEPTH",
    "EVENT_LOG_HIDDEN",
    "FAULTS_ITEM",
    "HINT",
    "MAIN_ITEMS",
    "MONEY_SETTINGS",
    "PAGE_LINES",
    "RAM_CLEARED",
    "SETTING_CHOICES",
    "TEST_EXIT_MS",
    "access_name",
    "audit_exported",
    "carry_operator",
    "button_name",
    "event_line",
    "handle",
    "press",
    "program_line",
    "ram_clear_refusal",
    "ram_clear_summary",
    "view",
]

"""``cabinet run``'s visit to the operator menu's Settings page, checked before it starts.

Owns: the technician PIN a run types there (``run_pin``: ``--pin``, else
``$CABINET_PIN``, else the demo's ``DEMO_PIN``) and ``plan_settings``, which reads
the journal read-only (``cabinet.shell.store.Store``, as ``cabinet meters`` does)
before any process starts and says whether the run must visit Settings at all
(``--stations`` or ``--variant`` not the journal's) and, if so, whether that PIN is
the journal's (its salted scrypt hash, ``cabinet.core.maintenance.pin``): a PIN
that is not is never typed, since 3 wrong ones in a row lock PIN entry.
I/O: that read-only open of the journal and the environment.
"""

from __future__ import annotations

import hmac
import os
from dataclasses import dataclass
from pathlib import Path

from cabinet.core.maintenance.pin import hash_pin, locked_s, valid_new_pin
from cabinet.tools.demo_panel import DEMO_PIN, FACTORY_PIN

__all__ = ["DEMO_PIN", "FACTORY_PIN", "PinPlan", "plan_settings", "run_pin"]

#: Where the run's PIN comes from when ``--pin`` is not given.
PIN_ENV = "CABINET_PIN"


@dataclass(frozen=True)
class PinPlan:
    """What the run types on the Settings page.

    ``pin``: the technician PIN; ``factory``: the journal still has the factory PIN
    (type ``FACTORY_PIN``, then ``pin`` twice: the forced change); ``needed``: the run
    changes a setting at all (else it never opens Settings).
    """

    pin: str
    factory: bool
    needed: bool


def run_pin(given: str | None) -> str:
    """The PIN the run types: ``given`` (``--pin``), else ``$CABINET_PIN``, else ``DEMO_PIN``."""
    return given or os.environ.get(PIN_ENV) or DEMO_PIN


def _refusal(journal: Path, what: str) -> str:
    return (
        f"cabinet run: {what}; no PIN was typed (3 wrong PINs lock PIN entry). "
        f"Give the technician PIN of {journal} with --pin PIN (or {PIN_ENV}=PIN), or use a "
        f"fresh data folder (CABINET_DATA_DIR=DIR or --journal DIR/journal.db), whose "
        f"factory PIN the run changes to {DEMO_PIN} or to --pin"
    )


def plan_settings(journal: Path, *, stations: int | None, variant: str | None, pin: str) -> PinPlan | str:
    """Whether the run may change the game to ``variant`` / ``stations`` seats with ``pin``.

    Args:
        journal: the run's journal (it may not exist yet: a new cabinet, factory PIN).
        stations: ``--stations`` (``None``: keep the journal's).
        variant: ``--variant`` (``None``: keep the journal's).
        pin: the PIN the run would type (``run_pin``).

    Returns:
        The ``PinPlan``, or the line to print (exit status 2) when the run must not
        type ``pin``: not 4-8 digits, not the journal's PIN, a factory PIN whose forced
        change would refuse it, or PIN entry locked. A journal that cannot be read
        (no key, no valid state) is left to the engine to report: the plan then
        assumes a new cabinet.
    """
    from cabinet.shell.store import Store

    state = None
    if journal.exists():
        try:
            store = Store(journal, readonly=True)
            try:
                state = store.load_readonly() if store.key is not None else None
            finally:
                store.close()
        except Exception:  # the engine says what is wrong with it, and stops
            state = None
    needed = state is None and (stations is not None or variant is not None)
    if state is not None:
        needed = (stations is not None and len(state.stations) != stations) or (
            variant is not None and state.settings.variant != variant
        )
    p = None if state is None else state.operator.pin
    factory = p is None or not p.hash_hex
    if not needed:
        return PinPlan(pin=pin, factory=factory, needed=False)
    if not (pin.isdigit() and 4 <= len(pin) <= 8):
        return "cabinet run: --pin (or CABINET_PIN) must be 4-8 digits"
    if p is not None and locked_s(p):
        return _refusal(
            journal, f"the journal's PIN entry is locked ({locked_s(p)} s left, counted while the engine runs)"
        )
    if factory:
        why = valid_new_pin(pin)
        if why:
            return _refusal(
                journal, f"the journal still has the factory PIN, and the run's PIN cannot replace it ({why})"
            )
        return PinPlan(pin=pin, factory=True, needed=True)
    assert p is not None
    if not hmac.compare_digest(hash_pin(pin, bytes.fromhex(p.salt_hex)), p.hash_hex):
        typed = f"the demo PIN {DEMO_PIN}" if pin == DEMO_PIN else f"the --pin / {PIN_ENV} PIN"
        return _refusal(journal, f"the data folder's technician PIN is not the PIN this run types ({typed})")
    return PinPlan(pin=pin, factory=False, needed=True)

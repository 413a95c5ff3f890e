"""The technician PIN: its hash, its check, the lockout and its change.

Owns: ``hash_pin`` (salted ``hashlib.scrypt``; the hash is pure CPU and runs
here, in the core; the salt comes from the random source the shell hands in,
``secrets.SystemRandom()`` in production), ``submit`` (a typed PIN: right opens
the technician level, wrong is counted and journaled, 3 wrong in a row lock PIN
entry for ``lockout_s``), the forced change of the factory default PIN, and the
lockout's count-down on the shell's clock ticks (``elapse``, ``power_up``).

Only the hash and its salt are ever kept (``PinState``); the digits being typed
live in ``MaintenanceContext.secret``, the engine's memory, never the journal.
Pure.
"""

from __future__ import annotations

import hashlib
import hmac

from cabinet.core.access import TECHNICIAN_PAGES
from cabinet.core.context import MaintenanceContext
from cabinet.core.effects import Effect, Journal
from cabinet.core.errors import present
from cabinet.core.state import EntryState, MaintState, PinState

#: The factory PIN: accepted only while no PIN was ever set, and then it must be
#: changed before the technician level opens ("forced to change").
DEFAULT_PIN = "0000"
PIN_MIN, PIN_MAX = 4, 8
#: Wrong PINs in a row that lock PIN entry.
MAX_FAILURES = 3
#: The first lockout; each further one (without a right PIN between) doubles, up to ``LOCK_MAX_S``.
LOCK_BASE_S, LOCK_MAX_S = 60, 3_600
#: scrypt's cost: N=2^14, r=8, p=1 (16 MiB, about 0.1 s on a Pi 4; RFC 7914's interactive figure).
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_LEN = 2**14, 8, 1, 32


def hash_pin(pin: str, salt: bytes) -> str:
    """The hex scrypt hash of ``pin`` (ASCII digits) with ``salt`` (16 bytes)."""
    return hashlib.scrypt(
        pin.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, maxmem=64 * 1024 * 1024, dklen=SCRYPT_LEN
    ).hex()


def new_salt(cab: MaintenanceContext) -> bytes:
    """16 bytes from the shell's random source (``secrets.SystemRandom()``)."""
    return cab.rng.randrange(0, 2**128).to_bytes(16, "big")


def lockout_s(lockouts: int) -> int:
    """How long the ``lockouts``-th lockout in a row lasts: 60 s, 120 s, 240 s... 1 h."""
    doubled: int = LOCK_BASE_S << max(0, lockouts - 1)
    return min(LOCK_MAX_S, doubled)


def locked_s(p: PinState) -> int:
    """Seconds of lockout left (0: a PIN may be typed), rounded up."""
    left: int = p.lock_left_ms
    return -(-left // 1000) if left > 0 else 0


def elapse(p: PinState, now_ms: int) -> None:
    """A clock tick at monotonic ``now_ms``: count the lockout down by whole seconds."""
    if p.lock_left_ms <= 0:
        return
    if now_ms < p.lock_mark_ms:  # a clock that went back: start counting again
        p.lock_mark_ms = now_ms
    whole = (now_ms - p.lock_mark_ms) // 1000
    if whole:
        p.lock_left_ms = max(0, p.lock_left_ms - whole * 1000)
        p.lock_mark_ms += whole * 1000


def power_up(p: PinState, now_ms: int) -> None:
    """The engine started: the monotonic clock began again; the lockout goes on from here."""
    p.lock_mark_ms = now_ms


def end_visit(m: MaintState) -> None:
    """The engine restarted inside the menu: back to the attendant level (the PIN is
    asked again), no entry open, off a technician's page."""
    if m.level != "attendant" or m.entry is not None:
        m.level, m.entry, m.draft, m.confirm = "attendant", None, {}, ""
        if m.page in TECHNICIAN_PAGES:
            m.page, m.selected, m.scroll = "main", 0, 0


def _matches(p: PinState, pin: str) -> bool:
    if not p.hash_hex:
        return hmac.compare_digest(pin, DEFAULT_PIN)
    return hmac.compare_digest(hash_pin(pin, bytes.fromhex(p.salt_hex)), p.hash_hex)


def valid_new_pin(pin: str) -> str:
    """Why ``pin`` may not be the new PIN, or ``""``."""
    if not (PIN_MIN <= len(pin) <= PIN_MAX and pin.isdigit()):
        return f"a PIN is {PIN_MIN}-{PIN_MAX} digits"
    if pin == DEFAULT_PIN or len(set(pin)) == 1:
        return "choose a PIN that is not all one digit"
    return ""


def submit(cab: MaintenanceContext, entry: EntryState, out: list[Effect]) -> str:
    """Enter on a PIN entry (``entry.kind`` ``pin``, ``pin_new`` or ``pin_confirm``),
    the digits in ``cab.secret``. Returns the page to open now (``""``: stay in the
    entry, whose ``message`` says why). Journals ``pin_accepted``, ``pin_wrong``,
    ``pin_lockout``, ``pin_changed``; each with the level."""
    m = present(cab.s.maintenance, "the operator menu")
    p = cab.s.operator.pin
    typed, cab.secret = cab.secret, ""
    if entry.kind == "pin":
        if locked_s(p):
            entry.message = f"PIN entry locked: {locked_s(p)} s left"
            return ""
        if not _matches(p, typed):
            p.failures += 1
            out.append(Journal("pin_wrong", 0, 0, {"failures": p.failures, "level": m.level}))
            entry.message = f"Wrong PIN ({p.failures} of {MAX_FAILURES})"
            if p.failures >= MAX_FAILURES:
                p.failures, p.lockouts = 0, p.lockouts + 1
                p.lock_left_ms, p.lock_mark_ms = lockout_s(p.lockouts) * 1000, cab.s.now_ms
                out.append(
                    Journal(
                        "pin_lockout",
                        0,
                        0,
                        {"seconds": lockout_s(p.lockouts), "lockouts": p.lockouts, "level": m.level},
                    )
                )
                entry.message = f"3 wrong PINs: PIN entry locked for {lockout_s(p.lockouts)} s"
            return ""
        p.failures = p.lockouts = 0
        default = not p.hash_hex
        out.append(Journal("pin_accepted", 0, 0, {"default": default, "level": "technician"}))
        if default:  # the factory PIN must be changed first
            m.entry = EntryState(
                kind="pin_new", then=entry.then, row=entry.row, message="Default PIN: choose a new PIN (4-8 digits)"
            )
            return ""
        m.level, m.entry = "technician", None
        return entry.then
    if entry.kind == "pin_new":
        why = valid_new_pin(typed)
        if why:
            entry.message = f"Refused: {why}"
            return ""
        salt = new_salt(cab)
        m.entry = EntryState(
            kind="pin_confirm",
            then=entry.then,
            row=entry.row,
            pin_salt_hex=salt.hex(),
            pin_hash_hex=hash_pin(typed, salt),
            message="Type the new PIN again",
        )
        return ""
    # pin_confirm
    if not hmac.compare_digest(hash_pin(typed, bytes.fromhex(entry.pin_salt_hex)), entry.pin_hash_hex):
        m.entry = EntryState(
            kind="pin_new", then=entry.then, row=entry.row, message="The two PINs differ: choose the new PIN again"
        )
        return ""
    first = not p.hash_hex
    p.salt_hex, p.hash_hex = entry.pin_salt_hex, entry.pin_hash_hex
    out.append(Journal("pin_changed", 0, 0, {"level": "technician", "was_default": first}))
    m.level, m.entry = "technician", None
    return entry.then

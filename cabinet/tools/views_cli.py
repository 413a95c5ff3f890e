"""``cabinet meters``, ``cabinet recall``, ``cabinet events``, ``cabinet doctor``: read-only
journal views.

Owns: printing a journal's meters, game recall and event log as text or JSON,
and the journal verification report (``doctor``, ``events --verify``).
Opens the journal read-only, so it may run while the engine does.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import msgspec

from cabinet.core.maintenance.meters_page import meters_lines
from cabinet.core.state import CabinetState
from cabinet.protocol.money import fmt_money
from cabinet.shell.paths import key_file
from cabinet.shell.store import Store


def _open(path: Path) -> Store | None:
    if not path.exists():
        print(f"no journal at {path} (start the engine first, or pass --journal)", file=sys.stderr)
        return None
    store = Store(path, readonly=True)
    if store.key is None and key_file(path).exists():
        print(f"cannot read the journal key {key_file(path)} (run as the engine's user)", file=sys.stderr)
        return None
    return store


def load_state(path: Path) -> tuple[Store, CabinetState] | int:
    """The journal at ``path`` opened read-only and its cabinet state, or the exit status
    after saying why on stderr (2: no journal or key, 1: no valid state, a RAM error)."""
    store = _open(path)
    if store is None:
        return 2
    loaded = store.load_readonly()
    if loaded is None:
        print("the journal holds no valid cabinet state (RAM error)", file=sys.stderr)
        return 1
    return store, loaded


def meters(path: Path, as_json: bool) -> int:
    """Print every station's meters; returns the exit status."""
    got = load_state(path)
    if isinstance(got, int):
        return got
    _, loaded = got
    if as_json:
        print(json.dumps(msgspec.to_builtins(loaded), indent=2))
        return 0
    print(
        f"Game {loaded.settings.variant}, {len(loaded.stations)} station(s), "
        f"power-ups {loaded.power_ups}, rounds {loaded.round_id}"
    )
    for line in meters_lines(loaded, loaded.settings.rules_or_preset().name):  # the menu's page
        print(line)
    return 0


def recall(path: Path, station: int, limit: int, as_json: bool) -> int:
    """Print the newest ``limit`` rounds, newest first."""
    store = _open(path)
    if store is None:
        return 2
    entries = store.recall(station, limit)
    if as_json:
        print(json.dumps([msgspec.to_builtins(e) for e in entries], indent=2))
        return 0
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.wall_s))
        print(f"Round {e.round_id} station {e.station} {e.variant} {when}" + (" VOIDED" if e.voided else ""))
        print(
            f"  credits {fmt_money(e.credits_before_minor)} -> {fmt_money(e.credits_after_minor)}; "
            f"wagered {fmt_money(e.wagered_minor)}, returned {fmt_money(e.returned_minor)}"
        )
        d = e.result.get("dealer", {})
        print(f"  dealer {' '.join(d.get('cards', []))} ({d.get('total')})")
        for sp in e.result.get("spots", []):
            if sp.get("seat", e.station) != e.station:  # entries journaled before 10.4
                continue
            for h in sp["hands"]:
                print(
                    f"  spot {sp['spot']}: {' '.join(h['cards'])} = {h['total']} "
                    f"{h['outcome']} (stake {fmt_money(h['stake'])}, back "
                    f"{fmt_money(h['returned'] or 0)})"
                )
        for step in e.steps:
            print(f"    {step}")
    if not entries:
        print("no rounds recorded")
    return 0


def events(path: Path, limit: int, as_json: bool) -> int:
    """Print the newest ``limit`` events of the log, oldest of them first."""
    store = _open(path)
    if store is None:
        return 2
    rows = list(reversed(store.events(limit)))
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["wall_s"]))
        amount = fmt_money(r["amount_minor"]) if r["amount_minor"] else ""
        print(
            f"{r['id']:6d} {when} {r['kind']:22s} st{r['station']} {amount:>10s} "
            f"{json.dumps(r['data']) if r['data'] else ''}"
        )
    return 0


def verify_events(path: Path) -> int:
    """``cabinet events --verify``: walk the event chain, compare the commit record, and
    say a RAM error the cabinet stopped in; 1 with what was found, else 0."""
    from cabinet.shell.journal.guard import journal_format

    if journal_format(path) == "old":
        print(
            "FOUND: the journal is in the old format (plain SHA-256 checksums, no event "
            f"chain): upgrade it once with cabinet upgrade-journal --journal {path}"
        )
        return 1
    store = _open(path)
    if store is None:
        return 2
    findings = store.verify_chain() + store.verify_commit_record()
    ram_error = store.ram_error_text()
    if ram_error is not None:
        findings.append(f"the cabinet is in a RAM error ({ram_error})")
    for f in findings:
        print(f"FOUND: {f}")
    if not findings:
        print("event log OK")
    return 1 if findings else 0

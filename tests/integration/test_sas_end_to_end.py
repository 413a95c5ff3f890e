"""The engine as a real process on a real pty, the host twin
polling it, everything read over SAS as a casino management system would."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.sim.sas_host import SasHost

from .crash_harness import EngineProc

pytestmark = pytest.mark.timeout(180)


def wait_for(cond: Callable[[], object], timeout_s: float = 15.0, what: str = "") -> object:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or cond} (last: {cond()!r})")


def seen(host: SasHost) -> list[str]:
    return [e.name for e in host.exceptions(1)]


def new_since(host: SasHost, n: int) -> list[str]:
    return seen(host)[n:]


def meters_json(journal: Path) -> dict:
    r = subprocess.run(
        [sys.executable, "-m", "cabinet", "meters", "--journal", str(journal), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(r.stdout)["stations"][0]["meters"]


def sas_play_meters(m: dict) -> tuple[int, int]:
    """SAS coin in and coin out from ``cabinet meters --json`` (no round or jackpot
    waiting): every wager, insurance too; what play paid to the credit meter, the jackpots
    paid by hand not included (``cabinet.shell.host_view.play_meters_minor``)."""
    return (
        m["coin_in_minor"] + m["insurance_in_minor"],
        m["coin_out_minor"]
        + m["insurance_out_minor"]
        + m["void_returned_minor"]
        - m["void_reclaimed_minor"]
        - m["jackpot_handpay_minor"],
    )


def linked_floor(tmp_path: Path) -> Iterator[tuple[SasHost, EngineProc]]:
    """The host twin polling machine 1 and an engine linked to it at address 1, the link
    up; both stopped after."""
    host = SasHost(
        [1],
        directory=tmp_path / "host",
        db_path=tmp_path / "host.sqlite3",
        poll_interval_s=0.05,
        meter_interval_s=0.5,
        link_down_s=2.0,
    )
    proc = EngineProc(tmp_path, extra_args=["--sas-port", host.tty(1), "--sas-address", "1"])
    proc.start()
    wait_for(lambda: host.link_up(1), 60, "the host link")
    try:
        yield host, proc
    finally:
        proc.stop()
        host.close()


@pytest.fixture
def floor(tmp_path):
    yield from linked_floor(tmp_path)


def _snap_mode(proc: EngineProc) -> str:
    return (proc.snapshot or {}).get("mode", "")


def _credit(proc: EngineProc, amount_minor: int) -> None:
    target = (proc.snapshot or {})["stations"][0]["credits_minor"] + amount_minor
    deadline = time.monotonic() + 60  # notes handed back until the acceptor is enabled
    while proc.snapshot["stations"][0]["credits_minor"] < target and time.monotonic() < deadline:
        proc.sim({"cmd": "note", "amount_minor": amount_minor})
        wait = time.monotonic() + 3
        while proc.snapshot["stations"][0]["credits_minor"] < target and time.monotonic() < wait:
            time.sleep(0.05)
    assert proc.snapshot["stations"][0]["credits_minor"] == target


def _play_round(proc: EngineProc) -> None:
    """Bet the minimum, deal, decline insurance and stand until the round is over."""
    proc.intent("bet_up")
    wait_for(lambda: "deal" in proc.snapshot["stations"][0]["lamps"], 10, "the Deal lamp")
    proc.intent("deal")
    wait_for(
        lambda: proc.snapshot["mode"] == "in_round" or proc.snapshot["dealer"]["cards"], 10, "the deal"
    )  # an instant blackjack settles at once
    _play_round_out(proc)


def _play_round_out(proc: EngineProc) -> None:
    deadline = time.monotonic() + 30
    while proc.snapshot["mode"] == "in_round":
        assert time.monotonic() < deadline, "the round did not end"
        lamps = proc.snapshot["stations"][0]["lamps"]
        if "decline" in lamps:
            proc.intent("decline")
        elif "stand" in lamps:
            proc.intent("stand")
        time.sleep(0.1)


def test_doors_notes_and_a_round_reach_the_host_and_its_meters_agree(floor, tmp_path):
    """0x11 then 0x12; a note gives its bill exception and moves 0x1C's drop;
    a round gives 0x7E and 0x7F and moves coin in, coin out and games played exactly as
    ``cabinet meters --json``."""
    host, proc = floor
    wait_for(lambda: "ac_power_applied" in seen(host), 10, "0x17")
    n = len(seen(host))
    proc.sim({"cmd": "door", "door": "main", "open": True})
    time.sleep(0.5)  # a door is held 0.25 s per move (debounce)
    proc.sim({"cmd": "door", "door": "main", "open": False})
    wait_for(lambda: new_since(host, n)[:2] == ["slot_door_opened", "slot_door_closed"], 10, "0x11, 0x12")
    wait_for(lambda: _snap_mode(proc) in ("attract", "betting"), 10, "the door notice to pass")
    n = len(seen(host))
    _credit(proc, 2_000)
    wait_for(lambda: any(x.startswith("bill_accepted") for x in new_since(host, n)), 10, "the bill exception")
    meters = host.read_meters(1)
    assert meters is not None and meters.drop == 2_000
    n = len(seen(host))
    _play_round(proc)
    wait_for(lambda: "game_ended" in new_since(host, n), 10, "0x7F")
    got = new_since(host, n)
    assert got.index("game_started") < got.index("game_ended")
    proc.stop()
    mine = meters_json(tmp_path / "journal.db")
    proc.start()
    wait_for(lambda: host.link_up(1), 60, "the link again")
    m = wait_for(lambda: host.read_meters(1), 10, "0x1C")
    assert (m.coin_in, m.coin_out, m.games_played, m.drop) == (
        *sas_play_meters(mine),
        mine["games_played"],
        mine["bills_in_minor"] + mine["vouchers_in_minor"],
    )


def test_a_sigkill_with_three_exceptions_queued_loses_none_and_repeats_none(floor):
    """The queue is journaled: three door events queued while the host does
    not poll survive a SIGKILL and are each read exactly once after the restart."""
    host, proc = floor
    wait_for(lambda: "ac_power_applied" in seen(host), 10, "0x17")
    host.pause()
    time.sleep(0.3)
    n = len(seen(host))
    doors = len(_door_events(proc.journal))
    for door, is_open in (("cashbox", True), ("cashbox", False), ("main", True)):
        proc.sim({"cmd": "door", "door": door, "open": is_open})
        time.sleep(0.5)  # a door is held 0.25 s per move (debounce)
    wait_for(
        lambda: len(_door_events(proc.journal)) >= doors + 3,
        60,
        "the three door moves journaled (their exceptions queued with them), not yet polled",
    )
    proc.kill()
    proc.start()
    host.resume()
    wait_for(lambda: "ac_power_applied" in new_since(host, n), 60, "0x17 after the restart")
    wait_for(
        lambda: len([x for x in new_since(host, n) if x != "ac_power_applied"]) >= 3,
        60,
        "the three queued exceptions read",
    )
    time.sleep(1.0)  # and no repeat after them
    got = [x for x in new_since(host, n) if x != "ac_power_applied"]
    assert got[:3] == ["cash_box_door_opened", "cash_box_door_closed", "slot_door_opened"], new_since(host, n)
    assert got.count("slot_door_opened") == 1 and got.count("cash_box_door_opened") == 1


def _door_events(journal: Path) -> list[str]:
    import sqlite3

    db = sqlite3.connect(journal)
    try:
        return [
            k for (k,) in db.execute("SELECT kind FROM events WHERE kind IN ('door_open', 'door_closed') ORDER BY id")
        ]
    finally:
        db.close()


def test_shut_down_disables_play_after_the_round_and_start_up_enables_it(floor):
    """0x01 mid-round lets the round finish, then disables play (the table says
    so, the lamps agree); 0x02 enables it."""
    host, proc = floor
    _credit(proc, 2_000)
    for _ in range(5):  # a round that does not settle at once
        proc.intent("bet_up")
        wait_for(lambda: "deal" in proc.snapshot["stations"][0]["lamps"], 10, "the Deal lamp")
        before = list(proc.snapshot["dealer"]["cards"])  # the last round's, still shown
        proc.intent("deal")
        wait_for(
            lambda before=before: (
                proc.snapshot["mode"] == "in_round" or proc.snapshot["dealer"]["cards"] not in ([], before)
            ),
            10,
            "the deal",
        )
        if proc.snapshot["mode"] == "in_round":
            break
    assert proc.snapshot["mode"] == "in_round"
    assert host.shut_down(1)
    time.sleep(0.5)
    assert proc.snapshot["mode"] == "in_round"  # the round goes on
    assert proc.snapshot["stations"][0]["lamps"] != ["cash_out"]
    _play_round_out(proc)
    wait_for(lambda: proc.snapshot["stations"][0]["lamps"] == ["cash_out"], 10, "play disabled")
    assert proc.snapshot["stations"][0]["message"] == "Play disabled by the casino host"
    assert proc.snapshot["stations"][0]["host_link"] == "online"
    assert host.start_up(1)
    wait_for(lambda: "bet_up" in proc.snapshot["stations"][0]["lamps"], 10, "play enabled")
    assert proc.snapshot["stations"][0]["message"] != "Play disabled by the casino host"


def test_a_ram_clear_is_reported_as_0x3a(floor):
    """A RAM clear (technician: key, PIN and logic door, then the menu) gives 0x3A.
    A new cabinet's factory PIN is changed first (0000, then the new PIN twice)."""
    from cabinet.core.maintenance import MAIN_ITEMS

    host, proc = floor
    wait_for(lambda: "ac_power_applied" in seen(host), 10, "0x17")
    n = len(seen(host))
    proc.sim({"cmd": "door", "door": "logic", "open": True})
    proc.sim({"cmd": "key", "on": True})
    wait_for(lambda: _snap_mode(proc) == "maintenance", 10, "the menu")
    proc.intent("menu_pick", [k for k, _ in MAIN_ITEMS].index("ram_clear"))
    for pin in ("0000", "2468", "2468"):  # the PIN entry's rows: digits 0-9, Delete, Enter
        for d in pin:
            proc.intent("menu_pick", int(d))
            time.sleep(0.05)
        proc.intent("menu_pick", 11)
        time.sleep(0.5)
    wait_for(lambda: (proc.snapshot.get("maintenance") or {}).get("page") == "ram_clear", 10, "the RAM clear page")
    for _ in range(2):  # arm, confirm
        proc.intent("menu_select")
        time.sleep(0.2)
    wait_for(lambda: "memory_error_reset" in new_since(host, n), 10, "0x3A")
    assert new_since(host, n).count("memory_error_reset") == 1


def test_the_rom_signature_over_sas_is_the_seeded_crc_of_the_program_files(floor):
    """0x21 from the running engine equals a bitwise CRC-16/Kermit, seeded the
    same way, over the manifest's program files in manifest order, computed here."""
    from cabinet.shell.manifest import install_root, program_files

    host, proc = floor
    root = install_root()
    image = b"".join((root / p).read_bytes() for p in program_files(root))
    crc = 0x5A3C
    for byte in image:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    assert host.rom_signature(1, 0x5A3C) == crc

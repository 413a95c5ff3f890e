"""``cabinet run`` links every station to the host twin (a machine each) and
``--tickets host`` turns on system validation: the engine config it writes, read back
by the engine's own config code, and the ready line it is built from."""

from __future__ import annotations

from pathlib import Path

import pytest

from cabinet.shell.config import load_config
from cabinet.shell.main import sas_stations
from cabinet.tools import launcher
from cabinet.tools.run_tickets import engine_config, host_socket_of, journal_stations, sas_ports_of

READY = (
    "sas host ready: machine 1 on /dev/pts/7 (/r/sas/sas-1), machine 2 on /dev/pts/9 "
    "(/r/sas/sas-2); control /r/sas/host.sock; database /r/sas/host.sqlite3"
)


def test_the_ready_line_gives_every_machines_pty_and_the_control_socket() -> None:
    """Every machine's pty (not only machine 1's) and the control socket."""
    assert sas_ports_of(READY) == {1: "/dev/pts/7", 2: "/dev/pts/9"}
    assert host_socket_of(READY) == "/r/sas/host.sock"
    assert sas_ports_of("sas host ready: nothing") == {} and host_socket_of("") is None


@pytest.mark.parametrize("tickets,validation", [("cabinet", "none"), ("host", "system")])
def test_the_run_config_links_station_n_to_machine_n(tmp_path: Path, tickets: str, validation: str) -> None:
    """Station N on machine N's pty at address N; ``--tickets host`` is
    system validation, the default the cabinet's own numbers (as read by the engine)."""
    cfg = tmp_path / "cabinet.toml"
    cfg.write_text(engine_config({1: "/dev/pts/7", 2: "/dev/pts/9", 3: "/dev/pts/11"}, tickets))
    links = sas_stations(load_config(cfg), None, None)
    assert {n: (s.port, s.address, s.validation) for n, s in links.items()} == {
        1: ("/dev/pts/7", 1, validation),
        2: ("/dev/pts/9", 2, validation),
        3: ("/dev/pts/11", 3, validation),
    }


def test_bad_ticket_modes_and_a_host_without_machine_1_are_refused(tmp_path: Path) -> None:
    """A clear error, nothing started."""
    with pytest.raises(ValueError, match="expected one of cabinet, host"):
        engine_config({1: "/dev/pts/7"}, "casino")
    with pytest.raises(ValueError, match="no machine 1"):
        engine_config({2: "/dev/pts/7"}, "host")
    assert launcher.main(tickets="casino", out=str(tmp_path)) == 2


def test_a_new_journal_seats_one_station(tmp_path: Path) -> None:
    """The host twin gets a machine per station the journal seats (1 without a journal)."""
    assert journal_stations(tmp_path / "none.db") == 1
    (tmp_path / "junk.db").write_bytes(b"not sqlite")
    assert journal_stations(tmp_path / "junk.db") == 1


def test_a_two_station_journal_gets_two_machines(tmp_path: Path) -> None:
    """``cabinet run`` without ``--stations`` reads the journal's station count first."""
    import random

    from cabinet.core.events import PowerUp
    from cabinet.core.machine import new_state
    from cabinet.core.settings import GameSettings
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    store = Store(tmp_path / "journal.db")
    eng = Engine(store, rng=random.Random(1))
    eng.cab.s = new_state(GameSettings(variant="classic-multi", stations=2))
    eng.cab.rules = eng.cab.s.settings.validate()
    eng.step(PowerUp(0, 1.8e9))
    store.close()
    assert journal_stations(tmp_path / "journal.db") == 2


def test_a_printer_test_ticket_is_kept_as_a_test_ticket_not_a_voucher(tmp_path: Path) -> None:
    """The run folder names each printed ticket for what it is: the Diagnostics page's
    VOID / TEST ticket ``test-ticket-...``, a cash-out ``voucher-...``."""
    from cabinet.tools.run_tickets import TEST_TICKET_HEADING, collect_vouchers
    from drivers.void_ticket import TEST_HEADING

    assert TEST_TICKET_HEADING == TEST_HEADING[0]
    sim, out = tmp_path / "sim", tmp_path / "out"
    for d in (sim / "tickets", sim / "station2" / "tickets", out):
        d.mkdir(parents=True)
    (sim / "tickets" / "ticket-0001.txt").write_text(f"CASINO\n{TEST_HEADING[0]}\n{TEST_HEADING[1]}\n")
    (sim / "tickets" / "ticket-0001.png").write_bytes(b"png")
    (sim / "tickets" / "ticket-0002.txt").write_text("CASH OUT TICKET\nVALIDATION 00-1234-5678-9012-3456\n")
    (sim / "tickets" / "ticket-0002.png").write_bytes(b"png")
    (sim / "station2" / "tickets" / "ticket-0001.txt").write_text(f"{TEST_HEADING[0]}\n")
    kept = sorted(p.name for p in collect_vouchers(sim, out))
    assert kept == [
        "test-ticket-0001.png",
        "test-ticket-0001.txt",
        "test-ticket-station2-0001.txt",
        "voucher-0002.png",
        "voucher-0002.txt",
    ], kept

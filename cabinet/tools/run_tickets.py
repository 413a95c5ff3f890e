"""``cabinet run --tickets host``: every station an EGM of the host twin, tickets through it.

Owns ("``cabinet run`` with two stations shows a ticket printed at one
redeemed at the other"): reading every machine's pty and the control socket from
``cabinet sim-host``'s ready line (``sas_ports_of``, ``host_socket_of``), the engine
config ``cabinet run`` writes in the run folder so each station has its own SAS link
(its own pty, address N; ``engine_config``), how many stations a journal seats before
the engine starts (``journal_stations``), and the headless demo's ticket tour
(``ticket_tour``): station 1's voucher, numbered by the host, inserted at station 2,
credited through the host (0x67, 0x70, 0x71, 0x68), inserted again and refused, then
the host's floor view of tickets issued, redeemed and outstanding.

Amounts: the engine config leaves the accounting denomination at 1 minor unit, so the
host's credits are minor units. Nothing here imports pygame.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cabinet.protocol.money import fmt_money
from cabinet.protocol.snapshot import WireMode
from cabinet.tools.demo_panel import DemoPanel
from cabinet.tools.demo_player import DemoResult
from cabinet.tools.table_client import DemoError, SimControl, TableWatch

#: ``cabinet run --tickets``: ``cabinet`` the cabinet numbers its own tickets and takes
#: back only its own (``[sas] validation = "none"``); ``host`` SAS system validation,
#: the host twin numbers and redeems every ticket (``validation = "system"``).
TICKET_MODES = ("cabinet", "host")
REFUSED_AGAIN = "Ticket refused: already redeemed"
#: How long each step may take (the host answers within a poll or two: 200 ms each).
STEP_TIMEOUT_S = 20.0


def sas_ports_of(ready_line: str) -> dict[int, str]:
    """Machine address -> its pty in ``cabinet sim-host``'s ready line
    (``sas host ready: machine 1 on /dev/pts/7 (D/sas-1), machine 2 on ...; control
    S; database F``); empty when none is named."""
    return {int(a): tty for a, tty in re.findall(r"\bmachine (\d+) on (\S+)", ready_line)}


def host_socket_of(ready_line: str) -> str | None:
    """The host twin's control socket in its ready line, None if absent."""
    found = re.search(r"; control (\S+);", ready_line)
    return found.group(1) if found else None


def engine_config(ports: dict[int, str], tickets: str) -> str:
    """The ``cabinet.toml`` text linking station N to machine N's pty at address N
    (``[sas]`` for station 1, ``[stationN.sas]`` for the others); ``tickets``
    ``host`` adds ``validation = "system"``.

    Raises:
        ValueError: no machine 1, or ``tickets`` not one of ``TICKET_MODES``.
    """
    if 1 not in ports:
        raise ValueError(f"the host twin has no machine 1 (machines {sorted(ports)})")
    if tickets not in TICKET_MODES:
        raise ValueError(f"--tickets {tickets!r}: expected one of {', '.join(TICKET_MODES)}")
    lines = [
        "# written by cabinet run: each station its own EGM on the host twin",
        "[sas]",
        f"port = {json.dumps(ports[1])}",
        "address = 1",
    ]
    if tickets == "host":
        lines.append('validation = "system"')
    for n in sorted(ports):
        if n != 1:
            lines += [f"[station{n}.sas]", f"port = {json.dumps(ports[n])}", f"address = {n}"]
    return "\n".join(lines) + "\n"


def journal_stations(journal: Path) -> int:
    """How many stations ``journal``'s settings seat (1 when there is no readable journal
    yet: a new cabinet starts with one)."""
    if not journal.exists():
        return 1
    try:
        from cabinet.shell.store import Store

        state = Store(journal, readonly=True).load_readonly()
    except Exception:  # a journal the engine will salvage: it starts with one station
        return 1
    return max(1, min(3, len(state.stations))) if state is not None else 1


#: The heading of the Diagnostics page's VOID / TEST ticket, as ``drivers.void_ticket``
#: prints it (``TEST_HEADING[0]``; the tools import no driver, a test holds the two equal).
TEST_TICKET_HEADING = "*** TEST TICKET ***"


def _is_test_ticket(ticket: Path) -> bool:
    """The printed ticket ``ticket`` (its PNG or text) is a printer test ticket, by the
    heading its text rendering carries."""
    try:
        return TEST_TICKET_HEADING in ticket.with_suffix(".txt").read_text(encoding="utf-8")
    except OSError:
        return False


def collect_vouchers(sim_dir: Path, out_dir: Path) -> list[Path]:
    """Copy every printed ticket (PNG and text) into the run folder: a voucher as
    ``voucher-[stationN-]NNNN``, a printer test ticket as ``test-ticket-[stationN-]NNNN``."""
    kept = []
    found = [("", p) for p in sorted((sim_dir / "tickets").glob("ticket-*"))] + [
        (f"{d.name}-", p)
        for d in sorted(sim_dir.glob("station[0-9]"))
        for p in sorted((d / "tickets").glob("ticket-*"))
    ]
    for who, src in found:
        kind = "test-ticket" if _is_test_ticket(src) else "voucher"
        dst = out_dir / f"{kind}-{who}{src.name.removeprefix('ticket-')}"
        with contextlib.suppress(OSError):
            shutil.copyfile(src, dst)
            kept.append(dst)
    return kept


@dataclass
class TicketTour:
    """What the ticket demo did: the ticket (``number``, 18 digits; ``amount_minor``),
    where it was printed and redeemed, the redeeming station's credit meter before and
    after, the table's words for the second insertion, and the host's view after it:
    its ticket summary (per machine, then the floor as address 0), its last meters per
    machine (credits) and the floor view text."""

    number: str
    amount_minor: int
    printed_at: int
    redeemed_at: int
    credits_before_minor: int = 0
    credits_after_minor: int = 0
    refused: str = ""
    summary: list[dict[str, Any]] = field(default_factory=list)
    host_meters: dict[str, dict[str, int]] = field(default_factory=dict)
    view: str = ""


def _host_ticket(host: SimControl, number: str) -> dict[str, Any] | None:
    rows = host({"cmd": "tickets"})["tickets"]
    return next((r for r in rows if r.get("number") == number), None)


def _wait_host(
    host: SimControl, number: str, pred: Callable[[dict[str, Any]], bool], stop: threading.Event, what: str
) -> dict[str, Any]:
    for _ in range(int(STEP_TIMEOUT_S / 0.1)):
        row = _host_ticket(host, number)
        if row is not None and pred(row):
            return row
        if stop.wait(0.1):
            raise DemoError("stopped")
    raise DemoError(f"waited {STEP_TIMEOUT_S:.0f} s for {what} (host: {_host_ticket(host, number)})")


def ticket_tour(
    watch: TableWatch,
    sim: SimControl,
    host: SimControl,
    printed: DemoResult,
    redeem_at: int,
    *,
    say: Callable[[str], None],
    shot: Callable[[str], Any],
    stop: threading.Event,
    machines: list[int],
    settle_s: float = 1.5,
) -> TicketTour:
    """Take station 1's voucher (``printed``, just cashed out) to station ``redeem_at``:
    check the host issued it, insert it there (credited exactly its amount through the
    host), insert it again (refused, "already redeemed"), then read the host's tickets
    and meters of ``machines`` (a fresh 0x1C each). ``shot`` takes the redeeming
    station's screenshots.

    Raises:
        DemoError: the host does not know the ticket, a step did not happen in time, a
            wrong amount was credited, or the second insertion was not refused.
    """
    number, amount = printed.validation_number, printed.cashed_out_minor
    if not number or amount <= 0:
        raise DemoError("station 1 printed no ticket to take to another station")
    tour = TicketTour(number, amount, printed_at=1, redeemed_at=redeem_at)
    row = _wait_host(
        host, number, lambda r: r["state"] == "printed", stop, f"the host to record ticket {number} printed"
    )
    if (row["issued_by"], row["amount"]) != (1, amount):
        raise DemoError(
            f"the host's ticket {number}: issued by {row['issued_by']} for {row['amount']}, not by 1 for {amount}"
        )
    say(
        f"tickets: station 1 printed {number} for {fmt_money(amount)}, the number issued by "
        "the casino host (0x57 -> 0x58, 0x3D)"
    )
    player = DemoPanel(watch, sim, shot=shot, say=say, stop=stop, settle_s=settle_s, station_no=redeem_at)
    watch.wait_for(
        lambda s: player.station(s).host_link == "online" and s.mode in (WireMode.BETTING, WireMode.ATTRACT),
        STEP_TIMEOUT_S,
        f"station {redeem_at} online at the host",
    )
    before = tour.credits_before_minor = player.station().credits_minor
    stale = player.station().refusal
    say(f"tickets: inserting it at station {redeem_at} (credits {fmt_money(before)})")
    player.wait_acceptor_enabled()
    player.sim_station({"cmd": "voucher", "validation_number": number})
    snap = watch.wait_for(
        lambda s: player.station(s).credits_minor != before or player.station(s).refusal not in ("", stale),
        STEP_TIMEOUT_S,
        f"station {redeem_at}'s credit",
    )
    after = tour.credits_after_minor = player.station(snap).credits_minor
    if after - before != amount:
        raise DemoError(
            f"station {redeem_at} credited {fmt_money(after - before)}, not "
            f"{fmt_money(amount)} ({player.station(snap).refusal!r})"
        )
    row = _wait_host(host, number, lambda r: r["state"] == "redeemed", stop, "the host to record it redeemed")
    if (row["redeemed_by"], row["redeemed_amount"]) != (redeem_at, amount):
        raise DemoError(f"the host has it redeemed by {row['redeemed_by']} for {row['redeemed_amount']}")
    say(
        f"tickets: station {redeem_at} credited {fmt_money(amount)} through the host "
        f"(0x67, 0x70 -> 0x71 redeem, 0x68): credits {fmt_money(before)} -> {fmt_money(after)}"
    )
    player.settle_and_shoot("ticket-redeemed")
    player.wait_acceptor_enabled()
    player.sim_station({"cmd": "voucher", "validation_number": number})
    snap = watch.wait_for(lambda s: player.station(s).refusal != "", STEP_TIMEOUT_S, "the second insertion's answer")
    tour.refused = player.station(snap).refusal
    if tour.refused != REFUSED_AGAIN or player.station(snap).credits_minor != after:
        raise DemoError(
            f"the same ticket again: {tour.refused!r}, credits {fmt_money(player.station(snap).credits_minor)}"
        )
    say(f"tickets: the same ticket again at station {redeem_at}: {tour.refused} (handed back, nothing credited)")
    player.settle_and_shoot("ticket-refused")
    for n in machines:  # a fresh 0x1C each, so the host's record is the final meters
        host({"cmd": "send", "machine": n, "poll": "0x1C"})
        tour.host_meters[str(n)] = host({"cmd": "meters", "machine": n})["meters"]
    tour.summary = host({"cmd": "tickets"})["summary"]
    tour.view = host({"cmd": "view"})["view"]
    say("tickets: the host's floor view (credits, meters from its 0x1C, tickets):\n" + tour.view)
    return tour


def tour_hook(
    host_socket: str, shots: list[Callable[[str], Any]], stop: threading.Event, box: dict[str, Any], machines: list[int]
) -> Callable[[Any, Any, list[Any]], None]:
    """The demo's ``after_cash_out`` for ``--tickets host``: the ticket tour from station 1
    to station 2 (to station 1 itself on a one-station table), through the host twin's
    control socket ``host_socket``; ``shots[n - 1]`` takes station n's screenshots.
    ``box["tickets"]`` gets the ``TicketTour``; a failed step raises ``DemoError``."""

    def after_cash_out(watch: Any, sim: Any, results: list[Any]) -> None:
        to = 2 if len(results) > 1 else 1
        host = SimControl(host_socket)
        try:
            box["tickets"] = ticket_tour(
                watch,
                sim,
                host,
                results[0],
                to,
                stop=stop,
                say=lambda text: print(text, flush=True),
                shot=shots[to - 1],
                machines=machines,
            )
        finally:
            host.close()

    return after_cash_out


def save_tour(tour: TicketTour | None, out_dir: Path) -> None:
    """Write the tour as ``tickets.json`` in the run folder (nothing without one)."""
    if tour is not None:
        import dataclasses

        (out_dir / "tickets.json").write_text(json.dumps(dataclasses.asdict(tour), indent=1) + "\n")

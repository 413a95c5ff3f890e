"""The host twin's live floor view: one text line per machine.

Owns: formatting ``MachineStatus`` records as the table ``cabinet sim-host --view``
prints.  Must not import: serial, time, cabinet.*.  Pure.

Columns: address, link state (``up``/``down``, with the age of the last valid reply),
credits, coin in, coin out, drop, games played (credits of the accounting denomination
and counts, as read from long polls 0x1A and 0x1C; ``-`` before the first reading)
and the last five exceptions by name, oldest first.  Below it the ticket
table: per machine tickets issued there (count, cents), redeemed there (count,
cents) and outstanding (issued there, not yet redeemed: count, cents), then the
floor's total (ticket amounts are cents on the wire at every accounting denomination).
"""

from __future__ import annotations

from collections.abc import Sequence

from drivers.sim.sas_host_data import MachineStatus
from drivers.sim.sas_host_tickets import MachineTickets

HEADER = (
    f"{'addr':>4}  {'link':<10} {'credits':>9} {'coin in':>10} {'coin out':>10} "
    f"{'drop':>10} {'games':>7}  last exceptions"
)


def _num(meters: dict[str, int], name: str, width: int) -> str:
    value = meters.get(name)
    return f"{'-' if value is None else value:>{width}}"


def _link(status: MachineStatus) -> str:
    if status.link_up:
        age = status.last_reply_age_s or 0.0
        return f"up {age:4.1f}s"
    return "down"


def floor_line(status: MachineStatus) -> str:
    """One machine's line of the floor view."""
    m = status.meters
    exceptions = ", ".join(status.last_exceptions) or "-"
    return (
        f"{status.address:>4}  {_link(status):<10} {_num(m, 'current_credits', 9)} "
        f"{_num(m, 'coin_in', 10)} {_num(m, 'coin_out', 10)} {_num(m, 'drop', 10)} "
        f"{_num(m, 'games_played', 7)}  {exceptions}"
    )


TICKET_HEADER = (
    f"{'addr':>5}  {'issued':>6} {'cents':>10}  {'redeemed':>8} {'cents':>10}  {'outstanding':>11} {'cents':>10}"
)


def ticket_line(t: MachineTickets) -> str:
    """One machine's ticket line (address 0: the floor's total)."""
    name = "total" if t.address == 0 else str(t.address)
    return (
        f"{name:>5}  {t.issued:>6} {t.issued_amount:>10}  {t.redeemed:>8} {t.redeemed_amount:>10}  "
        f"{t.outstanding:>11} {t.outstanding_amount:>10}"
    )


def ticket_view(tickets: Sequence[MachineTickets]) -> str:
    """The ticket table: a title line, the header, a line per machine then the total."""
    return "\n".join(["tickets (amounts in cents)", TICKET_HEADER, *(ticket_line(t) for t in tickets)])


def floor_view(
    statuses: Sequence[MachineStatus], title: str = "SAS floor", tickets: Sequence[MachineTickets] = ()
) -> str:
    """The whole floor view: ``title``, the header, a line per machine, then the ticket
    table when ``tickets`` is given (no final newline)."""
    parts = [title, HEADER, *(floor_line(s) for s in statuses)]
    if tickets:
        parts += ["", ticket_view(tickets)]
    return "\n".join(parts)

"""Which snapshots a station's own screen may draw a little later (latency).

With a screen per station, every press makes the engine send a snapshot to every UI,
and on a 2-core cabinet three UIs redrawing at once compete with the engine (and the
pressing player's own screen) for the CPU: press-to-snapshot p99 went over 20 ms.
Most of those snapshots change only *another* station (its bet, its credits, shown
small at the side): such a change is drawn ``LAZY_MS`` later, together with any that
follow (coalesced), while a change to this screen's own station, the dealer, the
table's message, timer, mode or overlay is drawn at once.

Owns: ``only_others_changed``. Pure: two snapshots in, a bool out.
"""

from __future__ import annotations

import msgspec

from cabinet.protocol.snapshot import Snapshot

#: how long a change of other stations only may wait before it is drawn (ms): under a
#: frame at 20 fps, well under what a player watching another player's bet notices.
LAZY_MS = 50


def only_others_changed(old: Snapshot | None, new: Snapshot, own: int) -> bool:
    """True when ``new`` differs from ``old`` in stations other than ``own`` alone
    (and its ``seq``): nothing on ``own``'s part of the screen or the table's changed.
    ``old`` ``None`` (the first snapshot) or a different set of stations: False."""
    if old is None or [st.station for st in old.stations] != [st.station for st in new.stations]:
        return False
    if old.stations == new.stations:
        return False  # nothing of the stations changed: a table-wide change, or none

    def mine(s: Snapshot) -> Snapshot:
        return msgspec.structs.replace(s, seq=0, stations=[st for st in s.stations if st.station == own])

    return mine(old) == mine(new)

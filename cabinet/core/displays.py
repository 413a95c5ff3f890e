"""Which stations a screen draws, and a station whose screen stays dark.

Owns: ``Displays``, the service owner's screens machine (``Cabinet.displays``): which
screens draw (``Cabinet.display_showing``, ``station_displays``) and how long a
station has been dark (memory only). Pure (time arrives in ``Tick``).

The UI server says, per screen, whether it draws (``DisplayChanged``): ``station`` 0
is a screen that draws the whole table (every station), ``station`` n a station's own
screen. A station no screen draws takes no money and no presses (nobody can see what
they would do); dark for ``DISPLAY_DARK_MS`` (``DISPLAY_START_MS`` for a screen that
has not drawn since the engine started: the UI is starting) it is out of service with
fault ``display_dark`` (its tower light, its EGM's general tilt to the casino host). A round
waits at the turn of a station whose screen is dark (no decision timeout) and goes on
where it was when the screen draws again, which also clears the fault.
"""

from __future__ import annotations

from cabinet.core.effects import Effect, Journal
from cabinet.core.errors import FAULTS
from cabinet.core.events import DisplayChanged
from cabinet.core.queries import CabinetQueries, Machine

#: A station whose screen draws nothing this long (ms of ``Tick`` time) is out of
#: service; the UI server itself reports a screen dark after ``ipc.DISPLAY_TIMEOUT_S``
#: without a frame, so a screen that stops drawing is a fault about 7 s later.
DISPLAY_DARK_MS = 3_000
#: The same for a station no screen has drawn since the engine started (a UI starts).
DISPLAY_START_MS = 30_000
#: The fault of a station whose screen is dark (``cabinet.core.errors.FAULTS``).
DISPLAY_FAULT = "display_dark"


class Displays(Machine):
    """Screens drawing the stations (``Cabinet.displays``)."""

    def __init__(self, cab: CabinetQueries) -> None:
        super().__init__(cab)
        #: station -> ``now_ms`` since no screen draws it; stations drawn since start
        #: (not journaled: the UI server says ``DisplayChanged`` when it starts).
        self.dark_since_ms: dict[int, int] = {}
        self.drawn: set[int] = set()

    def on_display(self, ev: DisplayChanged, out: list[Effect]) -> None:
        """A screen started or stopped drawing (``station`` 0: the whole table)."""
        before = {st.station: self.cab.display_shows(st.station) for st in self.s.stations}
        if ev.station == 0:
            if ev.showing != self.cab.display_showing:
                self.cab.display_showing = ev.showing
                out.append(Journal("display_shown" if ev.showing else "display_dark", 0, 0, {}))
        elif self.cab.station(ev.station) is not None and ev.showing != self.cab.station_displays.get(
            ev.station, False
        ):
            self.cab.station_displays[ev.station] = ev.showing
            out.append(Journal("display_shown" if ev.showing else "display_dark", ev.station, 0, {}))
        for st in self.s.stations:
            shows = self.cab.display_shows(st.station)
            if not shows:
                self.dark_since_ms.setdefault(st.station, self.s.now_ms)
                continue
            self.dark_since_ms.pop(st.station, None)
            self.drawn.add(st.station)
            if DISPLAY_FAULT in st.faults:
                st.faults = {c: t for c, t in st.faults.items() if c != DISPLAY_FAULT}
                out.append(Journal("fault_cleared", st.station, 0, {"device": "display", "codes": [DISPLAY_FAULT]}))
            prompt = self.cab.round.prompt if self.cab.round is not None else None
            if not before[st.station] and self.s.round_open and prompt is not None and prompt.seat == st.station:
                self.cab.table.arm_decision_timer()  # its turn's time starts again

    def display_tick(self, out: list[Effect]) -> None:
        """A station dark for ``DISPLAY_DARK_MS`` goes out of service."""
        for n, since in sorted(self.dark_since_ms.items()):
            st = self.cab.station(n)
            wait_ms = DISPLAY_DARK_MS if n in self.drawn else DISPLAY_START_MS
            if st is None or DISPLAY_FAULT in st.faults or self.s.now_ms - since < wait_ms:
                continue
            text = FAULTS[DISPLAY_FAULT][1]
            st.faults = {**st.faults, DISPLAY_FAULT: text}
            out.append(Journal("fault", n, 0, {"device": "display", "code": DISPLAY_FAULT, "text": text}))

"""The UI main loop: engine events and input in, frames out, only when needed.

Owns: the UI's own state (latest snapshot, connected, help shown, tweens),
the idle/animate frame pacing and screenshots. The loop blocks on a
``threading.Event`` the socket thread sets (and polls SDL input every
``IDLE_POLL_MS``), so an idle table costs almost no CPU; it draws only when
something changed and at most 60 frames a second while something moves.
UI thread only, except ``wake()``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pygame

from cabinet.protocol.ipc import FRAME_HEARTBEAT_S, Cue, Error, Frame, Intent
from cabinet.protocol.snapshot import Snapshot, WireMode
from ui import coalesce, i18n, refusals, shared_screen
from ui.animation import Animator
from ui.client import EngineClient, Link
from ui.devkeys import DevKeys
from ui.input import InputContext, LocalAction, map_event
from ui.refusals import refusal_text
from ui.render import Renderer
from ui.scenes import attract
from ui.scenes.maintenance import is_entry
from ui.sound import Sounds, sound_volume
from ui.widgets import HitBox

log = logging.getLogger(__name__)

FRAME_MS = 16  # 60 fps cap while animating
ATTRACT_FRAME_MS = 33  # 30 fps is plenty for the attract loop
PULSE_FRAME_MS = 400  # overlays that blink (printing dots)
IDLE_POLL_MS = 25  # how often input is polled when nothing else happens
#: input polling in attract, where the only touch is HELP (idle under 2 %)
ATTRACT_POLL_MS = 50


def save_screenshot(surface: pygame.Surface, path: str | os.PathLike[str]) -> Path:
    """Save ``surface`` as a PNG at ``path`` atomically (temp file + rename); returns the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp.png")
    pygame.image.save(surface, str(tmp))
    os.replace(tmp, p)
    return p


class App:
    """One table UI.

    Args:
        window: the display surface (or any surface in tests).
        client: the engine connection (started by ``run``), or ``None`` for
            a UI driven by ``feed()`` alone (tests, demos).
        station: this UI's station for keyboard intents, 1-3.
        screenshot_dir: if set, a PNG is saved there whenever the mode or
            overlay changes (``<seq>-<mode>[-<overlay>].png``).
        portrait: draw the portrait layout; when the window is landscape the
            frame is rotated 90 degrees counter-clockwise onto it.
        sounds: the sound player (silent if omitted).
        clock_ms: monotonic clock in ms (injected so tests can step time).
        flip: called after each frame is drawn (``pygame.display.flip``).
        update: called instead of ``flip`` with the areas changed when a frame
            repainted only part of the screen (``pygame.display.update``).
        wall_clock: the time of day to show (``time.strftime("%H:%M")``), or
            ``None`` for none (tests, goldens).
        own_station: this window is its station's own screen (its
            spots, meters and buttons large, the other players' hands small).
        language: the screen's default language (``ui.i18n.parse_language``:
            ``"en"``, ``"es"``, ``"es_ES"``); the player's language button (F12)
            switches it, and the next player (after a cash-out) gets the default again.
        languages: what the language button cycles through (``()``: no button).
        screens: ``"shared"``: one shared wide screen with a panel per station
            (``ui.shared_screen``; keys and dev keys act for the focused
            panel's station, ``station`` at first); ``"per-station"``: never;
            ``""``: as the engine's setting says (``Snapshot.screens``).

    Raises:
        ConfigError: ``language`` names a language the table does not speak.
    """

    def __init__(
        self,
        window: pygame.Surface,
        client: EngineClient | None,
        *,
        station: int = 1,
        screenshot_dir: str | None = None,
        portrait: bool = False,
        sounds: Sounds | None = None,
        clock_ms: Callable[[], int] | None = None,
        flip: Callable[[], None] | None = None,
        own_station: bool = False,
        update: Callable[[list[pygame.Rect]], None] | None = None,
        wall_clock: Callable[[], str] | None = None,
        language: str = i18n.DEFAULT,
        languages: tuple[str, ...] = i18n.ORDER,
        screens: str = "",
    ) -> None:
        self.default_language = i18n.parse_language(language)
        #: the language on screen now (the player's choice, or the default)
        self.language = self.default_language
        self.languages = languages
        self.wall_clock = wall_clock
        self.screens = screens
        self._small_said = False
        #: when a change of other stations only is due to be drawn (ms), ``ui.coalesce``
        self._lazy_due: int | None = None
        self.own_station = own_station
        self.update = update
        self.window = window
        self.client = client
        self.station = station
        self.screenshot_dir = screenshot_dir
        self.sounds = sounds or Sounds(enabled=False)
        self.clock_ms = clock_ms or (lambda: int(time.monotonic() * 1000))
        self.flip = flip or (lambda: None)
        self.renderer = Renderer()
        self.renderer.diag.audio = self.sounds.available  # the sound test says
        self.anim = Animator()
        self.snapshot: Snapshot | None = None
        self.connected = client is None
        self.show_help = False
        self.hits: list[HitBox] = []
        self.dirty = True
        self.running = True
        self.frames = 0
        self.first_frame_ms: int | None = None
        self._pending_shots: list[str] = []
        self._settled_shots: list[str] = []
        self._announce: set[str] = set()
        #: called with the path of each ``request_screenshot`` file once saved.
        self.on_settled_shot: Callable[[str], None] | None = None
        #: dev keys driving the simulated devices (``--sim-socket``), or ``None``.
        self.devkeys: DevKeys | None = None
        #: called once after the first frame is presented (start-up timing).
        self.on_first_frame: Callable[[], None] | None = None
        #: station -> (why its last press was refused, until when in ms).
        self.refusals: dict[int, tuple[str, int]] = {}
        self._wake = threading.Event()
        self._drawn_on_link = False  # a table frame drawn since the link came up
        self._frame_sent_ms: int | None = None
        w, h = window.get_size()
        self.rotated = portrait and w > h
        self._canvas = pygame.Surface((h, w)) if self.rotated else window
        if client is not None:
            client._notify = self.wake  # the socket thread wakes the loop

    # -- events ------------------------------------------------------------------

    def wake(self) -> None:
        """Thread-safe: make the loop look at the client queue now."""
        self._wake.set()

    def feed(self, events: Sequence[object], now_ms: int) -> None:
        """Apply engine events (snapshots, cues, errors, link changes) in order.

        Only the newest snapshot is kept: animation starts from the diff
        between what was drawn and that one, so nothing queues behind it.
        """
        newest: Snapshot | None = None
        for ev in events:
            if isinstance(ev, Snapshot):
                newest = ev
            elif isinstance(ev, Cue):
                self._cue(ev, now_ms)
            elif isinstance(ev, Link):
                self.connected = ev.up
                self._drawn_on_link = False
                self._frame_sent_ms = None
                if not ev.up:
                    self.anim.clear()
                self.dirty = True
            elif isinstance(ev, Error):
                log.info("engine refused: %s %s", ev.code, ev.message)
        if newest is not None:
            old = self.snapshot
            if old is not None and newest.seq < old.seq:
                old = None  # the engine restarted: draw afresh
            self.sounds.volume = sound_volume(newest)  # the operator's settings
            for name in self.anim.on_snapshot(old, newest, now_ms):
                self.sounds.play(name)
            changed_scene = old is None or (old.mode, old.overlay) != (newest.mode, newest.overlay)
            if newest.mode == WireMode.MAINTENANCE:
                self.show_help = False
            self._new_player(old, newest)
            # a station's own screen draws another station's change a little
            # later, with whatever follows (three UIs redrawing at once slowed every press)
            lazy = self.own_station and not self.dirty and coalesce.only_others_changed(old, newest, self.station)
            self.snapshot = newest
            if lazy:
                self._lazy_due = self._lazy_due or now_ms + coalesce.LAZY_MS
            else:
                self.dirty = True
            if changed_scene and self.screenshot_dir:
                o = f"-{newest.overlay}" if newest.overlay else ""
                self._pending_shots.append(os.path.join(self.screenshot_dir, f"{newest.seq:06d}-{newest.mode}{o}.png"))

    def _cue(self, cue: Cue, now_ms: int) -> None:
        if cue.name == "refused" and cue.station is not None:  # say why
            i18n.use(self.language)  # in this screen's language
            text = refusal_text(
                self.snapshot, cue.station, str(cue.data.get("action", "")), str(cue.data.get("reason", ""))
            )
            self.refusals[cue.station] = (text, now_ms + refusals.SHOW_MS)
            self.dirty = True
            return
        if cue.name == "screenshot":
            path = cue.data.get("path")
            if isinstance(path, str) and path:
                self._pending_shots.append(path)
                self.dirty = True
            return
        if cue.name == "sound_test":  # Diagnostics
            self.sounds.play(str(cue.data.get("sound", "")))
            self.renderer.diag.audio = self.sounds.available
            self.dirty = True
            return
        for name in self.anim.on_cue(cue, now_ms):
            self.sounds.play(name)
        self.dirty = True

    def request_screenshot(self, path: str) -> None:
        """Thread- and signal-safe: save a frame at ``path`` once nothing moves any more
        (card, flip, chip tweens settled), drawing a fresh frame for it."""
        self._settled_shots.append(path)
        self.wake()

    def stop(self) -> None:
        """Signal-safe: leave ``run()`` after the current turn."""
        self.running = False
        self.wake()

    # -- the shared screen ----------------------------------------------

    def shared(self) -> bool:
        """Whether this window draws the shared wide screen now: asked for (``screens``
        or the engine's setting), not a station's own screen, and the window at least
        ``shared_screen.MIN_SIZE`` (else the classic table, said once in the log)."""
        want = self.screens or (self.snapshot.screens if self.snapshot is not None else "")
        if want != "shared" or self.own_station:
            return False
        w, h = self._canvas.get_size()
        if shared_screen.supported(w, h):
            return True
        if not self._small_said:
            self._small_said = True
            log.warning(
                "the shared screen needs at least %dx%d landscape, the window is %dx%d: drawing the classic table",
                *shared_screen.MIN_SIZE,
                w,
                h,
            )
        return False

    def focus_station(self, station: int) -> None:
        """The shared screen's keys and dev keys act for ``station`` from now on."""
        if station != self.station:
            self.station = station
            self.dirty = True
        if self.devkeys is not None:
            self.devkeys.station = station

    def _focus_event(self, event: pygame.event.Event) -> bool:
        """On the shared screen: Tab (Shift+Tab) moves the keys to the next (previous)
        station's panel (consumed: True); a touch or click in a panel focuses it (and
        goes on to press what it touched)."""
        if not self.shared() or self.snapshot is None or not self.snapshot.stations:
            return False
        numbers = [st.station for st in self.snapshot.stations]
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
            step = -1 if getattr(event, "mod", 0) & pygame.KMOD_SHIFT else 1
            i = numbers.index(self.station) if self.station in numbers else -step
            self.focus_station(numbers[(i + step) % len(numbers)])
            return True
        pos: tuple[float, float] | None = None
        if event.type == pygame.FINGERDOWN:
            w, h = self.window.get_size()
            pos = (event.x * w, event.y * h)
        elif event.type == pygame.MOUSEBUTTONDOWN:
            pos = event.pos
        if pos is not None:
            st = shared_screen.station_at(shared_screen.layout_for(*self._canvas.get_size()), self.snapshot, pos)
            if st is not None:
                self.focus_station(st)
        return False

    def handle_input(self, event: pygame.event.Event) -> list[Intent]:
        """Map one input event; send its intents; apply local actions. Returns the intents."""
        s = self.snapshot
        chips = s.chip_values_minor if s is not None else []
        m = s.maintenance if s is not None and s.mode == WireMode.MAINTENANCE else None
        mine = next((st for st in s.stations if st.station == self.station), None) if s is not None else None
        ctx = InputContext(
            station=self.station,
            hits=self.hits,
            size=self.window.get_size(),
            chip_values_minor=chips,
            rotated=self.rotated,
            keypad=m.items if m is not None and is_entry(m.items) else (),
            history_open=mine is not None and mine.history is not None,
        )
        sent: list[Intent] = []
        actions = map_event(event, ctx)
        if actions and event.type in (pygame.MOUSEBUTTONDOWN, pygame.FINGERDOWN):
            self.sounds.play("button")  # a button touched clicks
        for a in actions:
            if isinstance(a, LocalAction):
                if a.name == "toggle_help":
                    self.show_help = not self.show_help
                    self.dirty = True
                elif a.name == "quit":
                    self.running = False
                elif a.name == "toggle_language":  # the player's EN/ES button
                    self.set_language(i18n.next_language(self.language.code))
                elif a.name.startswith("touch:"):  # the screen test
                    self.renderer.diag.touched.add(int(a.name.removeprefix("touch:")))
                    self.dirty = True
            else:
                sent.append(a)
                if self.client is not None:
                    self.client.send(a)
        return sent

    def set_language(self, code: str) -> None:
        """Show this screen in ``code`` from the next frame on (its default's territory kept
        when it is the default's language: ``es_ES`` stays ``es_ES``)."""
        d = self.default_language
        self.language = d if code == d.code else i18n.parse_language(code)
        log.info("station %d screen language %s (%s)", self.station, self.language.code, self.language.locale)
        self.dirty = True

    def _new_player(self, old: Snapshot | None, new: Snapshot) -> None:
        """Once this station's credits are cashed out (a ticket printing or a
        handpay and its meter at 0), the next player starts in the default language."""
        if (
            old is None
            or self.language == self.default_language
            or new.mode not in (WireMode.CASH_OUT, WireMode.HANDPAY)
        ):
            return
        was = next((st.credits_minor for st in old.stations if st.station == self.station), 0)
        now = next((st.credits_minor for st in new.stations if st.station == self.station), 0)
        if was > 0 and now == 0:
            self.set_language(self.default_language.code)

    # -- frames ------------------------------------------------------------------

    def frame_interval_ms(self, now_ms: int) -> int | None:
        """Milliseconds until the next frame is due without new input, or ``None`` when idle."""
        if self.anim.busy(now_ms):
            return FRAME_MS
        if self.refusals:  # redraw when the oldest refusal message is due to go
            due = min(until for _, until in self.refusals.values())
            return max(1, due - self._last_draw_ms)
        s = self.snapshot
        if s is not None and self.connected:
            if s.mode == WireMode.ATTRACT and not self.show_help:
                # sleep until the attract picture changes next
                last = self._last_draw_ms
                return max(1, attract.next_change_ms(last) - last) if s.overlay is None else ATTRACT_FRAME_MS
            if s.overlay is not None:
                return PULSE_FRAME_MS
        return None

    def draw(self, now_ms: int) -> None:
        """Draw one frame now, present it, and save any screenshot asked for."""
        self.refusals = {n: v for n, v in self.refusals.items() if v[1] > now_ms}
        self.hits = self.renderer.draw(
            self._canvas,
            self.snapshot,
            now_ms,
            self.anim,
            self.connected,
            self.show_help,
            own_station=self.station if self.own_station else None,
            clock=self.clock_text(),
            notices={n: t for n, (t, _u) in self.refusals.items()},
            language=self.language,
            languages=self.languages,
            shared=self.shared(),
            focus=self.station,
        )
        dirty = self.renderer.last_dirty
        if self.rotated:
            self.window.blit(pygame.transform.rotate(self._canvas, 90), (0, 0))
            self.flip()
        elif dirty is not None and self.update is not None:
            if dirty:
                self.update(dirty)
        else:
            self.flip()
        self.frames += 1
        if self.connected and self.snapshot is not None:
            self._drawn_on_link = True
        if self.first_frame_ms is None:
            self.first_frame_ms = now_ms
            if self.on_first_frame is not None:
                self.on_first_frame()
        shots, self._pending_shots = self._pending_shots, []
        for path in shots:
            try:
                save_screenshot(self.window, path)
            except (OSError, pygame.error) as e:
                log.warning("screenshot %s failed: %s", path, e)
                continue
            if path in self._announce:
                self._announce.discard(path)
                if self.on_settled_shot is not None:
                    self.on_settled_shot(path)
        self.dirty = False
        self._lazy_due = None

    def clock_text(self) -> str:
        """The time of day on screen, ``HH:MM`` local time; ``""`` when off."""
        return self.wall_clock() if self.wall_clock is not None else ""

    def step(self, max_wait_ms: int = IDLE_POLL_MS) -> None:
        """One turn of the loop: wait (bounded), take input and engine events, draw if due."""
        now = self.clock_ms()
        interval = self.frame_interval_ms(now)
        if self.snapshot is not None and self.snapshot.mode == WireMode.ATTRACT and max_wait_ms == IDLE_POLL_MS:
            max_wait_ms = ATTRACT_POLL_MS
        if self.dirty:
            wait = 0
        elif interval is None:
            wait = max_wait_ms
        else:
            wait = max(0, min(max_wait_ms, interval - (now - self._last_draw_ms)))
        if self._lazy_due is not None:
            wait = max(0, min(wait, self._lazy_due - now))
        if wait > 0:
            self._wake.wait(wait / 1000)
        self._wake.clear()
        for ev in pygame.event.get():
            if ev.type in (pygame.WINDOWEXPOSED, pygame.VIDEOEXPOSE, pygame.WINDOWRESTORED):
                self.dirty = True
                self.renderer.invalidate()
            if self._focus_event(ev):
                continue
            if self.devkeys is not None and self.devkeys.handle(ev):
                continue
            self.handle_input(ev)
        now = self.clock_ms()
        if self.client is not None:
            evs = self.client.poll()
            if evs:
                self.feed(evs, now)
        if self._lazy_due is not None and now >= self._lazy_due:
            self.dirty = True
        if self._settled_shots and not self.anim.busy(now):
            shots, self._settled_shots = self._settled_shots, []
            self._pending_shots += shots
            self._announce.update(shots)
            self.dirty = True
        if self.wall_clock is not None and self.clock_text() != self._clock_shown:
            self.dirty = True  # the minute turned
        if self.dirty or (interval is not None and now - self._last_draw_ms >= interval):
            self.draw(now)
            self._last_draw_ms = now
            self._clock_shown = self.clock_text()
        self._heartbeat(now)

    def _heartbeat(self, now_ms: int) -> None:
        """Tell the engine the table is on screen: a ``Frame`` after the first frame
        drawn on this link, then every ``FRAME_HEARTBEAT_S`` while the loop runs (the
        engine takes no money while no display reports frames). A station's
        own screen names its station: it draws that station only."""
        if self.client is None or not self._drawn_on_link or self.snapshot is None:
            return
        if self._frame_sent_ms is None or now_ms - self._frame_sent_ms >= FRAME_HEARTBEAT_S * 1000:
            if self.client.send(Frame(seq=self.snapshot.seq, station=self.station if self.own_station else None)):
                self._frame_sent_ms = now_ms

    _last_draw_ms = 0
    _clock_shown = ""

    def run(self) -> None:
        """Run until quit: start the client, then ``step()`` forever."""
        if self.client is not None:
            self.client.start()
        try:
            while self.running:
                self.step()
        finally:
            if self.client is not None:
                self.client.stop()

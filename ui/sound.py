"""Short table sounds, synthesised at start-up with stdlib ``array``/``math``.

Owns: the ``card`` (deal), ``chip``, ``win``, ``blackjack``, ``big_win`` (the big
win's longer fanfare) and ``button`` (a touched button) sounds
and playing them, at the operator's volume. With no sound card (/proc/asound/cards)
the mixer is not tried, so ALSA prints nothing; if it cannot start, or cannot even be
imported (a system without its libraries: pygame's stand-in for the module raises
``NotImplementedError``), every call is a silent no-op, logged once per process: sound
must never stop the game. UI thread only.
"""

from __future__ import annotations

import logging
import math
import os
from array import array
from pathlib import Path

import pygame

from cabinet.protocol.snapshot import Snapshot, WireMode

log = logging.getLogger(__name__)

RATE = 22_050

#: Linux lists the sound cards ALSA knows here.
ASOUND_CARDS = Path("/proc/asound/cards")

_told = False  # "no sound" is logged once per process


def _sound_card_missing(cards: Path = ASOUND_CARDS) -> str | None:
    """Why there can be no sound, or ``None`` to try the mixer.

    Without a card, SDL's ALSA back end prints a screenful of errors for every
    attempt, so the mixer is not tried at all. ``SDL_AUDIODRIVER`` set by the
    operator (``dummy``, ``pulseaudio``...) always gets its try.
    """
    if os.environ.get("SDL_AUDIODRIVER"):
        return None
    try:
        text = cards.read_text(encoding="ascii", errors="replace")
    except OSError:
        return "no sound card found" if cards.parent.parent.exists() else None
    return "no sound card found" if "no soundcards" in text or not text.strip() else None


def _silent(reason: object) -> None:
    global _told
    if not _told:
        _told = True
        log.info("no sound: %s", reason)


def _env(n: int, attack: int, decay: float) -> list[float]:
    return [min(1.0, i / max(1, attack)) * math.exp(-i / (decay * RATE)) for i in range(n)]


def synth(name: str, rate: int = RATE) -> array[int]:
    """Mono signed 16-bit samples of a named sound (deterministic).

    Raises:
        KeyError: unknown sound name.
    """
    out = array("h")
    if name == "card":  # a soft swish: filtered noise, 70 ms
        n = int(rate * 0.07)
        seed, prev = 12345, 0.0
        for e in _env(n, 40, 0.018):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            prev = prev * 0.6 + ((seed / 0x7FFFFFFF) * 2 - 1) * 0.4
            out.append(int(prev * e * 14000))
    elif name == "chip":  # two clicks of clay
        n = int(rate * 0.12)
        for i in range(n):
            v = 0.0
            for start, f in ((0, 3100.0), (int(rate * 0.045), 3900.0)):
                if i >= start:
                    t = (i - start) / rate
                    v += math.sin(2 * math.pi * f * t) * math.exp(-t / 0.012)
            out.append(int(v * 9000))
    elif name == "button":  # a short soft click, 30 ms
        n = int(rate * 0.03)
        for i in range(n):
            t = i / rate
            out.append(int(math.sin(2 * math.pi * 1800.0 * t) * math.exp(-t / 0.006) * 9000))
    elif name == "big_win":  # the blackjack fanfare twice, the second on the first's tail
        bj = _fanfare("blackjack", rate)
        lag = int(rate * 0.42)
        for i in range(len(bj) + lag):
            v = (bj[i] if i < len(bj) else 0) + (bj[i - lag] if i >= lag else 0)
            out.append(max(-32000, min(32000, int(v * 0.75))))
    elif name in ("win", "blackjack"):
        out = _fanfare(name, rate)
    else:
        raise KeyError(name)
    return out


_fanfares: dict[tuple[str, int], array[int]] = {}


def _fanfare(name: str, rate: int) -> array[int]:
    """The ``win`` or ``blackjack`` arpeggio (computed once per rate, a copy returned)."""
    done = _fanfares.get((name, rate))
    if done is None:
        done = array("h")
        notes = [523.25, 659.25, 783.99] if name == "win" else [523.25, 659.25, 783.99, 1046.5, 1318.5]
        step = 0.09 if name == "win" else 0.08
        n = int(rate * (step * len(notes) + 0.25))
        for i in range(n):
            t = i / rate
            v = 0.0
            for k, f in enumerate(notes):
                t0 = t - k * step
                if t0 >= 0:
                    v += (math.sin(2 * math.pi * f * t0) + 0.3 * math.sin(4 * math.pi * f * t0)) * math.exp(-t0 / 0.12)
            done.append(int(max(-1.0, min(1.0, v * 0.35)) * 20000))
        _fanfares[(name, rate)] = done
    return array("h", done)


class Sounds:
    """The mixer and the synthesised sounds; silent when there is no audio device.

    Args:
        enabled: False to stay silent on purpose.
    """

    NAMES = ("card", "chip", "win", "blackjack", "button", "big_win")

    def __init__(self, enabled: bool = True) -> None:
        self._sounds: dict[str, pygame.mixer.Sound] = {}
        #: 0.0-1.0, from the operator's settings (``sound_volume``).
        self.volume = 1.0
        if not enabled:
            return
        try:
            missing = _sound_card_missing() if not pygame.mixer.get_init() else None
        except NotImplementedError as e:  # the mixer's import failed (no libglib...)
            _silent(e)
            return
        if missing is not None:
            _silent(missing)
            return
        try:
            if not pygame.mixer.get_init():
                pygame.mixer.init(frequency=RATE, size=-16, channels=2, buffer=512)
            started = pygame.mixer.get_init()
            if started is None:
                raise pygame.error("the mixer did not start")
            freq, _size, channels = started
            for name in self.NAMES:
                mono = synth(name, freq)
                if channels == 2:
                    st = array("h")
                    for v in mono:
                        st.append(v)
                        st.append(v)
                    mono = st
                self._sounds[name] = pygame.mixer.Sound(buffer=mono.tobytes())
        except (pygame.error, NotImplementedError, TypeError, ValueError) as e:
            _silent(e)
            self._sounds.clear()

    @property
    def available(self) -> bool:
        return bool(self._sounds)

    def play(self, name: str) -> None:
        """Play a sound by name; unknown names and a missing mixer are ignored."""
        s = self._sounds.get(name)
        if s is not None and self.volume > 0:
            try:
                s.set_volume(self.volume)
                s.play()
            except (pygame.error, NotImplementedError):
                pass


def sound_volume(snapshot: Snapshot) -> float:
    """The volume the operator set (``volume_percent``), 0.0-1.0; silent in
    the attract loop when its sound is off (``attract_sound``)."""
    if snapshot.mode == WireMode.ATTRACT and not snapshot.attract_sound:
        return 0.0
    return max(0, min(100, snapshot.volume_percent)) / 100

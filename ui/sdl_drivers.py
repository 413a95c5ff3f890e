"""The video drivers compiled into the SDL that pygame loaded, and a check for one.

Owns: ``video_drivers`` (SDL_GetNumVideoDrivers/SDL_GetVideoDriver through ctypes on
the libSDL2 pygame loaded: the pygame-ce wheel's own copy, or the system's) and
``missing_driver``. ``python -m ui.sdl_drivers`` lists them; ``--require NAME`` exits 1
with why when NAME is not among them: the installer's check that the SDL it installed
can draw on the display ``cabinet-ui.service`` names (``SDL_VIDEODRIVER=kmsdrm`` on a
Pi: an SDL built without it leaves a black screen). I/O: reads /proc/self/maps.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402  (loads libSDL2)


def sdl_library(maps: Path = Path("/proc/self/maps")) -> str:
    """The path of the libSDL2 this process loaded (through pygame).

    Raises:
        OSError: no libSDL2 found.
    """
    try:
        for line in maps.read_text().splitlines():
            path = line.split(maxsplit=5)[-1]
            if "/libSDL2-2" in path or "/libSDL2.so" in path or "/libSDL2-2.0.so" in path:
                return path
    except OSError:
        pass
    found = ctypes.util.find_library("SDL2")
    if found is None:
        raise OSError("no libSDL2 loaded by pygame, nor one on the system")
    return found


def video_drivers() -> list[str]:
    """SDL's compiled-in video drivers, in SDL's order of preference (as SDL names
    them: ``x11``, ``wayland``, ``KMSDRM``, ``offscreen``, ``dummy``...).

    Raises:
        OSError: no libSDL2 found, or it has no ``SDL_GetVideoDriver``.
    """
    assert pygame.get_sdl_version()[0] == 2, "SDL 2 expected"
    lib = ctypes.CDLL(sdl_library())
    lib.SDL_GetNumVideoDrivers.restype = ctypes.c_int
    lib.SDL_GetVideoDriver.restype = ctypes.c_char_p
    lib.SDL_GetVideoDriver.argtypes = [ctypes.c_int]
    return [lib.SDL_GetVideoDriver(i).decode() for i in range(lib.SDL_GetNumVideoDrivers())]


def missing_driver(wanted: str, drivers: Sequence[str]) -> str | None:
    """Why ``wanted`` cannot be used with ``drivers`` (SDL matches names without
    regard to case), or ``None`` when it is there."""
    if wanted.lower() in (d.lower() for d in drivers):
        return None
    return (
        f"SDL video driver {wanted!r} is not in this SDL (it has: {', '.join(drivers) or 'none'}): "
        f"the display cannot be opened; pygame-ce's wheel (pyproject.toml) has it"
    )


def main(argv: Sequence[str] | None = None, drivers: Sequence[str] | None = None) -> int:
    """``python -m ui.sdl_drivers [--require NAME]``: print the drivers; 1 when NAME
    is missing. ``drivers``: the list to check instead of the loaded SDL's (tests)."""
    ap = argparse.ArgumentParser(prog="python -m ui.sdl_drivers", description="list SDL's compiled-in video drivers")
    ap.add_argument("--require", metavar="NAME", help="exit 1 unless this driver is there")
    args = ap.parse_args(argv)
    have = list(drivers) if drivers is not None else video_drivers()
    print(f"SDL {'.'.join(map(str, pygame.get_sdl_version()))} video drivers: {' '.join(have)}")
    why = missing_driver(args.require, have) if args.require else None
    if why is not None:
        print(f"ui.sdl_drivers: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

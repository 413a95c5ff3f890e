"""The SDL that pygame loads has the video driver the Pi's UI unit uses.

``cabinet-ui.service`` draws with ``SDL_VIDEODRIVER`` (``kmsdrm``); the installer
checks it with ``python -m ui.sdl_drivers --require``. These tests read the real list
of the SDL installed here (the same pygame-ce wheel, built the same way, as on an
arm64 Pi) and check the check itself on the list an SDL without KMSDRM gives (the
pygame 2.6.1 wheel's: x11, wayland, offscreen, dummy, evdev)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.tools.install import unit_environment
from ui import sdl_drivers

ROOT = Path(__file__).resolve().parents[2]
PI_DRIVER = unit_environment(ROOT / "systemd/cabinet-ui.service")["SDL_VIDEODRIVER"]
WITHOUT_KMSDRM = ["x11", "wayland", "offscreen", "dummy", "evdev"]


def test_the_installed_sdl_has_the_pi_units_driver_and_what_this_machine_uses():
    drivers = sdl_drivers.video_drivers()
    assert PI_DRIVER == "kmsdrm"
    assert sdl_drivers.missing_driver(PI_DRIVER, drivers) is None, drivers
    for needed in ("x11", "offscreen", "dummy"):  # a desktop, the tests, headless shots
        assert needed in drivers, drivers


def test_an_sdl_without_the_driver_is_refused_with_its_list():
    why = sdl_drivers.missing_driver(PI_DRIVER, WITHOUT_KMSDRM)
    assert why == (
        "SDL video driver 'kmsdrm' is not in this SDL (it has: x11, wayland, offscreen, "
        "dummy, evdev): the display cannot be opened; pygame-ce's wheel (pyproject.toml) has it"
    )
    assert sdl_drivers.missing_driver("kmsdrm", ["x11", "KMSDRM"]) is None  # SDL ignores case
    assert sdl_drivers.main(["--require", PI_DRIVER], drivers=WITHOUT_KMSDRM) == 1
    assert sdl_drivers.main(["--require", PI_DRIVER], drivers=["KMSDRM", "dummy"]) == 0


def test_the_library_is_the_one_pygame_loaded(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(
        "7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f02-7f03 r-xp 00000000 08:01 2 /venv/site-packages/pygame_ce.libs/"
        "libSDL2-2-50d19f93.0.so.0.3200.10\n"
    )
    assert sdl_drivers.sdl_library(maps).endswith("pygame_ce.libs/libSDL2-2-50d19f93.0.so.0.3200.10")


@pytest.mark.timeout(60)
def test_the_command_the_installer_runs():
    r = subprocess.run(
        [sys.executable, "-m", "ui.sdl_drivers", "--require", PI_DRIVER],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("SDL 2.") and "KMSDRM" in r.stdout

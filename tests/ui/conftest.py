"""UI test setup: headless SDL before pygame is imported (STYLE.md 33)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


@pytest.fixture(autouse=True)
def _english_after() -> object:
    """The active language is process-wide; each test starts and ends in English."""
    from ui import i18n

    i18n.use(i18n.DEFAULT)
    yield
    i18n.use(i18n.DEFAULT)


@pytest.fixture(scope="session")
def renderer():  # type: ignore[no-untyped-def]
    from ui.render import Renderer

    return Renderer()

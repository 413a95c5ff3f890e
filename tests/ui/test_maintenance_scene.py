"""The maintenance scene's item list."""

from __future__ import annotations

import msgspec
import pygame
import pytest

from cabinet.protocol.snapshot import MaintenanceView, Snapshot
from ui.render import Renderer
from ui.widgets import Painter

SETTINGS_ITEMS = [
    "Game: classic",
    "Stations: 1",
    "Spots per station: 1 (default)",
    "Minimum bet: $1.00 (default)",
    "Maximum bet: $100.00 (default)",
    "Cut card: shuffle every round (default)",
    "Voucher limit: $1,200.00",
    "Jackpot handpay limit: $1,200.00",
    "Credit limit: $3,000.00",
    "Voucher expiry (days): 30",
    "Save settings",
    "Discard changes",
]


def _drawn_texts(
    renderer: Renderer, snap: Snapshot, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    seen: list[str] = []
    real = Painter.text

    def spy(self, s, *a, **kw):  # type: ignore[no-untyped-def]
        seen.append(s)
        return real(self, s, *a, **kw)

    monkeypatch.setattr(Painter, "text", spy)
    renderer.draw(pygame.Surface(size), snap, 1_000, None, True, False)
    return seen


@pytest.mark.parametrize("size", [(1920, 1080), (800, 480), (1080, 1920)])
@pytest.mark.parametrize("selected", [0, 11])
def test_every_settings_item_is_on_screen_wherever_the_selection_is(
    renderer: Renderer, size: tuple[int, int], selected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Discard changes" (and "Game") stay in the visible list."""
    snap = Snapshot(
        seq=1,
        mode="maintenance",
        variant="classic",
        variant_name="Classic Blackjack",
        maintenance=MaintenanceView(
            page="settings",
            title="Settings",
            lines=["Changes apply between rounds and are logged."],
            items=SETTINGS_ITEMS,
            selected=selected,
        ),
    )
    texts = [t.removeprefix("\u25b6 ").strip() for t in _drawn_texts(renderer, snap, size, monkeypatch)]
    missing = [i for i in SETTINGS_ITEMS if i not in texts]
    assert not missing


@pytest.mark.parametrize("size", [(1920, 1080), (800, 480)])
def test_every_menu_row_and_entry_key_is_a_touch_target(renderer: Renderer, size: tuple[int, int]) -> None:
    """A touch on a row (or a key of a typed entry) sends ``menu_pick`` with
    its index, so a PIN, an amount or a name is typed by touch."""
    from tests.ui.fixtures import MAINT, MAINT_PIN, MAINT_TEXT_ENTRY
    from ui.input import hit_test

    for case in (MAINT, MAINT_PIN, MAINT_TEXT_ENTRY):
        assert case.maintenance is not None
        hits = renderer.draw(pygame.Surface(size), case, 1_000, None, True, False)
        picks = sorted(h.value for h in hits if h.action == "menu_pick" and h.value is not None)
        assert picks == list(range(len(case.maintenance.items))), case.maintenance.title
        enter = (
            next(h for h in hits if h.action == "menu_pick" and case.maintenance.items[h.value or 0] == "Enter")
            if "Enter" in case.maintenance.items
            else None
        )
        if enter is not None:
            assert hit_test(enter.rect.center, hits) is enter


def test_the_volume_and_attract_sound_settings_reach_the_ui() -> None:
    """The snapshot carries the operator's volume and attract sound; the UI
    plays at that volume and keeps the attract loop silent when its sound is off."""
    from ui.sound import sound_volume

    base = Snapshot(
        seq=1,
        mode="betting",
        variant="classic",
        variant_name="Classic Blackjack",
        volume_percent=40,
        attract_sound=False,
    )
    assert sound_volume(base) == 0.4
    assert sound_volume(msgspec.structs.replace(base, mode="attract")) == 0.0
    assert sound_volume(msgspec.structs.replace(base, mode="attract", attract_sound=True)) == 0.4

"""The help panel's bullets: an indented line continues the bullet above."""

from __future__ import annotations


def test_help_continuation_lines_join_their_bullet():
    """An indented help line continues the bullet above, no new bullet."""
    from ui.scenes.help import bullets

    assert bullets(["Blackjack pays 3 to 2,", "  beats every other 21.", "No surrender."]) == [
        "Blackjack pays 3 to 2, beats every other 21.",
        "No surrender.",
    ]

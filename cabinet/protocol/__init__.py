"""The messages the engine and the UI share: ``snapshot`` (what the UI may show)
and ``ipc`` (framing, intents, cues), and ``money`` (the one money formatter and
chip split both sides use). The only part of ``cabinet`` the UI
imports; it imports nothing else of the engine (tests/test_layers.py)."""

"""The cabinet core: the cabinet as a pure state machine (an event in, effects out).

``machine`` owns ``Cabinet.handle``, the modes and every per-mode table; the
rest are its data (state, meters, settings, records), its inputs and outputs
(events, effects), the operator menu (maintenance) and the snapshot builder
(view). No clock, OS, SQLite, asyncio, logging or randomness of its own
(tests/test_layers.py); the shell hands in time, randomness and the journal rows
it reads for the core (``shell_inputs``).
"""

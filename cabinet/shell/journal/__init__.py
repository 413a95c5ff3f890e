"""The parts of the journal (``cabinet.shell.store.Store`` composes them), one concern
each: ``base`` (schema, connection, transaction), ``keys`` (keyed checksums, key file),
``verify`` (row, chain and commit-record checks; the doctor's report), ``commit`` (the
write path), ``load`` (start: verify, repair, the one-time upgrade), ``history`` (read-only views)
and ``guard`` (what the engine refuses to open as its journal)."""

"""The engine's I/O around the core: ``main`` (composition), ``config``, ``engine``
(the loop: core, commit, devices, publish), ``store`` (the SQLite journal),
``ui_server``, ``devices`` (the driver <-> event bridge), ``sim_control``,
``manifest`` and ``paths``. The only room that imports ``drivers``."""

"""The engine's I/O around the core: ``main`` (composition), ``config``, ``engine``
(the loop: core, commit, devices, publish), ``store`` (the SQLite journal; its parts in
``journal/``), ``ui_server``, ``devices`` (one station's driver <-> event bridge),
``station_devices`` (every station's set, the sim control socket), ``sim_control``,
``manifest`` and ``paths``. The only room that imports ``drivers``."""

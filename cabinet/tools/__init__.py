"""Tools for people: the ``cabinet`` command (``cli``), ``replay``, the journal views
(``views_cli``), ``cabinet run`` (``launcher``) and its ``demo_player``. They use
the other rooms; no other room imports them."""

"""The languages the table speaks: what the engine's tools and the UI both check a
language setting against.

Owns: ``LANGUAGES`` (code -> the locale its numbers and money are written in when the
setting names no territory), ``station_languages`` and ``check_station_languages``, the
one reading and the one check of ``cabinet run --language``'s list. Pure. The catalogs themselves and the territory
check (Babel) are the UI's (``ui.i18n``).
"""

from __future__ import annotations

#: language -> the locale its numbers and money are written in when the setting names no
#: territory. Spanish is ``es_US`` on purpose: the cabinet takes and pays US dollars (ID-003
#: dollar notes, SAS, tickets printed as ``$1,234.50``), and a Spanish-speaking player at a
#: US venue reads amounts as the notes and tickets write them; ``es_ES`` would write
#: ``1.234,50 $``. A venue in Spain sets ``es_ES`` (the currency symbol stays the cabinet's).
LANGUAGES: dict[str, str] = {"en": "en_US", "es": "es_US"}


def station_languages(setting: str) -> list[str]:
    """``"en, es_ES"`` -> ``["en", "es_ES"]``: the languages a ``--language`` list names."""
    return [p.strip() for p in setting.split(",") if p.strip()]


def check_station_languages(setting: str, stations: int) -> str:
    """Why ``setting`` (``"es"``, ``"en,es,en"``: one language for every station, or one
    per station) cannot be used with ``stations`` stations, or ``""`` if it can.

    The language part only (``"es"`` of ``"es_ES"``); the UI checks the territory.
    """
    parts = station_languages(setting)
    if len(parts) > max(1, stations):
        if stations <= 1:
            return f"{len(parts)} languages for 1 station: give one language"
        return (
            f"{len(parts)} languages for {stations} stations: give one language for all of "
            f"them, or one per station (at most {stations})"
        )
    for p in parts:
        code = p.replace("-", "_").partition("_")[0].lower()
        if code not in LANGUAGES:
            return f"expected one of {', '.join(LANGUAGES)} (optionally with a territory: es_ES), got {p!r}"
    return ""

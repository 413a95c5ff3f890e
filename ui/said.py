"""The engine's player texts said on this screen: the snapshot carries them as
``Said`` (an English template, which is the gettext msgid, and its arguments;
``cabinet.protocol.said``); ``say`` renders one in the active language (``ui.i18n``),
money arguments (``*_minor``) in its locale (``ui.money``), ``*_text`` (and each of
a ``*_texts`` list) arguments translated too. Cached: it runs every frame. UI thread only.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from cabinet.protocol.said import SEP, Said
from ui import i18n
from ui.i18n import Language, _
from ui.money import fmt_money

log = logging.getLogger(__name__)


def say(s: Said, symbol: str = "$") -> str:
    """An engine text (``cabinet.protocol.said``) in the active language: its template
    looked up as the msgid, money (``*_minor``) in the locale, ``*_text`` arguments
    translated too. Cached (it runs every frame)."""
    return _say(s.text, tuple(s.args.items()), symbol, i18n.active_catalog())


def say_all(parts: list[Said], symbol: str = "$") -> str:
    """Each part said, joined as the engine joins them (``SEP``)."""
    return SEP.join(say(p, symbol) for p in parts)


@lru_cache(maxsize=1024)
def _say(text: str, args: tuple[tuple[str, int | str], ...], symbol: str, catalog: tuple[Language, Path]) -> str:
    template = _(text)
    if not args:
        return template
    values: dict[str, object] = {}
    for k, v in args:
        if k.endswith("_minor") and isinstance(v, int):
            values[k] = fmt_money(v, symbol)
        elif k.endswith("_text") and isinstance(v, str):
            values[k] = _(v)
        elif k.endswith("_texts") and isinstance(v, str):
            values[k] = ", ".join(_(x) for x in v.split(", "))
        else:
            values[k] = v
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):  # a bad translation: say it in English
        log.warning("translation of %r does not fit its arguments: showing English", text)
        return text.format(**values)


def told(plain: str, parts: list[Said], symbol: str = "$") -> str:
    """An engine text in the active language: its ``Said`` parts said when the engine
    sent them, else the plain text looked up as a msgid (a constant; unknown text stays
    as it came)."""
    return say_all(parts, symbol) if parts else _(plain)

"""The table's language ("the language chosen per station"): gettext catalogs
and the locale money and numbers are written in.

Owns: the languages the table speaks (``LANGUAGES``: ``en``, ``es``), parsing a
language setting (``parse_language``: ``"es"`` or ``"es_ES"``, an unknown one a
``confspec.ConfigError``), the active catalog of this UI process (``use``; one UI
process draws one screen, so one active language, switched by the player's EN/ES
button) and the lookups the drawing code calls (``_``, ``ngettext``, ``N_`` marks a
string for extraction only). Catalogs are ``ui/locale/<lang>/LC_MESSAGES/cabinet.mo``
(stdlib ``gettext``), compiled from the ``.po`` files with Babel (``make i18n``).
English is the source language: it needs no catalog, and a language whose catalog
is missing falls back to English with a warning in the log (never a crash).

Engine texts (the snapshot's ``Said`` parts) are said by ``ui.said``. UI thread only
(the active catalog is process-wide state).
"""

from __future__ import annotations

import gettext as _gettext
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cabinet.protocol.languages import LANGUAGES as _LANGUAGES
from confspec import ConfigError

log = logging.getLogger(__name__)

#: gettext domain and where the catalogs live (``<dir>/<lang>/LC_MESSAGES/<domain>.mo``).
DOMAIN = "cabinet"
LOCALE_DIR = Path(__file__).parent / "locale"
#: language -> its default locale: ``cabinet.protocol.languages`` (the engine's tools check
#: a setting against the same table).
LANGUAGES = _LANGUAGES
#: the language of a screen nobody chose one for.
DEFAULT = "en"
#: the order the player's language button cycles through.
ORDER = ("en", "es")
#: what the player's language button reads: the language it switches to, in its own
#: words (a player who reads no English still finds "ESPAÑOL").
LANGUAGE_NAMES = {"en": "ENGLISH", "es": "ESPAÑOL"}


def N_(message: str) -> str:
    """Marks ``message`` for ``pybabel extract`` only; translated where it is drawn."""
    return message


#: the games' names (``RuleSet.name`` of ``cabinet.game.PRESETS``, which may not import
#: this), marked for extraction; the felt, attract and help say them translated
#: (tests/ui/test_i18n.py checks every preset's name is here).
VARIANT_NAMES = (N_("Classic Blackjack"), N_("Classic BlackJack (multi-player table)"), N_("American Blackjack"))


@dataclass(frozen=True)
class Language:
    """A parsed language setting: ``code`` picks the catalog (``"es"``), ``locale`` the
    number and money format (``"es_US"``)."""

    code: str
    locale: str


def parse_language(text: str, key: str = "language", source: str = "ui") -> Language:
    """``"es"`` -> ``Language("es", "es_US")``; ``"es_ES"`` / ``"es-MX"`` keep their territory.

    Raises:
        ConfigError: a language the table has no catalog for, or a territory Babel
            does not know (``"ui-station2.env: CABINET_UI_LANGUAGE: expected one of en,
            es (optionally with a territory: es_ES), got 'fr'"``).
    """
    tag = text.strip().replace("-", "_")
    code, _sep, territory = tag.partition("_")
    code = code.lower()
    if code not in LANGUAGES:
        raise ConfigError(
            key, f"expected one of {', '.join(LANGUAGES)} (optionally with a territory: es_ES), got {text!r}", source
        )
    if not territory:
        return Language(code, LANGUAGES[code])
    from babel import Locale, UnknownLocaleError

    loc = f"{code}_{territory.upper()}"
    try:
        Locale.parse(loc)
    except (UnknownLocaleError, ValueError):
        raise ConfigError(key, f"unknown territory in {text!r} (Babel knows no locale {loc})", source) from None
    return Language(code, loc)


@lru_cache(maxsize=8)
def catalog(code: str, locale_dir: Path = LOCALE_DIR) -> _gettext.NullTranslations:
    """The compiled catalog of ``code`` (English: none needed); a missing ``.mo`` logs a
    warning once and gives English."""
    if code == "en":
        return _gettext.NullTranslations()
    try:
        with open(locale_dir / code / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as f:
            return _gettext.GNUTranslations(f)
    except OSError as e:
        log.warning("no %s catalog for language %r (%s): showing English", DOMAIN, code, e)
        return _gettext.NullTranslations()


_active: _gettext.NullTranslations = _gettext.NullTranslations()
_language = Language(DEFAULT, LANGUAGES[DEFAULT])
_dir = LOCALE_DIR


def use(language: Language | str, locale_dir: Path = LOCALE_DIR) -> Language:
    """Make ``language`` the one every following lookup and money text uses; returns it.

    Raises:
        ConfigError: ``language`` is a string ``parse_language`` refuses.
    """
    global _active, _language, _dir
    lang = parse_language(language) if isinstance(language, str) else language
    if lang != _language or locale_dir != _dir:
        _active = catalog(lang.code, locale_dir)
        _language, _dir = lang, locale_dir
    return lang


def current() -> Language:
    """The active language."""
    return _language


def active_catalog() -> tuple[Language, Path]:
    """What every lookup uses now: the language and the folder its catalog came from
    (a cache key for texts said with it, ``ui.said``)."""
    return _language, _dir


def _(message: str) -> str:
    """``message`` (English, the msgid) in the active language."""
    return _active.gettext(message) if message else message


def pgettext(context: str, message: str) -> str:
    """``message`` as translated for ``context`` (a ``msgctxt``: the same English words
    another language writes differently there) in the active language."""
    return _active.pgettext(context, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n`` in the active language."""
    return _active.ngettext(singular, plural, n)


def next_language(code: str) -> str:
    """The language after ``code`` in ``ORDER`` (the player's EN/ES button)."""
    i = ORDER.index(code) if code in ORDER else -1
    return ORDER[(i + 1) % len(ORDER)]


def total_words(text: str) -> str:
    """A hand total as the rules core writes it (``cabinet.game.hand.describe_total``, a
    fixed vocabulary: ``"soft 17"``, ``"bust 23"``, ``"BUST"``, ``"BLACKJACK"``, ``"1 or
    11"``, ``"20"``) in the active language."""
    word, _sp, n = text.partition(" ")
    if word in ("soft", "bust") and n.isdigit():
        return (_("soft {n}") if word == "soft" else _("bust {n}")).format(n=n)
    if text == "1 or 11":
        return _("1 or 11")
    return _(text) if not text.isdigit() else text

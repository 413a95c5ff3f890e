"""The language chosen per station from at least English and Spanish with
gettext catalogs (Babel to extract and compile them), numbers and money formatted per
locale": the catalogs, the language setting, switching, money per locale."""

from __future__ import annotations

import gettext
import io
import logging
import re
from pathlib import Path

import msgspec
import pygame
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from cabinet.protocol.said import said
from confspec import ConfigError
from tests.ui import fixtures as f
from tests.ui import fixtures_i18n as fi
from ui import i18n
from ui.money import fmt_credits, fmt_money, fmt_number
from ui.said import say

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "ui" / "locale"
POT = LOCALE / "cabinet.pot"
PO = {lang: LOCALE / lang / "LC_MESSAGES" / "cabinet.po" for lang in i18n.LANGUAGES if lang != "en"}
#: the keywords ``make i18n`` extracts with (Babel's defaults plus these)
KEYWORDS = ("said", "N_")


def _read_po(path: Path):
    with open(path, "rb") as fh:
        return read_po(fh)


def _ids(cat) -> set[object]:
    return {m.id for m in cat if m.id}


def _fields(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)", text))


# -- the catalogs --------------------------------------------------------------------


def test_every_language_has_a_catalog_and_every_msgid_is_translated():
    """No untranslated or fuzzy entry, every plural form filled, and each
    translation keeps its template's ``{fields}`` (a missing one would fall back)."""
    pot = _read_po(POT)
    assert len(_ids(pot)) > 200
    for lang, path in PO.items():
        po = _read_po(path)
        assert _ids(po) == _ids(pot), f"{lang}: run make i18n"
        for m in po:
            if not m.id:
                continue
            assert "fuzzy" not in m.flags, (lang, m.id)
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            assert all(strings), (lang, m.id)
            for s in strings:
                assert _fields(s) == _fields(ids[-1]), (lang, m.id, s)


def test_the_committed_mo_is_the_compiled_po(tmp_path):
    """The .mo the UI loads says what the .po says (compiled again here)."""
    for lang, path in PO.items():
        buf = io.BytesIO()
        write_mo(buf, _read_po(path))
        fresh = gettext.GNUTranslations(io.BytesIO(buf.getvalue()))
        with open(path.with_suffix(".mo"), "rb") as fh:
            committed = gettext.GNUTranslations(fh)
        assert committed._catalog == fresh._catalog, f"{lang}: run make i18n"  # type: ignore[attr-defined]
        assert committed.gettext("HIT") == "PEDIR"


def test_the_pot_is_up_to_date_with_the_source():
    """Extracting again (babel.cfg, the Makefile's keywords) finds exactly the
    committed template's msgids: no player text added without ``make i18n``."""
    with open(ROOT / "babel.cfg") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    from babel.messages.extract import DEFAULT_KEYWORDS

    keywords = dict(DEFAULT_KEYWORDS, **{k: None for k in KEYWORDS})
    found: set[object] = set()
    for _file, _line, msg, _comments, _ctx in extract_from_dir(str(ROOT), method_map, options_map, keywords=keywords):
        found.add(msg if isinstance(msg, str) else tuple(msg))
    assert found == _ids(_read_po(POT))


def test_every_game_name_is_marked():
    """The felt, attract and help say the game's name translated."""
    from cabinet.game import PRESETS

    assert {r.name for r in PRESETS.values()} <= set(i18n.VARIANT_NAMES)
    i18n.use("es")
    assert i18n._("Classic BlackJack (multi-player table)") == "Blackjack clásico (mesa multijugador)"


# -- the language setting --------------------------------------------------------------


def test_a_language_parses_with_its_number_locale():
    assert i18n.parse_language("es") == i18n.Language("es", "es_US")
    assert i18n.parse_language("en") == i18n.Language("en", "en_US")
    assert i18n.parse_language("es_ES") == i18n.Language("es", "es_ES")
    assert i18n.parse_language("es-mx") == i18n.Language("es", "es_MX")


def test_an_unknown_language_is_a_clear_config_error(capsys):
    """A language the table does not speak is refused at start (exit 2),
    naming the setting and what is allowed."""
    with pytest.raises(ConfigError, match=r"CABINET_UI_LANGUAGE: expected one of en, es .*got 'fr'"):
        i18n.parse_language("fr", "CABINET_UI_LANGUAGE", "ui-station2.env")
    with pytest.raises(ConfigError, match="unknown territory"):
        i18n.parse_language("es_QQ")
    from ui.__main__ import language_setting, main

    with pytest.raises(ConfigError, match="CABINET_UI_LANGUAGE"):
        language_setting(None, {"CABINET_UI_LANGUAGE": "klingon"})
    assert language_setting(None, {"CABINET_UI_LANGUAGE": "es"}) == "es"
    assert language_setting(None, {}) == "en"
    assert main(["--socket", "/nonexistent", "--language", "fr"]) == 2
    assert "--language: expected one of en, es" in capsys.readouterr().err
    from ui.app import App

    with pytest.raises(ConfigError):
        App(pygame.Surface((64, 64)), None, language="de")


def test_cabinet_run_gives_each_station_its_language():
    from cabinet.tools.station_screens import station_language

    assert [station_language("es", n) for n in (1, 2, 3)] == ["es", "es", "es"]
    assert [station_language("en,es_ES", n) for n in (1, 2, 3)] == ["en", "es_ES", "es_ES"]
    assert station_language("", 1) == ""


def test_a_missing_catalog_falls_back_to_english_with_a_log_line(tmp_path, caplog):
    """No .mo for the language: the table speaks English and says why in the log."""
    with caplog.at_level(logging.WARNING, logger="ui.i18n"):
        i18n.use(i18n.parse_language("es"), locale_dir=tmp_path)
    assert i18n._("HIT") == "HIT"
    assert any(
        "no cabinet catalog for language 'es'" in r.getMessage() and "showing English" in r.getMessage()
        for r in caplog.records
    )
    i18n.use("es")  # the real catalog again
    assert i18n._("HIT") == "PEDIR"


# -- money and numbers per locale ------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "money", "negative", "compact", "number"),
    [
        ("en", "$1,234.50", "-$5.00", "$25", "1,234,567"),
        ("es", "$1,234.50", "-$5.00", "$25", "1,234,567"),  # es_US: as US notes and tickets
        ("es_MX", "$1,234.50", "-$5.00", "$25", "1,234,567"),
        ("es_ES", "1.234,50\u00a0$", "-5,00\u00a0$", "25\u00a0$", "1.234.567"),
    ],
)
def test_money_and_numbers_per_locale(lang, money, negative, compact, number):
    """The cabinet's currency (its symbol, two minor digits) in the locale's
    CLDR pattern (Babel)."""
    i18n.use(lang)
    assert fmt_money(123_450, "$") == money
    assert fmt_money(-500, "$") == negative
    assert fmt_money(2_500, "$", compact=True) == compact
    assert fmt_number(1_234_567) == number
    assert fmt_credits(123_456_700, 100) == number


def test_credit_meters_keep_part_credits():
    """The INSURANCE meter showed "2" over $2.50 and PAID
    "7" over $7.50: a meter in credits dropped the half credit."""
    i18n.use("en")
    assert [fmt_credits(m, 100) for m in (250, 750, 3_750, 10_000, 123_456_750)] == [
        "2.5",
        "7.5",
        "37.5",
        "100",
        "1,234,567.5",
    ]
    assert fmt_credits(10, 25) == "0.4" and fmt_credits(1, 100) == "0.01"
    i18n.use("es_ES")
    assert fmt_credits(123_456_750, 100) == "1.234.567,5"
    i18n.use("en")


def test_english_money_is_the_engines_formatter():
    """English screens stay byte-identical to the engine's texts (and the goldens)."""
    from cabinet.protocol.money import fmt_money as engine_fmt

    for v in (0, 1, 99, 100, 250, 123_456, -500, 10_000_000):
        for compact in (False, True):
            assert fmt_money(v, "$", compact=compact) == engine_fmt(v, "$", compact=compact)
    assert fmt_money(123_450, "\u20ac") == "\u20ac1,234.50"


def test_the_engines_texts_are_said_by_their_template():
    """The engine's message by its msgid (the template), money in the locale."""
    s = said("Insurance? It costs {cost_minor}", cost_minor=250)
    assert say(s) == "Insurance? It costs $2.50"
    i18n.use("es")
    assert say(s) == "\u00bfSeguro? Cuesta $2.50"
    assert (
        say(said("Door open: {doors_texts}. Play is suspended.", doors_texts="main, cashbox"))
        == "Puerta abierta: principal, caja. El juego est\u00e1 suspendido."
    )
    assert (
        say(said("{num} {what_text}", num=300, what_text="Bill acceptor jam"))
        == "300 Atasco en el aceptador de billetes"
    )
    i18n.use("es_ES")
    assert say(s) == "\u00bfSeguro? Cuesta 2,50\u00a0$"
    assert say(said("A text the catalog does not have")) == "A text the catalog does not have"
    assert i18n.total_words("soft 17") == "17 suave"
    assert i18n.total_words("1 or 11") == "1 u 11"
    assert i18n.total_words("BUST") == "PASADO"


# -- switching on the table ------------------------------------------------------------


def _labels(renderer, snap, size=(1280, 720), **kw) -> list[str]:
    from ui.render import button_specs

    renderer.draw(pygame.Surface(size), snap, 0, **kw)
    return [label for st in snap.stations for _a, label, _v in button_specs(snap, st) if label]


def test_switching_language_changes_the_rendered_strings(renderer):
    """The same snapshot drawn in English, then Spanish: the buttons, the
    table's message and the station's message change to the catalog's words."""
    snap = fi.AMERICAN_INSURANCE
    assert _labels(renderer, snap, language="en") == ["HIT", "STAND", "DOUBLE", "SPLIT", "INSURE", "NO INS."]
    assert _labels(renderer, snap, language="es") == ["PEDIR", "PLANTARSE", "DOBLAR", "SEPARAR", "SEGURO", "SIN SEGURO"]
    from ui.said import told

    assert told(snap.message, snap.message_said) == "Casilla 1: el seguro cuesta $2.50"
    assert told(snap.stations[0].message, snap.stations[0].message_said) == "\u00bfSeguro? Cuesta $2.50"
    en = pygame.Surface((800, 480))
    es = pygame.Surface((800, 480))
    renderer.draw(en, snap, 0, language="en")
    renderer.draw(es, snap, 0, language="es")
    from tests.ui.test_screenshots import diff_pixels

    assert diff_pixels(en, es) > 2_000  # the whole table's words, not one pixel
    betting = _labels(renderer, f.CLASSIC_BETTING, language="es")
    assert betting == ["APUESTA \u2212", "APUESTA +", "REPARTIR", "COBRAR"]


def test_the_language_button_and_f12_switch_the_station_screen():
    """The player's ESPAÑOL button (and the dev key F12) switch this screen at
    once; the button then reads ENGLISH."""
    from ui.app import App
    from ui.input import LocalAction

    window = pygame.Surface((1280, 720))
    app = App(window, None, station=1)
    app.feed([fi.BETTING], 0)
    app.draw(0)
    button = next(h for h in app.hits if h.action == "ui:toggle_language")
    ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=button.rect.center, button=1)
    assert app.handle_input(ev) == []  # local: nothing sent to the engine
    assert app.language.code == "es" and app.dirty
    app.draw(10)
    assert i18n._("HIT") == "PEDIR"
    app.handle_input(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F12, mod=0, unicode=""))
    assert app.language.code == "en"
    from ui.input import InputContext, map_event

    ctx = InputContext(station=1, hits=[], size=(1280, 720), chip_values_minor=[])
    assert map_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F12, mod=0, unicode=""), ctx) == [
        LocalAction("toggle_language")
    ]


def test_the_next_player_gets_the_default_language_after_a_cash_out():
    """A player who chose Spanish cashes out; the next one starts in the
    screen's default language (and a default of Spanish stays Spanish)."""
    from ui.app import App

    app = App(pygame.Surface((640, 360)), None, station=1)
    playing = msgspec.structs.replace(fi.BETTING, seq=1)
    app.feed([playing], 0)
    app.set_language("es")
    st = playing.stations[0]
    cash_out = msgspec.structs.replace(
        playing, seq=2, mode="cash_out", overlay="printing", stations=[msgspec.structs.replace(st, credits_minor=0)]
    )
    app.feed([cash_out], 10)
    assert app.language.code == "en"
    spanish = App(pygame.Surface((640, 360)), None, station=1, language="es_ES")
    spanish.feed([playing], 0)
    spanish.set_language("en")
    spanish.feed([cash_out], 10)
    assert spanish.language == i18n.Language("es", "es_ES")


def test_a_refusal_is_told_in_the_screens_language():
    """The refused cue's words come from the screen's catalog."""
    from cabinet.protocol.ipc import Cue
    from ui.app import App

    app = App(pygame.Surface((640, 360)), None, station=1, language="es")
    app.feed([fi.TOLD_WHY], 0)
    app.feed([Cue(name="refused", station=1, data={"action": "deal", "reason": ""})], 5)
    assert app.refusals[1][0] == "Apuesta m\u00ednima $5.00: a\u00f1ada fichas y luego Repartir"


def test_a_spanish_frame_costs_what_an_english_one_does(renderer):
    """Every speed target kept: the lookups and money texts are cached, so a
    busy Spanish frame at 1920x1080 is as fast as the English one (within 25 %)."""
    import time

    snap = fi.MULTI_SETTLED
    surf = pygame.Surface((1920, 1080))

    # the thread's own CPU time, English and Spanish frames interleaved: another test
    # process on the same cores (``make test`` runs two) shifts both alike, not one
    for lang in ("en", "es"):
        renderer.draw(surf, snap, 0, language=lang, own_station=1)  # warm the caches
    times: dict[str, list[float]] = {"en": [], "es": []}
    for _ in range(15):
        for lang in ("en", "es"):
            t = time.thread_time()
            renderer.draw(surf, snap, 0, language=lang, own_station=1)
            times[lang].append(time.thread_time() - t)
    en, es = min(times["en"]), min(times["es"])
    assert es < en * 1.25 + 0.0005, (en, es)


def test_the_operators_menu_stays_english_on_a_spanish_screen(renderer):
    """Only the player's table is translated; the maintenance menu (and the
    recall drawn in it) is the venue staff's, in English."""
    from ui.render import button_specs

    recall = f.MAINT_RECALL
    renderer.draw(pygame.Surface((800, 480)), recall, 0, language="es")
    assert i18n.current().code == "en"
    st = recall.maintenance.recall.table
    assert [lbl for _a, lbl, _v in button_specs(recall, st, in_round=True)][:2] == ["HIT", "STAND"]
    renderer.draw(pygame.Surface((800, 480)), fi.BETTING, 0, language="es")
    assert i18n.current().code == "es"

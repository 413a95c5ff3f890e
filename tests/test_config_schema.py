"""Operator settings, the engine config and the wiring file are declared
once each as typed msgspec Structs with their ranges, checked one way
(``confspec.convert``), and refused with one ``ConfigError`` that names the file,
the key and the allowed values."""

from __future__ import annotations

import tomllib
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cabinet.core.errors
import confspec
import drivers.errors
from cabinet.core.settings import GameLimits, GameSettings, menu_choices
from cabinet.shell.config import check_config, load_config
from drivers.wiring import DoorLatchSection, load_wiring, parse_wiring

ROOT = Path(__file__).resolve().parents[1]


def test_there_is_one_config_error():
    """The cabinet's and the drivers' ``ConfigError`` are one class, a
    ``ValueError``, carrying the file, the key and the reason."""
    assert cabinet.core.errors.ConfigError is drivers.errors.ConfigError is confspec.ConfigError
    e = confspec.ConfigError("devices.printer_url", "expected a string, got 5", "c.toml")
    assert isinstance(e, ValueError)
    assert str(e) == "c.toml: devices.printer_url: expected a string, got 5"
    assert (e.source, e.key, e.field, e.reason) == (
        "c.toml",
        "devices.printer_url",
        "devices.printer_url",
        "expected a string, got 5",
    )
    assert str(confspec.ConfigError("stations", "expected 1..3, got 5")) == "stations: expected 1..3, got 5"


@pytest.mark.parametrize(
    "text,message",
    [
        ("[devices]\nbill_poll_interval_s = 5", "devices.bill_poll_interval_s: expected 0.02..2, got 5"),
        ("[devices]\nbill_poll_interval_s = 'fast'", "devices.bill_poll_interval_s: expected 0.02..2, got 'fast'"),
        (
            "[devices]\nbill_acceptor = 'bogus'",
            "devices.bill_acceptor: expected one of id003, none, pulse, got 'bogus'",
        ),
        ("[station3]\nprinter_url = 5", "station3.printer_url: expected a string, got 5"),
        ("colour = 'red'", "colour: unknown key (allowed: wiring, devices, sas, display, journal, station2, station3)"),
        (
            "[journal]\ncounter = 'eeprom'",
            "journal.counter: expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 'eeprom'",
        ),
        (
            "[journal]\ncounter = 'atecc608:/dev/i2c-1:2'",
            "journal.counter: expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 'atecc608:/dev/i2c-1:2'",
        ),
        (
            "[journal]\ncounter = 'atecc608:'",
            "journal.counter: expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 'atecc608:'",
        ),
        ("[journal]\ncounter = 1", "journal.counter: expected none, atecc608:/dev/i2c-N[:0|1] or twin:PATH, got 1"),
        (
            "[devices]\nwiring = 'w.toml'",
            "devices.wiring: unknown key (allowed: bill_acceptor, bill_acceptor_url, printer_url, "
            "bill_poll_interval_s)",
        ),
        ("[devices]\nbill_acceptor = true", "devices.bill_acceptor: expected one of id003, none, pulse, got true"),
        ("devices = 5", "devices: expected a table, got 5"),
    ],
)
def test_engine_config_errors_name_the_file_the_key_and_the_allowed_values(tmp_path, text, message):
    """``cabinet.toml: <key>: expected <allowed>, got <value>``."""
    f = tmp_path / "cabinet.toml"
    f.write_text(text)
    with pytest.raises(confspec.ConfigError) as e:
        load_config(f)
    assert str(e.value) == f"{f}: {message}"


def test_engine_config_typed_values_and_defaults(tmp_path):
    """The config loads into typed sections; left-out keys take their defaults."""
    f = tmp_path / "cabinet.toml"
    f.write_text(
        "wiring = 'w1.toml'\n[devices]\nbill_poll_interval_s = 1\n"
        "[station2]\nwiring = 'w2.toml'\nbill_acceptor = 'pulse'\n"
    )
    cfg = load_config(f)
    assert cfg.devices.bill_poll_interval_s == 1.0
    assert isinstance(cfg.devices.bill_poll_interval_s, float)
    assert cfg.devices.acceptor == "id003" and cfg.devices.printer_url is None
    assert (cfg.wiring_for(1), cfg.wiring_for(2), cfg.wiring_for(3)) == ("w1.toml", "w2.toml", None)
    assert cfg.section(2).bill_acceptor == "pulse"
    assert [cfg.has_own_devices(n) for n in (1, 2, 3)] == [True, True, False]
    for text, own in [
        ("[station2]\n", False),
        ("[station2]\nbill_acceptor = 'id003'\n", True),
        ("[station2.sas]\nport = 'p'\n", False),
    ]:
        assert load_config(_write(tmp_path, text)).has_own_devices(2) is own, text
    assert load_config(None) == load_config(_write(tmp_path, ""))


@pytest.mark.parametrize(
    "text,counter",
    [
        ("", "none"),
        ("[journal]\ncounter = 'none'", "none"),
        ("[journal]\ncounter = 'atecc608:/dev/i2c-1'", "atecc608:/dev/i2c-1"),
        ("[journal]\ncounter = 'atecc608:/dev/i2c-1:1'", "atecc608:/dev/i2c-1:1"),
        ("[journal]\ncounter = 'twin:/mnt/usb/counter'", "twin:/mnt/usb/counter"),
    ],
)
def test_the_hardware_counter_is_a_journal_setting(tmp_path, text, counter):
    """The hardware monotonic counter is fitted like every other device: a setting of
    ``cabinet.toml`` (``[journal] counter``), left out: none fitted."""
    assert load_config(_write(tmp_path, text)).journal.counter == counter


def test_the_example_config_loads():
    """``systemd/cabinet.toml.example`` is a valid config, commented parts too."""
    example = ROOT / "systemd" / "cabinet.toml.example"
    cfg = load_config(example)
    assert cfg.devices.bill_acceptor_url == "/dev/cabinet/bill-acceptor"
    uncommented = "\n".join(
        line.removeprefix("# ") if line.startswith("# [") or (line.startswith("# ") and "=" in line) else line
        for line in example.read_text().splitlines()
    )
    cfg = check_config(tomllib.loads(uncommented), "example")
    assert cfg.station2.printer_url == "/dev/cabinet/printer-2"
    assert (cfg.sas_for(1).address, cfg.sas_for(2).address) == (1, 2)
    assert cfg.journal.counter == "atecc608:/dev/i2c-1"


def _write(tmp_path: Path, text: str, name: str = "c.toml") -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


@pytest.mark.parametrize(
    "data,message",
    [
        ({"buttons": {"deal": 99}}, "buttons.deal: expected a BCM pin number 2..27, got 99"),
        (
            {"buttons": {"fold": 5}},
            "buttons.fold: unknown name (allowed: deal, hit, stand, split, "
            "double, insure, bet_up, bet_down, cash_out, chip_1, chip_5, chip_25, chip_100, spot_1, "
            "spot_2, spot_3)",
        ),
        (
            {"lights": {"x": 1}},
            "lights: unknown section (allowed: buttons, lamps, doors, "
            "key_switch, tower_light, pulse_acceptor, door_latch)",
        ),
        (
            {"pulse_acceptor": {"pin": 4, "accepted_counts": [1, 0]}},
            "pulse_acceptor.accepted_counts[1]: expected an integer >= 1, got 0",
        ),
        (
            {"pulse_acceptor": {"pin": 4, "gap_ms": 3}},
            "pulse_acceptor.gap_ms: unknown key (allowed: pin, inhibit_pin, value_per_pulse_minor, "
            "nominal_pulse_ms, gap_timeout_ms, accepted_counts, active_low)",
        ),
        ({"pulse_acceptor": {"inhibit_pin": 18}}, "pulse_acceptor.pin: expected a BCM pin number 2..27, missing"),
        ({"key_switch": {"pin": True}}, "key_switch.pin: expected a BCM pin number 2..27, got true"),
        ({"buttons": {"deal": 5}, "lamps": {"deal": 5}}, "lamps.deal: pin 5 is already used by buttons.deal"),
    ],
)
def test_wiring_errors_name_the_file_the_key_and_the_allowed_values(data, message):
    """The wiring file goes through the same ``convert`` (``WiringFile``)."""
    with pytest.raises(confspec.ConfigError) as e:
        parse_wiring(data, "wiring.toml")
    assert str(e.value) == f"wiring.toml: {message}"


def test_wiring_file_errors_name_the_file(tmp_path):
    with pytest.raises(confspec.ConfigError, match=r"w\.toml: not valid TOML"):
        load_wiring(_write(tmp_path, "[buttons\n", "w.toml"))
    with pytest.raises(confspec.ConfigError, match=r"nope\.toml: cannot read"):
        load_wiring(tmp_path / "nope.toml")
    assert parse_wiring({"key_switch": {}}).key_switch is None  # an empty section: none


def test_the_door_latch_section_has_a_field_per_door():
    """``[door_latch]`` is declared with one field per ``drivers.events.Door``."""
    from drivers.events import Door

    assert set(DoorLatchSection.__struct_fields__) == {d.value for d in Door} | {"reset_pin"}


@pytest.mark.parametrize(
    "change,message",
    [
        ({"stations": 5}, "stations: expected 1..3, got 5"),
        ({"variant": "poker"}, "variant: expected one of american, classic, classic-multi, got 'poker'"),
        ({"voucher_expiry_days": 0}, "voucher_expiry_days: expected 1..3650, got 0"),
        ({"recall_depth": 101}, "recall_depth: expected 10..100, got 101"),
        ({"jackpot_limit_minor": 0}, "jackpot_limit_minor: expected an integer >= 1, got 0"),
        (
            {"denominations_minor": (100, 150)},
            "denominations_minor[1]: expected an integer >= 100 in steps of 100, got 150",
        ),
        (
            {"denominations_minor": ()},
            "denominations_minor: expected a non-empty list of integers >= 100 in steps of 100, got ()",
        ),
        ({"venue_name": "   "}, "venue_name: expected 1-40 characters, not all blank, got '   '"),
        (
            {"machine_number": "1234567890123"},
            "machine_number: expected 1-12 characters, not all blank, got '1234567890123'",
        ),
        (
            {"game_limits": {"poker": GameLimits()}},
            "game_limits.poker: unknown name (allowed: american, classic, classic-multi)",
        ),
        ({"variant": "american", "penetration_percent": 90}, "penetration_percent: expected 50..85, got 90"),
        ({"stations": 2}, "stations: Classic Blackjack seats one player"),
        ({"credit_limit_minor": 50}, "credit_limit_minor: is below the table minimum"),
    ],
)
def test_settings_errors_name_the_key_and_the_allowed_values(change, message):
    """``GameSettings.validate`` checks the annotations with the same
    ``convert``, then what only the game can say."""
    with pytest.raises(confspec.ConfigError) as e:
        GameSettings(**change).validate()
    assert str(e.value) == message


def test_the_settings_encoding_is_unchanged():
    """The journal stores ``GameSettings``: its JSON is byte for byte what
    the code before the typed fields wrote (captured from commit 836699c)."""
    old_default = (
        b'{"variant":"classic","stations":1,"spots_per_station":null,"min_bet_minor":null,'
        b'"max_bet_minor":null,"bet_step_minor":null,"chip_values_minor":null,'
        b'"penetration_percent":null,"bet_timer_s":null,"decision_timer_s":null,'
        b'"denominations_minor":[100,500,1000,2000,5000,10000],"credit_limit_minor":300000,'
        b'"voucher_limit_minor":120000,"jackpot_limit_minor":120000,"voucher_expiry_days":30,'
        b'"venue_name":"Demo Casino","machine_number":"0001","recall_depth":10,'
        b'"currency_symbol":"$","game_limits":{}}'
    )
    # the venue address, volume and attract sound were appended later; an old journal's
    # settings decode to the same values with those at their defaults
    # and then the reality check (0 = off)
    assert msgspec.json.encode(GameSettings()) == old_default[:-1] + (
        b',"venue_address_1":"","venue_address_2":"","volume_percent":70,"attract_sound":true,"reality_check_min":0}'
    )
    assert msgspec.json.decode(old_default, type=GameSettings) == GameSettings()
    custom = GameSettings(
        variant="american",
        stations=2,
        spots_per_station=3,
        min_bet_minor=500,
        chip_values_minor=(100, 500),
        game_limits={"classic": GameLimits(min_bet_minor=200)},
    )
    text = msgspec.json.encode(custom)
    assert text.startswith(
        b'{"variant":"american","stations":2,"spots_per_station":3,"min_bet_minor":500,"max_bet_minor":null,'
    )
    assert b'"game_limits":{"classic":{"min_bet_minor":200}},' in text
    assert msgspec.json.decode(text, type=GameSettings) == custom


def test_the_menu_choices_come_from_the_declarations():
    """The Settings page's choices are the annotations' (a Literal, a small
    range, ``None`` for a default) or the steps next to the Struct, and every step
    is inside its field's range."""
    rows = {key: values for key, _, values in menu_choices()}
    assert rows["variant"] == ["classic", "classic-multi", "american"]
    assert rows["stations"] == [1, 2, 3]
    assert rows["spots_per_station"] == [None, 1, 2, 3]
    assert rows["penetration_percent"] == [None, 50, 60, 70, 75, 80, 85]
    for key, values in rows.items():
        for v in values:
            confspec.convert({**msgspec.to_builtins(GameSettings()), key: v}, GameSettings)


def test_the_maintenance_menu_is_split_by_concern_and_takes_its_choices_from_settings():
    """Every module of the cabinet core is under 450 lines, and the Settings page's
    rows are ``menu_choices()``, nothing of its own (one list of each setting's
    allowed values)."""
    from cabinet.core.maintenance import SETTING_CHOICES

    assert SETTING_CHOICES == menu_choices()
    for path in sorted((ROOT / "cabinet" / "core").rglob("*.py")):
        assert len(path.read_text().splitlines()) <= 450, path


_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(allow_nan=False), st.text(max_size=8)
)
_KEYS = st.sampled_from(
    [
        "devices",
        "station2",
        "sas",
        "port",
        "address",
        "buttons",
        "deal",
        "pin",
        "door_latch",
        "main",
        "reset_pin",
        "stations",
        "variant",
        "game_limits",
        "classic",
        "denominations_minor",
        "bogus",
        "wiring",
        "pulse_acceptor",
        "accepted_counts",
        "bill_poll_interval_s",
    ]
)
_DOC = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_KEYS, _DOC, max_size=6))
def test_any_document_is_either_accepted_or_refused_with_a_config_error(data):
    """Whatever a config file holds, the checker answers with a value or a
    ``ConfigError`` naming a key (never another exception)."""
    from cabinet.shell.config import check_config
    from drivers.wiring import WiringFile

    for check in (
        lambda d: check_config(d, "c.toml"),
        lambda d: parse_wiring(d, "w.toml"),
        lambda d: confspec.convert(d, WiringFile, "w.toml"),
        lambda d: confspec.convert(d, GameSettings),
    ):
        try:
            check(data)
        except confspec.ConfigError as e:
            assert e.reason and str(e)

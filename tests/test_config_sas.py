"""Configuration: the ``[sas]`` host link of each station in
``cabinet.toml`` (schema, checks and ``EngineConfig.sas_for``; the link itself is
wired by the engine's composition)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cabinet.shell.config import SasConfig, load_config
from confspec import ConfigError


def _load(tmp_path: Path, text: str):
    f = tmp_path / "cabinet.toml"
    f.write_text(text)
    return load_config(f)


def test_no_sas_section_means_no_host_link(tmp_path):
    """Without a SAS port the cabinet runs as today."""
    cfg = _load(tmp_path, "[devices]\nbill_acceptor = 'none'\n")
    assert [cfg.sas_for(n) for n in (1, 2, 3)] == [None, None, None]


def test_a_port_alone_takes_the_defaults(tmp_path):
    """Address 1, asset number 0, accounting denomination 1 minor unit ($0.01)."""
    cfg = _load(tmp_path, "[sas]\nport = '/dev/ttyAMA0'\n")
    assert cfg.sas_for(1) == SasConfig(
        station=1, port="/dev/ttyAMA0", address=1, asset_number=0, accounting_denomination_minor=1
    )
    assert cfg.sas_for(2) is None


def test_every_station_is_its_own_egm(tmp_path):
    """Each station has its own address and asset number; two stations may
    share a port (one multi-drop line) at different addresses, or use ports of their
    own at the same address; the accounting denomination is the cabinet's."""
    cfg = _load(
        tmp_path,
        """
[sas]
port = "/dev/ttyAMA0"
address = 7
asset_number = 4294967295
accounting_denomination_minor = 5
[station2.sas]
port = "/dev/ttyAMA0"
address = 8
asset_number = 12
[station3.sas]
port = "rfc2217://host:4000"
address = 7
""",
    )
    assert cfg.sas_for(1) == SasConfig(
        station=1, port="/dev/ttyAMA0", address=7, asset_number=4_294_967_295, accounting_denomination_minor=5
    )
    assert cfg.sas_for(2) == SasConfig(
        station=2, port="/dev/ttyAMA0", address=8, asset_number=12, accounting_denomination_minor=5
    )
    assert cfg.sas_for(3) == SasConfig(
        station=3, port="rfc2217://host:4000", address=7, asset_number=0, accounting_denomination_minor=5
    )


def test_station_one_may_have_no_link_while_another_has_one(tmp_path):
    """``[sas]`` without ``port``: station 1 has no link, the denomination holds."""
    cfg = _load(tmp_path, "[sas]\naccounting_denomination_minor = 25\n[station2.sas]\nport = '/dev/ttyS1'\n")
    assert cfg.sas_for(1) is None
    assert cfg.sas_for(2) == SasConfig(
        station=2, port="/dev/ttyS1", address=1, asset_number=0, accounting_denomination_minor=25
    )


@pytest.mark.parametrize(
    "text,message",
    [
        ("[sas]\nport = 'p'\naddress = 0", "sas.address: expected 1..127, got 0"),
        ("[sas]\nport = 'p'\naddress = 128", "sas.address: expected 1..127, got 128"),
        ("[sas]\nport = 'p'\naddress = '5'", "sas.address: expected 1..127, got '5'"),
        ("[sas]\nport = 'p'\naddress = true", "sas.address: expected 1..127, got true"),
        ("[sas]\nport = 'p'\nasset_number = -1", "sas.asset_number: expected 0..4294967295, got -1"),
        ("[sas]\nport = 'p'\nasset_number = 4294967296", "sas.asset_number: expected 0..4294967295, got 4294967296"),
        (
            "[sas]\nport = 'p'\naccounting_denomination_minor = 0",
            "sas.accounting_denomination_minor: expected 1..100000, got 0",
        ),
        (
            "[sas]\nport = 'p'\naccounting_denomination_minor = 100001",
            "sas.accounting_denomination_minor: expected 1..100000, got 100001",
        ),
        ("[sas]\nport = ''", "sas.port: expected a device path or pyserial URL, got ''"),
        ("[sas]\nport = 5", "sas.port: expected a device path or pyserial URL, got 5"),
        (
            "[sas]\nport = 'p'\nbaud = 9600",
            "sas.baud: unknown key (allowed: port, address, "
            "asset_number, accounting_denomination_minor, validation, validation_timeout_s)",
        ),
        ("[sas]\naddress = 3", "sas.address: needs sas.port (the host port)"),
        ("[sas]\nasset_number = 3", "sas.asset_number: needs sas.port (the host port)"),
        ("sas = 'p'", "sas: expected a table, got 'p'"),
        ("[station2.sas]\naddress = 4", "station2.sas.port: expected a device path or pyserial URL, missing"),
        ("[station2.sas]\nport = 'p'\naddress = 200", "station2.sas.address: expected 1..127, got 200"),
        (
            "[station3.sas]\nport = 'p'\naccounting_denomination_minor = 5",
            "station3.sas.accounting_denomination_minor: unknown key (allowed: port, address, asset_number)",
        ),
        (
            "[sas]\nport = 'p'\n[station2.sas]\nport = 'p'",
            "station2.sas.address: 1 is already sas.address on port p (each station needs its own "
            "address on a shared port)",
        ),
        (
            "[station2.sas]\nport = '/dev/ttyS1'\naddress = 9\n[station3.sas]\nport = '/dev/ttyS1'\naddress = 9",
            "station3.sas.address: 9 is already station2.sas.address on port /dev/ttyS1 (each "
            "station needs its own address on a shared port)",
        ),
    ],
)
def test_a_bad_sas_section_is_refused_with_the_key_named(tmp_path, text, message):
    """Addresses 1-127, asset numbers 0-4294967295, the accounting
    denomination 1-100000 minor units, a port string; no two stations at one address
    on one port."""
    with pytest.raises(ConfigError) as e:
        _load(tmp_path, text)
    assert str(e.value) == f"{tmp_path / 'cabinet.toml'}: {message}"


def test_the_command_line_port_is_checked_like_the_file(tmp_path):
    """``--sas-port PORT [--sas-address N]`` set station 1's link over the
    file's, through the same checks."""
    from cabinet.shell.config import with_sas_port

    cfg = _load(
        tmp_path, "[sas]\naccounting_denomination_minor = 5\n[station2.sas]\nport = '/dev/ttyS1'\naddress = 2\n"
    )
    one = with_sas_port(cfg, "/dev/ttyS1", 3).sas_for(1)
    assert one == SasConfig(station=1, port="/dev/ttyS1", address=3, asset_number=0, accounting_denomination_minor=5)
    assert with_sas_port(cfg, "/dev/ttyS0").sas_for(1).address == 1
    assert with_sas_port(cfg, "/dev/ttyS0").section(2) == cfg.section(2)
    with pytest.raises(
        ConfigError,
        match=r"^command line: station2\.sas\.address: 2 is already "
        r"sas\.address on port /dev/ttyS1",
    ):
        with_sas_port(cfg, "/dev/ttyS1", 2)
    with pytest.raises(ConfigError, match=r"^command line: sas\.address: expected 1\.\.127, got 0"):
        with_sas_port(cfg, "/dev/ttyS0", 0)
    with pytest.raises(ConfigError, match=r"^command line: sas\.port: expected a device path"):
        with_sas_port(cfg, "")


def test_ticket_validation_settings_are_cabinet_wide_and_checked(tmp_path):
    """``[sas] validation`` none/system, ``validation_timeout_s`` 1-60 (default
    10, research/sas.md); every station's link has them."""
    cfg = _load(tmp_path, "[sas]\nport = '/dev/ttyAMA0'\n")
    assert (cfg.sas_for(1).validation, cfg.sas_for(1).validation_timeout_s) == ("none", 10)
    cfg = _load(
        tmp_path,
        """
[sas]
port = "/dev/ttyAMA0"
validation = "system"
validation_timeout_s = 7
[station2.sas]
port = "/dev/ttyAMA1"
""",
    )
    assert (cfg.sas_for(2).validation, cfg.sas_for(2).validation_timeout_s) == ("system", 7)
    for bad, words in (
        ("validation = 'secure'", "sas.validation"),
        ("validation_timeout_s = 0", "sas.validation_timeout_s"),
        ("validation_timeout_s = 61", "sas.validation_timeout_s"),
    ):
        with pytest.raises(ConfigError, match=words):
            _load(tmp_path, f"[sas]\nport = '/dev/ttyAMA0'\n{bad}\n")


def test_the_host_down_cash_out_is_not_a_setting(tmp_path):
    """With the host down a cash-out is always a handpay: a config that still sets
    ``offline_cash_out`` is refused with why, whatever its value."""
    for value in ("handpay", "print"):
        with pytest.raises(ConfigError) as e:
            _load(tmp_path, f"[sas]\nport = '/dev/ttyAMA0'\noffline_cash_out = '{value}'\n")
        assert str(e.value).endswith(
            "sas.offline_cash_out: not a setting: with the host down a cash-out is always a handpay (delete the line)"
        )

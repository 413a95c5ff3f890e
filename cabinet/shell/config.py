"""The cabinet's TOML config: devices and wiring of each station.

Owns: reading and checking ``cabinet.toml`` (``load_config``); the engine's
composition (``cabinet.shell.main``) builds the devices from it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from cabinet.core.errors import ConfigError

DEVICE_KEYS = {"bill_acceptor", "bill_acceptor_url", "printer_url", "bill_poll_interval_s"}


def load_config(path: Path | None) -> dict[str, Any]:
    """Read and check the cabinet's TOML config (devices and wiring); ``{}`` when ``None``.

    Shape: ``wiring = "path"`` (optional) and a ``[devices]`` table with
    ``bill_acceptor`` (``id003``, ``pulse`` or ``none``), ``bill_acceptor_url``,
    ``printer_url`` (strings) and ``bill_poll_interval_s`` (0.02-2 seconds).

    Raises:
        ConfigError: unreadable file, bad TOML, an unknown key or a bad value,
            naming the file and the key.
    """
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            cfg = tomllib.load(f)
    except OSError as e:
        raise ConfigError(str(path), e.strerror or str(e)) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(str(path), str(e)) from None
    known = {"wiring", "devices", "station2", "station3"}
    unknown = sorted(set(cfg) - known)
    if unknown:
        raise ConfigError(f"{path}: {unknown[0]}",
                          f"unknown key (known: {', '.join(sorted(known))})")
    if "wiring" in cfg and not isinstance(cfg["wiring"], str):
        raise ConfigError(f"{path}: wiring", "must be the path of a wiring TOML file")
    for name in ("devices", "station2", "station3"):
        _check_devices(path, name, cfg.get(name, {}), wiring_allowed=name != "devices")
    return cfg


def _check_devices(path: Path, name: str, dev: Any, wiring_allowed: bool) -> None:
    if not isinstance(dev, dict):
        raise ConfigError(f"{path}: {name}", f"must be a table ([{name}])")
    allowed = DEVICE_KEYS | ({"wiring"} if wiring_allowed else set())
    for key in sorted(set(dev) - allowed):
        raise ConfigError(f"{path}: {name}.{key}",
                          f"unknown key (known: {', '.join(sorted(allowed))})")
    if "wiring" in dev and not isinstance(dev["wiring"], str):
        raise ConfigError(f"{path}: {name}.wiring", "must be the path of a wiring TOML file")
    if dev.get("bill_acceptor", "id003") not in ("id003", "pulse", "none"):
        raise ConfigError(f"{path}: {name}.bill_acceptor", "must be id003, pulse or none")
    for key in ("bill_acceptor_url", "printer_url"):
        if key in dev and not isinstance(dev[key], str):
            raise ConfigError(f"{path}: {name}.{key}", "must be a device path string")
    poll = dev.get("bill_poll_interval_s", 0.2)
    if isinstance(poll, bool) or not isinstance(poll, int | float) or not 0.02 <= poll <= 2:
        raise ConfigError(f"{path}: {name}.bill_poll_interval_s", "must be 0.02-2 seconds")

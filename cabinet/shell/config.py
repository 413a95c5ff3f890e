"""The cabinet's TOML config: devices, wiring and host link of each station.

Owns: the schema of ``cabinet.toml`` (``EngineConfig``: typed msgspec Structs
with their ranges, checked by ``confspec.convert``), reading it
(``load_config``), and the typed accessors the engine's composition
(``cabinet.shell.main``) builds the devices and the SAS link from
(``section``, ``has_own_devices``, ``wiring_for``, ``sas_for``), and
``with_sas_port`` (station 1's link from the command line). Example::

    wiring = "/etc/cabinet/wiring.toml"     # station 1's wiring file
    [devices]                               # station 1's devices
    bill_acceptor = "id003"                 # id003, pulse or none
    bill_acceptor_url = "/dev/ttyUSB0"
    printer_url = "/dev/usb/lp0"
    bill_poll_interval_s = 0.2              # 0.02..2
    [sas]                                   # station 1's SAS 6.02 host link
    port = "/dev/ttyAMA0"                   # a device path or a pyserial URL
    address = 1                             # 1..127
    asset_number = 0                        # 0..4294967295
    accounting_denomination_minor = 1       # 1..100000, the whole cabinet's
    validation = "system"                   # none / system: tickets, cabinet-wide
    validation_timeout_s = 10               # 1..60 s the host may take
    [display]                               # the cabinet's screens
    screens = "shared"                      # per-station (default) or shared
    [journal]                               # a hardware monotonic counter off the card
    counter = "atecc608:/dev/i2c-1"         # none (default), atecc608:BUS[:0|1], twin:PATH
    [station2]                              # the same keys as [devices], and
    wiring = "/etc/cabinet/wiring2.toml"    # its own wiring file
    [station2.sas]                          # port, address, asset_number
    port = "/dev/ttyAMA0"
    address = 2                             # one port, two addresses: allowed
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from confspec import ConfigError, convert, load_toml

#: The SAS address of an EGM on its host port (SAS 6.02: 1-127, 0 is broadcast).
SasAddress = Annotated[int, Meta(ge=1, le=127)]
#: The asset number the host knows the EGM by (SAS long poll 0x73/0x1F: 4 bytes).
AssetNumber = Annotated[int, Meta(ge=0, le=4_294_967_295)]
#: The SAS accounting denomination in minor units (1 = $0.01 credits).
AccountingDenomMinor = Annotated[int, Meta(ge=1, le=100_000)]
#: How tickets are validated: ``none`` the cabinet draws its own numbers and
#: takes back only its own tickets; ``system`` SAS system validation, the casino host
#: issues each number (0x57/0x58) and redeems every ticket (0x70/0x71).
Validation = Literal["none", "system"]
#: How long a cash-out or an inserted ticket waits for the host: research/sas.md "the
#: host answers within about 10 s or the cash-out is denied"; at most 60 s (the player
#: waits at the table, the acceptor holds the ticket, ID-003 HOLD refreshed < 10 s).
ValidationTimeoutS = Annotated[int, Meta(ge=1, le=60)]
#: Keys a ``cabinet.toml`` may still carry that set nothing: key -> why it is refused.
#: With the host down a cash-out is a handpay and an inserted ticket is handed back
#: (``cabinet.core.tito``): without secure enhanced validation no ticket can be printed
#: offline (docs/research/sas.md "TITO: what the sources give, and what is assumed").
_NOT_SETTINGS = {
    ("sas", "offline_cash_out"): "not a setting: with the host down a cash-out is always a handpay (delete the line)",
}
#: The hardware monotonic counter beside the journal's commit record (opened by
#: ``drivers.factory.open_counter``): ``none``, an ATECC608 on an I2C bus with the chip's
#: counter 0 or 1 (``atecc608:/dev/i2c-1``, ``atecc608:/dev/i2c-1:1``), or its twin, a
#: file off the SD card (``twin:PATH``).
CounterSpec = Annotated[
    str,
    Meta(
        pattern=r"^(none|atecc608:/[^:]+(:[01])?|twin:.+)$", description="none, atecc608:/dev/i2c-N[:0|1] or twin:PATH"
    ),
]
#: A serial port: a device path (``/dev/ttyAMA0``) or a pyserial URL.
Port = Annotated[str, Meta(min_length=1, description="a device path or pyserial URL")]


class DevicesConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[devices]`` (station 1) and the device keys of ``[station2]``/``[station3]``;
    ``None`` is a key left out.

    Attributes:
        bill_acceptor: ``id003`` (``None``: the same), ``pulse`` or ``none``.
        bill_poll_interval_s: seconds between ID-003 polls; ``None``: 0.2 on
            hardware, 0.05 in simulation.
    """

    bill_acceptor: Literal["id003", "pulse", "none"] | None = None
    bill_acceptor_url: str | None = None
    printer_url: str | None = None
    bill_poll_interval_s: Annotated[float, Meta(ge=0.02, le=2)] | None = None

    @property
    def acceptor(self) -> Literal["id003", "pulse", "none"]:
        """The bill acceptor kind, its default (``id003``) filled in."""
        return self.bill_acceptor or "id003"


class SasStationSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[station2.sas]`` / ``[station3.sas]``: that station's EGM on the host."""

    port: Port
    address: SasAddress = 1
    asset_number: AssetNumber = 0


class SasSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[sas]``: station 1's EGM on the host (``port`` left out: station 1 has no
    link) and what is cabinet-wide: the accounting denomination and the ticket
    validation (``validation``, ``validation_timeout_s``)."""

    port: Port | None = None
    address: SasAddress | None = None
    asset_number: AssetNumber | None = None
    accounting_denomination_minor: AccountingDenomMinor = 1
    validation: Validation = "none"
    validation_timeout_s: ValidationTimeoutS = 10


class StationConfig(DevicesConfig, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[station2]`` / ``[station3]``: devices, wiring file and host link."""

    wiring: str | None = None
    sas: SasStationSection | None = None


#: The keys of a station's section that give it devices of its own.
_DEVICE_KEYS = (*DevicesConfig.__struct_fields__, "wiring")


class SasConfig(msgspec.Struct, frozen=True, kw_only=True):
    """One station's SAS host link, resolved (``EngineConfig.sas_for``).

    Attributes:
        station: the station (1-3) this EGM is.
        port: device path or pyserial URL of the host port.
        address: SAS address, 1-127.
        asset_number: 0-4294967295.
        accounting_denomination_minor: minor units per SAS credit (cabinet-wide).
        validation, validation_timeout_s: ticket validation (cabinet-wide).
    """

    station: int
    port: str
    address: int
    asset_number: int
    accounting_denomination_minor: int
    validation: str = "none"
    validation_timeout_s: int = 10


class DisplayConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[display]``: the cabinet's screens, told to the table UIs in every
    snapshot (``Snapshot.screens``).

    Attributes:
        screens: ``per-station`` a display per station (``cabinet-ui@N.service``, each
            its station's own screen); ``shared`` one wide display for every station:
            the one table UI (``cabinet-ui.service``) draws the dealer across the top
            and a panel per station along the bottom (``ui.shared_screen``).
    """

    screens: Literal["per-station", "shared"] = "per-station"


class JournalSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``[journal]``: what the journal keeps off the SD card.

    Attributes:
        counter: the fitted hardware monotonic counter (``CounterSpec``; ``none``: none
            fitted). Every commit record carries its value, so a journal restored from an
            older card image is found at start (``cabinet.shell.journal.counter``).
    """

    counter: CounterSpec = "none"


class EngineConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``cabinet.toml`` (see the module docstring); every section may be left out."""

    wiring: str | None = None
    devices: DevicesConfig = DevicesConfig()
    sas: SasSection | None = None
    display: DisplayConfig = DisplayConfig()
    journal: JournalSection = JournalSection()
    station2: StationConfig = StationConfig()
    station3: StationConfig = StationConfig()

    def section(self, station: int) -> DevicesConfig:
        """Station ``station``'s devices: ``[devices]`` for 1, ``[stationN]`` else."""
        if station == 1:
            return self.devices
        return self.station2 if station == 2 else self.station3

    def has_own_devices(self, station: int) -> bool:
        """Whether ``station`` names devices or wiring of its own (station 1: always;
        a station 2 or 3 without any plays by touch only on hardware)."""
        s = self.section(station)
        return station == 1 or any(getattr(s, k) is not None for k in _DEVICE_KEYS)

    def wiring_for(self, station: int) -> str | None:
        """The wiring file of ``station``, or ``None`` for ``drivers.pins``' defaults."""
        s = self.section(station)
        return self.wiring if station == 1 else s.wiring if isinstance(s, StationConfig) else None

    def sas_for(self, station: int) -> SasConfig | None:
        """Station ``station``'s SAS host link, or ``None`` when it has none."""
        denom = self.sas.accounting_denomination_minor if self.sas else 1
        validation = self.sas.validation if self.sas else "none"
        timeout_s = self.sas.validation_timeout_s if self.sas else 10
        if station == 1:
            if self.sas is None or self.sas.port is None:
                return None
            return SasConfig(
                station=1,
                port=self.sas.port,
                address=self.sas.address or 1,
                asset_number=self.sas.asset_number or 0,
                accounting_denomination_minor=denom,
                validation=validation,
                validation_timeout_s=timeout_s,
            )
        s = self.section(station)
        link = s.sas if isinstance(s, StationConfig) else None
        if link is None:
            return None
        return SasConfig(
            station=station,
            port=link.port,
            address=link.address,
            asset_number=link.asset_number,
            accounting_denomination_minor=denom,
            validation=validation,
            validation_timeout_s=timeout_s,
        )


def with_sas_port(
    cfg: EngineConfig, port: str, address: int | None = None, source: str = "command line"
) -> EngineConfig:
    """``cfg`` with station 1's SAS port (and address) set, e.g. from ``cabinet engine
    --sas-port PORT [--sas-address N]``, checked like the file.

    Raises:
        ConfigError: an empty port, an address out of 1..127, or one another station
            already has on that port; ``source`` is named as the file.
    """
    data = msgspec.to_builtins(cfg)
    data["sas"] = {**(data.get("sas") or {}), "port": port, **({"address": address} if address is not None else {})}
    return check_config(data, source)


def load_config(path: Path | None) -> EngineConfig:
    """Read and check the cabinet's TOML config; the defaults when ``path`` is ``None``.

    Raises:
        ConfigError: unreadable file, bad TOML, an unknown key, a value out of
            its range or choices, ``[sas]`` address or asset number without a
            port, or two stations at one address on one SAS port; the message
            names the file, the key and what is allowed.
    """
    if path is None:
        return EngineConfig()
    return check_config(load_toml(path), str(path))


def check_config(data: dict[str, object], source: str = "cabinet.toml") -> EngineConfig:
    """``data`` (a parsed ``cabinet.toml``) as an ``EngineConfig``; see ``load_config``."""
    for (table, key), why in _NOT_SETTINGS.items():
        section = data.get(table)
        if isinstance(section, dict) and key in section:
            raise ConfigError(f"{table}.{key}", why, source)
    cfg = convert(data, EngineConfig, source)
    if cfg.sas is not None and cfg.sas.port is None:
        for key in ("address", "asset_number"):
            if getattr(cfg.sas, key) is not None:
                raise ConfigError(f"sas.{key}", "needs sas.port (the host port)", source)
    seen: dict[tuple[str, int], str] = {}
    for station in (1, 2, 3):
        link = cfg.sas_for(station)
        if link is None:
            continue
        key = "sas.address" if station == 1 else f"station{station}.sas.address"
        other = seen.setdefault((link.port, link.address), key)
        if other != key:
            raise ConfigError(
                key,
                f"{link.address} is already {other} on port {link.port} "
                "(each station needs its own address on a shared port)",
                source,
            )
    return cfg

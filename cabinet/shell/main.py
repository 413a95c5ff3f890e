"""``cabinet engine``: load settings, build the devices, run the engine.

Owns: the engine process's composition point: logging, the journal, the
device set (hardware, simulated twins, or none), the UI socket server, systemd's
ready and watchdog notifications (``cabinet.shell.sd_notify``; nothing without
``$NOTIFY_SOCKET``), and clean shutdown on SIGTERM/SIGINT. ``cabinet engine`` (``cabinet.tools.cli``)
calls ``engine_main``.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import logging
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cabinet.shell.config import EngineConfig, load_config, with_sas_port
from cabinet.shell.engine import Devices, Engine, NoDevices
from cabinet.shell.host_links import HostLinks
from cabinet.shell.host_view import DENOMINATION_CODES, SasStation
from cabinet.shell.journal.counter import open_fitted
from cabinet.shell.journal.guard import place_problem
from cabinet.shell.paths import default_journal, default_socket, lock_file, private_dir, private_file
from cabinet.shell.port_locks import PortInUse, lock_ports
from cabinet.shell.sd_notify import Notifier
from cabinet.shell.store import open_journal, salvage_and_open
from cabinet.shell.ui_server import UIServer
from confspec import ConfigError

if TYPE_CHECKING:  # the drivers' contracts load only with a counter fitted
    from drivers.interfaces import MonotonicCounter

log = logging.getLogger("cabinet")


def build_devices(
    mode: str,
    config: EngineConfig | None,
    engine: Engine,
    sim_dir: Path | None,
    sim_socket: Path | None,
    twins: Path | None = None,
) -> Devices:
    """The device set for ``mode``: ``sim``, ``hardware`` or ``none``.

    ``twins``: in sim mode, the state directory of a running ``cabinet
    sim-devices`` (its serial twins outlive this process, as real devices do);
    station N's ports are ``drivers.sim.twins.station_dir(twins, N)``.

    Station 1 uses ``[devices]`` (and ``wiring``); stations 2 and 3 of a
    multi-station cabinet use ``[station2]`` / ``[station3]`` tables with the
    same keys (their own wiring file, acceptor and printer paths). In
    simulation every station of the journal's settings gets its own twins.
    ``config`` ``None``: every default.
    """
    if mode == "none":
        return NoDevices()
    config = config or EngineConfig()
    from cabinet.shell.devices import DriverDevices
    from cabinet.shell.station_devices import StationDevices
    from drivers.factory import DriverSettings
    from drivers.interfaces import OpenTransaction
    from drivers.wiring import Wiring, load_wiring

    n_stations = len(engine.cab.s.stations)
    open_txns = engine.store.open_escrows()  # every station's
    members = []
    for n in range(1, n_stations + 1):
        section = config.section(n)
        if not config.has_own_devices(n) and mode == "hardware":
            continue  # a station without devices of its own: touch only
        wiring_path = config.wiring_for(n)
        wiring = load_wiring(Path(wiring_path)) if wiring_path else Wiring()
        urls = {k: v for k in ("bill_acceptor_url", "printer_url") if (v := getattr(section, k)) is not None}
        poll_s = section.bill_poll_interval_s
        settings = DriverSettings(
            mode="hardware" if mode == "hardware" else "sim",
            wiring=wiring,
            bill_acceptor=section.acceptor,
            **urls,
            sim_dir=None if sim_dir is None else (sim_dir if n == 1 else sim_dir / f"station{n}"),
            sim_twins_dir=None if twins is None or mode != "sim" else (twins if n == 1 else twins / f"station{n}"),
            bill_poll_interval_s=poll_s if poll_s is not None else 0.2 if mode == "hardware" else 0.05,
        )
        txn = None
        open_txn = open_txns.get(n)
        if open_txn is not None:
            txn = OpenTransaction(
                open_txn["txn"], open_txn["denomination_minor"], open_txn["validation_number"], open_txn["credited"]
            )
        members.append(DriverDevices(settings, engine.cab.legal_actions, txn, station=n, tower_light=n == 1))
    return StationDevices(members, sim_socket)


def _check_program(engine: Engine) -> None:
    """The program check made at this start (``cabinet.shell.program_check``: the venv
    against the release's signed manifest, before any of it ran), before any device is
    enabled: a mismatch (a file changed, added or missing; no signed manifest; a bad
    signature) tilts (a ``program_`` fault, cleared only by a boot that matches, i.e. a
    reinstall); not started from a release: a development build, said in the log."""
    from cabinet.core.events import DeviceCleared, DeviceFaulted, ProgramChecked
    from cabinet.protocol.faults import FaultCode
    from cabinet.shell.program_check import current

    check = current()
    engine.boot_events.append(ProgramChecked(check.program_id, check.digest, check.status))
    if check.status == "mismatch":
        log.error("program integrity: %s (%s): tilt until reinstalled", check.detail, check.program_id)
        engine.boot_events.append(
            DeviceFaulted("program", FaultCode.PROGRAM_MISMATCH, f"program integrity: {check.detail}")
        )
        return
    if check.status == "development":
        log.warning("%s", check.detail)
    else:
        log.info("program %s verified, SHA-256 %s", check.program_id, check.digest)
    engine.boot_events.append(DeviceCleared("program"))


def _journal_installs(engine: Engine) -> None:
    """Each install, update and rollback in the installer's history (``HISTORY``
    beside the release this engine was started from) that the journal does not hold
    yet: a ``ProgramInstalled`` at boot, journaled as ``program_installed``. A
    development build has none."""
    import json

    from cabinet.core.events import ProgramInstalled
    from cabinet.shell.program_check import HISTORY, current, release_root

    if current().status == "development":
        return
    path = release_root(Path(sys.prefix)) / HISTORY.relative_to("/")
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return
    seen = {row["data"].get("seq") for row in engine.store.events_of(frozenset({"program_installed"}), 100_000)}
    for line in lines:
        try:
            h = json.loads(line)
            ev = ProgramInstalled(
                str(h["action"]),
                str(h["program_id"]),
                str(h["digest"]),
                str(h["previous"]),
                int(h["seq"]),
                float(h["wall_s"]),
            )
        except (ValueError, KeyError, TypeError):
            log.warning("%s: unreadable line %r: not journaled", path, line[:80])
            continue
        if ev.seq not in seen:
            engine.boot_events.append(ev)


def sas_stations(cfg: EngineConfig, port: str | None, address: int | None) -> dict[int, SasStation]:
    """Each station's SAS link settings: ``[sas]`` / ``[stationN.sas]`` of the
    config, with ``--sas-port``/``--sas-address`` setting station 1's; none without a
    port (the cabinet then runs without a host).

    Raises:
        ConfigError: an address outside 1..127, an address without a port, or two
            stations at one address on one port.
    """
    if port is not None:
        cfg = with_sas_port(cfg, port, address)
    elif address is not None:
        raise ConfigError("--sas-address", "needs --sas-port (or [sas] port in the config)")
    out: dict[int, SasStation] = {}
    for n in (1, 2, 3):
        link = cfg.sas_for(n)
        if link is not None:
            _check_sas_port(
                link.port, "--sas-port" if n == 1 and port else "sas.port" if n == 1 else f"station{n}.sas.port"
            )
            if link.accounting_denomination_minor not in DENOMINATION_CODES:
                raise ConfigError(
                    "sas.accounting_denomination_minor",
                    "expected one of "
                    f"{', '.join(map(str, sorted(DENOMINATION_CODES)))} (a SAS "
                    f"denomination), got {link.accounting_denomination_minor}",
                )
            out[n] = SasStation(
                port=link.port,
                address=link.address,
                asset_number=link.asset_number,
                accounting_denomination_minor=link.accounting_denomination_minor,
                validation=link.validation,
                validation_timeout_s=link.validation_timeout_s,
            )
    return out


def _check_sas_port(port: str, key: str) -> None:
    """Refuse a port that can never work (an unknown pyserial URL scheme, a folder); a
    device path that does not exist yet is fine (a USB adapter plugged in later).

    Raises:
        ConfigError: naming ``key``.
    """
    import importlib.util

    scheme, sep, _ = port.partition("://")
    if sep:
        if not scheme.isidentifier() or importlib.util.find_spec(f"serial.urlhandler.protocol_{scheme}") is None:
            raise ConfigError(
                key,
                f"{port!r}: unknown pyserial URL scheme {scheme!r} "
                "(a device path like /dev/ttyUSB0, or socket://, rfc2217://...)",
            )
    elif Path(port).is_dir():
        raise ConfigError(key, f"{port!r} is a folder, not a serial port")


def _host_links(stations: dict[int, SasStation]) -> HostLinks | None:
    if not stations:
        return None
    import socket as socket_mod

    from cabinet.shell.manifest import install_root, program_files
    from cabinet.shell.program_check import current

    sys.setswitchinterval(0.001)  # the link thread answers within ms of a poll (GIL hand-off)
    root = install_root()
    # 0x21 signs the signed manifest of a verified release (which names every file's
    # SHA-256); a development build's own source files otherwise
    files = list(current().rom_files) or [root / p for p in program_files(root)]
    return HostLinks(stations, serial_number=socket_mod.gethostname()[:40], program_files=files)


async def _run(
    journal: Path,
    socket: Path,
    mode: str,
    config: EngineConfig,
    sim_dir: Path | None,
    twins: Path | None = None,
    sas: dict[int, SasStation] | None = None,
    counter: MonotonicCounter | None = None,
) -> None:
    private_dir(socket.parent, group_ok=True)  # refuse a hijacked folder before anything starts
    store, _ = open_journal(journal, counter)  # a corrupt one: salvaged, RAM error
    try:
        engine = Engine(store)
    except (sqlite3.Error, ValueError, TypeError, UnicodeError) as e:
        # rows SQLite reads but that are not what was written (a garbled page its own
        # check passes): salvaged like a corrupt journal, the RAM error on the screen
        store.close()
        store = salvage_and_open(journal, [f"unreadable rows: {type(e).__name__}: {e}"], counter)
        engine = Engine(store)
    _check_program(engine)
    _journal_installs(engine)
    sim_socket = socket.with_name(socket.name + ".sim") if mode == "sim" else None
    engine.devices = build_devices(mode, config, engine, sim_dir, sim_socket, twins)
    try:  # one engine per serial port
        held = lock_ports(serial_ports(engine.devices, sas or {}))
    except BaseException:
        store.close()
        raise
    engine.host_links = _host_links(sas or {})
    engine.screens = config.display.screens
    server = UIServer(engine, socket, os.environ.get("CABINET_SOCKET_GROUP") or None)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    ready = asyncio.Event()
    task = asyncio.create_task(engine.run(ready.set, stop))
    waiter = asyncio.create_task(ready.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():  # failed before it was ready: say why, exit
        waiter.cancel()
        store.close()
        task.result()
        return
    await server.start()
    # latency: what start-up built lives as long as the engine; the collector
    # stops walking it (a full collection took 15 ms, in the path of a press)
    gc.freeze()
    log.info("engine ready: journal %s, UI socket %s, devices %s", journal, socket, mode)
    print(f"engine ready: socket {socket}" + (f", sim control {sim_socket}" if sim_socket else ""), flush=True)
    notifier = Notifier()  # systemd (Type=notify): ready, then pings from this loop
    notifier.ready()
    pings = asyncio.create_task(notifier.watchdog())
    await task
    pings.cancel()
    notifier.stopping()
    await server.stop()
    store.close()
    for fd in held:
        os.close(fd)
    log.info("engine stopped")


def serial_ports(devices: Devices, sas: dict[int, SasStation]) -> dict[str, str]:
    """Every serial port this engine will open that another process could open too:
    what it is for ("station 1 bill acceptor", "station 1 SAS link") -> its path."""
    from drivers.factory import serial_ports as driver_ports

    out: dict[str, str] = {}
    for n, member in sorted(getattr(devices, "members", {}).items()):
        settings = getattr(member, "settings", None)
        if settings is not None:
            for what, path in driver_ports(settings).items():
                out[f"station {n} {what}"] = path
    for n, link in sorted(sas.items()):
        out.setdefault(f"station {n} SAS link", link.port)
    return out


def lock_journal(journal: Path) -> Any:
    """Take the one-engine-per-journal lock (``fcntl.flock`` on ``<journal>.lock``).

    Returns the open lock file (keep it open for the engine's lifetime), or
    ``None`` when another engine holds it.

    Raises:
        OSError: the lock file cannot be created.
    """
    path = lock_file(journal)
    if not path.parent.exists():
        private_dir(path.parent)  # a folder made for the journal: 0700
    private_file(path)
    f = open(path, "a")  # noqa: SIM115 - held open while the engine runs
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    return f


def engine_main(
    journal: str | None,
    socket: str | None,
    devices: str,
    config: str | None,
    sim_dir: str | None,
    twins: str | None = None,
    sas_port: str | None = None,
    sas_address: int | None = None,
) -> int:
    """Run the engine until SIGTERM/SIGINT; returns the exit status (2: bad config,
    including a ``[journal] counter`` that names no counter or cannot be opened)."""
    logging.basicConfig(
        level=os.environ.get("CABINET_LOG", "INFO"), format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    try:
        cfg = load_config(Path(config) if config else None)
        sas = sas_stations(cfg, sas_port, sas_address)
        counter = open_fitted(cfg.journal.counter, config or "")  # before the journal is touched
    except ConfigError as e:
        print(f"config: {e}", file=sys.stderr)
        return 2
    try:
        return _locked_run(journal, socket, devices, cfg, sim_dir, twins, sas, counter)
    finally:
        if counter is not None:
            counter.close()


def _locked_run(
    journal: str | None,
    socket: str | None,
    devices: str,
    cfg: EngineConfig,
    sim_dir: str | None,
    twins: str | None,
    sas: dict[int, SasStation],
    counter: MonotonicCounter | None,
) -> int:
    """``engine_main`` once the config is read: the journal's place and lock, then the
    engine; returns the exit status."""
    if journal is None:
        try:  # the cabinet's own state folder (systemd's StateDirectory is 0755): owner-only
            private_dir(default_journal().parent, tighten=True)
        except OSError as e:
            print(f"engine: cannot start: {e}", file=sys.stderr)
            return 1
    journal_path = Path(journal) if journal else default_journal()
    problem = place_problem(journal_path)
    if problem is not None:
        print(f"engine: {problem}", file=sys.stderr)
        return 2
    try:
        lock = lock_journal(journal_path)
    except OSError as e:
        print(f"engine: cannot lock journal {journal_path}: {e.strerror or e}", file=sys.stderr)
        return 2
    if lock is None:
        print(
            f"engine: journal {journal_path} is in use by another engine (lock {lock_file(journal_path)})",
            file=sys.stderr,
        )
        return 2
    try:
        asyncio.run(
            _run(
                journal_path,
                Path(socket) if socket else default_socket(),
                devices,
                cfg,
                Path(sim_dir) if sim_dir else None,
                Path(twins) if twins else None,
                sas,
                counter,
            )
        )
    except PortInUse as e:  # another engine (or program) holds a port
        print(f"engine: {e}", file=sys.stderr)
        return 2
    except ConfigError as e:  # a wiring file, a driver's setting
        print(f"config: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # devices that cannot start, a journal that cannot open
        log.debug("engine failed to start", exc_info=True)
        print(f"engine: cannot start: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        lock.close()
    return 0

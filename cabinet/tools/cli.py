"""The ``cabinet`` command line.

Owns: argument parsing and dispatch to the modules that do the work, the command
groups (``GROUPS``: ``cabinet audit meters``, ``cabinet sim host``...), the flat
names each grouped command also answers to (``ALIASES``: ``cabinet meters``,
``cabinet sim-host``; hidden from the help, kept for scripts, systemd units and
habits) and ``cabinet --version``. Each sub-command imports its module lazily,
so ``cabinet math replay`` never loads pygame or the drivers.
"""

from __future__ import annotations

import argparse
import codecs
import io
import signal
import sys
from collections.abc import Sequence

#: The few non-ASCII characters the views print, as ASCII (a terminal that takes only
#: ASCII: ``LANG=C`` without UTF-8 coercion, ``PYTHONIOENCODING=ascii``); any other: ``?``.
PLAIN = {
    "\u00b7": "-",
    "\u2014": "-",
    "\u2013": "-",
    "\u2192": "->",
    "\u2026": "...",
    "\u25cf": "*",
    "\u00d7": "x",
    "\u2264": "<=",
    "\u2265": ">=",
}


def _plain(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler ``cabinet-plain``: what ``PLAIN`` says for each character the
    stream cannot encode."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(PLAIN.get(c, "?") for c in err.object[err.start : err.end]), err.end


def plain_output() -> None:
    """Make stdout and stderr write what their encoding cannot hold as ``PLAIN`` ASCII
    instead of raising ``UnicodeEncodeError`` (a view must print, not crash)."""
    codecs.register_error("cabinet-plain", _plain)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="cabinet-plain")


#: The command groups: group -> (its help, {sub-command: the flat command it runs}).
#: ``run`` and ``engine`` stay at the top.
GROUPS: dict[str, tuple[str, dict[str, str]]] = {
    "audit": (
        "read a journal: meters, game recall, the event log",
        {"meters": "meters", "recall": "recall", "events": "events"},
    ),
    "service": (
        "look after a cabinet: check it, install or update it, upgrade its journal",
        {"doctor": "doctor", "install": "install", "upgrade-journal": "upgrade-journal"},
    ),
    "sim": (
        "simulated devices and the simulated casino host",
        {"device": "sim-device", "devices": "sim-devices", "host": "sim-host", "send": "sim-send"},
    ),
    "math": (
        "the games' mathematics: par sheets, simulation, the RNG's output, scenario replay",
        {"parsheet": "parsheet", "simulate": "simulate", "rng-dump": "rng-dump", "replay": "replay"},
    ),
    "release": ("build a signed release, make a release key", {"build": "release", "key": "release-key"}),
}
#: The commands outside any group, and their help.
TOP_HELP = {
    "run": "run the whole cabinet (engine + table UI) with simulated devices; headless: a demo player plays "
    "and the run stops by itself",
    "engine": "run the engine process",
}
TOP = tuple(TOP_HELP)
#: Every grouped command's flat name -> its group and sub-command (``cabinet sim-host``
#: is ``cabinet sim host``). Not in the help.
ALIASES: dict[str, tuple[str, str]] = {
    flat: (group, name) for group, (_, subs) in GROUPS.items() for name, flat in subs.items()
}


def grouped(argv: list[str]) -> list[str]:
    """``argv`` with a flat command name put as its group and sub-command
    (``["sim-host", "--machines", "2"]`` -> ``["sim", "host", "--machines", "2"]``).
    ``release`` is a group and a flat name: followed by a sub-command, ``-h`` or
    nothing it is the group, else (``release --key K``) the flat ``release build``."""
    if not argv:
        return argv
    head = argv[0]
    if head in GROUPS and (len(argv) == 1 or argv[1] in GROUPS[head][1] or argv[1] in ("-h", "--help")):
        return argv
    if head in ALIASES:
        return [*ALIASES[head], *argv[1:]]
    return argv


def command_of(argv: list[str]) -> str | None:
    """The flat command a grouped ``argv`` runs (``["sim", "host"]`` -> ``"sim-host"``),
    ``None`` when it names none."""
    if len(argv) >= 2 and argv[0] in GROUPS:
        return GROUPS[argv[0]][1].get(argv[1])
    return argv[0] if argv and argv[0] in TOP else None


def version_text() -> str:
    """``cabinet --version``: the version, the program ID and the signed manifest's
    SHA-256 (``cabinet.shell.program_check``); a development build says it is one."""
    from importlib.metadata import PackageNotFoundError, version

    from cabinet.shell.program_check import this_program

    try:
        ver = version("blackjack-cabinet")
    except PackageNotFoundError:
        ver = "(not installed as a package)"
    check = this_program()
    if check.status == "verified":
        digest = f"{check.digest} (verified)"
    elif check.status == "development":
        digest = f"none ({check.detail})"
    else:
        digest = f"{check.digest or 'none'} (the program check FAILED: {check.detail})"
    return f"cabinet {ver}\nprogram ID: {check.program_id}\nmanifest digest: {digest}"


class _VersionAction(argparse.Action):
    """``--version``: print ``version_text()`` and exit 0 (computed only when asked)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        print(version_text())
        parser.exit()


def _count(text: str) -> int:
    """An argparse type: a whole number of at least 1 (``--limit``, ``--station``...)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {n}")
    return n


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cabinet", description="Blackjack cabinet firmware.")
    p.add_argument("--version", action=_VersionAction, help="print the version, the program ID and the manifest digest")
    top = p.add_subparsers(dest="group", required=True, metavar="COMMAND")
    # the help lists run and engine first, then the groups
    tops = {name: top.add_parser(name, help=TOP_HELP[name], description=TOP_HELP[name]) for name in TOP}
    groups = {}
    for group, (helptext, _subs) in GROUPS.items():
        gp = top.add_parser(group, help=helptext, description=helptext)
        groups[group] = gp.add_subparsers(dest="sub", required=True, metavar="COMMAND")

    def add(name: str, help: str = "") -> argparse.ArgumentParser:
        """The parser of flat command ``name``: under its group, or at the top."""
        if name in TOP:
            parser = tops[name]
        else:
            group, sub_name = ALIASES[name]
            parser = groups[group].add_parser(sub_name, help=help, description=help)
        parser.set_defaults(command=name)
        return parser

    rp = add("replay", help="play one round from a scenario file (SCENARIOS.md)")
    rp.add_argument("files", nargs="+", metavar="FILE.json")
    rp.add_argument(
        "--check", action="store_true", help="compare with the file's expect/expect_error; status 1 on mismatch"
    )

    run = add("run")
    run.add_argument("--rounds", type=int, default=5, metavar="N", help="rounds the demo player plays (default 5)")
    run.add_argument(
        "--variant",
        choices=["classic", "classic-multi", "american"],
        help="switch the game to this first (operator menu's Settings page, with the technician PIN: see --pin)",
    )
    run.add_argument(
        "--out", metavar="DIR", help="run folder for screenshots, vouchers and logs (default out/run-YYYYmmdd-HHMMSS)"
    )
    look = run.add_mutually_exclusive_group()
    look.add_argument(
        "--window",
        dest="window",
        action="store_true",
        default=None,
        help="open a window (default when DISPLAY or WAYLAND_DISPLAY is set)",
    )
    look.add_argument(
        "--headless", dest="window", action="store_false", help="no window: SDL dummy driver and the demo player"
    )
    run.add_argument("--demo", action="store_true", default=None, help="let the demo player play in the window too")
    run.add_argument(
        "--size",
        default=None,
        help="UI size WxH (default 1280x720; with several stations each station's window 960x540, tiled)",
    )
    run.add_argument(
        "--stations",
        type=int,
        choices=(1, 2, 3),
        default=None,
        metavar="N",
        help="seat N players (1-3; more than one plays classic-multi), one table "
        "UI per station; headless, one demo player per station "
        "(default: the journal's stations)",
    )
    run.add_argument(
        "--screens",
        choices=("per-station", "shared"),
        default="per-station",
        help="per-station: one table UI per station (default); shared: one UI, "
        "the shared wide screen with a panel per station (a cabinet with one "
        "display; 1920x540 unless --size; [display] screens in cabinet.toml)",
    )
    run.add_argument("--journal", help="SQLite journal (default: user data dir)")
    run.add_argument(
        "--pin",
        default=None,
        metavar="PIN",
        help="the technician PIN the run types to change --stations or --variant "
        "(default $CABINET_PIN, else 2580, the PIN it gives a new journal); "
        "checked against the journal first, never typed if wrong",
    )
    run.add_argument(
        "--language",
        default="",
        metavar="LANG[,LANG...]",
        help="each station screen's default language (en, es, es_ES...): one for "
        "all, or one per station, comma-separated (default $CABINET_UI_LANGUAGE, else en)",
    )
    run.add_argument(
        "--tickets",
        choices=("cabinet", "host"),
        default="cabinet",
        help="who numbers and redeems tickets: 'cabinet' (default: its own "
        "numbers, takes back its own tickets) or 'host' (SAS system "
        "validation by the casino host twin; headless, the demo takes "
        "station 1's ticket to station 2, redeems it there and inserts "
        "it again, refused)",
    )

    ep = add("engine")
    ep.add_argument("--journal", help="SQLite journal (default: user data dir)")
    ep.add_argument("--socket", help="UI socket path (default: runtime dir)")
    ep.add_argument("--devices", choices=["sim", "hardware", "none"], default="sim")
    ep.add_argument("--config", help="cabinet TOML (devices, wiring, host link, hardware counter)")
    ep.add_argument("--sim-dir", help="where simulated devices put their ptys and tickets")
    ep.add_argument(
        "--twins",
        metavar="DIR",
        help="with --devices sim: use the serial twins of a running "
        "'cabinet sim-devices --state-dir DIR' (they outlive the engine)",
    )
    ep.add_argument(
        "--sas-port",
        metavar="PORT",
        help="station 1's SAS host link: a serial device or pyserial URL (overrides [sas] port of --config)",
    )
    ep.add_argument(
        "--sas-address", type=int, metavar="N", help="station 1's SAS address 1-127 (default 1, or [sas] address)"
    )

    for name, helptext in (
        ("meters", "print the meters of a journal"),
        ("recall", "print the last rounds (game recall)"),
        ("events", "print the event log"),
        (
            "doctor",
            "check the cabinet: config and wiring files, devices "
            "(serial ports, versions, status, every input pin), the "
            "journal's integrity, free disk, the clock, the program digest; "
            "a pass/fail list, status 1 if anything failed",
        ),
    ):
        vp = add(name, help=helptext)
        vp.add_argument("--journal", help="SQLite journal (default: user data dir)")
        if name == "doctor":
            vp.add_argument("--config", help="cabinet TOML (default /etc/cabinet/cabinet.toml when present)")
            vp.add_argument(
                "--devices",
                choices=["hardware", "sim", "none"],
                help="devices to check (default: hardware when a config is found, sim with --twins, else none)",
            )
            vp.add_argument(
                "--twins", metavar="DIR", help="the serial twins of a running 'cabinet sim-devices --state-dir DIR'"
            )
            vp.add_argument(
                "--engine-stopped",
                action="store_true",
                help="say first that the "
                "engine has stopped and last how to start it again (the display's "
                "text, cabinet-engine-stopped.service)",
            )
            continue
        vp.add_argument("--json", action="store_true", help="JSON instead of text")
        if name == "events":
            vp.add_argument("--verify", action="store_true", help="verify the event chain instead; status 1 if broken")
        if name == "meters":
            vp.add_argument(
                "--export",
                metavar="FILE.csv",
                help="write the audit report (meters per station, bills by denomination, handpays) to FILE.csv instead",
            )
        if name != "meters":
            vp.add_argument("--limit", type=_count, default=10 if name == "recall" else 50, help="newest N (1 or more)")
        if name == "recall":
            vp.add_argument("--station", type=int, default=0, help="0: every station")

    up = add(
        "upgrade-journal",
        help="upgrade a journal in the old format (plain "
        "SHA-256 checksums) to keyed checksums, once, journaled; the engine "
        "stopped; a journal ever keyed is refused",
    )
    up.add_argument("--journal", help="SQLite journal (default: user data dir)")

    from cabinet.tools.release import TARGETS

    rp = add(
        "release",
        help="build dist/cabinet-VERSION.tar: the program, its wheels "
        "for Pi OS bookworm and trixie (arm64, x86_64), the units and the signed "
        "manifest (make release; needs PyPI)",
    )
    rp.add_argument("--key", required=True, help="the release key (PEM, from cabinet release-key)")
    rp.add_argument("--out", default="dist", help="folder for the release file (default dist)")
    rp.add_argument("--source", metavar="DIR", help="the checkout (default: this one)")
    rp.add_argument(
        "--target",
        action="append",
        choices=sorted(TARGETS),
        help="only this target's wheels (repeatable; default: all four)",
    )
    kp = add(
        "release-key",
        help="make an Ed25519 release key pair (the private key "
        "stays on the build machine; the public one goes to a first install)",
    )
    kp.add_argument("private", help="private key file to write (PEM, 0600; never overwritten)")
    kp.add_argument("public", help="public key file to write (PEM)")

    ip = add(
        "install",
        help="install or update the cabinet on a Raspberry Pi from a "
        "signed release file, offline (user, venv, /etc/cabinet, journal folder, "
        "systemd units, udev rules, cmdline.txt); safe to run again; keeps the "
        "journal and the previous release",
    )
    ip.add_argument(
        "release",
        nargs="?",
        metavar="RELEASE",
        help="the release file (make release); without it: a development install from this checkout and PyPI",
    )
    ip.add_argument(
        "--public-key",
        metavar="FILE",
        help="first install: the vendor's release key (PEM); later releases must be signed with the same key",
    )
    ip.add_argument(
        "--rollback",
        action="store_true",
        help="reinstall the release installed before this one (kept by the installer)",
    )
    ip.add_argument(
        "--root",
        metavar="DIR",
        help="install into DIR as if it were / and run no "
        "command (user, venv, systemctl: printed as skipped); needs no root",
    )
    ip.add_argument("--source", metavar="DIR", help="the checkout to install (default: this one)")
    ip.add_argument("--no-start", action="store_true", help="do not (re)start cabinet.target")

    for name, helptext in (
        ("sim-device", "run one simulated device on a pty (bill|printer)"),
        ("sim-devices", "run every station's serial twins in a process of their own (bill acceptor, printer)"),
        (
            "sim-host",
            "run a simulated casino host (SAS 6.02) on ptys, one per machine, with a floor view and a control socket",
        ),
        ("parsheet", "exact RTP, strategy and par sheet of a variant"),
        ("simulate", "simulate rounds of a variant with basic strategy"),
        ("rng-dump", "raw output of the shoe's random path for dieharder, ent and NIST SP 800-22"),
        ("sim-send", "send JSON lines to a simulation control socket (ui.sock.sim, control.sock, host.sock)"),
    ):
        group, sub_name = ALIASES[name]
        add(name, help=helptext + f"; see 'cabinet {group} {sub_name} --help'")
    return p


def _pass_through(name: str, rest: list[str]) -> int:
    if name == "sim-device":
        from cabinet.shell.sim_control import sim_device_main

        return sim_device_main(rest)
    if name == "sim-devices":
        from cabinet.shell.sim_control import sim_devices_main

        return sim_devices_main(rest)
    if name == "sim-host":
        from cabinet.shell.sim_control import sim_host_main

        return sim_host_main(rest)
    if name == "sim-send":
        from cabinet.tools.sim_send import main as sim_send_main

        return sim_send_main(rest)
    if name == "rng-dump":
        from cabinet.tools.rng_dump import main as rng_dump_main

        return rng_dump_main(rest)
    from cabinet.strategy.cli import parsheet_main, simulate_main

    return parsheet_main(rest) if name == "parsheet" else simulate_main(rest)


#: Sub-commands with a parser of their own: everything after the name goes to it.
PASS_THROUGH = ("parsheet", "simulate", "sim-device", "sim-devices", "sim-host", "rng-dump", "sim-send")
#: Read-only sub-commands that print to stdout: a closed pipe ends them quietly.
PIPE_VIEWS = ("meters", "recall", "events", "replay", "parsheet", "simulate", "rng-dump")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cabinet`` console script; returns the exit status."""
    as_command = argv is None
    argv = grouped(list(sys.argv[1:] if argv is None else argv))
    command = command_of(argv)
    if as_command:
        plain_output()
    if as_command and command in PIPE_VIEWS:
        # A closed pipe (``cabinet events | head``) ends the output quietly. Only
        # here, and only as the command itself (not called in-process, where it
        # would change the caller's signals): the engine keeps Python's SIGPIPE
        # ignore, or one client that hangs up before its hello reply would kill it
        # .
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if command in PASS_THROUGH:
        return _pass_through(command, argv[2:])
    args = _build_parser().parse_args(argv)
    if args.command == "replay":
        from cabinet.tools import replay

        return replay.main(args.files, check=args.check)
    if args.command == "run":
        from cabinet.tools import launcher, station_screens

        if args.rounds < 1:
            print(station_screens.rounds_refusal(args.rounds), file=sys.stderr)
            return 2
        from cabinet.protocol.languages import check_station_languages

        why = check_station_languages(args.language, args.stations or 3) if args.language else ""
        if why:
            print(f"cabinet run: --language: {why}", file=sys.stderr)
            return 2
        return launcher.main(
            rounds=args.rounds,
            variant=args.variant,
            out=args.out,
            window=args.window,
            demo=args.demo,
            size=args.size,
            journal=args.journal,
            stations=args.stations,
            tickets=args.tickets,
            language=args.language,
            display=args.screens,
            pin=args.pin,
        )
    if args.command == "release":
        from cabinet.tools import release

        return release.main(args.key, args.out, args.source, tuple(args.target or release.TARGETS))
    if args.command == "release-key":
        from cabinet.tools.release_sign import key_main

        return key_main(args.private, args.public)
    if args.command == "install":
        if args.release is not None or args.rollback:
            from cabinet.tools import release_install

            return release_install.main(
                args.root, args.release, args.public_key, args.rollback, start=not args.no_start
            )
        from cabinet.tools import install

        return install.main(args.root, args.source, start=not args.no_start)
    if args.command == "engine":
        from cabinet.shell.main import engine_main

        return engine_main(
            args.journal,
            args.socket,
            args.devices,
            args.config,
            args.sim_dir,
            args.twins,
            args.sas_port,
            args.sas_address,
        )
    if args.command == "upgrade-journal":
        return _upgrade_journal(args.journal)
    if args.command == "doctor":
        from cabinet.tools import doctor

        return doctor.main(args.journal, args.config, args.devices, args.twins, args.engine_stopped)
    if args.command in ("meters", "recall", "events"):
        import sqlite3
        from pathlib import Path

        from cabinet.core.errors import StoreError
        from cabinet.shell.paths import default_journal
        from cabinet.tools import views_cli

        path = Path(args.journal) if args.journal else default_journal()
        try:
            if args.command == "meters" and args.export:
                from cabinet.tools import audit_cli

                return audit_cli.export(path, Path(args.export))
            if args.command == "meters":
                return views_cli.meters(path, args.json)
            if args.command == "recall":
                return views_cli.recall(path, args.station, args.limit, args.json)
            if args.verify:
                return views_cli.verify_events(path)
            return views_cli.events(path, args.limit, args.json)
        except (sqlite3.Error, StoreError) as e:
            print(f"{path}: not a readable cabinet journal ({e})", file=sys.stderr)
            return 2
    return 2  # pragma: no cover - argparse rejects unknown commands


def _upgrade_journal(journal: str | None) -> int:
    """``cabinet upgrade-journal``: ``store.upgrade_journal`` under the engine's lock;
    one line, 0 upgraded, 2 refused."""
    import logging
    from pathlib import Path

    from cabinet.core.errors import StoreError
    from cabinet.shell.main import lock_journal
    from cabinet.shell.paths import default_journal
    from cabinet.shell.store import upgrade_journal

    logging.basicConfig(level=logging.ERROR)  # the one line below says what was done
    path = Path(journal) if journal else default_journal()
    if not path.exists():
        print(f"upgrade-journal: no journal at {path}", file=sys.stderr)
        return 2
    lock = lock_journal(path)
    if lock is None:
        print(
            f"upgrade-journal: journal {path} is in use by an engine: stop it first "
            "(sudo systemctl stop cabinet.target)",
            file=sys.stderr,
        )
        return 2
    try:
        print(upgrade_journal(path))
    except StoreError as e:
        print(f"upgrade-journal: {e}", file=sys.stderr)
        return 2
    finally:
        lock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``cabinet sim-host``: the SAS host twin in a process of its own, with a control socket.

Owns: argument parsing, the per-machine pty links and ``host.json`` in ``--dir``, the
ready line, the live floor view, and the line-delimited JSON control socket
(``host_command``).  ``cabinet.shell.sim_control.sim_host_main`` calls ``main``.
Must not import: serial, cabinet.*.

Control socket: one JSON object per line in, one per line out; ``"machine"`` is a SAS
address (default the first).  Commands:

- ``{"cmd": "send", "machine": 1, "poll": "0x1C", "data": "hex"}``: any long poll of
  the layout table; the answer's ``reply`` is ``{"kind": "data"|"ack"|"nack"|"busy"|
  "none", "hex": raw bytes, "data": data bytes}``.
- ``shut_down``, ``start_up``, ``enable_bills``, ``disable_bills``,
  ``enter_maintenance``, ``exit_maintenance``: ``{"ack": true|false}``.
- ``{"cmd": "configure_bills", "bills_minor": [100, 500], "keep_enabled": true}``,
  ``{"cmd": "set_time"}`` (now) or with ``"when": "2026-12-01T13:00:00"``.
- ``handpay_reset`` (``{"code": n|null}``), ``{"cmd": "rom_signature", "seed": 4660}``
  (``{"signature": n|null}``).
- ``real_time_events_on`` / ``real_time_events_off`` (0x0E, ``{"ack": true|false}``):
  exceptions then come with their event data.
- ``exceptions`` (``[{"code", "name", "at", "data"}]``, data as hex: a real-time event's), ``meters``, ``status`` (every
  machine), ``view`` (the floor view text, tickets included), ``pause``, ``resume``.
- Tickets: ``tickets`` (``{"summary": [per machine, then the floor as
  address 0], "tickets": [every ticket's record]}``); ``{"cmd": "tito",
  "deny_validation": true, "answer_validation": false, "validation_delay_s": 2.5,
  "expiry_days": 30}`` changes those knobs (any subset; the answer has them all).

Errors: ``{"ok": false, "error": "<one line>"}``; a bad request never stops the host.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import random
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from drivers.sas.host_codec import Ack, Busy, DataReply, Nack, Reply
from drivers.sim.line_server import LineJsonServer
from drivers.sim.sas_host import SasHost
from drivers.sim.sas_host_tito import TitoConfig
from drivers.sim.sas_host_view import floor_view


def _real_time_events_off(host: SasHost, machine: int) -> bool:
    return host.real_time_events(machine, False)


#: AF_UNIX paths longer than this do not fit ``sockaddr_un`` (108 bytes with the NUL).
MAX_SOCKET_PATH = 100
_ACKED = {
    "shut_down": SasHost.shut_down,
    "start_up": SasHost.start_up,
    "enable_bills": SasHost.enable_bill_acceptor,
    "disable_bills": SasHost.disable_bill_acceptor,
    "enter_maintenance": SasHost.enter_maintenance,
    "exit_maintenance": SasHost.exit_maintenance,
    "real_time_events_on": SasHost.real_time_events,
    "real_time_events_off": _real_time_events_off,
}
COMMANDS = (
    "send",
    *_ACKED,
    "configure_bills",
    "set_time",
    "handpay_reset",
    "rom_signature",
    "exceptions",
    "meters",
    "status",
    "view",
    "pause",
    "resume",
    "tickets",
    "tito",
)
#: ``tito`` command keys -> the type each must be.
_TITO_KNOBS: dict[str, tuple[type, ...]] = {
    "deny_validation": (bool,),
    "answer_validation": (bool,),
    "validation_delay_s": (int, float),
    "expiry_days": (int, float),
}


def _tito(host: SasHost, msg: dict[str, Any]) -> dict[str, Any]:
    cfg = host.tito.config
    for key, kinds in _TITO_KNOBS.items():
        if key not in msg:
            continue
        value = msg[key]
        ok = (
            isinstance(value, bool)
            if bool in kinds
            else (isinstance(value, int | float) and not isinstance(value, bool) and value >= 0)
        )
        if not ok:
            raise ValueError(f'"{key}" must be {"true or false" if bool in kinds else "a number >= 0"}')
        setattr(cfg, key, value)
    return {"ok": True, **{k: getattr(cfg, k) for k in _TITO_KNOBS}}


def reply_json(reply: Reply | None) -> dict[str, Any]:
    """A host codec reply as JSON (see the module docstring)."""
    if reply is None:
        return {"kind": "none"}
    kinds = {Ack: "ack", Nack: "nack", Busy: "busy", DataReply: "data"}
    out: dict[str, Any] = {"kind": kinds.get(type(reply), type(reply).__name__.lower())}
    if isinstance(reply, DataReply):
        out.update(hex=reply.raw.hex(" "), data=reply.data.hex(" "), command=f"0x{reply.command:02X}")
    return out


def _int(msg: dict[str, Any], key: str, default: Any = None) -> int:
    value = msg.get(key, default)
    if isinstance(value, str):
        try:
            value = int(value, 0)
        except ValueError:
            raise ValueError(f'"{key}" {value[:12]!r} is not a number') from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f'"{key}" must be an integer (or "0x.." text)')
    return value


def host_command(host: SasHost, line: str | bytes) -> dict[str, Any]:
    """Carry out one control line on ``host``; never raises (see the module docstring)."""
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as e:
        return {"ok": False, "error": f"not JSON: {' '.join(str(e).split())[:120]}"}
    if not isinstance(msg, dict) or not isinstance(msg.get("cmd"), str):
        return {"ok": False, "error": f'a request is a JSON object with "cmd" (one of {", ".join(COMMANDS)})'}
    cmd = msg["cmd"]
    try:
        if cmd in ("status", "view", "pause", "resume", "tickets", "tito"):
            if cmd == "status":
                return {"ok": True, "machines": [dataclasses.asdict(s) for s in host.status()]}
            if cmd == "view":
                return {"ok": True, "view": floor_view(host.status(), tickets=host.ticket_summary())}
            if cmd == "tickets":
                return {
                    "ok": True,
                    "summary": [dataclasses.asdict(t) for t in host.ticket_summary()],
                    "tickets": host.tickets.tickets(),
                }
            if cmd == "tito":
                return _tito(host, msg)
            (host.pause if cmd == "pause" else host.resume)()
            return {"ok": True}
        machine = _int(msg, "machine", host.addresses[0])
        if machine not in host.addresses:
            raise ValueError(f"no machine {machine} (the host polls {host.addresses})")
        if cmd == "send":
            data = msg.get("data", "")
            if not isinstance(data, str):
                raise ValueError('"data" must be hex text')
            reply = host.send(machine, _int(msg, "poll"), bytes.fromhex(data))
            return {"ok": True, "reply": reply_json(reply)}
        if cmd in _ACKED:
            return {"ok": True, "ack": _ACKED[cmd](host, machine)}
        if cmd == "configure_bills":
            bills = msg.get("bills_minor")
            if not isinstance(bills, list) or not all(isinstance(b, int) for b in bills):
                raise ValueError('"bills_minor" must be a list of integers')
            return {"ok": True, "ack": host.configure_bills(machine, bills, bool(msg.get("keep_enabled", True)))}
        if cmd == "set_time":
            when = msg.get("when")
            at = dt.datetime.fromisoformat(when) if isinstance(when, str) else None
            return {"ok": True, "ack": host.set_date_time(machine, at)}
        if cmd == "handpay_reset":
            return {"ok": True, "code": host.remote_handpay_reset(machine)}
        if cmd == "rom_signature":
            return {"ok": True, "signature": host.rom_signature(machine, _int(msg, "seed", 0))}
        if cmd == "exceptions":
            return {
                "ok": True,
                "exceptions": [{**dataclasses.asdict(e), "data": e.data.hex()} for e in host.exceptions(machine)],
            }
        if cmd == "meters":
            return {"ok": True, "meters": host.meters(machine)}
    except (ValueError, KeyError) as e:
        return {"ok": False, "error": f"{cmd}: {' '.join(str(e).split())[:160]}"}
    return {"ok": False, "error": f"unknown command {cmd[:24]!r} (known: {', '.join(COMMANDS)})"}


def _addresses(text: str) -> list[int]:
    try:
        return [int(a) for a in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--address {text!r}: give addresses like 1,2,3") from None


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="cabinet sim-host",
        description=(
            "a simulated casino host (SAS 6.02) on pseudo-terminals, one per machine; point a "
            "cabinet at it with 'cabinet engine --sas-port DIR/sas-N'"
        ),
    )
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--machines", type=int, default=1, metavar="N", help="machines at addresses 1..N")
    which.add_argument("--address", type=_addresses, metavar="A,B", help="machine addresses (1-127)")
    ap.add_argument(
        "--dir",
        help="folder for the pty links sas-N, host.json, host.sqlite3, host.sock (default: a new temporary folder)",
    )
    ap.add_argument("--db", help="host database (default DIR/host.sqlite3)")
    ap.add_argument("--socket", help="control socket (default DIR/host.sock)")
    ap.add_argument("--poll-ms", type=float, default=200.0, help="general poll period (default 200)")
    ap.add_argument("--reply-timeout-ms", type=float, default=100.0, help="no reply after (default 100)")
    ap.add_argument("--link-down-s", type=float, default=5.0, help="link down after (default 5)")
    ap.add_argument("--meter-s", type=float, default=3.0, help="0x1C/0x1A period (default 3)")
    ap.add_argument("--view", action="store_true", help="print the floor view every second")
    t = ap.add_argument_group("tickets")
    t.add_argument(
        "--validation-system-id",
        type=int,
        default=1,
        metavar="N",
        help="validation system ID 1-99, the tickets' first two digits (default 1)",
    )
    t.add_argument("--deny-validation", action="store_true", help="deny every system validation (0x58 ID 00)")
    t.add_argument("--no-validation-answer", action="store_true", help="never answer 0x57 (the EGM times out)")
    t.add_argument("--validation-delay-ms", type=float, default=0.0, help="answer 0x57 this late (default 0)")
    t.add_argument("--ticket-expiry-days", type=float, default=30.0, help="tickets expire after (default 30)")
    t.add_argument("--venue", metavar="TEXT", help="send 0x7D at link-up: the venue line printed on tickets")
    t.add_argument(
        "--venue-address",
        metavar="TEXT",
        action="append",
        default=[],
        help="an address line for 0x7D (up to two; with --venue)",
    )
    t.add_argument("--seed", type=int, help="seed the validation numbers (tests)")
    return ap


def _tito_config(args: argparse.Namespace) -> TitoConfig:
    lines = [*args.venue_address, "", ""][:2]
    data = None if args.venue is None else (1, int(min(args.ticket_expiry_days, 255)), args.venue, *lines)
    return TitoConfig(
        system_id=args.validation_system_id,
        deny_validation=args.deny_validation,
        answer_validation=not args.no_validation_answer,
        validation_delay_s=args.validation_delay_ms / 1000,
        expiry_days=args.ticket_expiry_days,
        ticket_data=data,
    )


def main(argv: list[str]) -> int:
    """Run the host until SIGTERM/SIGINT; returns the exit status (2 on bad arguments)."""
    ap = _parser()
    args = ap.parse_args(argv)
    addresses = args.address or list(range(1, args.machines + 1))
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="cabinet-sim-host-"))
    sock = Path(args.socket) if args.socket else folder / "host.sock"
    if len(str(sock)) > MAX_SOCKET_PATH:
        sock = Path(tempfile.mkdtemp(prefix="sas-host-")) / "host.sock"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        host = SasHost(
            addresses,
            directory=folder,
            db_path=args.db or folder / "host.sqlite3",
            poll_interval_s=args.poll_ms / 1000,
            reply_timeout_s=args.reply_timeout_ms / 1000,
            link_down_s=args.link_down_s,
            meter_interval_s=args.meter_s,
            on_link=lambda a, up: print(f"sas host: machine {a} link {'up' if up else 'down'}", flush=True),
            tito=_tito_config(args),
            rng=None if args.seed is None else random.Random(args.seed),
        )
    except (ValueError, OSError) as e:
        print(f"cabinet sim-host: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    sock.unlink(missing_ok=True)
    server = LineJsonServer(str(sock), lambda raw: host_command(host, raw))
    threading.Thread(target=server.serve_forever, name="sas-host-control", daemon=True).start()
    (folder / "host.json").write_text(
        json.dumps(
            {
                "machines": {str(a): {"tty": host.tty(a), "link": host.path(a)} for a in addresses},
                "socket": str(sock),
                "database": str(host.db.path),
            },
            indent=1,
        )
        + "\n"
    )
    where = ", ".join(f"machine {a} on {host.tty(a)} ({host.path(a)})" for a in addresses)
    print(f"sas host ready: {where}; control {sock}; database {host.db.path}", flush=True)
    try:
        while not stop.wait(1.0):
            if args.view:
                clear = "\x1b[H\x1b[2J" if sys.stdout.isatty() else ""
                print(
                    clear
                    + floor_view(
                        host.status(), f"SAS floor {dt.datetime.now():%H:%M:%S}", tickets=host.ticket_summary()
                    ),
                    flush=True,
                )
    finally:
        server.shutdown()
        server.server_close()
        sock.unlink(missing_ok=True)
        host.close()
        print("sas host stopped", flush=True)
    return 0

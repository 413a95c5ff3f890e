"""Development keys: drive the *simulated devices* from the table window.

Owns: the key map F2-F9 (and Shift + a button key) -> sim control commands,
and a worker thread that sends them to the engine's sim control socket
(``<ui socket>.sim``, JSON lines; see ``cabinet.shell.devices.DriverDevices.
sim_command``), for the window's own station (``--station N``: every
command carries ``"station": N``). Only used when ``python -m ui`` gets ``--sim-socket``.

This is strictly a device-side channel: it inserts notes and vouchers into
the bill acceptor twin, presses buttons on the mock panel, opens doors, turns
the operator key and upsets the printer and acceptor, exactly as a person at
the cabinet would. It never sends an intent to the engine; the engine sees
only what the (simulated) hardware reports. Imports nothing from the engine.

Thread use: ``handle()`` on the UI thread (never blocks: commands are queued);
the worker thread owns the socket, reconnecting when the engine restarts.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygame

log = logging.getLogger(__name__)

#: F-keys -> (label, command). A command is a sim control dict, or a toggle name.
F_KEYS: dict[int, tuple[str, Any]] = {
    pygame.K_F2: ("insert a $5 note", {"cmd": "note", "amount_minor": 500}),
    pygame.K_F3: ("insert a $20 note", {"cmd": "note", "amount_minor": 2000}),
    pygame.K_F4: ("insert a $100 note", {"cmd": "note", "amount_minor": 10000}),
    pygame.K_F5: ("insert the last printed voucher", "voucher"),
    pygame.K_F6: ("open/close the main door", "door"),
    pygame.K_F7: ("turn the operator key on/off", "key"),
    pygame.K_F8: ("printer paper out/in", "paper"),
    pygame.K_F9: ("bill acceptor jam/clear", "jam"),
}

#: Shift + key -> the mock panel button pressed (the physical button, not an intent).
PANEL_KEYS: dict[int, str] = {
    pygame.K_d: "deal",
    pygame.K_h: "hit",
    pygame.K_s: "stand",
    pygame.K_p: "split",
    pygame.K_o: "double",
    pygame.K_i: "insure",
    pygame.K_x: "cash_out",
    pygame.K_EQUALS: "bet_up",
    pygame.K_PLUS: "bet_up",
    pygame.K_KP_PLUS: "bet_up",
    pygame.K_MINUS: "bet_down",
    pygame.K_KP_MINUS: "bet_down",
}

DEV_KEY_HELP_TEXT = """Dev keys (simulated devices): F2 $5 note, F3 $20 note, F4 $100 note,
      F5 insert the last printed voucher, F6 main door open/close, F7 operator key on/off,
      F8 printer paper out/in, F9 bill jam/clear;
      Shift+D/H/S/P/O/I/X/+/- press the cabinet's physical Deal/Hit/Stand/Split/Double/
      Insure/Cash Out/Bet+/Bet- button; all of them on this window's --station."""

_DIGITS = re.compile(r"VALIDATION\s+([0-9-]+)")


def voucher_number_from_ticket(txt_path: Path) -> str | None:
    """The validation number (digits only) printed on a ticket's text rendering, or ``None``."""
    try:
        m = _DIGITS.search(txt_path.read_text())
    except OSError:
        return None
    return m.group(1).replace("-", "") if m else None


@dataclass
class _Toggles:
    door_open: bool = False
    key_on: bool = False
    paper_out: bool = False
    jammed: bool = False


class DevKeys:
    """Maps dev keys to sim control commands and sends them on a worker thread.

    Args:
        sim_socket: the engine's sim control socket path.
        station: the station whose twins the keys drive (this window's
            ``--station``, 1-3): every command carries ``"station": N``.
        timeout_s: socket timeout for one command and its reply, in seconds.
    """

    def __init__(self, sim_socket: str, *, station: int = 1, timeout_s: float = 5.0) -> None:
        self.path = sim_socket
        self.station = station
        self.timeout_s = timeout_s
        self._toggles: dict[int, _Toggles] = {}
        self._q: queue.SimpleQueue[dict[str, Any] | str | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._file: Any = None
        self.replies: list[dict[str, Any]] = []  # last replies (tests, debugging)

    @property
    def toggles(self) -> _Toggles:
        """The door, key, paper and jam toggles of ``self.station`` (each station's own:
        the shared screen's keys move between stations)."""
        return self._toggles.setdefault(self.station, _Toggles())

    # -- UI thread -------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dev-keys", daemon=True)
            self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._q.put(None)
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None

    def commands_for(self, event: pygame.event.Event) -> list[dict[str, Any] | str]:
        """The sim commands a key means (empty for keys that are not dev keys), each
        for ``self.station``. Pure apart from flipping the toggles (door, key, paper, jam)."""
        return [{**c, "station": self.station} if isinstance(c, dict) else c for c in self._commands(event)]

    def _commands(self, event: pygame.event.Event) -> list[dict[str, Any] | str]:
        if event.type != pygame.KEYDOWN:
            return []
        key = event.key
        if key in F_KEYS:
            cmd = F_KEYS[key][1]
            t = self.toggles
            if cmd == "door":
                t.door_open = not t.door_open
                return [{"cmd": "door", "door": "main", "open": t.door_open}]
            if cmd == "key":
                t.key_on = not t.key_on
                return [{"cmd": "key", "on": t.key_on}]
            if cmd == "paper":
                t.paper_out = not t.paper_out
                return [{"cmd": "printer", "line": "out" if t.paper_out else "paper"}]
            if cmd == "jam":
                t.jammed = not t.jammed
                return [{"cmd": "bill", "line": "jam" if t.jammed else "clear"}]
            return [cmd]
        if getattr(event, "mod", 0) & pygame.KMOD_SHIFT and key in PANEL_KEYS:
            return [{"cmd": "press", "action": PANEL_KEYS[key]}]
        return []

    def handle(self, event: pygame.event.Event) -> bool:
        """Queue the commands of a dev key; True if the key was one (and is consumed)."""
        cmds = self.commands_for(event)
        for c in cmds:
            self._q.put(c)
        return bool(cmds)

    # -- worker thread -----------------------------------------------------------

    def _run(self) -> None:
        while True:
            cmd = self._q.get()
            if cmd is None:
                break
            try:
                if cmd == "voucher":
                    self._insert_last_voucher()
                else:
                    assert isinstance(cmd, dict)
                    self._send(cmd)
            except (OSError, ValueError) as e:
                log.warning("dev key: sim control failed: %s", e)
                self._disconnect()
        self._disconnect()

    def _insert_last_voucher(self) -> None:
        tickets = self._send({"cmd": "tickets", "station": self.station}).get("tickets") or []
        for png in reversed(tickets):
            number = voucher_number_from_ticket(Path(png).with_suffix(".txt"))
            if number:
                self._send({"cmd": "voucher", "validation_number": number, "station": self.station})
                return
        print("dev keys: no printed voucher yet", flush=True)

    def _send(self, cmd: dict[str, Any]) -> dict[str, Any]:
        if self._file is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(self.timeout_s)
            try:
                s.connect(self.path)
            except OSError:
                s.close()
                raise
            self._sock, self._file = s, s.makefile("rw")
        self._file.write(json.dumps(cmd) + "\n")
        self._file.flush()
        line = self._file.readline()
        if not line:
            raise OSError("sim control socket closed")
        reply = dict(json.loads(line))
        self.replies = (self.replies + [reply])[-20:]
        if not reply.get("ok"):
            log.warning("dev key %s refused: %s", cmd, reply.get("error"))
        elif reply.get("reply"):
            print(f"dev keys: {reply['reply']}", flush=True)
        return reply

    def _disconnect(self) -> None:
        for obj in (self._file, self._sock):
            if obj is not None:
                try:
                    obj.close()
                except OSError:
                    pass
        self._sock = self._file = None

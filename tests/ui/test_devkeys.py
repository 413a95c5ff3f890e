"""Dev keys (``--sim-socket``): F-keys and Shift+button become sim control commands, never intents."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pygame
import pytest

from ui.devkeys import DevKeys, voucher_number_from_ticket


def _key(key: int, mod: int = 0) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode="")


def test_keys_map_to_device_commands_and_toggle() -> None:
    dk = DevKeys("/nonexistent")
    assert dk.commands_for(_key(pygame.K_F3)) == [{"cmd": "note", "amount_minor": 2000, "station": 1}]
    assert dk.commands_for(_key(pygame.K_F6)) == [{"cmd": "door", "door": "main", "open": True, "station": 1}]
    assert dk.commands_for(_key(pygame.K_F6)) == [{"cmd": "door", "door": "main", "open": False, "station": 1}]
    assert dk.commands_for(_key(pygame.K_F7)) == [{"cmd": "key", "on": True, "station": 1}]
    assert dk.commands_for(_key(pygame.K_F8)) == [{"cmd": "printer", "line": "out", "station": 1}]
    assert dk.commands_for(_key(pygame.K_F9)) == [{"cmd": "bill", "line": "jam", "station": 1}]
    assert dk.commands_for(_key(pygame.K_F9)) == [{"cmd": "bill", "line": "clear", "station": 1}]
    assert dk.commands_for(_key(pygame.K_h, pygame.KMOD_LSHIFT)) == [{"cmd": "press", "action": "hit", "station": 1}]
    assert dk.commands_for(_key(pygame.K_h)) == []  # plain H stays the UI's Hit intent
    assert dk.commands_for(_key(pygame.K_F1)) == []


def test_every_dev_key_drives_the_windows_own_station() -> None:
    """In the station 2 window (``--station 2``) F2-F9 and Shift+button
    drive station 2's twins: every command names ``"station": 2``."""
    dk = DevKeys("/nonexistent", station=2)
    keys = [
        _key(k) for k in (pygame.K_F2, pygame.K_F3, pygame.K_F4, pygame.K_F6, pygame.K_F7, pygame.K_F8, pygame.K_F9)
    ]
    keys.append(_key(pygame.K_x, pygame.KMOD_LSHIFT))
    cmds = [c for k in keys for c in dk.commands_for(k)]
    assert len(cmds) == 8 and all(isinstance(c, dict) and c["station"] == 2 for c in cmds)
    assert cmds[2] == {"cmd": "note", "amount_minor": 10000, "station": 2}
    assert cmds[-1] == {"cmd": "press", "action": "cash_out", "station": 2}
    assert DevKeys("/nonexistent").commands_for(_key(pygame.K_F4)) == [
        {"cmd": "note", "amount_minor": 10000, "station": 1}
    ]


def test_voucher_number_is_read_from_the_ticket_text(tmp_path: Path) -> None:
    t = tmp_path / "ticket-0001.txt"
    t.write_text("Demo Casino\nCASHOUT TICKET\nVALIDATION 55-8556-7512-3677-7583\n")
    assert voucher_number_from_ticket(t) == "558556751236777583"
    assert voucher_number_from_ticket(tmp_path / "missing.txt") is None


@pytest.mark.timeout(10)
def test_f5_inserts_the_last_printed_voucher_over_the_sim_socket(tmp_path: Path) -> None:
    (tmp_path / "ticket-0002.txt").write_text("VALIDATION 12-3456-7890-1234-5678\n")
    path = str(tmp_path / "s.sim")
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(1)
    got: list[dict[str, object]] = []

    def serve() -> None:
        conn, _ = srv.accept()
        f = conn.makefile("rw")
        for line in f:
            cmd = json.loads(line)
            got.append(cmd)
            reply = (
                {"ok": True, "tickets": [str(tmp_path / "ticket-0002.png")]}
                if cmd["cmd"] == "tickets"
                else {"ok": True}
            )
            f.write(json.dumps(reply) + "\n")
            f.flush()
            if cmd["cmd"] == "voucher":
                break
        conn.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    dk = DevKeys(path)
    dk.start()
    try:
        assert dk.handle(_key(pygame.K_F5))
        th.join(5)
    finally:
        dk.stop()
        srv.close()
    assert got == [
        {"cmd": "tickets", "station": 1},
        {"cmd": "voucher", "validation_number": "123456789012345678", "station": 1},
    ]

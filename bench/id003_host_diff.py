"""Differential check of the ID-003 driver: the old one-piece driver vs the new
``id003_host`` + loop, on the same random validator.

Both drivers talk to an in-memory fake port whose replies come from one seeded
random stream: statuses of every kind (escrow of notes, tickets and unknown codes,
vend valid, power-up with and without a bill, faults, rejects), replies lost,
corrupted or refused, an I/O error now and then; the engine callbacks decide,
credit and journal from a second seeded stream and sometimes raise; some runs
start with an open transaction (credited or not, a note or a ticket). For each
seed the two logs (every frame written, every callback and event, every
exception, the transaction after each step) must be equal: the frames on the wire
are byte-for-byte the same.

Run: ``.venv/bin/python bench/id003_host_diff.py [--seeds N] [--rev REV]`` (REV:
a commit whose ``drivers/id003_acceptor.py`` is the old driver; default f561a2b).
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import drivers.id003_acceptor as new_mod
from drivers import id003_codec as c
from drivers.errors import DeviceOfflineError
from drivers.events import BillFoundInStacker, BillPossiblyInPath, EscrowDecision
from drivers.id003_codec import Status
from drivers.interfaces import OpenTransaction

ROOT = Path(__file__).resolve().parents[1]
USD = [c.Denomination(k, 1, v) for k, v in c.USD_ESCROW_TABLE_MINOR.items()]
STATUSES = [Status.IDLING] * 6 + [
    Status.DISABLED,
    Status.ACCEPTING,
    Status.ESCROW,
    Status.ESCROW,
    Status.STACKING,
    Status.VEND_VALID,
    Status.VEND_VALID,
    Status.STACKED,
    Status.REJECTING,
    Status.RETURNING,
    Status.HOLDING,
    Status.INITIALIZE,
    Status.POWER_UP,
    Status.POWER_UP_BILL_IN_ACCEPTOR,
    Status.POWER_UP_BILL_IN_STACKER,
    Status.STACKER_FULL,
    Status.JAM_IN_ACCEPTOR,
    Status.JAM_IN_STACKER,
    Status.FAILURE,
    Status.COMMUNICATION_ERROR,
    Status.INVALID_COMMAND,
    Status.CHEATED,
]


def old_driver(rev: str) -> ModuleType:
    text = subprocess.run(
        ["git", "show", f"{rev}:drivers/id003_acceptor.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_id003_acceptor.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_id003_acceptor", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["old_id003_acceptor"] = mod
    spec.loader.exec_module(mod)
    return mod


class Port:
    """A validator behind a fake serial port; replies drawn from ``rng``."""

    def __init__(self, rng: random.Random, log: list[tuple[Any, ...]]) -> None:
        self.rng, self.log, self.buf = rng, log, b""

    def reset_input_buffer(self) -> None:
        self.buf = b""

    @property
    def in_waiting(self) -> int:
        return len(self.buf)

    def read(self, n: int) -> bytes:
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def close(self) -> None:
        self.log.append(("close",))

    def write(self, frame: bytes) -> None:
        self.log.append(("w", frame.hex()))
        r = self.rng.random()
        if r < 0.01:
            raise OSError(5, "EIO")
        cmd = frame[2]
        if r < 0.06 or cmd == c.Command.ACK:
            return  # no reply
        if r < 0.09:
            self.buf += bytes([0xFC, 5, 0x11, 0, 0])  # bad CRC
        elif cmd == c.Command.STATUS_REQUEST:
            st = self.rng.choice(STATUSES)
            data = b""
            if st == Status.ESCROW:
                data = bytes([self.rng.choice([0x61, 0x63, 0x64, 0x65, 0x66, 0x67, 0x62])])
                if self.rng.random() < 0.15:
                    data = bytes([0x6F]) + str(self.rng.randrange(10**17, 10**18)).encode()
                if self.rng.random() < 0.03:
                    data = bytes([0x6F]) + b"12x"
            elif st in (Status.REJECTING, Status.FAILURE):
                data = bytes([0x71])
            self.buf += c.encode_frame(st, data)
        elif cmd == c.Command.CURRENCY_ASSIGNMENT:
            self.buf += c.encode_frame(cmd, c.encode_currency_assignment(USD) if r < 0.9 else b"\x01")
        elif cmd in c.SETTING_COMMANDS:
            self.buf += frame if r < 0.95 else c.encode_frame(Status.INVALID_COMMAND)
        else:
            self.buf += (
                c.encode_frame(Status.ACK)
                if r < 0.93
                else c.encode_frame(
                    self.rng.choice([Status.INVALID_COMMAND, Status.COMMUNICATION_ERROR, Status.IDLING])
                )
            )


def run(mod: ModuleType, seed: int, steps: int) -> list[tuple[Any, ...]]:
    log: list[tuple[Any, ...]] = []
    rng, cb = random.Random(seed), random.Random(seed * 7 + 1)
    n = iter(range(10**9))

    def decide(ev: Any) -> EscrowDecision:
        log.append(("decide", repr(ev)))
        x = cb.random()
        if x < 0.05:
            raise RuntimeError("decide failed")
        return EscrowDecision.STACK if x < 0.75 else EscrowDecision.RETURN

    def credit(ev: Any) -> None:
        log.append(("credit", repr(ev)))
        if cb.random() < 0.1:
            raise RuntimeError("credit failed")

    def sink(ev: Any) -> None:
        log.append(("sink", repr(ev)))
        if isinstance(ev, BillFoundInStacker | BillPossiblyInPath) and cb.random() < 0.3:
            raise RuntimeError("journal failed")

    ot = [
        None,
        OpenTransaction("old", 2000, None),
        OpenTransaction("old", 2000, None, True),
        OpenTransaction("oldv", 0, "123456789012345678"),
    ][seed % 4]
    acc = mod.Id003BillAcceptor(
        "fake",
        decide=decide,
        credit=credit,
        sink=sink,
        open_transaction=ot,
        poll_interval_s=0,
        reply_timeout_s=0,
        opener=lambda url: Port(rng, log),
        new_transaction_id=lambda: f"t{next(n)}",
        enabled_denominations_minor=[500, 1000, 2000] if seed % 3 == 0 else None,
        accept_vouchers=seed % 5 != 0,
    )
    online = False
    for _ in range(steps):
        if cb.random() < 0.05:
            acc.set_accepting(cb.random() < 0.7)
        try:
            if online:
                acc.poll_once()
            else:
                acc.connect()
                online = True
        except Exception as e:
            log.append(("exc", type(e).__name__, str(e)))
            if isinstance(e, DeviceOfflineError) or not online:
                acc._close_port()
                online = False
        txn = repr(acc._txn).replace("_Transaction", "Transaction").replace("_Phase", "Phase")
        log.append(("txn", txn, acc.crc_errors, dict(acc.escrow_table_minor)))
    return log


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=400)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--rev", default="f561a2b")
    args = ap.parse_args()
    logging.disable(logging.CRITICAL)
    old = old_driver(args.rev)
    frames = differ = 0
    kinds: dict[str, int] = {}
    for seed in range(args.seeds):
        a, b = run(old, seed, args.steps), run(new_mod, seed, args.steps)
        frames += sum(1 for x in b if x[0] == "w")
        for x in b:
            k = (
                x[1].split("(")[0]
                if x[0] == "sink"
                else x[0]
                if x[0] in ("decide", "credit")
                else f"{x[0]} {x[1]}"
                if x[0] == "exc"
                else ""
            )
            if k:
                kinds[k] = kinds.get(k, 0) + 1
        if a != b:
            differ += 1
            i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            print(f"seed {seed}: differs at entry {i}: old {a[i : i + 1]} new {b[i : i + 1]}")
    print(f"{args.seeds} seeds x {args.steps} steps: {frames:,} frames written by each driver, {differ} seeds differ")
    print("exercised:", ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()

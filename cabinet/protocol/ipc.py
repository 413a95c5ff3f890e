"""Engine <-> UI messages: schemas and the JSON-lines codec.

Owns: every message type that crosses the Unix socket between the engine and
the table UI, and their encoding (one JSON object per line, each with a
``type`` field; STYLE.md 5.21). Shared by both processes; pure (no sockets).
The UI may import only this module and ``cabinet.protocol.snapshot`` from the engine.

Exchange: each side opens with ``Hello`` carrying ``PROTOCOL``; the engine
refuses a mismatch. The engine then sends a full ``Snapshot`` (see
``cabinet.protocol.snapshot``) on connect and after every change, and short ``Cue``
messages for animation and sound. The UI sends ``Intent`` messages (only
honoured when its ``Hello`` carried the engine's token) and ``Frame``
heartbeats while it draws the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from cabinet.protocol.nesting import MAX_JSON_DEPTH, too_deep
from cabinet.protocol.snapshot import Snapshot

PROTOCOL = 1
#: The UI sends a ``Frame`` at least this often (seconds) while it draws.
FRAME_HEARTBEAT_S = 1.0
#: Without a ``Frame`` for this long (seconds) the engine counts the display as dark.
DISPLAY_TIMEOUT_S = 4.0
#: Longest line either side accepts, in bytes (a snapshot is a few KB).
MAX_LINE_BYTES = 65_536

#: Every intent action the UI may send. ``value`` carries the chip (minor
#: units) for ``chip`` and the spot number for ``place``.
ACTIONS = frozenset(
    {
        "deal",
        "hit",
        "stand",
        "double",
        "split",
        "insure",
        "decline",
        "bet_up",
        "bet_down",
        "chip",
        "place",
        "undo",
        "clear",
        "rebet",
        "new_game",
        "cash_out",
        "help",
        "menu_up",
        "menu_down",
        "menu_select",
        "menu_back",
        "menu_pick",
        # The player's own History panel (open, close), a reminder seen, the
        # attendant called (or the call cancelled)
        "history",
        "history_close",
        "reminder_ok",
        "service",
    }
)


class Hello(msgspec.Struct, tag="hello", tag_field="type", frozen=True, kw_only=True):
    """Opens the exchange. ``role`` is ``"engine"`` or ``"ui"`` (the engine refuses
    a client saying ``"engine"``).

    ``token``: the UI's proof that it is the cabinet's own display: the text of
    the engine's token file (``token_path``), readable only by the engine's user
    and group. A client without it (or with a wrong one) is an observer: it gets
    snapshots and cues, and every intent it sends is refused.
    """

    protocol: int
    role: str
    name: str = ""
    token: str = ""


class Intent(msgspec.Struct, tag="intent", tag_field="type", frozen=True, kw_only=True):
    """A player's touch or key, forwarded as is; the engine alone judges it.

    Attributes:
        station: station (seat) number 1-3.
        action: one of ``ACTIONS``.
        value: chip value in minor units for ``chip``, spot number for
            ``place``, the touched row's index for ``menu_pick``;
            ``None`` otherwise.
    """

    station: int
    action: str
    value: int | None = None


class Frame(msgspec.Struct, tag="frame", tag_field="type", frozen=True, kw_only=True):
    """The UI drew the table: sent after its first frame on a connection and then at
    least every ``FRAME_HEARTBEAT_S`` while it keeps drawing. ``seq`` is the seq of
    the snapshot on screen (-1 before the first). ``station``: the station whose own
    screen this is (1-3), or ``None`` for a screen that draws the whole table. The
    engine takes money and presses at a station only while a display drawing it
    reports frames."""

    seq: int = -1
    station: int | None = None


class Cue(msgspec.Struct, tag="cue", tag_field="type", frozen=True, kw_only=True):
    """A short-lived hint for animation and sound (``card_dealt``, ``bill_stacked``...).

    The UI may drop cues; correctness never depends on them. A cue never
    names a card the player may not see yet.
    """

    name: str
    station: int | None = None
    data: dict[str, Any] = {}


class Error(msgspec.Struct, tag="error", tag_field="type", frozen=True, kw_only=True):
    """The engine's answer to a message it refused; nothing changed."""

    code: str
    message: str


class Goodbye(msgspec.Struct, tag="goodbye", tag_field="type", frozen=True, kw_only=True):
    """Either side closes the exchange on purpose."""

    reason: str = ""


Message = Hello | Intent | Frame | Cue | Error | Goodbye | Snapshot
_decoder = msgspec.json.Decoder(Message)
_encoder = msgspec.json.Encoder()


def token_path(socket_path: str | Path) -> Path:
    """The engine's token file for the socket at ``socket_path``: ``<socket>.token``."""
    p = Path(socket_path)
    return p.with_name(p.name + ".token")


class MessageError(ValueError):
    """A line that is not a valid message: malformed, oversized, unknown type."""


def encode(msg: Message) -> bytes:
    """One message as a JSON line (ends with ``\\n``)."""
    return _encoder.encode(msg) + b"\n"


def decode(line: bytes) -> Message:
    """Read one line (with or without its ``\\n``).

    Raises:
        MessageError: oversized, not JSON, nested too deep, unknown ``type``,
            wrong field types, an intent with an unknown action or station, or a
            frame with a station not 1-3.
    """
    if len(line) > MAX_LINE_BYTES:
        raise MessageError(f"message of {len(line)} bytes is over the {MAX_LINE_BYTES} limit")
    if too_deep(line):  # one limit on every Python
        raise MessageError(f"malformed message: nested too deep (over {MAX_JSON_DEPTH} levels)")
    try:
        msg = _decoder.decode(line.strip())
    except (msgspec.DecodeError, msgspec.ValidationError) as e:
        raise MessageError(f"malformed message: {e}") from None
    if isinstance(msg, Intent):
        if msg.action not in ACTIONS:
            raise MessageError(f"unknown action {msg.action!r}")
        if not 1 <= msg.station <= 3:
            raise MessageError(f"station {msg.station} is not 1-3")
    if isinstance(msg, Frame) and msg.station is not None and not 1 <= msg.station <= 3:
        raise MessageError(f"frame station {msg.station} is not 1-3")
    return msg


class LineBuffer:
    """Splits a byte stream into lines, refusing over-long ones.

    ``feed(data)`` returns the complete lines received so far (without
    ``\\n``). A line longer than ``MAX_LINE_BYTES`` raises ``MessageError``
    and the buffer drops what it held (the caller disconnects the peer).
    """

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        lines = []
        while (i := self._buf.find(b"\n")) >= 0:
            lines.append(bytes(self._buf[:i]))
            del self._buf[: i + 1]
        if len(self._buf) > MAX_LINE_BYTES or any(len(x) > MAX_LINE_BYTES for x in lines):
            self._buf.clear()
            raise MessageError("line over the size limit")
        return lines

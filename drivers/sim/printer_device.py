"""A simulated ESC/POS ticket printer on a pseudo-terminal (protocols.md 4.2, 4.4).

Owns: parsing the ESC/POS stream python-escpos produces (text, styles, ``GS k``
barcodes, ``GS V`` cut), answering ``DLE EOT n`` real-time status and ``GS r 1``,
``DLE DC4 fn=8`` buffer clear, paper low/out, cover open and offline on command,
and rendering each cut ticket to a PNG (Pillow: text and ITF bars) and a .txt file.
Must not import: serial, gpiozero, cabinet.*.

Printing model: received bytes queue in a buffer; they are "printed" (parsed) only
while the printer can print.  Paper out, cover open or offline stop printing with
the rest kept in the buffer (as a real printer does) until paper is back or the
host clears the buffer.  Real-time commands are answered at once, always.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from drivers.sim.itf import encode as encode_itf
from drivers.sim.pty_link import PtyDevice, PtyLink

ESC, GS, DLE, LF = 0x1B, 0x1D, 0x10, 0x0A
_ESC_ARGS = {
    ord(c): n
    for c, n in {
        "@": 0, "2": 0, "!": 1, "E": 1, "a": 1, "t": 1, "{": 1, "-": 1, "M": 1, "d": 1,
        "J": 1, "3": 1, "G": 1, "V": 1, " ": 1, "R": 1, "r": 1, "U": 1, "p": 3,
    }.items()
}  # fmt: skip
_GS_ARGS = {
    ord(c): n
    for c, n in {
        "b": 1,
        "B": 1,
        "h": 1,
        "w": 1,
        "f": 1,
        "H": 1,
        "!": 1,
        "L": 2,
        "W": 2,
        "r": 1,
    }.items()
}
_CLEAR = b"\x10\x14\x08\x01\x03\x14\x01\x06\x02\x08"


@dataclass(slots=True)
class PrintedLine:
    """One line of printed text with its style."""

    text: str
    align: int = 0  # 0 left, 1 centre, 2 right
    bold: bool = False
    double_width: bool = False
    double_height: bool = False


@dataclass(slots=True)
class PrintedBarcode:
    """A barcode as commanded (symbology number from ``GS k``) and its module sizes."""

    kind: int
    data: str
    height_px: int
    module_px: int


@dataclass(slots=True)
class PrintedTicket:
    """Everything between two cuts, plus where it was rendered."""

    items: list[PrintedLine | PrintedBarcode] = field(default_factory=list)
    png_path: Path | None = None
    txt_path: Path | None = None

    @property
    def lines(self) -> list[str]:
        """The text lines only."""
        return [i.text for i in self.items if isinstance(i, PrintedLine)]

    @property
    def barcodes(self) -> list[PrintedBarcode]:
        """The barcodes only."""
        return [i for i in self.items if isinstance(i, PrintedBarcode)]

    def as_text(self) -> str:
        """Readable rendering: text lines, barcodes as ``[ITF 0012...]``."""
        out = []
        for item in self.items:
            if isinstance(item, PrintedLine):
                out.append(item.text)
            else:
                out.append(f"[{'ITF' if item.kind in (5, 70) else item.kind} {item.data}]")
        return "\n".join(out) + "\n"


class SimPrinterDevice(PtyDevice):
    """The printer twin.  ``start()``, then script with the public methods.

    Args:
        link: a pty (or None to create one on ``link_path``).
        link_path: stable symlink path for a new link.
        out_dir: where to write ``ticket-NNNN.png``/``.txt``; None = keep in memory.

    Attributes:
        tickets: every ticket cut so far, oldest first.
        partial: items printed since the last cut (a torn, incomplete ticket).
    """

    THREAD_NAME = "sim-printer"

    def __init__(
        self,
        link: PtyLink | None = None,
        *,
        link_path: str | None = None,
        out_dir: str | Path | None = None,
    ) -> None:
        self.link = link if link is not None else PtyLink(link_path)
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.tickets: list[PrintedTicket] = []
        self.partial = PrintedTicket()
        #: Prints begun but never cut (the host died mid-ticket); ESC @ of the next
        #: print clears the buffer, as a real printer's initialize does.
        self.uncut: list[PrintedTicket] = []
        self.paper_out = False
        self.paper_low = False
        self.cover_open = False
        self.offline = False
        self.silent = False  # answers nothing (powered off / wrong baud)
        self.garbage_status = False  # answers status with broken fixed bits
        self._paper_left_bytes: int | None = None
        self._buffer = bytearray()
        self._rx = bytearray()
        self._line = bytearray()
        self._style = PrintedLine("")
        self._barcode_height = 162
        self._barcode_module = 3
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- technician actions ------------------------------------------------------------

    def set_paper(self, *, out: bool = False, low: bool = False) -> None:
        """Load paper (``out=False``) or take it away; ``low`` sets the near-end sensor."""
        with self._lock:
            self.paper_out, self.paper_low = out, low
            self._paper_left_bytes = None
        self._print_pending()

    def run_out_after(self, n_bytes: int) -> None:
        """Run out of paper after printing ``n_bytes`` more job bytes (mid-ticket)."""
        with self._lock:
            self._paper_left_bytes = n_bytes

    def set_cover_open(self, is_open: bool) -> None:
        """Open or close the cover."""
        with self._lock:
            self.cover_open = is_open
        self._print_pending()

    def set_offline(self, offline: bool) -> None:
        """Go offline (stops printing, status says offline) or back online."""
        with self._lock:
            self.offline = offline
        self._print_pending()

    @property
    def can_print(self) -> bool:
        """True when buffered data would be printed."""
        return not (self.paper_out or self.cover_open or self.offline)

    @property
    def buffered(self) -> int:
        """Bytes received but not yet printed."""
        return len(self._buffer)

    # --- device thread -------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self.link.read(0.05)
            if data:
                self._receive(data)

    def _reply(self, data: bytes) -> None:
        if not self.silent:
            self.link.write(data)

    def _receive(self, data: bytes) -> None:
        with self._lock:
            rx = self._rx
            rx += data
            out = bytearray()
            i = 0
            # Real-time commands are executed on receipt, even with the buffer stalled.
            while i < len(rx):
                if rx[i] == DLE:
                    rest = bytes(rx[i : i + len(_CLEAR)])
                    if len(rest) < 2:
                        break  # wait for the rest of a possible real-time command
                    if rest[1] == 0x04:
                        if len(rest) < 3:
                            break
                        self._reply(bytes((self._status_byte(rest[2]),)))
                        i += 3
                        continue
                    if rest[1] == 0x14:
                        if rest == _CLEAR:
                            self._buffer.clear()
                            out.clear()
                            i += len(_CLEAR)
                            continue
                        if _CLEAR.startswith(rest):
                            break
                out.append(rx[i])
                i += 1
            del rx[:i]
            self._buffer += out
        self._print_pending()

    def _status_byte(self, n: int) -> int:
        value = 0x12
        if self.garbage_status:
            return 0x81
        if n == 1:
            if self.offline or self.paper_out or self.cover_open:
                value |= 0x08
        elif n == 2:
            if self.cover_open:
                value |= 0x04
            if self.paper_out:
                value |= 0x20
        elif n == 3:
            pass
        elif n == 4:
            if self.paper_low:
                value |= 0x0C
            if self.paper_out:
                value |= 0x60
        return value

    # --- the print engine ----------------------------------------------------------------

    def _print_pending(self) -> None:
        with self._lock:
            while self._buffer and self.can_print:
                used = self._parse_one(self._buffer)
                if used == 0:
                    break  # incomplete command: wait for more bytes
                del self._buffer[:used]
                if self._paper_left_bytes is not None:
                    self._paper_left_bytes -= used
                    if self._paper_left_bytes <= 0:
                        self.paper_out = True
                        self._paper_left_bytes = None

    def _parse_one(self, buf: bytearray) -> int:
        """Execute one command or character at the start of ``buf``; 0 = need more."""
        b = buf[0]
        if b == LF:
            self._end_line()
            return 1
        if b == ESC:
            if len(buf) < 2:
                return 0
            n = _ESC_ARGS.get(buf[1], 1)
            if len(buf) < 2 + n:
                return 0
            self._esc(buf[1], bytes(buf[2 : 2 + n]))
            return 2 + n
        if b == GS:
            if len(buf) < 2:
                return 0
            cmd = buf[1]
            if cmd == ord("k"):
                return self._gs_k(buf)
            if cmd == ord("V"):
                if len(buf) < 3:
                    return 0
                n = 4 if buf[2] in (65, 66) else 3
                if len(buf) < n:
                    return 0
                self._cut()
                return n
            n = _GS_ARGS.get(cmd, 1)
            if len(buf) < 2 + n:
                return 0
            self._gs(cmd, bytes(buf[2 : 2 + n]))
            return 2 + n
        if b >= 0x20:
            self._line.append(b)
        return 1

    def _esc(self, cmd: int, args: bytes) -> None:
        s = self._style
        if cmd == ord("@"):
            self._style = PrintedLine("")
            if self.partial.items:
                self.uncut.append(self.partial)
                self.partial = PrintedTicket()
        elif cmd == ord("!"):
            s.bold = bool(args[0] & 0x08)
            s.double_height = bool(args[0] & 0x10)
            s.double_width = bool(args[0] & 0x20)
        elif cmd == ord("E"):
            s.bold = bool(args[0] & 1)
        elif cmd == ord("a"):
            s.align = args[0] % 48 if args[0] >= 48 else args[0]

    def _gs(self, cmd: int, args: bytes) -> None:
        if cmd == ord("h"):
            self._barcode_height = args[0]
        elif cmd == ord("w"):
            self._barcode_module = args[0]
        elif cmd == ord("!"):
            self._style.double_width = bool(args[0] & 0x70)
            self._style.double_height = bool(args[0] & 0x07)
        elif cmd == ord("r"):
            self._reply(bytes((0x0C if self.paper_out else 0x03 if self.paper_low else 0x00,)))

    def _gs_k(self, buf: bytearray) -> int:
        if len(buf) < 3:
            return 0
        kind = buf[2]
        if kind >= 65:
            if len(buf) < 4:
                return 0
            n = buf[3]
            if len(buf) < 4 + n:
                return 0
            data = bytes(buf[4 : 4 + n])
            used = 4 + n
        else:
            end = buf.find(b"\x00", 3)
            if end < 0:
                return 0
            data = bytes(buf[3:end])
            used = end + 1
        self.partial.items.append(
            PrintedBarcode(kind, data.decode("ascii", "replace"), self._barcode_height, self._barcode_module)
        )
        return used

    def _end_line(self) -> None:
        s = self._style
        text = self._line.decode("cp437", "replace")
        self._line.clear()
        self.partial.items.append(PrintedLine(text, s.align, s.bold, s.double_width, s.double_height))

    def _cut(self) -> None:
        if self._line:
            self._end_line()
        ticket, self.partial = self.partial, PrintedTicket()
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            stem = self.out_dir / f"ticket-{len(self.tickets) + 1:04d}"
            ticket.txt_path = stem.with_suffix(".txt")
            ticket.txt_path.write_text(ticket.as_text(), encoding="utf-8")
            ticket.png_path = stem.with_suffix(".png")
            render_png(ticket).save(ticket.png_path)
        self.tickets.append(ticket)


PAPER_WIDTH_PX = 576  # 72 mm printable at 203 dpi
#: Font A's character cell on an ESC/POS thermal printer, in dots (double width: twice).
FONT_A_COLUMN_PX = 12


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType
        return ImageFont.load_default()


def render_png(ticket: PrintedTicket) -> Image.Image:
    """Draw a ticket as a 1-bit-looking greyscale image: text lines and ITF bars.

    Barcodes use the commanded module width (narrow) and 2.5x that (wide), with a
    10-module quiet zone, as a thermal printer would draw them.
    """
    rows: list[tuple[int, PrintedLine | PrintedBarcode]] = []
    height = 20
    for item in ticket.items:
        h = (item.height_px + 10) if isinstance(item, PrintedBarcode) else (40 if item.double_height else 22)
        rows.append((height, item))
        height += h
    img = Image.new("L", (PAPER_WIDTH_PX, height + 20), 255)
    draw = ImageDraw.Draw(img)
    for y, item in rows:
        if isinstance(item, PrintedBarcode):
            _draw_itf(draw, y, item)
            continue
        size = 26 if item.double_width else 20 if item.double_height else 15
        font = _font(size)
        width = draw.textlength(item.text, font=font)
        # the printer's columns are monospaced: a line as long as the layout allows
        # fills them and no more, whatever this font's letters measure
        cells_px = min(PAPER_WIDTH_PX - 16, len(item.text) * FONT_A_COLUMN_PX * (2 if item.double_width else 1))
        while width > cells_px and size > 8:
            size -= 1
            font = _font(size)
            width = draw.textlength(item.text, font=font)
        x = {0: 8, 1: (PAPER_WIDTH_PX - width) / 2, 2: PAPER_WIDTH_PX - 8 - width}.get(item.align, 8)
        draw.text((x, y), item.text, fill=0, font=font)
        if item.bold:
            draw.text((x + 1, y), item.text, fill=0, font=font)
    return img


def _draw_itf(draw: ImageDraw.ImageDraw, y: int, code: PrintedBarcode) -> None:
    try:
        elements = encode_itf(code.data)
    except ValueError:
        draw.text((8, y), f"[bad barcode {code.data}]", fill=0)
        return
    narrow = max(1, code.module_px)
    wide = narrow * 5 // 2
    total = sum(wide if w == "w" else narrow for _, w in elements)
    x = max(10 * narrow, (PAPER_WIDTH_PX - total) // 2)
    for is_bar, w in elements:
        px = wide if w == "w" else narrow
        if is_bar:
            draw.rectangle((x, y, x + px - 1, y + code.height_px - 1), fill=0)
        x += px

"""The Pi's boot settings against the cabinet's pin map: the kernel's serial console,
the UART, SPI and I2C.

Owns: which header pins each of the Pi's buses takes, the checks ``cabinet doctor``
reports (``problems``) and the edits ``cabinet install`` makes (``without_serial_consoles``,
``fixed_config_txt``). Pure: texts, pin maps and port paths in, texts and findings out.

Sources (Raspberry Pi documentation, "Configuration": "UARTs and the device tree",
"config.txt", "The kernel command line"; "GPIO and the 40-pin header"):
- the primary UART is BCM 14 (TXD) and 15 (RXD); it is ``/dev/serial0`` (``ttyAMA0`` or
  ``ttyS0`` by model) and ``enable_uart=1`` in ``config.txt`` turns it on; a
  ``console=serial0,115200`` in ``cmdline.txt`` puts the kernel's console and a login
  prompt on it, which write to BCM 14 at every boot;
- SPI0 is BCM 7-11 (``dtparam=spi=on``), I2C1 (``/dev/i2c-1``) is BCM 2 and 3
  (``dtparam=i2c_arm=on``); a bus that is on holds its pins, so a button, lamp or door
  wired there does not work as a GPIO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: BCM pins of each bus of the 40-pin header.
UART_PINS = frozenset({14, 15})
SPI0_PINS = frozenset({7, 8, 9, 10, 11})
I2C1_PINS = frozenset({2, 3})
#: Device names of the Pi's own UARTs (``/dev/...``); a USB-serial adapter is ``ttyUSB*``.
UART_DEVICES = frozenset({"serial0", "serial1", "ttyAMA0", "ttyAMA10", "ttyS0"})
#: The hardware counter's bus when it is on the header's I2C (``journal.counter``).
I2C1_DEVICE = "/dev/i2c-1"

_CONSOLE = re.compile(r"console=([^,\s]+)(,\S*)?")


@dataclass(frozen=True, slots=True)
class BootFlags:
    """What ``config.txt`` turns on (the last line that sets each wins; a line in a
    model section such as ``[pi4]`` counts: the check errs towards a bus being on)."""

    uart: bool = False
    spi: bool = False
    i2c: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """One clash between the boot settings and the pin map.

    Attributes:
        what: what clashes (``"serial console"``, ``"UART"``, ``"SPI"``, ``"I2C"``).
        detail: the pins, ports and settings involved.
        fix: what to change, naming the file.
    """

    what: str
    detail: str
    fix: str


def serial_consoles(cmdline: str) -> list[str]:
    """The ``console=`` words of ``cmdline`` that are on a Pi UART, in order."""
    return [m.group(0) for m in _CONSOLE.finditer(cmdline) if m.group(1) in UART_DEVICES]


def without_serial_consoles(cmdline: str) -> str:
    """``cmdline`` with every ``console=`` on a Pi UART left out (others, such as
    ``console=tty1``, kept; one line, words in their order)."""
    drop = set(serial_consoles(cmdline))
    return " ".join(w for w in cmdline.split() if w not in drop)


def boot_flags(config_txt: str) -> BootFlags:
    """What ``config_txt`` turns on: ``enable_uart``, ``dtparam=spi``, ``dtparam=i2c_arm``
    (``dtparam`` lines may list several, ``dtparam=i2c_arm=on,spi=on``)."""
    flags = {"uart": False, "spi": False, "i2c": False}
    for raw in config_txt.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("enable_uart="):
            flags["uart"] = line.split("=", 1)[1].strip() == "1"
        elif line.startswith("dtparam="):
            for param in line.split("=", 1)[1].split(","):
                name, _, value = param.partition("=")
                key = {"spi": "spi", "i2c_arm": "i2c", "i2c": "i2c"}.get(name.strip())
                if key is not None:
                    flags[key] = value.strip() in ("on", "true", "yes", "1", "")
    return BootFlags(**flags)


def on_uart(port: str) -> bool:
    """``port`` (a device path, resolved by the caller) is one of the Pi's own UARTs."""
    return port.startswith("/dev/") and port.rsplit("/", 1)[-1] in UART_DEVICES


def _pins(pins: dict[int, str], bus: frozenset[int]) -> str:
    return ", ".join(f"BCM {p} ({pins[p]})" for p in sorted(bus & pins.keys()))


def problems(
    pins: dict[int, str],
    ports: dict[str, str],
    cmdline: str | None,
    config_txt: str | None,
    counter: str = "none",
) -> list[Problem]:
    """Every clash between the boot settings and what the cabinet wires.

    Args:
        pins: BCM pin -> what the wiring files put there (``drivers.wiring.pins_in_use``,
            every station's).
        ports: what -> its device path, resolved (``"station 1 SAS port": "/dev/ttyAMA0"``).
        cmdline: ``cmdline.txt``'s text, or ``None`` (not a Pi: nothing to check there).
        config_txt: ``config.txt``'s text, or ``None``.
        counter: the config's ``journal.counter`` (``"atecc608:/dev/i2c-1"``, ``"none"``).

    Returns:
        The clashes, in the order: serial console, UART, SPI, I2C; empty when none.
    """
    out: list[Problem] = []
    uart_pins = _pins(pins, UART_PINS)
    uart_ports = [f"{what} {port}" for what, port in ports.items() if on_uart(port)]
    if cmdline is not None and (consoles := serial_consoles(cmdline)):
        users = "; ".join(x for x in (uart_pins, *uart_ports) if x) or "the Pi's UART"
        out.append(
            Problem(
                "serial console",
                f"{' '.join(consoles)} in cmdline.txt: the kernel writes its console and a login prompt on the "
                f"UART at every boot ({users})",
                f"remove {' '.join(consoles)} from cmdline.txt (sudo cabinet install does), then reboot",
            )
        )
    if uart_pins and uart_ports:
        out.append(
            Problem(
                "UART",
                f"{'; '.join(uart_ports)} is the Pi's UART on BCM 14/15, which the wiring uses: {uart_pins}",
                "put the device on a USB-serial adapter (/dev/cabinet/...) or move those pins in the wiring file",
            )
        )
    flags = boot_flags(config_txt) if config_txt is not None else None
    if flags is not None and flags.uart and uart_pins and not uart_ports:
        out.append(
            Problem(
                "UART",
                f"enable_uart=1 in config.txt holds BCM 14/15, which the wiring uses: {uart_pins}",
                "set enable_uart=0 in config.txt (sudo cabinet install does), then reboot",
            )
        )
    if flags is not None and not flags.uart and uart_ports:
        out.append(
            Problem(
                "UART",
                f"{'; '.join(uart_ports)} is the Pi's UART, which config.txt leaves off",
                "set enable_uart=1 in config.txt, then reboot",
            )
        )
    if flags is not None and flags.spi and (spi_pins := _pins(pins, SPI0_PINS)):
        out.append(
            Problem(
                "SPI",
                f"dtparam=spi=on in config.txt holds BCM 7-11, which the wiring uses: {spi_pins}",
                "turn SPI off in config.txt (sudo cabinet install does), then reboot",
            )
        )
    i2c_pins = _pins(pins, I2C1_PINS)
    if counter.partition(":")[2].partition(":")[0] == I2C1_DEVICE:
        if i2c_pins:
            out.append(
                Problem(
                    "I2C",
                    f"the hardware counter is on {I2C1_DEVICE} (BCM 2/3), which the wiring also uses: {i2c_pins}",
                    "move those pins in the wiring file (BCM 4 is free in the default map), or the counter",
                )
            )
        if flags is not None and not flags.i2c:
            out.append(
                Problem(
                    "I2C",
                    f"the hardware counter is on {I2C1_DEVICE}, which config.txt leaves off",
                    "set dtparam=i2c_arm=on in config.txt (raspi-config: Interface Options, I2C), then reboot",
                )
            )
    elif flags is not None and flags.i2c and i2c_pins:
        out.append(
            Problem(
                "I2C",
                f"dtparam=i2c_arm=on in config.txt holds BCM 2/3, which the wiring uses: {i2c_pins}",
                "turn I2C off in config.txt (sudo cabinet install does), then reboot",
            )
        )
    return out


def fixed_config_txt(config_txt: str, pins: dict[int, str], uart_port: bool, counter: str = "none") -> str:
    """``config_txt`` with each bus the wiring needs as GPIO turned off: ``enable_uart=0``
    (unless a device is on the UART: ``uart_port``), ``spi=off``, ``i2c_arm=off`` (unless
    the hardware counter is on I2C). Lines, comments and sections otherwise kept; the
    text is unchanged when nothing clashes."""
    off_uart = bool(UART_PINS & pins.keys()) and not uart_port
    off_spi = bool(SPI0_PINS & pins.keys())
    off_i2c = bool(I2C1_PINS & pins.keys()) and counter.partition(":")[2].partition(":")[0] != I2C1_DEVICE
    lines: list[str] = []
    for raw in config_txt.splitlines(keepends=True):
        body, hash_, comment = raw.partition("#")
        line = body.strip()
        new = line
        if off_uart and line.startswith("enable_uart="):
            new = "enable_uart=0"
        elif line.startswith("dtparam="):
            params = []
            for param in line.split("=", 1)[1].split(","):
                name, eq, value = param.partition("=")
                if (off_spi and name.strip() == "spi") or (off_i2c and name.strip() in ("i2c_arm", "i2c")):
                    value, eq = "off", "="
                params.append(f"{name.strip()}{eq}{value.strip()}")
            new = "dtparam=" + ",".join(params)
        if new != line:
            end = "\n" if raw.endswith("\n") else ""
            raw = new + (f"  #{comment.rstrip(chr(10))}" if hash_ else "") + end
        lines.append(raw)
    return "".join(lines)

"""The Pi's boot settings against the pin map (``cabinet.tools.pi_boot``): the
default map wires BCM 14/15 (UART), 7-11 (SPI) and 2/3 (I2C) as panel GPIO, so a
kernel console on the UART, or a bus left on, takes pins the panel needs; the
installer turns them off and ``cabinet doctor`` names what it cannot mend."""

from __future__ import annotations

from pathlib import Path

from cabinet.tools import pi_boot
from cabinet.tools.install import Installer
from drivers.wiring import Wiring, pins_in_use

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PINS = pins_in_use(Wiring())
#: Raspberry Pi OS's cmdline.txt after raspi-config turned the serial console on.
CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait\n"
#: A Pi OS config.txt with the UART, SPI and I2C turned on (raspi-config's lines).
CONFIG_TXT = """# For more options and information see
# http://rptl.io/configtxt
dtparam=i2c_arm=on
#dtparam=i2s=on
dtparam=spi=on
dtparam=audio=on
camera_auto_detect=1

[pi4]
arm_boost=1

[all]
enable_uart=1
"""


def test_the_default_map_uses_the_uart_spi_and_i2c_pins():
    assert DEFAULT_PINS[14] == "tower_light.red" and DEFAULT_PINS[15] == "tower_light.amber"
    assert {7, 8, 9, 10, 11} <= DEFAULT_PINS.keys() and {2, 3} <= DEFAULT_PINS.keys()
    assert DEFAULT_PINS[2] == "doors.main" and 4 not in DEFAULT_PINS  # the one free pin


def test_serial_consoles_are_found_and_removed_and_others_kept():
    assert pi_boot.serial_consoles(CMDLINE) == ["console=serial0,115200"]
    assert pi_boot.serial_consoles("console=ttyAMA0,115200 console=ttyS0 console=tty1") == [
        "console=ttyAMA0,115200",
        "console=ttyS0",
    ]
    assert pi_boot.without_serial_consoles(CMDLINE) == (
        "console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait"
    )
    assert pi_boot.serial_consoles("console=tty1 quiet") == []


def test_boot_flags_read_the_last_setting_and_dtparam_lists():
    assert pi_boot.boot_flags(CONFIG_TXT) == pi_boot.BootFlags(uart=True, spi=True, i2c=True)
    assert pi_boot.boot_flags("#dtparam=spi=on\nenable_uart=1\nenable_uart=0\n") == pi_boot.BootFlags()
    assert pi_boot.boot_flags("dtparam=i2c_arm=on,spi=on\n") == pi_boot.BootFlags(spi=True, i2c=True)


def test_every_clash_is_named_with_its_pins_and_its_fix():
    found = pi_boot.problems(DEFAULT_PINS, {}, CMDLINE, CONFIG_TXT)
    assert [p.what for p in found] == ["serial console", "UART", "SPI", "I2C"]
    console, uart, spi, i2c = found
    assert "console=serial0,115200" in console.detail and "BCM 14 (tower_light.red)" in console.detail
    assert "sudo cabinet install" in console.fix
    assert uart.detail.startswith("enable_uart=1") and "BCM 15 (tower_light.amber)" in uart.detail
    assert "BCM 8 (key_switch.pin)" in spi.detail and "BCM 9 (doors.logic)" in spi.detail
    assert "BCM 2 (doors.main), BCM 3 (doors.cash_box)" in i2c.detail
    assert pi_boot.problems(DEFAULT_PINS, {}, "console=tty1 rootwait", "dtparam=audio=on\n") == []


def test_a_device_on_the_uart_clashes_with_the_tower_light_on_its_pins():
    """The SAS line on ``/dev/ttyAMA0`` (BCM 14/15) while the default map lights the
    tower there: no boot setting mends it, the device or the pins must move."""
    ports = {"station 1 SAS port": "/dev/ttyAMA0", "station 1 printer": "/dev/ttyUSB1"}
    found = pi_boot.problems(DEFAULT_PINS, ports, "console=tty1", "enable_uart=1\n")
    assert [p.what for p in found] == ["UART"]
    assert "station 1 SAS port /dev/ttyAMA0" in found[0].detail and "USB-serial" in found[0].fix
    moved = {p: w for p, w in DEFAULT_PINS.items() if p not in (14, 15)}
    assert pi_boot.problems(moved, ports, "console=tty1", "enable_uart=1\n") == []
    off = pi_boot.problems(moved, ports, "console=tty1", "")
    assert [p.what for p in off] == ["UART"] and "enable_uart=1" in off[0].fix


def test_a_counter_on_i2c_needs_bcm_2_and_3_free_and_i2c_on():
    found = pi_boot.problems(DEFAULT_PINS, {}, "console=tty1", "", "atecc608:/dev/i2c-1")
    assert [p.what for p in found] == ["I2C", "I2C"]
    assert "doors.main" in found[0].detail and "dtparam=i2c_arm=on" in found[1].fix
    free = {p: w for p, w in DEFAULT_PINS.items() if p not in (2, 3)}
    assert pi_boot.problems(free, {}, "console=tty1", "dtparam=i2c_arm=on\n", "atecc608:/dev/i2c-1:1") == []


def test_config_txt_is_mended_line_by_line():
    new = pi_boot.fixed_config_txt(CONFIG_TXT, DEFAULT_PINS, uart_port=False)
    assert new == (
        CONFIG_TXT.replace("dtparam=i2c_arm=on", "dtparam=i2c_arm=off")
        .replace("dtparam=spi=on", "dtparam=spi=off")
        .replace("enable_uart=1", "enable_uart=0")
    )
    assert pi_boot.problems(DEFAULT_PINS, {}, "console=tty1", new) == []
    assert pi_boot.fixed_config_txt(new, DEFAULT_PINS, uart_port=False) == new  # idempotent
    kept = pi_boot.fixed_config_txt(CONFIG_TXT, {}, uart_port=True, counter="atecc608:/dev/i2c-1")
    assert kept == CONFIG_TXT  # nothing wired there: nothing touched
    assert "dtparam=i2c_arm=on\n" in pi_boot.fixed_config_txt(CONFIG_TXT, DEFAULT_PINS, False, "atecc608:/dev/i2c-1")


def test_the_installer_mends_config_txt_and_says_so_then_keeps_it(tmp_path):
    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "cmdline.txt").write_text(CMDLINE)
    (boot / "config.txt").write_text(CONFIG_TXT)
    inst = Installer(tmp_path, ROOT, None)
    inst.config()
    inst.cmdline()
    inst.boot_config()
    assert (boot / "cmdline.txt").read_text() == (
        "console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait consoleblank=0 "
        "vt.global_cursor_default=0\n"
    )
    assert pi_boot.boot_flags((boot / "config.txt").read_text()) == pi_boot.BootFlags()
    assert "boot/firmware/config.txt: buses on the panel's pins off (reboot)" in inst.report.done
    again = Installer(tmp_path, ROOT, None)
    again.boot_config()
    assert again.report.kept == ["boot/firmware/config.txt"] and again.report.done == []


def test_the_installer_leaves_config_txt_when_the_wiring_does_not_load(tmp_path):
    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(CONFIG_TXT)
    (tmp_path / "etc/cabinet").mkdir(parents=True)
    (tmp_path / "etc/cabinet/cabinet.toml").write_text('wiring = "/etc/cabinet/wiring.toml"\n')
    (tmp_path / "etc/cabinet/wiring.toml").write_text("[buttons]\ndeal = 99\n")
    inst = Installer(tmp_path, ROOT, None)
    inst.boot_config()
    assert (boot / "config.txt").read_text() == CONFIG_TXT
    assert inst.report.skipped[0].startswith("config.txt left as it is: the config or wiring does not load")
    assert "buttons.deal" in inst.report.skipped[0]

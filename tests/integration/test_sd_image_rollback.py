"""An SD-card image of the cabinet restored after $20 more went into the cash box, on a
floor with a casino host: the restored journal, key and commit record agree, so on the
card nothing is wrong. The host (its twin), which read the drop meter before, flags the
drop read lower at the next link-up; the cabinet, with a hardware counter fitted in its
config (``[journal] counter``: its twin, a file off the card), starts in a RAM error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drivers.sim.sas_host import SasHost

from .crash_harness import EngineProc
from .test_sas_end_to_end import _credit, wait_for

pytestmark = pytest.mark.timeout(300)


def _image(journal: Path, to: Path) -> None:
    to.mkdir(exist_ok=True)
    for f in journal.parent.glob(journal.name + "*"):
        shutil.copy2(f, to / f.name)


def _restore(image: Path, journal: Path) -> None:
    for f in journal.parent.glob(journal.name + "*"):
        f.unlink()
    for f in image.iterdir():
        shutil.copy2(f, journal.parent / f.name)


@pytest.mark.parametrize("counter", [False, True], ids=["host only", "host and counter"])
def test_a_restored_image_is_flagged_by_the_host_and_by_the_counter(tmp_path, counter):
    config = tmp_path / "cabinet.toml"
    config.write_text(f'[journal]\ncounter = "twin:{tmp_path / "off-card" / "counter"}"\n' if counter else "")
    card = tmp_path / "card"
    card.mkdir(mode=0o700)
    host = SasHost(
        [1],
        directory=tmp_path / "host",
        db_path=tmp_path / "host.sqlite3",
        poll_interval_s=0.05,
        meter_interval_s=0.5,
        link_down_s=2.0,
    )
    proc = EngineProc(card, extra_args=["--sas-port", host.tty(1), "--sas-address", "1", "--config", str(config)])
    try:
        proc.start()
        wait_for(lambda: host.link_up(1), 60, "the host link")
        _credit(proc, 2_000)
        wait_for(
            lambda: (host.read_meters(1) or None) and host.read_meters(1).drop == 2_000, 15, "drop 2000 at the host"
        )
        proc.stop()
        _image(proc.journal, tmp_path / "image")  # the card imaged
        proc.start()
        _credit(proc, 2_000)
        wait_for(lambda: host.meters(1).get("drop") == 4_000, 15, "drop 4000 at the host")
        assert host.meter_alarms(1) == []
        proc.stop()
        _restore(tmp_path / "image", proc.journal)  # the image written back
        proc.start()
        alarm = wait_for(lambda: [a for a in host.meter_alarms(1) if a.name == "drop"], 30, "the host's meter alarm")
        mode = proc.snapshot["mode"]
        if counter:  # a RAM error (fault 100): its meters not trusted
            text = str(proc.snapshot.get("overlay_text"))
            assert mode == "tilt" and "rolled back" in text and "hardware counter" in text, text
            assert (alarm[0].last, alarm[0].now) == (4_000, 0)  # type: ignore[index]
        else:  # on the card alone, nothing is wrong
            assert mode != "tilt" and proc.snapshot["stations"][0]["credits_minor"] == 2_000
            assert (alarm[0].last, alarm[0].now) == (4_000, 2_000)  # type: ignore[index]
    finally:
        proc.stop()
        host.close()

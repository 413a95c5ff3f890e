"""RNG lab kit: ``cabinet rng-dump`` writes the documented formats."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.game.shoe import fisher_yates
from cabinet.tools.cli import main
from cabinet.tools.rng_dump import scale_bits, write_bytes, write_shuffles


@pytest.mark.parametrize("w", [8, 64, 3, 1, 12])
def test_byte_dump_packs_randrange_values_msb_first(w: int) -> None:
    """``--bytes N --scaled 2**w`` is the values of ``randrange(2**w)``
    (the shoe's call) as one bit stream, w bits each, most significant first."""
    out = io.BytesIO()
    assert write_bytes(out, 1000, 1 << w, random.Random(5)) == 1000
    data = out.getvalue()
    assert len(data) == 1000
    rng = random.Random(5)
    nvalues = (1000 * 8 + w - 1) // w
    bits = "".join(format(rng.randrange(1 << w), f"0{w}b") for _ in range(nvalues))
    assert data == int(bits[:8000], 2).to_bytes(1000, "big")


def test_byte_dump_of_one_byte_values_is_the_values() -> None:
    """With ``--scaled 256`` each byte is one ``randrange(256)``."""
    out = io.BytesIO()
    write_bytes(out, 50, 256, random.Random(9))
    rng = random.Random(9)
    assert list(out.getvalue()) == [rng.randrange(256) for _ in range(50)]


def test_scale_must_be_a_power_of_two_up_to_64_bits() -> None:
    """A bound that is not a power of 2 would not give uniform bits."""
    assert scale_bits(2) == 1 and scale_bits(1 << 64) == 64
    for bad in (0, 1, 3, 100, 1 << 65):
        with pytest.raises(ValueError, match="power of 2"):
            scale_bits(bad)


def test_shuffle_dump_is_one_fisher_yates_permutation_per_line() -> None:
    """``--shuffles N --decks D``: N lines of 52*D space-separated card
    indices, each the order ``fisher_yates`` deals."""
    out = io.BytesIO()
    assert write_shuffles(out, 3, decks=4, rng=random.Random(2)) == 3  # type: ignore[arg-type]
    lines = out.getvalue().decode("ascii").split("\n")
    assert lines[-1] == "" and len(lines) == 4
    rng = random.Random(2)
    for line in lines[:3]:
        order = list(range(208))
        fisher_yates(order, rng)  # type: ignore[arg-type]
        assert line == " ".join(map(str, order))
        assert sorted(map(int, line.split(" "))) == list(range(208))


def test_cli_writes_files_and_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The subcommand writes FILE; bad input is a usage error, an
    unwritable FILE a clear message with status 1."""
    f = tmp_path / "raw.bin"
    assert main(["rng-dump", "--bytes", "4096", str(f)]) == 0
    assert f.stat().st_size == 4096
    s = tmp_path / "shuffles.txt"
    assert main(["rng-dump", "--shuffles", "5", str(s)]) == 0
    rows = s.read_text().splitlines()
    assert len(rows) == 5 and all(sorted(map(int, r.split())) == list(range(52)) for r in rows)
    for bad in (
        ["--bytes", "10", "--scaled", "100", str(f)],
        ["--bytes", "0", str(f)],
        ["--shuffles", "0", str(s)],
        ["--shuffles", "1", "--decks", "9", str(s)],
    ):
        with pytest.raises(SystemExit) as e:
            main(["rng-dump", *bad])
        assert e.value.code == 2
    assert main(["rng-dump", "--bytes", "8", str(tmp_path / "no" / "x")]) == 1
    assert "No such file" in capsys.readouterr().err


def test_endless_dump_ends_quietly_when_the_reader_closes() -> None:
    """``--bytes 0 -`` feeds dieharder ``-g 200`` until it stops reading."""
    p = subprocess.run(
        f"{sys.executable} -m cabinet rng-dump --bytes 0 - | head -c 100000 | wc -c",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.stdout.strip() == "100000" and p.stderr == ""

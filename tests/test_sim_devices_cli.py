"""``cabinet sim devices`` with a state folder it cannot use: one line saying why,
status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

from drivers.sim.twins import sim_devices_main


def test_a_state_folder_under_a_file_is_one_line_and_status_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "afile").write_text("")
    assert sim_devices_main(["--state-dir", str(tmp_path / "afile/y")]) == 2
    err = capsys.readouterr().err
    assert err == f"cabinet sim devices: cannot use {tmp_path / 'afile/y'}: Not a directory\n"

"""`build_atomically`: a build appears whole under its name, or not at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from serving.atomic import build_atomically


def test_a_finished_folder_is_renamed_into_place(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "build"
    with build_atomically(target) as building:
        assert building.parent == target.parent and not target.exists()
        building.mkdir()
        (building / "config.json").write_text("{}")
    assert (target / "config.json").read_text() == "{}"
    assert sorted(path.name for path in target.parent.iterdir()) == ["build"]


def test_a_finished_file_replaces_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "model.gguf"
    target.write_text("old")
    with build_atomically(target) as building:
        building.write_text("new")
    assert target.read_text() == "new"


def test_a_failed_build_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "build"
    with pytest.raises(RuntimeError), build_atomically(target) as building:
        building.mkdir()
        (building / "half").write_text("x")
        raise RuntimeError("killed half-way")
    assert list(tmp_path.iterdir()) == []


def test_what_another_process_put_in_place_first_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "build"
    with build_atomically(target) as building:
        building.mkdir()
        (building / "ours").write_text("x")
        target.mkdir()
        (target / "theirs").write_text("x")
    assert [path.name for path in tmp_path.iterdir()] == ["build"]
    assert [path.name for path in target.iterdir()] == ["theirs"]


def test_leftovers_of_dead_processes_go_and_those_of_live_ones_stay(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    (tmp_path / f"build.building-{dead}").mkdir()
    live = tmp_path / f"build.building-{os.getppid()}"
    live.mkdir()
    with build_atomically(tmp_path / "build") as building:
        building.write_text("done")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["build", live.name]

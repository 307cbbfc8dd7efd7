"""Renaming, moving and making folders in Markor and Files: each refusal is shown in the dialog
that asked, and each success lands in the shared storage."""

from __future__ import annotations

from agent.screen import Screen
from simulator import Simulator


def labels(sim: Simulator) -> list[str]:
    return [e.label for e in Screen.parse(sim.dump_xml()).elements]


def long_press_on(sim: Simulator, label: str) -> None:
    sim.long_press(*sim.find_views(label)[-1].bounds.center)


def open_device_root_in_files(sim: Simulator) -> None:
    sim.open_app("Files")
    sim.tap_on("Show roots")
    sim.tap_on("Pixel 7")


def test_files_new_folder_refuses_a_taken_or_invalid_name_then_creates_it() -> None:
    sim = Simulator({"files": {}, "folders": ["Music"]})
    open_device_root_in_files(sim)
    sim.tap_on("More options")
    sim.tap_on("New folder")
    sim.type_text("Music")
    sim.tap_on("OK")
    assert "Music already exists" in labels(sim)
    sim.clear_text()
    sim.type_text("a/b")
    sim.tap_on("OK")
    assert "Invalid name" in labels(sim)
    sim.clear_text()
    sim.type_text("Trips")
    sim.tap_on("OK")
    assert sorted(sim.state["folders"]) == ["Music", "Trips"]
    assert "Trips" in labels(sim)


def test_files_renames_the_selected_file_in_its_folder() -> None:
    sim = Simulator({"files": {"Download/scan.pdf": ""}})
    open_device_root_in_files(sim)
    sim.tap_on("Download")
    long_press_on(sim, "scan.pdf")
    sim.tap_on("More options")
    sim.tap_on("Rename")
    sim.clear_text()
    sim.type_text("receipt.pdf")
    sim.tap_on("OK")
    assert sim.state["files"] == {"Download/receipt.pdf": ""}


def test_markor_folder_button_makes_a_folder_once() -> None:
    sim = Simulator({"files": {}, "folders": []})
    sim.open_app("Markor")
    sim.tap_on("Create a new file or folder")
    sim.type_text("Work")
    sim.tap_on("Folder")
    assert "Documents/Markor/Work" in sim.state["folders"]
    sim.tap_on("Create a new file or folder")
    sim.type_text("Work")
    sim.tap_on("Folder")
    assert "Work already exists" in labels(sim)


def test_markor_editor_rename_keeps_saving_to_the_new_name() -> None:
    sim = Simulator({"files": {"Documents/Markor/a.md": "one"}})
    sim.open_app("Markor")
    sim.tap_on("a.md")
    sim.tap_on("a.md")  # the editor's title opens the rename prompt
    sim.clear_text()
    sim.type_text("b.md")
    sim.tap_on("OK")
    sim.tap_on("one")
    sim.type_text(" two")
    assert sim.state["files"] == {"Documents/Markor/b.md": "one two"}


def test_markor_move_onto_a_taken_name_says_so_and_moves_nothing() -> None:
    sim = Simulator(
        {"files": {"Documents/Markor/n.md": "here", "Documents/Markor/Work/n.md": "there"}}
    )
    sim.open_app("Markor")
    long_press_on(sim, "n.md")
    sim.tap_on("More options")
    sim.tap_on("Move")
    sim.tap_on("Work")
    sim.tap_on("OK")
    assert "n.md already exists" in labels(sim)
    assert sim.state["files"] == {
        "Documents/Markor/n.md": "here",
        "Documents/Markor/Work/n.md": "there",
    }

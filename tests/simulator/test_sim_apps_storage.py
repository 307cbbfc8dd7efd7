"""Markor and Files over the shared storage: what a user does in one shows in the other."""

from __future__ import annotations

import pytest

from agent.screen import Screen
from simulator import Simulator
from simulator.apps import storage
from simulator.state import FILES, MARKOR, StateError, build_state, parse_state_assignment


def screen(sim: Simulator) -> Screen:
    return Screen.parse(sim.dump_xml())


def buttons(sim: Simulator) -> list[str]:
    return [e.label for e in screen(sim).elements if e.role == "button"]


def long_press_on(sim: Simulator, label: str) -> None:
    sim.long_press(*sim.find_views(label)[-1].bounds.center)


def test_storage_moves_a_folder_with_what_it_holds_and_keeps_emptied_folders() -> None:
    state = build_state({"files": {"A/B/x.md": "x", "A/y.md": "y"}, "folders": []})
    assert storage.relocate(state, "A/B", "C/B") is None
    assert state.files == {"C/B/x.md": "x", "A/y.md": "y"}
    storage.delete(state, "A/y.md")
    assert storage.is_folder(state, "A")  # emptying a folder does not remove it
    assert storage.relocate(state, "C", "C/B/C") == "A folder cannot be moved into itself"
    assert storage.relocate(state, "A", "C") == "C already exists"


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ('files={"/etc/passwd": ""}', "storage path is relative"),
        ('folders=["Documents/../.."]', "storage path is relative"),
        ("timer={", r"takes JSON \(an object\)"),
    ],
)
def test_bad_storage_state_is_refused_in_one_line(assignment: str, message: str) -> None:
    with pytest.raises(StateError, match=message) as raised:
        parse_state_assignment(assignment)
    assert "\n" not in str(raised.value)


def test_a_note_written_in_markor_is_a_file_in_files() -> None:
    sim = Simulator({"files": {}})
    sim.open_app("Markor")
    sim.tap_on("Create a new file or folder")
    sim.type_text("packing list")  # no extension typed: the dialog's .md is added
    sim.tap_on("OK")
    sim.type_text("Passport\nCharger")
    assert sim.state["files"] == {"Documents/Markor/packing list.md": "Passport\nCharger"}

    sim.open_app("Files")
    sim.tap_on("Show roots")
    sim.tap_on("Pixel 7")
    sim.tap_on("Documents")
    sim.tap_on("Markor")
    assert "packing list.md, 9:41 AM, 16 B, Markdown document" in buttons(sim)


def test_deleting_in_files_removes_the_note_from_markor() -> None:
    sim = Simulator({"files": {"Documents/Markor/a.md": "1", "Documents/Markor/b.md": "2"}})
    sim.open_app("Markor")
    assert [label for label in buttons(sim) if label.endswith(" B")] == [
        "a.md, 15.10.24 1 B",
        "b.md, 15.10.24 1 B",
    ]
    sim.open_app("Files")
    sim.tap_on("Show roots")
    sim.tap_on("Documents")  # the Documents root lists every document, wherever it is
    long_press_on(sim, "a.md")
    sim.tap_on("Delete")
    assert "Delete “a.md”?" in [e.label for e in screen(sim).elements]
    sim.tap_on("OK")
    sim.open_app("Markor")
    assert not any(label.startswith("a.md") for label in buttons(sim))
    assert sim.state["files"] == {"Documents/Markor/b.md": "2"}


def test_markor_refuses_a_name_that_is_taken_and_keeps_the_dialog_open() -> None:
    sim = Simulator({"files": {"Documents/Markor/todo.md": "keep"}})
    sim.open_app("Markor")
    sim.tap_on("Create a new file or folder")
    sim.type_text("todo.md")
    sim.tap_on("OK")
    labels = [e.label for e in screen(sim).elements]
    assert "todo.md already exists" in labels
    assert sim.state["files"] == {"Documents/Markor/todo.md": "keep"}


def test_markor_selection_renames_and_moves_into_a_folder() -> None:
    sim = Simulator(
        {"files": {"Documents/Markor/draft.md": "text"}, "folders": ["Documents/Markor/Work"]}
    )
    sim.open_app("Markor")
    long_press_on(sim, "draft.md")
    assert "1 selected" in [e.label for e in screen(sim).elements]
    sim.tap_on("Rename")
    sim.clear_text()
    sim.type_text("final.md")
    sim.tap_on("OK")
    long_press_on(sim, "final.md")
    sim.tap_on("More options")
    sim.tap_on("Move")
    sim.tap_on("Work")
    sim.tap_on("OK")
    assert sim.state["files"] == {"Documents/Markor/Work/final.md": "text"}


def test_markor_editor_undo_restores_the_saved_text() -> None:
    sim = Simulator({"files": {"Documents/Markor/n.md": "one"}})
    sim.open_app("Markor")
    sim.tap_on("n.md")
    sim.tap_on("one")
    sim.type_text(" two")
    assert sim.state["files"]["Documents/Markor/n.md"] == "one two"
    sim.tap_on("Undo")
    assert sim.state["files"]["Documents/Markor/n.md"] == "one"
    sim.press_key("back")
    sim.press_key("back")
    assert sim.foreground_app() == MARKOR


def test_files_moves_a_selection_through_the_picker_and_back_goes_up() -> None:
    sim = Simulator({"files": {"Download/a.pdf": "", "Download/b.pdf": ""}})
    sim.open_app("Files")
    sim.tap_on("Show roots")
    sim.tap_on("Downloads")
    long_press_on(sim, "a.pdf")
    sim.tap_on("b.pdf")  # while selecting, a tap adds to the selection
    assert "2 selected" in [e.label for e in screen(sim).elements]
    sim.tap_on("More options")
    sim.tap_on("Move to…")
    sim.tap_on("Documents")
    sim.tap_on("Move")
    assert {"Documents/a.pdf", "Documents/b.pdf"} <= set(sim.state["files"])
    assert "No items" in [e.label for e in screen(sim).elements]
    sim.press_key("back")
    assert sim.foreground_app() != FILES  # Downloads was the first place: back leaves


def test_files_drawer_hides_the_list_and_a_tap_beside_it_closes_it() -> None:
    sim = Simulator()
    sim.open_app("Files")
    sim.tap_on("Show roots")
    assert buttons(sim) == [
        "Recent",
        "Images",
        "Videos",
        "Audio",
        "Documents",
        "Downloads",
        "Pixel 7",
    ]
    sim.tap(1000, 1200)
    assert "Show roots" in buttons(sim)

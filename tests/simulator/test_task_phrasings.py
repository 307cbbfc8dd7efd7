"""The goals' wording as data: the phrasing files load, each task states its goal in its own
app's file, and a phrasing is added by editing a file alone."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from simulator.tasks import APP_MODULES, TASKS_BY_NAME
from simulator.tasks.phrasings import FOLDER, WORDING, Wording, fill


def module_file(module_name: str) -> str:
    return module_name.rsplit(".", 1)[1] + ".json"


def test_each_app_module_has_a_file_that_holds_its_tasks_phrasings_and_no_others() -> None:
    modules = {module_file(module.__name__): module for module in APP_MODULES}
    assert sorted(WORDING.files) == sorted(modules)
    for file_name, wording in WORDING.files.items():
        module = modules[file_name]
        names = {task.name for task in module.TASKS}
        assert set(wording.tasks) <= names, sorted(set(wording.tasks) - names)
        for task in module.TASKS:
            assert task.name in wording.tasks or task.family in wording.families, task.name


def test_a_task_reads_the_phrasings_of_its_name_the_held_out_one_last() -> None:
    for wording in WORDING.files.values():
        for name, phrasings in wording.tasks.items():
            task = TASKS_BY_NAME[name]
            assert task.templates == (*phrasings.training, phrasings.held_out)
            assert task.templates[task.held_out_phrasing] == phrasings.held_out


def copy_of_the_files(tmp_path: Path) -> Path:
    folder = tmp_path / "phrasings"
    folder.mkdir()
    for path in FOLDER.glob("*.json"):
        shutil.copy(path, folder / path.name)
    return folder


def edit(folder: Path, file_name: str, task: str, change: dict[str, object]) -> None:
    path = folder / file_name
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tasks"][task].update(change)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def test_a_phrasing_added_to_a_file_joins_training_and_the_held_out_one_stays(
    tmp_path: Path,
) -> None:
    folder = copy_of_the_files(tmp_path)
    task = TASKS_BY_NAME["ClockAlarmAdd"]
    added = "Please have an alarm ring at {time}."
    training = [*task.templates[: task.held_out_phrasing], added]
    edit(folder, "clock.json", task.name, {"training": training})

    templates = Wording.load(folder).templates(task.name)
    assert templates == (*task.templates[:-1], added, task.templates[-1])
    reworded = replace(task, templates=templates)
    assert added in reworded.templates[: reworded.held_out_phrasing]
    assert reworded.goal(3, reworded.held_out_phrasing) == task.goal(3, task.held_out_phrasing)
    assert reworded.goal(3, len(templates) - 2) == added.format(time=task.params(3)["time"])


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"training": ["Set an alarm for {time}."]}, "at least 2 items"),
        ({"held_out": "Set an alarm."}, "names []"),
        ({"held_out": "Set an alarm for {}."}, "a parameter's name alone"),
        ({"held_out": "Set an alarm for {time."}, "expected '}'"),
        ({"held_out": "Set an alarm for {time!r}."}, "a parameter's name alone"),
        ({"training": ["Wake me at {time}.", "Wake me at {time}."]}, "given twice"),
        ({"spoken": "Set it."}, "Extra inputs are not permitted"),
    ],
)
def test_a_file_that_breaks_a_rule_is_refused_with_its_name(
    tmp_path: Path, change: dict[str, object], complaint: str
) -> None:
    folder = copy_of_the_files(tmp_path)
    edit(folder, "clock.json", "ClockAlarmAdd", change)
    with pytest.raises(ValueError, match=r"clock\.json") as refused:
        Wording.load(folder)
    assert complaint in str(refused.value)


def test_one_task_with_phrasings_in_two_files_is_refused(tmp_path: Path) -> None:
    folder = copy_of_the_files(tmp_path)
    clock = json.loads((folder / "clock.json").read_text(encoding="utf-8"))
    (folder / "more.json").write_text(
        json.dumps({"tasks": {"ClockAlarmAdd": clock["tasks"]["ClockAlarmAdd"]}}),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="ClockAlarmAdd has phrasings in two files"):
        Wording.load(folder)


def test_a_familys_tasks_fill_its_phrasings_with_their_words() -> None:
    wifi_on, bluetooth_off = (
        TASKS_BY_NAME["SystemWifiTurnOn"],
        TASKS_BY_NAME["SystemBluetoothTurnOff"],
    )
    assert wifi_on.templates == WORDING.family("toggle", "wifi", "on")
    assert (wifi_on.goal(0, 0), wifi_on.goal(0, wifi_on.held_out_phrasing)) == (
        "Turn on Wi-Fi.",
        "Enable WLAN.",
    )
    assert bluetooth_off.goal(0, 3) == "Bluetooth: off."
    assert bluetooth_off.goal(0, bluetooth_off.held_out_phrasing) == "Disable the Bluetooth radio."


def test_a_phrasing_added_to_a_family_reaches_each_of_its_tasks(tmp_path: Path) -> None:
    folder = copy_of_the_files(tmp_path)
    path = folder / "settings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["families"]["toggle"]["training"].append("Put {name} {word}, please.")
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    wording = Wording.load(folder)
    assert wording.family("toggle", "dark_theme", "off")[-2:] == (
        "Put dark theme off, please.",
        "Disable dark mode.",
    )
    with pytest.raises(KeyError, match="no words named sound"):
        wording.family("toggle", "sound", "on")
    with pytest.raises(ValueError, match="two tables give the word verb"):
        wording.family("toggle", "on", "off")


def test_a_familys_words_leave_the_tasks_parameters_to_the_task() -> None:
    assert fill("{verb} {name} at {time} {{sharp}}.", {"verb": "Set", "name": "the {alarm}"}) == (
        "Set the {{alarm}} at {time} {{sharp}}."
    )

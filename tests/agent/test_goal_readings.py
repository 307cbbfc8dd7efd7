"""The goal readers against goals written in other people's words (`goal_readings.jsonl`).

Each line is a goal written from scratch for one simulator task, eight wordings a task, in the
voices of different people: terse lower case, long and polite, put as a question, as the wished
end state, with a reason, with other names for the feature ("BT", "the wireless", "flight
mode"), with a typo. They test whether the loop's completion checks hear a goal however it
is put; they are not an evaluation of the model, and no training data was made from them.
Each line says what the readers must find:

- `switches`: "LABEL on|off" for each switch the goal asks (the switch labelled LABEL);
- `every`: "KIND on|off" for a goal that asks every switch of a kind;
- `question`: whether the goal wants an answer (the claim must carry one);
- `sends`, `deletes`, `deletes_copies`, `marks_done`: the checks a claim then faces.

A line with `"reads": false` is one the readers still leave unread: it must not be misread.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.goal_items import (
    asks_for_answer,
    asks_to_send,
    deletes_copies,
    deletes_items,
    marks_done,
)
from agent.goal_switches import every_switch, goal_parts
from agent.screen import Element
from tests.support.elements import element

READINGS = Path(__file__).with_name("goal_readings.jsonl")
LINES: list[dict[str, Any]] = [
    json.loads(line) for line in READINGS.read_text(encoding="utf-8").splitlines()
]


def switch(label: str) -> Element:
    return element(
        1,
        "switch",
        label,
        checked=False,
        package="com.android.settings",
        resource_id="android:id/switch_widget",
        class_name="android.widget.Switch",
    )


def asked_state(goal: str, asked: str) -> set[bool]:
    """The states the goal's parts ask for the switch `asked` ("Wi-Fi on") names."""
    label, _ = asked.rsplit(" ", 1)
    element = switch(label)
    return {part.desired for part in goal_parts(goal).parts if part.matches(element)}


def wordings(*, read: bool) -> list[Any]:
    return [
        pytest.param(line, id=f"{line['task']}: {line['goal'][:60]}")
        for line in LINES
        if line.get("reads", True) is read
    ]


def test_every_task_has_eight_wordings() -> None:
    tasks: dict[str, int] = {}
    for line in LINES:
        tasks[line["task"]] = tasks.get(line["task"], 0) + 1
    assert len(tasks) == 77 and set(tasks.values()) == {8}


@pytest.mark.parametrize("line", wordings(read=True))
def test_a_goal_in_anyones_words_is_read_as_its_task_asks(line: dict[str, Any]) -> None:
    goal = line["goal"]
    for asked in line.get("switches", []):
        assert asked_state(goal, asked) == {asked.endswith(" on")}, asked
    if "every" in line:
        every = every_switch(goal)
        assert every is not None and every.asked == f"every {line['every']}"
    assert asks_for_answer(goal) is line["question"]
    assert asks_to_send(goal) is line.get("sends", False)
    assert deletes_items(goal) is line.get("deletes", False)
    assert deletes_copies(goal) is line.get("deletes_copies", False)
    assert marks_done(goal) is line.get("marks_done", False)


@pytest.mark.parametrize("line", wordings(read=False))
def test_a_goal_left_unread_is_not_misread(line: dict[str, Any]) -> None:
    goal = line["goal"]
    for asked in line.get("switches", []):
        assert asked_state(goal, asked) <= {asked.endswith(" on")}, asked
    if not line["question"]:
        assert not asks_for_answer(goal)

"""Copied values disguised in demonstrations: the model must copy, it cannot remember."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from evals.demos import export_demos, given_values, plan_demo_episodes
from serving.training.demo import Demo
from serving.training.disguise import copied_values, disguise
from simulator.tasks import TASKS_BY_NAME


def recorded(task: str, seed: int, tmp_path: Path) -> list[Demo]:
    path = tmp_path / f"{task}.jsonl"
    summary = export_demos(plan_demo_episodes([TASKS_BY_NAME[task]], [seed], "off"), path)
    assert not summary.failed_episodes
    return [Demo.model_validate_json(line) for line in path.read_text().splitlines()]


def arguments(demo: Demo) -> dict[str, Any]:
    calls = demo.target["tool_calls"]
    assert len(calls) == 1
    return dict(json.loads(calls[0]["function"]["arguments"]))


def user_text(demo: Demo) -> str:
    return "\n".join(m["content"] for m in demo.messages if m["role"] != "system")


def typing(demos: list[Demo], text: str) -> Demo:
    return next(d for d in demos if arguments(d).get("text") == text)


def test_exported_demonstrations_carry_the_values_the_task_was_given(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["ContactsAddContact"]
    params = task.params(150)
    demos = recorded("ContactsAddContact", 150, tmp_path)
    assert {params["first"], params["last"], params["phone"]} <= set(demos[0].values)
    assert given_values({"a": ["x", ("y", {"z": "x"})], "n": 3}) == ["x", "y"]


def test_a_typed_name_is_disguised_alike_in_the_goal_the_screen_and_the_call(
    tmp_path: Path,
) -> None:
    params = TASKS_BY_NAME["ContactsAddContact"].params(150)
    demos = recorded("ContactsAddContact", 150, tmp_path)
    first = typing(demos, params["first"])
    assert copied_values(first) == [params["first"]]

    hidden = disguise(first, random.Random(1))
    assert hidden is not None
    new = arguments(hidden)["text"]
    assert new != params["first"] and len(new) == len(params["first"])
    for old_char, new_char in zip(params["first"], new, strict=True):
        # a letter stays a letter of its case and script, a digit a digit
        assert unicodedata.category(old_char) == unicodedata.category(new_char)
        assert abs(ord(old_char) - ord(new_char)) < 128
    # wherever the request showed the name, it shows the new one; nothing else changed
    original = user_text(first)
    assert params["first"] not in user_text(hidden)
    assert user_text(hidden) == original.replace(params["first"], new)
    assert params["last"] in user_text(hidden)
    assert hidden.messages[0] == first.messages[0] and hidden.tools == first.tools
    assert arguments(hidden)["index"] == arguments(first)["index"]

    # a new string for every draw; the same one for the same seed
    assert disguise(first, random.Random(1)) == hidden
    others = {arguments(disguise(first, random.Random(s)))["text"] for s in range(2, 12)}  # type: ignore[arg-type]
    assert len(others) >= 9


def test_an_answer_read_off_the_screen_is_disguised_on_the_screen(tmp_path: Path) -> None:
    build = TASKS_BY_NAME["SystemBuildNumber"].params(150)["build"]
    answer = next(
        d for d in recorded("SystemBuildNumber", 150, tmp_path) if "answer" in arguments(d)
    )
    hidden = disguise(answer, random.Random(7))
    assert hidden is not None
    new = arguments(hidden)["answer"]
    assert new != build and re.fullmatch(r"[A-Z0-9]{4}\.\d{6}\.\d{3}", new)
    assert f'"Build number, {new}"' in user_text(hidden) and build not in user_text(hidden)


def test_decisions_that_copy_no_given_value_are_left_as_they_are(tmp_path: Path) -> None:
    demos = recorded("ContactsAddContact", 150, tmp_path)
    # opening the app, tapping, saving: the app's name is not a value the task chose
    assert [d for d in demos if not copied_values(d)] == [
        d for d in demos if "text" not in arguments(d)
    ]
    assert disguise(demos[0], random.Random(0)) is None
    # a Settings toggle: nothing given at all
    wifi = recorded("SystemWifiTurnOn", 150, tmp_path)
    assert not any(copied_values(d) for d in wifi)


def test_element_numbers_keep_their_value_when_a_copied_number_equals_one(
    tmp_path: Path,
) -> None:
    demos = recorded("ClockAlarmAdd", 150, tmp_path)
    minute = TASKS_BY_NAME["ClockAlarmAdd"].params(150)["hhmm"][3:]
    step = typing(demos, minute)
    numbered = f'{user_text(step)}\n[{minute}] button "{minute}"'  # element number = value
    crafted = step.model_copy(
        update={"messages": [step.messages[0], {"role": "user", "content": numbered}]}
    )
    hidden = disguise(crafted, random.Random(3))
    assert hidden is not None
    new = arguments(hidden)["text"]
    assert user_text(hidden).endswith(f'[{minute}] button "{new}"')


@pytest.mark.parametrize("value", ["Settings", "back"])
def test_a_word_the_instructions_use_is_never_disguised(value: str, tmp_path: Path) -> None:
    demo = recorded("SystemWifiTurnOn", 150, tmp_path)[-1]
    asked = demo.model_copy(
        update={
            "values": [value],
            "messages": [demo.messages[0], {"role": "user", "content": f"Say {value}."}],
            "target": {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {
                            "name": "task_complete",
                            "arguments": json.dumps({"answer": value}),
                        },
                    }
                ],
            },
        }
    )
    assert value in str(demo.messages[0]["content"]) + json.dumps(demo.tools)
    assert copied_values(asked) == []


def test_a_remembered_value_is_disguised_in_the_note_and_wherever_it_is_shown(
    tmp_path: Path,
) -> None:
    params = TASKS_BY_NAME["ContactsAddContactFromSms"].params(150)
    demos = recorded("ContactsAddContactFromSms", 150, tmp_path)
    noting = next(d for d in demos if d.target["content"])
    assert noting.target["content"] == f"Remember: {params['name']}'s number {params['phone']}"
    assert params["phone"] in copied_values(noting)

    hidden = disguise(noting, random.Random(2))
    assert hidden is not None
    note = hidden.target["content"]
    assert params["phone"] not in note and params["phone"] not in user_text(hidden)
    new_phone = note.rpartition("number ")[2]
    assert re.fullmatch(re.sub(r"\d", r"\\d", re.escape(params["phone"])), new_phone)
    assert new_phone in user_text(hidden)  # the message on screen says the same new number

"""Goals shown with words left out in training: what may go, what must stay, where it shows."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evals.demos import export_demos, given_values, plan_demo_episodes
from serving.training.data import parse_demo
from serving.training.demo import Demo
from serving.training.goal_word_dropout import (
    KEPT_WORDS,
    MIN_DROPPABLE_WORDS,
    droppable_words,
    shorten,
    shorten_goal,
)
from simulator.tasks import TASKS, TASKS_BY_NAME, Task


def _words(text: str) -> list[str]:
    return re.findall(r"\w[\w'’-]*", text)


def _is_subsequence(short: list[str], long: list[str]) -> bool:
    remaining = iter(long)
    return all(any(word == other for other in remaining) for word in short)


@settings(max_examples=300, deadline=None)
@given(
    task=st.sampled_from(TASKS),
    seed=st.integers(100, 10_000),
    phrasing=st.integers(0, 11),
    draw=st.integers(0, 2**32),
)
def test_a_shortened_goal_only_loses_words_and_keeps_what_decides_the_task(
    task: Task, seed: int, phrasing: int, draw: int
) -> None:
    goal = task.goal(seed, phrasing % task.held_out_phrasing)
    values = given_values(task.params(seed))
    shorter = shorten(goal, values, random.Random(draw))
    if shorter is None:
        assert len(droppable_words(goal, values)) < MIN_DROPPABLE_WORDS
        return
    assert shorter != goal
    # what is left reads in the original order, with nothing new in it
    assert _is_subsequence(_words(shorter), _words(goal))
    assert len(_words(shorter)) < len(_words(goal))
    for value in values:
        if value and value in goal:
            assert value in shorter
    for quoted in re.findall(r"\"[^\"]*\"", goal):
        assert quoted in shorter
    for word in re.findall(r"[^\W\d_][\w'’-]*", goal):
        if word.casefold() in KEPT_WORDS or any(c.isupper() for c in word[1:]):
            assert word in shorter
    # no stray space before punctuation or double space (quoted text may have its own)
    stray = re.compile(r" [,.?!;:]|  ")
    assert len(stray.findall(shorter)) <= len(stray.findall(goal)), shorter


def test_short_goals_and_names_keep_every_word() -> None:
    assert shorten("Turn on Wi-Fi.", [], random.Random(0)) is None
    # everything but the app's name and the task's value may go in the long one
    goal = "Could you quickly send Bob Chen the photo list from my trip to Marseille today?"
    for draw in range(50):
        shorter = shorten(goal, ["Marseille"], random.Random(draw))
        assert shorter is not None
        assert "Bob Chen" in shorter and "Marseille" in shorter and "send" in shorter


def test_names_written_in_lower_case_are_kept_as_the_demonstration_lists_them() -> None:
    goal = "in the settings app please set wifi to on and then switch do not disturb on"
    names = ["the settings app", "wifi", "do not disturb"]
    dropped: set[str] = set()
    for draw in range(100):
        shorter = shorten(goal, names, random.Random(draw))
        assert shorter is not None
        assert all(name in shorter for name in names), shorter
        dropped |= set(_words(goal)) - set(_words(shorter))
    assert {"please", "set", "then"} <= dropped


def test_an_export_lists_the_names_its_goals_give_apps_and_settings(tmp_path: Path) -> None:
    path = tmp_path / "demos.jsonl"
    export_demos(plan_demo_episodes([TASKS_BY_NAME["MarkorCreateFolder"]], range(100, 110)), path)
    demos = [parse_demo(line, n) for n, line in enumerate(path.read_text().splitlines(), 1)]
    for demo in demos:
        assert demo.goal is not None
        assert demo.names and all(name in demo.goal for name in demo.names), demo.goal
        assert any(
            name.casefold() in ("markor", "the markor app", "the notes app", "the markor notes app")
            for name in demo.names
        )


def _recorded(tmp_path: Path, task: str, seed: int) -> list[Demo]:
    path = tmp_path / "demos.jsonl"
    export_demos(plan_demo_episodes([TASKS_BY_NAME[task]], [seed], "off"), path)
    return [parse_demo(line, n) for n, line in enumerate(path.read_text().splitlines(), 1)]


def test_the_goal_is_shortened_in_the_user_turn_and_nowhere_else(tmp_path: Path) -> None:
    demos = _recorded(tmp_path, "SystemBatteryPercentageTurnOn", 100)
    assert demos and all(demo.goal for demo in demos)  # export records the goal it showed
    demo = demos[0]
    assert demo.goal is not None
    shorter = shorten_goal(demo, random.Random(4))
    assert shorter is not None
    user = next(m["content"] for m in shorter.messages if m["role"] == "user")
    original = next(m["content"] for m in demo.messages if m["role"] == "user")
    assert demo.goal in original and demo.goal not in user
    # the screen and history after the goal are the same text
    assert user.split("\n", 1)[1] == original.split("\n", 1)[1]
    assert shorter.target == demo.target
    system = [m for m in shorter.messages if m["role"] == "system"]
    assert system == [m for m in demo.messages if m["role"] == "system"]
    # the same draw leaves out the same words
    assert shorten_goal(demo, random.Random(4)) == shorter


def test_a_demonstration_without_its_goal_is_left_as_it_is(tmp_path: Path) -> None:
    demo = _recorded(tmp_path, "SystemBatteryPercentageTurnOn", 100)[0]
    line = json.loads(demo.model_dump_json())
    del line["goal"]
    assert shorten_goal(parse_demo(json.dumps(line), 1), random.Random(0)) is None
    other_goal = demo.model_copy(update={"goal": "A goal no user turn shows, in many words."})
    assert shorten_goal(other_goal, random.Random(0)) is None

"""The task suite: coverage, seeded parameters, oracle success and do-nothing failure."""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
import sys
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from evals.policies import PolicySpec
from evals.runner import EvalSettings, Run, Runner
from simulator import Simulator
from simulator.state import LAUNCHER
from simulator.tasks import TASKS, Task, parse_clock_time, same_digits, same_text, same_time


def test_suite_size_and_coverage() -> None:
    # AndroidWorld's size: 116 tasks over 20 apps, most of them offline
    assert len(TASKS) >= 100
    assert len({task.name for task in TASKS}) == len(TASKS)
    assert len({task.app for task in TASKS} - {LAUNCHER}) >= 10
    families = {task.family for task in TASKS}
    assert {
        "toggle",
        "already_done",
        "scroll",
        "alarm",
        "contact",
        "message",
        "multi_app",
        "question",
    } <= families


def test_tasks_are_named_as_androidworld_names_its_tasks() -> None:
    names = {task.name for task in TASKS}
    assert {"SystemWifiTurnOn", "ContactsAddContact", "SimpleSmsSend", "SimpleSmsReply"} <= names
    assert {"SimpleCalendarAddOneEvent", "TurnOffWifiAndTurnOnBluetooth"} <= names
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]+", name) for name in names), sorted(names)


def test_goals_are_parameterised_and_the_same_in_every_process() -> None:
    """A seed names one episode: recorded replies and results are found again by its goal."""
    goals = {t.goal(s) for t in TASKS for s in range(4)}
    assert len(goals) > len(TASKS)
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from simulator.tasks import TASKS; "
            "print(json.dumps([t.goal(2) for t in TASKS]))",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "777"},
        timeout=120,
    )
    assert json.loads(child.stdout) == [t.goal(2) for t in TASKS]


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_every_task_has_three_phrasings_that_name_the_same_parameters(task: Task) -> None:
    assert len(task.templates) >= 3
    for seed in range(3):
        goals = [task.goal(seed, phrasing) for phrasing in range(len(task.templates))]
        assert len(set(goals)) == len(goals), goals
    # a phrasing that left out the time or the name would ask for a different task
    assert len({frozenset(fields(template)) for template in task.templates}) == 1
    assert fields(task.templates[0]) <= set(task.params(0))


def test_the_last_phrasing_is_held_out_of_training() -> None:
    for task in TASKS:
        assert task.held_out_phrasing == len(task.templates) - 1
        assert task.held_out_phrasing not in task.training_phrasings
        assert len(task.training_phrasings) >= 2


def _sentences(template: str) -> list[tuple[str, ...]]:
    """The template's sentences as words, parameters left out (a run of them is no wording)."""
    without_parameters = re.sub(r"\{\w*\}", " ", template).casefold()
    pieces = re.split(r"(?<=[.?!:;])\s+", without_parameters)
    return [words for piece in pieces if (words := tuple(re.findall(r"[\w'-]+", piece)))]


def _longest_shared_run(first: tuple[str, ...], second: tuple[str, ...]) -> int:
    return SequenceMatcher(None, first, second, autojunk=False).find_longest_match().size


def test_no_training_phrasing_paraphrases_the_held_out_one() -> None:
    # The held-out column measures sentences the policy never saw: a training phrasing may
    # share the task's words, and the sentence that states an answer's format ("Answer with
    # ..."), but never a run of six words of the held-out wording.
    for task in TASKS:
        held_out = _sentences(task.templates[task.held_out_phrasing])
        for phrasing in task.training_phrasings:
            training = _sentences(task.templates[phrasing])
            shared = max(
                (
                    _longest_shared_run(mine, theirs)
                    for mine in training
                    for theirs in held_out
                    if not (theirs == mine and theirs[0] == "answer")
                ),
                default=0,
            )
            assert shared < 6, (task.name, task.templates[phrasing])


def test_non_ascii_names_and_texts_appear_in_goals() -> None:
    goals = " ".join(t.goal(s) for t in TASKS for s in range(6))
    assert not goals.isascii()
    assert any("\u0600" <= char <= "\u06ff" for char in goals)  # Arabic
    assert any("\u4e00" <= char <= "\u9fff" for char in goals)  # Chinese


@pytest.mark.parametrize(
    ("task", "phrasing"),
    [
        # the first and the held-out phrasing in the quick loop; all of them in the full suite
        pytest.param(
            task,
            phrasing,
            marks=() if phrasing in (0, task.held_out_phrasing) else pytest.mark.slow,
        )
        for task in TASKS
        for phrasing in range(len(task.templates))
    ],
    ids=lambda value: value.name if isinstance(value, Task) else f"p{value}",
)
def test_oracle_succeeds_through_the_guarded_loop(
    task: Task, phrasing: int, tmp_path: Path
) -> None:
    # every phrasing: the simulated user approves a risky step by reading the goal's words
    runner = Runner(tmp_path, EvalSettings())
    outcome = runner.run(Run(task, 1, PolicySpec(kind="oracle"), True, phrasing))
    assert outcome.error is None, outcome.error
    assert outcome.stop_reason == "completed", outcome.detail
    assert outcome.side_effects == []
    assert outcome.success
    assert outcome.steps <= task.max_steps


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_doing_nothing_fails_unless_already_done(task: Task) -> None:
    untouched = Simulator(state=task.initial_state(0)).state
    done_at_start = task.success(untouched, 0, None)
    assert done_at_start is (task.family == "already_done")


def test_question_answers_are_checked() -> None:
    task = next(t for t in TASKS if t.name == "SystemAndroidVersion")
    version = task.params(0)["version"]
    state = Simulator(state=task.initial_state(0)).state
    assert task.success(state, 0, f" {version} ")
    assert not task.success(state, 0, "99")


@pytest.mark.parametrize(
    ("given", "expected", "same"),
    [
        ("7:05 PM", "19:05", True),
        ("19:05", "19:05", True),
        ("7:05 am", "19:05", False),
        ("seven", "19:05", False),
        ("13:05 pm", "13:05", False),
    ],
)
def test_time_answers(given: str, expected: str, same: bool) -> None:
    assert same_time(given, expected) is same


def test_answer_normalisation() -> None:
    assert parse_clock_time("6.45 a.m.") == 6 * 60 + 45
    assert same_digits("415-555-0102", "+1 415-555-0102")
    assert not same_digits("555", "+1 415-555-0102")
    assert same_text("Zoë  Ñúñez.", "zoë ñúñez")

"""Task parameters: values a held-out seed asks for must be copied, not recalled from training.

A policy trained on the goals of seeds 100 and up and scored on seeds 0-99 can only type
remembered values if the held-out goals ask for values the training goals already held."""

from __future__ import annotations

import random
import re
import string

import pytest

from simulator.tasks import TASKS, Task, pools
from simulator.tasks.base import DEFAULT_CONTACTS, EXTRA_CONTACTS, SCENERY_TIMES

HELD_OUT = range(100)
TRAINING = range(100, 500)
# Goals whose only parameters are one of a handful: a weekday, an app, a folder of the
# storage, a time of day (1440 of them).
FEW_CHOICES = {
    "OpenAppTaskEval",
    "TurnOnWifiAndOpenApp",
    "SimpleCalendarEventsOnDate",
    "SimpleCalendarAnyEventsOnDate",
    "SimpleCalendarDeleteEventsOnDate",
    "FilesCountFilesInFolder",
    "TasksDueOnDate",
    "TasksHighPriorityTasksDueOnDate",
    "TasksCompletedTasksForDate",
    "TasksIncompleteTasksOnDate",
    "ClockAlarmAdd",
    "ClockAlarmTurnOff",
    "ClockAlarmTurnOn",
    "ClockAlarmDelete",
    "ClockAlarmTurnOffVerify",
    "ClockAlarmLabel",
    "ClockAlarmChangeTime",
    "TurnOnDarkThemeAndSetAlarm",
    "SimpleCalendarAddEventWithContactNumber",
}


def goal_fields(task: Task) -> list[str]:
    return sorted({name for _, name, _, _ in string.Formatter().parse(task.templates[0]) if name})


def copied_values(task: Task, seed: int) -> frozenset[str]:
    """What the goal of `seed` asks to be typed or tapped: each text parameter's parts (a
    listing's lines and fields), and the numbers together, as they are typed together."""
    params = task.params(seed)
    texts = [str(params[f]) for f in goal_fields(task) if not isinstance(params[f], int)]
    numbers = tuple(params[f] for f in goal_fields(task) if isinstance(params[f], int))
    parts = {part for text in texts for part in re.split(r"\n|, | \| ", text) if part}
    return frozenset(parts | ({repr(numbers)} if numbers else set()))


def recalled_share(task: Task) -> float:
    """The share of held-out seeds whose every copied value some training goal held too."""
    seen = set().union(*(copied_values(task, seed) for seed in TRAINING))
    return sum(copied_values(task, seed) <= seen for seed in HELD_OUT) / len(HELD_OUT)


PARAMETERISED = [task for task in TASKS if goal_fields(task)]
SHARES = {task.name: recalled_share(task) for task in PARAMETERISED}


def test_held_out_goals_mostly_ask_for_values_no_training_goal_held() -> None:
    free = [share for name, share in SHARES.items() if name not in FEW_CHOICES]
    assert len(free) >= 45
    assert sum(free) / len(free) <= 0.12, sorted(SHARES.items(), key=lambda kv: -kv[1])[:10]


@pytest.mark.parametrize("name", sorted(set(SHARES) - FEW_CHOICES))
def test_no_task_with_free_values_repeats_them_often(name: str) -> None:
    assert SHARES[name] <= 0.3


def test_times_of_day_spread_over_the_whole_day() -> None:
    # a time alone cannot be unseen often; it must at least not be one of a few
    assert all(SHARES[name] <= 0.4 for name in FEW_CHOICES if "Alarm" in name)


def test_sampled_people_are_new_to_the_phone_and_well_formed() -> None:
    rng = random.Random(7)
    existing = {c["name"] for c in [*DEFAULT_CONTACTS, *EXTRA_CONTACTS]}
    people = [pools.person(rng) for _ in range(2000)]
    assert not {p["name"] for p in people} & existing
    assert all(p["name"] == f"{p['first']} {p['last']}" for p in people)
    assert all(
        p["phone"].startswith("+") and sum(c.isdigit() for c in p["phone"]) >= 9 for p in people
    )
    scripts = " ".join(p["name"] for p in people)
    assert any("\u0600" <= char <= "\u06ff" for char in scripts)  # Arabic
    assert any("\u0400" <= char <= "\u04ff" for char in scripts)  # Cyrillic
    assert any("\u4e00" <= char <= "\u9fff" for char in scripts)  # Chinese


def test_times_avoid_the_alarms_already_set() -> None:
    rng = random.Random(3)
    times = pools.distinct_times(rng, 500, avoid=SCENERY_TIMES)
    assert len(set(times)) == 500
    assert not set(times) & set(SCENERY_TIMES)

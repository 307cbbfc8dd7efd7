"""The splits of the simulator suite: what trains, what chooses, what reports.

Choose on one split, report on another:

- **training**: seeds from `TRAINING_SEEDS_START` (100) on, in each task's training phrasings
  (all but its last) and their rewordings (`evals.goal_rewording`). Only `eval --export-demos`
  plays them, and it refuses anything else (`evals.demos.check_split`).
- **validation** chooses: `VALIDATION_SEEDS` (0 and 1), each task in phrasing 0 and in its
  held-out phrasing (its last), and goals written in other people's words of its own
  (`evals/goals/others_words_validation.jsonl`, rendered on the same seeds). Every choice
  between training runs, checkpoints, data and settings is made on it. These seeds chose every
  model shipped so far, which is why they are the validation seeds now.
- **test** reports: `TEST_SEEDS` (50 and 51), each task in phrasing 0 and in its held-out
  phrasing, and the goals written in other people's words (`evals/goals/others_words.jsonl`,
  rendered on the same seeds). Run once per shipped model, after it was chosen; nothing measured
  here may feed a choice, or it stops being a test.

The two sets of others' words were written apart, and neither says a goal of the other: choices
see how a model does on other people's words, and the test's stay unseen until a chosen model
is reported.

Seeds 2 and 3 chose a checkpoint once (the eleventh run's), so they are no test seeds; like
every seed below 100 they never train either.

`phone-agent eval --split validation` and `--split test` play a split; without `--split`,
`eval --runs 2` plays seeds 0 and 1 (validation) in phrasing 0, and `--phrasing held-out` in the
held-out one.

The held-out phrasing and both splits' others' words must never reach training data, whatever
the case, punctuation or politeness around them: `leaked_goal` finds a training goal that says
one (after `plain_words`), and the export refuses it.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from evals.goal_files import GoalLine, load_goal_file
from evals.policies import PolicySpec
from evals.runner import GivenGoal, Run, plan_given_goals
from simulator.tasks import TASKS_BY_NAME, Task

TRAINING_SEEDS_START = 100
# Never trained on: every split but training draws from these.
EVALUATION_SEEDS = range(TRAINING_SEEDS_START)
VALIDATION_SEEDS = range(0, 2)
TEST_SEEDS = range(50, 52)
DEVELOPMENT_SEEDS = range(10, 12)
_GOAL_FILES = Path(__file__).with_name("goals")
OTHERS_WORDS_FILE = _GOAL_FILES / "others_words.jsonl"  # the test split's
VALIDATION_OTHERS_WORDS_FILE = _GOAL_FILES / "others_words_validation.jsonl"
DEVELOPMENT_OTHERS_WORDS_FILE = _GOAL_FILES / "others_words_dev.jsonl"

SplitName = Literal["validation", "test", "development"]


@dataclass(frozen=True)
class Split:
    name: SplitName
    purpose: str
    seeds: range
    # the goal file of its goals in other people's words, played after the phrasings; None for
    # a split without them
    others_words_file: Path | None


SPLITS: dict[SplitName, Split] = {
    "validation": Split("validation", "chooses", VALIDATION_SEEDS, VALIDATION_OTHERS_WORDS_FILE),
    "test": Split("test", "reports", TEST_SEEDS, OTHERS_WORDS_FILE),
    # The loop's readings of goals are shaped by the false claims a split shows; validation's
    # own others' words shaped many, so this split's, written apart from both sets, tells
    # whether a new reading holds on words nobody shaped a rule on before it is kept.
    "development": Split(
        "development", "tries loop changes", DEVELOPMENT_SEEDS, DEVELOPMENT_OTHERS_WORDS_FILE
    ),
}


def plan_split(
    name: SplitName,
    tasks: Sequence[Task],
    policies: Sequence[PolicySpec],
    guards: Sequence[bool],
    detour: bool = False,
) -> list[Run]:
    """The runs of split `name` for `tasks`: each task on the split's seeds in phrasing 0 and
    in its held-out phrasing, then its goals in the split's others' words."""
    split = SPLITS[name]
    runs = [
        Run(task, seed, policy, guarded, phrasing, detour)
        for policy in policies
        for guarded in guards
        for task in tasks
        for seed in split.seeds
        for phrasing in (0, task.held_out_phrasing)
    ]
    names = {task.name for task in tasks}
    given = [goal for goal in others_words(name) if goal.task.name in names]
    return runs + plan_given_goals(given, policies, guards, detour)


def others_words(split: SplitName = "test") -> tuple[GivenGoal, ...]:
    """The goals in other people's words that split `split` plays, as its goal file holds them
    (by default the test split's, `evals/goals/others_words.jsonl`)."""
    path = SPLITS[split].others_words_file
    return () if path is None else _goal_file(path)


@functools.cache
def _goal_file(path: Path) -> tuple[GivenGoal, ...]:
    return tuple(load_goal_file(path, TASKS_BY_NAME))


@functools.cache
def _others_words_of(task_name: str) -> tuple[str, ...]:
    """Every goal of task `task_name` in other people's words, whichever split plays it."""
    return tuple(
        goal.text for split in SPLITS for goal in others_words(split) if goal.task.name == task_name
    )


def write_goal_file(lines: Iterable[GoalLine], path: Path) -> None:
    """`lines` as a goal file for `phone-agent eval --goals`."""
    path.write_text(
        "".join(json.dumps(line.model_dump(), ensure_ascii=False) + "\n" for line in lines),
        encoding="utf-8",
    )


# --- what a training goal must never say --------------------------------------------------------

# Words around a request that change nothing it asks: "Please ...", "Can you ...?", "..., thanks".
_POLITE_START = re.compile(
    r"^(?:(?:please|pls|hey|hi|ok|okay|so|now|kindly|go ahead and|would you mind"
    r"|(?:can|could|would|will) (?:you|u)(?: please)?"
    r"|i (?:need|want|d like|would like) you to) )+"
)
_POLITE_END = re.compile(
    r"(?: (?:please|pls|thanks|thank you|for me|when you can|right away|real quick|now))+$"
)


def plain_words(goal: str) -> str:
    """`goal` reduced to what it asks: lower case, no punctuation ("Wi-Fi" and "wifi" alike),
    single spaces, and no politeness before or after it."""
    text = unicodedata.normalize("NFKC", goal).casefold().replace("%", " percent ")
    text = re.sub(r"(?<=\w)[-\u2010\u2011'’.](?=\w)", "", text)
    text = " ".join(re.sub(r"[^\w\s]|_", " ", text).split())
    previous = None
    while previous != text:
        previous = text
        text = _POLITE_END.sub("", _POLITE_START.sub("", text)).strip()
    return text


def says(goal: str, other: str) -> bool:
    """Whether `goal` says `other`, alone or within more words (compared as `plain_words`)."""
    return _says_plain(plain_words(goal), plain_words(other))


def _says_plain(goal: str, other: str) -> bool:
    return bool(other) and f" {other} " in f" {goal} "


def kept_from_training(task: Task, seed: int) -> list[str]:
    """The goals a training episode of `task` on `seed` must not say: the held-out phrasing
    with that seed's values, and every goal of the task in other people's words (the
    validation split's and the test split's)."""
    return [task.goal(seed, task.held_out_phrasing), *_others_words_of(task.name)]


# An export asks about each task and seed several times in a row (its start, its detour).
@functools.lru_cache(maxsize=1024)
def _kept_plain_words(task: Task, seed: int) -> tuple[tuple[str, str], ...]:
    return tuple((kept, plain_words(kept)) for kept in kept_from_training(task, seed))


def leaked_goal(task: Task, seed: int, goal: str) -> str | None:
    """The held-out goal, or goal in other people's words, that `goal`, a would-be training
    goal, says; None if none."""
    said = plain_words(goal)
    kept = _kept_plain_words(task, seed)
    return next((text for text, plain in kept if _says_plain(said, plain)), None)

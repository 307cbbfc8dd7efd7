"""Goal files: goals in any words for the simulator's tasks (`phone-agent eval --goals FILE`).

A goal file is JSON Lines, one goal a line: `{"task": NAME, "seed": N, "goal": TEXT}`. Each line
plays the named task's start for that seed and judges it with the task's check and scope, with
TEXT as the goal the agent reads instead of one of the task's own phrasings. The goal must ask
for what the task checks with the seed's parameters (the contact, the time, the text that seed
picks). Blank lines are skipped. The file's stem labels its goals in the results (`goal_set`)
and in the per-wording tables, so that goals written by others are scored apart from the tasks'
own phrasings.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from devices.errors import UsageError
from evals.runner import GivenGoal
from simulator.tasks import Task


class GoalFileError(UsageError, ValueError):
    """A goal file that cannot be read, or a line of it that names no task's goal."""


class GoalLine(BaseModel):
    """One line of a goal file."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    task: str = Field(min_length=1)
    seed: StrictInt = Field(ge=0)
    goal: str = Field(min_length=1)


def load_goal_files(paths: Sequence[Path], tasks: Mapping[str, Task]) -> list[GivenGoal]:
    """The goals of every file, in order; files are told apart by their stems, which must
    differ."""
    stems: dict[str, Path] = {}
    for path in paths:
        if path.stem in stems:
            raise GoalFileError(
                f"--goals {stems[path.stem]} and {path} share the name {path.stem!r}, "
                "which labels their results"
            )
        stems[path.stem] = path
    return [goal for path in paths for goal in load_goal_file(path, tasks)]


def load_goal_file(path: Path, tasks: Mapping[str, Task]) -> list[GivenGoal]:
    """The goals of one file, in its order; the first bad line raises GoalFileError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GoalFileError(f"--goals {path}: cannot read it ({exc})") from None
    goals = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            goals.append(_given_goal(line, tasks, path.stem))
        except ValueError as exc:
            raise GoalFileError(f"--goals {path} line {number}: {exc}") from None
    if not goals:
        raise GoalFileError(f"--goals {path}: no goal in it")
    return goals


def _given_goal(line: str, tasks: Mapping[str, Task], goal_set: str) -> GivenGoal:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError('expected an object {"task": ..., "seed": ..., "goal": ...}')
    try:
        parsed = GoalLine.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_first_error(exc)) from None
    task = tasks.get(parsed.task)
    if task is None:
        close = difflib.get_close_matches(parsed.task, list(tasks), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown task {parsed.task!r}{hint}")
    return GivenGoal(task, parsed.seed, parsed.goal, goal_set)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        return f"missing key {where!r}"
    if error["type"] == "extra_forbidden":
        return f'unknown key {where!r}; a line has "task", "seed" and "goal"'
    return f"{where}: {error['msg']}"

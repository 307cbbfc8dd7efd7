"""The simulator task suite: one module per app, each exposing `TASKS: list[Task]`.

A new app's tasks join the suite by adding its module to `APP_MODULES`.
"""

from __future__ import annotations

from types import ModuleType

from simulator.tasks import (
    calendar,
    clock,
    clock_timers,
    contacts,
    expense,
    files,
    launcher,
    markor,
    messages,
    multi_app,
    recipe,
    settings,
    tasks_app,
)
from simulator.tasks.base import (
    PlanStep,
    Task,
    done,
    key,
    normalize_text,
    open_app,
    parse_clock_time,
    same_digits,
    same_text,
    same_time,
    swipe,
    tap,
    twelve_hour,
    type_in,
)

APP_MODULES: tuple[ModuleType, ...] = (
    settings,
    launcher,
    clock,
    contacts,
    messages,
    calendar,
    multi_app,
    markor,
    files,
    expense,
    tasks_app,
    recipe,
    clock_timers,
)


def _collect(modules: tuple[ModuleType, ...]) -> list[Task]:
    tasks: list[Task] = [task for module in modules for task in module.TASKS]
    names = [task.name for task in tasks]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"task names used twice: {', '.join(repeated)}")
    return tasks


TASKS: list[Task] = _collect(APP_MODULES)
TASKS_BY_NAME: dict[str, Task] = {task.name: task for task in TASKS}

__all__ = [
    "APP_MODULES",
    "TASKS",
    "TASKS_BY_NAME",
    "PlanStep",
    "Task",
    "done",
    "key",
    "normalize_text",
    "open_app",
    "parse_clock_time",
    "same_digits",
    "same_text",
    "same_time",
    "swipe",
    "tap",
    "twelve_hour",
    "type_in",
]

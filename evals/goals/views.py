"""What the sets of goals in other people's words are rendered with: views, the ways of writing
a value that the tasks' parameters do not use, and the rendering of a table of phrasings into
goal lines.

A set of goals (`evals.goals.others_words` for the test split,
`evals.goals.others_words_validation` for the validation split) is a table of phrasings: for
each task, format strings over its parameters. A field may name a view after a colon
(`{time:compact}`, `{date:relative}`): another way of writing the same value, from `VIEWS`. A
set may add parameters in words of its own for a task (its extra parameters: a function of the
task's parameters). The i-th phrasing of a task is rendered with the i-th of the set's seeds
(cycling), so each task's goals cover every seed.
"""

from __future__ import annotations

import datetime as dt
import string
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.goal_files import GoalLine
from evals.splits import write_goal_file
from simulator.tasks import TASKS_BY_NAME
from simulator.tasks.app_steps import TODAY

Params = dict[str, Any]
# Task name -> the format strings of its goals.
Phrasings = Mapping[str, Sequence[str]]
# Task name -> the parameters a set adds in its own words, from the task's parameters.
ExtraParameters = Mapping[str, Callable[[Params], Params]]


def _compact_time(twelve_hour: str) -> str:
    """ "6:29 AM" as "6:29am"."""
    return twelve_hour.replace(" ", "").lower()


def _dotted_time(twelve_hour: str) -> str:
    """ "6:29 AM" as "6:29 a.m."."""
    clock, _, half = twelve_hour.partition(" ")
    return f"{clock} {half[0].lower()}.m."


def _phone_dashed(number: str) -> str:
    return number.replace(" ", "-")


def _phone_bare(number: str) -> str:
    return number.replace(" ", "")


def _day(iso: str) -> dt.date:
    return dt.date.fromisoformat(iso)


def _short_date(iso: str) -> str:
    """ "Oct 18"."""
    day = _day(iso)
    return f"{day:%b} {day.day}"


def _day_month(iso: str) -> str:
    """ "18 Oct"."""
    day = _day(iso)
    return f"{day.day} {day:%b}"


def _ordinal(iso: str) -> str:
    """ "the 18th" within today's month, the short date outside it."""
    day = _day(iso)
    if (day.year, day.month) != (TODAY.year, TODAY.month):
        return _short_date(iso)
    suffix = "th" if 10 <= day.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10)
    return f"the {day.day}{suffix or 'th'}"


def _weekday_ordinal(iso: str) -> str:
    """ "Friday the 18th" within today's month, "Wednesday Nov 6" outside it."""
    return f"{_day(iso):%A} {_ordinal(iso)}"


def _relative_day(iso: str) -> str:
    """The day as people say it on the simulator's today: "tomorrow", "Friday", "last
    Thursday", "Wednesday next week"; the short date where no such words fit."""
    day = _day(iso)
    offset = (day - TODAY).days
    next_monday = TODAY + dt.timedelta(days=7 - TODAY.weekday())
    named = {0: "today", 1: "tomorrow", -1: "yesterday", 7: "a week from today", -7: "a week ago"}
    if offset in named:
        return named[offset]
    if 2 <= offset <= 6:
        return f"{day:%A}"
    if -6 <= offset <= -2:
        return f"last {day:%A}"
    if next_monday <= day < next_monday + dt.timedelta(days=7):
        return f"{day:%A} next week"
    return _short_date(iso)


def _after_next(iso: str) -> str:
    """ "the Friday after next" where that names the day without doubt (not for a weekday
    that comes again tomorrow), the relative day otherwise."""
    offset = (_day(iso) - TODAY).days
    return f"the {_day(iso):%A} after next" if 9 <= offset <= 13 else _relative_day(iso)


def _timer_clock(digits: str) -> str:
    """A timer's keypad digits ("022137", "6505") as a clock reading ("2:21:37", "65:05")."""
    pairs = [digits[i : i + 2] for i in range(0, len(digits), 2)]
    return ":".join([str(int(pairs[0])), *pairs[1:]])


def _listed(joined: str) -> list[str]:
    return joined.split(", ")


def _bullets(joined: str) -> str:
    return "\n".join(f"- {item}" for item in _listed(joined))


def _and_list(joined: str) -> str:
    *rest, last = _listed(joined)
    return f"{', '.join(rest)} and {last}" if rest else last


def _expense_blocks(rows: Sequence[Mapping[str, Any]]) -> str:
    return "\n\n".join(
        f"name: {row['name']}\namount: ${float(row['amount']):.2f}\n"
        f"category: {row['category']}\nnote: {row['note']}"
        for row in rows
    )


def _expense_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(
        f"{row['name']},{float(row['amount']):.2f},{row['category']},{row['note']}" for row in rows
    )


def _expense_sentences(rows: Sequence[Mapping[str, Any]]) -> str:
    """One line an expense, said in words: "Laundry Sept: $113.21 on Clothes (For the
    office)"."""
    return "\n".join(
        f"{row['name']}: ${float(row['amount']):.2f} on {row['category']} ({row['note']})"
        for row in rows
    )


def _expense_bullets(rows: Sequence[Mapping[str, Any]]) -> str:
    """One bullet an expense: "• Laundry Sept: 113.21 dollars, Clothes, note: For the
    office"."""
    return "\n".join(
        f"• {row['name']}: {float(row['amount']):.2f} dollars, {row['category']}, "
        f"note: {row['note']}"
        for row in rows
    )


def _recipe_blocks(rows: Sequence[Mapping[str, Any]]) -> str:
    return "\n\n".join(
        f"title: {row['title']}\ndescription: {row['description']}\nservings: {row['servings']}"
        for row in rows
    )


def _recipe_lines(rows: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(f"{row['title']} — {row['servings']} — {row['description']}" for row in rows)


def _recipe_numbered(rows: Sequence[Mapping[str, Any]]) -> str:
    """One numbered line a recipe: "1. Winter Paella (4 servings): Snack for two."."""
    return "\n".join(
        f"{number}. {row['title']} ({row['servings']}): {row['description']}"
        for number, row in enumerate(rows, 1)
    )


VIEWS: dict[str, Callable[[Any], str]] = {
    "lower": lambda text: str(text).lower(),
    "compact": _compact_time,
    "dotted": _dotted_time,
    "dashed": _phone_dashed,
    "bare": _phone_bare,
    "relative": _relative_day,
    "after_next": _after_next,
    "short": _short_date,
    "day_month": _day_month,
    "ordinal": _ordinal,
    "weekday_ordinal": _weekday_ordinal,
    "clock": _timer_clock,
    "bullets": _bullets,
    "and": _and_list,
    "expense_blocks": _expense_blocks,
    "expense_csv": _expense_csv,
    "expense_sentences": _expense_sentences,
    "expense_bullets": _expense_bullets,
    "recipe_blocks": _recipe_blocks,
    "recipe_lines": _recipe_lines,
    "recipe_numbered": _recipe_numbered,
}


class _GoalFormatter(string.Formatter):
    def format_field(self, value: Any, format_spec: str) -> str:
        if not format_spec:
            return str(value)
        if format_spec not in VIEWS:
            raise ValueError(f"no view named {format_spec!r}")
        return VIEWS[format_spec](value)


_FORMATTER = _GoalFormatter()


def render(task_name: str, phrasing: str, seed: int, extra_parameters: ExtraParameters) -> str:
    """`phrasing` of task `task_name` with the parameters of `seed`, and the parameters
    `extra_parameters` adds for the task."""
    params = TASKS_BY_NAME[task_name].params(seed)
    extra = extra_parameters.get(task_name)
    return _FORMATTER.format(phrasing, **params, **(extra(params) if extra else {}))


def goal_lines(
    phrasings: Phrasings, seeds: Sequence[int], extra_parameters: ExtraParameters
) -> list[GoalLine]:
    """Every phrasing of every task, the i-th rendered with `seeds[i % len(seeds)]`."""
    lines = []
    for name, texts in phrasings.items():
        for index, text in enumerate(texts):
            seed = seeds[index % len(seeds)]
            goal = render(name, text, seed, extra_parameters)
            lines.append(GoalLine(task=name, seed=seed, goal=goal))
    return lines


def write_goals(lines: Sequence[GoalLine], default_path: Path) -> None:
    """A set's `main`: `lines` written to the path the command line gives, or to
    `default_path`."""
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else default_path
    write_goal_file(lines, path)
    print(f"{len(lines)} goals written to {path}")

"""Goals in other people's words, the test split's (`evals/goals/others_words.jsonl`), the
validation split's (`evals/goals/others_words_validation.jsonl`) and the development split's
(`evals/goals/others_words_dev.jsonl`, written as plain lines): each one states what its task's
check needs, in words the suite's own phrasings never use, and no set says a goal of another.

The values are checked here with this file's own reading of times, dates, numbers and
durations, not with the views that wrote them, so a view that writes a wrong value fails.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import string
import unicodedata
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from evals.goal_files import GoalLine
from evals.goal_rewording import training_goal_template
from evals.goals import others_words as test_set
from evals.goals import others_words_validation as validation_set
from evals.goals.views import VIEWS
from evals.splits import SPLITS, SplitName, others_words, says
from simulator.tasks import TASKS, TASKS_BY_NAME, Task
from simulator.tasks.app_steps import TODAY

# The sets of goals in other people's words that a module writes from phrasings, by split.
SETS: dict[SplitName, ModuleType] = {"test": test_set, "validation": validation_set}


def read_lines(split: SplitName) -> list[GoalLine]:
    path = SPLITS[split].others_words_file
    assert path is not None
    return [GoalLine.model_validate_json(line) for line in path.read_text().splitlines()]


LINES = {split: read_lines(split) for split in SPLITS}


@pytest.mark.parametrize("split", SETS)
def test_the_file_is_what_its_phrasings_render_on_its_splits_seeds(split: SplitName) -> None:
    # regenerate with: python -m evals.goals.others_words (and ..._validation)
    assert SETS[split].goal_lines(SPLITS[split].seeds) == LINES[split]
    # and `eval --goals` reads it as written
    assert [(g.task.name, g.seed, g.text) for g in others_words(split)] == [
        (line.task, line.seed, line.goal) for line in LINES[split]
    ]


@pytest.mark.parametrize("split", SPLITS)
def test_every_task_has_at_least_two_goals_covering_both_seeds(split: SplitName) -> None:
    assert {line.task for line in LINES[split]} == {task.name for task in TASKS}
    for task in TASKS:
        lines = [line for line in LINES[split] if line.task == task.name]
        assert len(lines) >= 2, task.name
        assert {line.seed for line in lines} == set(SPLITS[split].seeds), task.name
        assert len({line.goal for line in lines}) == len(lines), task.name


# --- reading values back out of a goal ----------------------------------------------------------


def folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def says_text(goal: str, value: str) -> bool:
    """`value` appears in `goal` as itself (any case), not inside a longer word."""
    return re.search(rf"(?<!\w){re.escape(folded(value))}(?!\w)", folded(goal)) is not None


def clock_minutes(goal: str) -> set[int]:
    """Minutes after midnight of every time of day in `goal`: "6:29am", "6:29 PM", "18:10"."""
    found = set()
    pattern = r"(?<!\d)(?<!\d:)(\d{1,2})[:.](\d{2})(?!\d|:\d)(?:\s*([ap])\.?m\b\.?)?"
    for hour_text, minute_text, half in re.findall(pattern, goal.casefold()):
        hour, minute = int(hour_text), int(minute_text)
        if half:
            hour = hour % 12 + (12 if half == "p" else 0)
        found.add(hour * 60 + minute)
    return found


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def named_dates(goal: str, today: dt.date = TODAY) -> set[dt.date]:
    """Every day `goal` names, read the way a person on `today` would."""
    text = folded(goal)
    found: set[dt.date] = set()
    day = dt.timedelta(days=1)
    weekday = "(" + "|".join(WEEKDAYS) + ")"

    def take(pattern: str, to_date: Callable[[re.Match[str]], dt.date]) -> None:
        nonlocal text
        for match in re.finditer(pattern, text):
            found.add(to_date(match))
        text = re.sub(pattern, " ", text)

    def ahead(name: str, weeks: int = 0) -> dt.date:
        offset = (WEEKDAYS.index(name) - today.weekday()) % 7 or 7
        return today + (offset + 7 * weeks) * day

    def on_weekday(name: str, date: dt.date) -> dt.date:
        """`date` said with its weekday; a weekday it does not fall on reads as no day."""
        return date if WEEKDAYS[date.weekday()] == name else dt.date.min

    this_monday = today - today.weekday() * day
    month = "(" + "|".join(MONTHS) + r")[a-z]*"
    take(r"\b(\d{4})-(\d{2})-(\d{2})\b", lambda m: dt.date(*map(int, m.groups())))
    # the American order of numbers: "10/24/2024"
    take(
        r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b",
        lambda m: dt.date(int(m.group(3)), int(m.group(1)), int(m.group(2))),
    )
    # a weekday with its date: "Friday the 18th", "Wednesday Nov 6"
    take(
        rf"\b{weekday},? (?:the )?(\d{{1,2}})(?:st|nd|rd|th)\b",
        lambda m: on_weekday(m.group(1), today.replace(day=int(m.group(2)))),
    )
    take(
        rf"\b{weekday},? {month} (\d{{1,2}})(?:st|nd|rd|th)?\b",
        lambda m: on_weekday(
            m.group(1), today.replace(month=MONTHS.index(m.group(2)) + 1, day=int(m.group(3)))
        ),
    )
    take(
        rf"\b{month} (\d{{1,2}})(?:st|nd|rd|th)?\b",
        lambda m: today.replace(month=MONTHS.index(m.group(1)) + 1, day=int(m.group(2))),
    )
    take(
        rf"\b(\d{{1,2}}) {month}\b",
        lambda m: today.replace(month=MONTHS.index(m.group(2)) + 1, day=int(m.group(1))),
    )
    take(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", lambda m: today.replace(day=int(m.group(1))))
    take(r"\bday after tomorrow\b", lambda m: today + 2 * day)
    take(r"\ba week from today\b", lambda m: today + 7 * day)
    take(r"\ba week ago\b", lambda m: today - 7 * day)
    take(rf"\bthe {weekday} after next\b", lambda m: ahead(m.group(1), weeks=1))
    take(
        rf"\b{weekday} next week\b", lambda m: this_monday + (7 + WEEKDAYS.index(m.group(1))) * day
    )
    take(
        rf"\blast {weekday}\b",
        lambda m: today - ((today.weekday() - WEEKDAYS.index(m.group(1))) % 7 or 7) * day,
    )
    take(rf"\b{weekday}\b", lambda m: ahead(m.group(1)))
    take(r"\btoday\b", lambda m: today)
    take(r"\btomorrow\b", lambda m: today + day)
    take(r"\byesterday\b", lambda m: today - day)
    return found


def numbers(goal: str) -> list[float]:
    return [float(n) for n in re.findall(r"\d+(?:\.\d+)?", goal)]


def digits_run(text: str) -> str:
    """A phone number's digits, the separators people put between them left out."""
    return re.sub(r"(?<=[\d+])[\s\-.()]+(?=\d)", "", text)


def said_duration(goal: str) -> tuple[int, int, int] | None:
    """Hours, minutes and seconds said as "2:21:37", "65:05" or "2h 21m 37s", "52 minute 20
    second"."""
    text = goal.casefold()
    clock = re.search(r"(?<!\d)(?<!\d:)(?:(\d{1,2}):)?(\d{1,2}):(\d{2})(?!\d|:\d)", text)
    if clock:
        hours, minutes, seconds = (int(part or 0) for part in clock.groups())
        return hours, minutes, seconds
    parts = []
    for unit in (r"h|hours?|hrs?", r"m|min|mins|minutes?", r"s|sec|secs|seconds?"):
        match = re.search(rf"(\d+)\s*(?:{unit})\b", text)
        parts.append(int(match.group(1)) if match else 0)
    return (parts[0], parts[1], parts[2]) if any(parts) else None


# --- what each task's check needs its goal to say ------------------------------------------------

Need = Callable[[str], bool]


def text(value: str) -> Need:
    return lambda goal: says_text(goal, value)


def time_of_day(hhmm: str) -> Need:
    hour, minute = map(int, hhmm.split(":"))
    return lambda goal: hour * 60 + minute in clock_minutes(goal)


def date_named(iso: str) -> Need:
    return lambda goal: named_dates(goal) == {dt.date.fromisoformat(iso)}


def phone(number: str) -> Need:
    return lambda goal: digits_run(number) in digits_run(goal)


def amount(value: Any) -> Need:
    return lambda goal: any(abs(n - float(value)) < 0.005 for n in numbers(goal))


def any_word(*words: str) -> Need:
    return lambda goal: any(says_text(goal, word) for word in words)


def items(joined: str) -> list[Need]:
    return [text(item) for item in joined.split(", ")]


# The check's needs where a template field alone does not say them: values inside a listing,
# durations, fixed people and files, and the position of an edit.
NEEDS: dict[str, Callable[[dict[str, Any]], list[Need]]] = {
    "ClockTimerEntry": lambda p: [
        lambda goal: said_duration(goal) == (p["hours"], p["minutes"], p["seconds"])
    ],
    "ClockTimerStart": lambda p: [
        lambda goal: (
            (d := said_duration(goal)) is not None
            and d[0] * 3600 + d[1] * 60 + d[2] == p["minutes"] * 60 + p["seconds"]
        )
    ],
    "ClockStopWatchPause": lambda p: [],  # the check needs it paused, not the time it shows
    "ClockStopWatchReset": lambda p: [],
    "ExpenseAddMultiple": lambda p: [
        need
        for row in p["rows"]
        for need in (
            text(row["name"]),
            amount(row["amount"]),
            text(row["category"]),
            text(row["note"]),
        )
    ],
    "RecipeAddMultipleRecipes": lambda p: [
        need
        for row in p["rows"]
        for need in (text(row["title"]), text(row["description"]), text(row["servings"]))
    ],
    "MarkorEditNote": lambda p: [
        text(p["file_name"]),
        text(p["line"]),
        {
            "header": any_word("top", "first line", "beginning"),
            "footer": any_word("end", "last line", "bottom"),
            "replace": any_word("replace", "swap", "whole content", "only say"),
        }[p["edit_type"]],
    ],
    "SimpleCalendarEventTime": lambda p: [text(p["title"]), date_named("2024-10-17")],
    "SimpleCalendarAddEventWithContactNumber": lambda p: [
        time_of_day(p["hhmm"]),
        text("Call"),
        text("Carmen López"),
    ],
    "SimpleSmsReply": lambda p: [text(p["text"]), text("Bob")],
    "SimpleSmsReadMessage": lambda p: [text("Alice")],
    "ClockAlarmFromSms": lambda p: [text("Alice")],
    "SimpleSmsSendContactNumber": lambda p: [text(p["name"]), text("Bob Chen")],
    "ContactsAddContactFromSms": lambda p: [text(p["name"]), text("Bob Chen")],
    "SimpleSmsSendEventTime": lambda p: [text(p["title"]), text("Alice")],
    "ExpenseAddMultipleFromMarkor": lambda p: [text("my_expenses.txt"), text("reimbursable")],
    "RecipeAddMultipleRecipesFromMarkor": lambda p: [text("recipes.txt")],
    "SimpleCalendarAnyEventsOnDate": lambda p: [date_named(p["date"]), text("yes"), text("no")],
}

# How a template field is stated: by its kind, read from the parameters.
FIELD_NEEDS: dict[str, Callable[[dict[str, Any]], list[Need]]] = {
    "time": lambda p: [time_of_day(p["hhmm"])],
    "new_time": lambda p: [time_of_day(p["new_hhmm"])],
    "day": lambda p: [date_named(p["date"])],  # calendar and expense days
    "date": lambda p: [date_named(p["due_iso"])],  # a to-do's due date
    "phone": lambda p: [phone(p["phone"])],
    "new_phone": lambda p: [phone(p["new_phone"])],
    "number": lambda p: [phone(p["number"])],
    "amount_text": lambda p: [amount(p["amount_text"])],
    "titles": lambda p: items(p["titles"]),
    "names": lambda p: items(p["names"]),
}


def needs(task: Task, params: dict[str, Any]) -> list[Need]:
    if task.name in NEEDS:
        return NEEDS[task.name](params)
    fields = sorted({f for _, f, _, _ in string.Formatter().parse(task.templates[0]) if f})
    return [
        need
        for field in fields
        for need in (FIELD_NEEDS[field](params) if field in FIELD_NEEDS else [text(params[field])])
    ]


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(line, id=f"{split}-{line.task}-s{line.seed}")
        for split in SPLITS
        for line in LINES[split]
    ],
)
def test_each_goal_states_every_value_its_check_needs(line: GoalLine) -> None:
    task = TASKS_BY_NAME[line.task]
    params = task.params(line.seed)
    unmet = [index for index, need in enumerate(needs(task, params)) if not need(line.goal)]
    assert not unmet, (line.goal, params)


def test_a_day_said_any_way_reads_back_as_that_day() -> None:
    """Every view of a date names exactly that day, for each day a task may ask for."""
    for offset in range(-14, 16):
        day = TODAY + dt.timedelta(days=offset)
        for view in ("relative", "after_next", "short", "day_month", "ordinal", "weekday_ordinal"):
            said = VIEWS[view](day.isoformat())
            assert named_dates(f"due {said}") == {day}, (view, said, day)


# --- words of their own -------------------------------------------------------------------------


def training_goals(task: Task, seed: int, draws: int = 60) -> set[str]:
    """The task's training phrasings on `seed`, as written and as rewordings draw them."""
    params = task.params(seed)
    return {
        training_goal_template(task, phrasing, random.Random(draw)).format(**params)
        for phrasing in task.training_phrasings
        for draw in range(draws)
    } | {task.goal(seed, phrasing) for phrasing in task.training_phrasings}


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_no_goal_says_a_phrasing_of_the_task_or_is_said_by_one(
    split: SplitName, task: Task
) -> None:
    """Not the same sentence in another case, nor one inside the other: the task's own
    phrasings (held-out one included) and their rewordings are all our words."""
    overlaps = [
        (line.goal, goal)
        for line in LINES[split]
        if line.task == task.name
        for goal in training_goals(task, line.seed)
        | {task.goal(line.seed, phrasing) for phrasing in range(len(task.templates))}
        if says(line.goal, goal) or says(goal, line.goal)
    ]
    assert not overlaps


@pytest.mark.parametrize(
    ("split", "other_split"),
    [("validation", "test"), ("development", "test"), ("development", "validation")],
)
def test_no_set_says_a_goal_of_another(split: SplitName, other_split: SplitName) -> None:
    """Each set was written apart from the others: none of its goals says one of the other
    set's, nor is said by one, whatever task either is for. A failure names only the goal of
    `split` (its task and its place among the task's goals), so that the test's goals stay
    unread."""
    overlaps = []
    for task in TASKS:
        goals = [line.goal for line in LINES[split] if line.task == task.name]
        overlaps += [
            (task.name, index)
            for index, goal in enumerate(goals)
            if any(says(goal, other.goal) or says(other.goal, goal) for other in LINES[other_split])
        ]
    assert not overlaps

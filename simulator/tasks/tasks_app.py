"""Tasks: to-dos added, completed and deleted, and AndroidWorld's questions about due dates,
priorities and completed tasks."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

from simulator.apps.tasks_app import list_order
from simulator.state import TASKS_APP
from simulator.tasks import pools
from simulator.tasks.app_steps import TODAY, pick_date_steps, same_titles, spoken_date
from simulator.tasks.base import (
    Params,
    PlanStep,
    State,
    Task,
    done,
    key,
    named,
    normalize_text,
    open_app,
    remember,
    same_digits,
    tap,
    type_in,
)

_TITLE_SHAPES = (
    "Complete {doc} for {first}",
    "Review {doc} v{n}",
    "Submit {doc} for {month}",
    "Draft {doc} v{n}",
    "Call {first} for follow-up",
    "Email {first} about {topic}",
    "Book flights to {city} for {first}",
    "Plan {topic} with {first}",
    "Renouveler le passeport de {first}",
    "Comprar regalo para {first}",
    "Prepare {n} slides for {topic}",
    "Pay the {bill} bill for {month}",
    "Order {n} {item}",
)
# Titles of tasks a plan opens to read: an agent asks the user before it taps anything that
# says "pay", and the simulated user says yes only where the goal asks to pay.
_OPENED_SHAPES = tuple(shape for shape in _TITLE_SHAPES if not shape.startswith("Pay "))


def _title(rng: random.Random, shapes: tuple[str, ...] = _TITLE_SHAPES) -> str:
    """A to-do title without commas, which separate the titles of an answer."""
    return rng.choice(shapes).format(
        doc=pools.pick_word(
            rng,
            "project proposal, expense report, code changes, budget, contract, quarterly goals, "
            "website content",
        ),
        month=pools.pick_word(rng, pools.MONTHS),
        n=rng.randrange(2, 30),
        first=pools.first_name(rng),
        topic=pools.pick_word(
            rng,
            "the team outing, market trends, the offsite, the launch, the retro, the conference",
        ),
        city=pools.pick_word(rng, "Lisbon, Nairobi, Osaka, Denver, Tallinn, Bogotá, Hanoi"),
        bill=pools.pick_word(rng, "electricity, water, phone, internet, gas"),
        item=pools.pick_word(rng, "notebooks, toner cartridges, name badges, chairs, cables"),
    )


def _titles(rng: random.Random, count: int, shapes: tuple[str, ...] = _TITLE_SHAPES) -> list[str]:
    return pools.distinct(rng, lambda r: _title(r, shapes), count)


NOTES = ("This task is important.", "Confirm meeting location.", "Check email for updates.")
OTHER_PRIORITIES = ("none", "low", "medium")


def _day(offset: int) -> str:
    return (TODAY + dt.timedelta(days=offset)).isoformat()


def _task(
    title: str, due: str, priority: str = "none", completed: bool = False
) -> dict[str, object]:
    return {"title": title, "due": due, "priority": priority, "completed": completed}


def _answer_for(day_offset_range: range) -> Callable[[random.Random], dict[str, object]]:
    def sample(rng: random.Random) -> dict[str, object]:
        offset = rng.choice(day_offset_range)
        return {"due_iso": _day(offset), "date": spoken_date(TODAY + dt.timedelta(days=offset))}

    return sample


def _others_unchanged(state: State, p: Params) -> bool:
    return all(_same_task(state, t) for t in p["tasks"] if t["title"] != p["title"])


def _same_task(state: State, wanted: dict[str, object]) -> bool:
    return any(
        normalize_text(str(t["title"])) == normalize_text(str(wanted["title"]))
        and t["due"] == wanted["due"]
        and t["completed"] == wanted["completed"]
        for t in state["todo_tasks"]
    )


def _one_of_many(rng: random.Random) -> Params:
    titles = _titles(rng, 6)
    tasks = [
        _task(title, _day(rng.randrange(-2, 12)), rng.choice(OTHER_PRIORITIES)) for title in titles
    ]
    return {"tasks": tasks, "title": titles[0]}


def _add(rng: random.Random) -> Params:
    params = _one_of_many(rng)
    title = params["title"]
    offset = rng.randrange(1, 16)
    day = TODAY + dt.timedelta(days=offset)
    return {
        "tasks": params["tasks"][1:],
        "title": title,
        "due_iso": day.isoformat(),
        "date": spoken_date(day),
        "priority": rng.choice(("high", "medium", "low")),
    }


def _added(state: State, p: Params) -> bool:
    return any(
        normalize_text(str(t["title"])) == normalize_text(p["title"])
        and t["due"] == p["due_iso"]
        and t["priority"] == p["priority"]
        and not t["completed"]
        for t in state["todo_tasks"]
    )


def _question(
    build: Callable[[random.Random, str], tuple[list[dict[str, object]], list[str]]],
    offsets: range,
) -> Callable[[random.Random], Params]:
    """A question about one day: `build` gives the tasks and the titles that answer it."""

    def sample(rng: random.Random) -> Params:
        day = _answer_for(offsets)(rng)
        tasks, answer = build(rng, str(day["due_iso"]))
        rng.shuffle(tasks)
        return {**day, "tasks": tasks, "answer": answer}

    return sample


def _due_on(rng: random.Random, day: str) -> tuple[list[dict[str, object]], list[str]]:
    titles = _titles(rng, 7)
    answer = titles[:3]
    tasks = [_task(t, day, rng.choice(OTHER_PRIORITIES)) for t in answer]
    later = dt.date.fromisoformat(day) + dt.timedelta(days=1)
    tasks += [
        _task(t, (later + dt.timedelta(days=rng.randrange(0, 6))).isoformat()) for t in titles[3:]
    ]
    return tasks, answer


def _high_due_on(rng: random.Random, day: str) -> tuple[list[dict[str, object]], list[str]]:
    titles = _titles(rng, 6, _OPENED_SHAPES)
    answer = titles[: rng.randrange(1, 3)]
    other_day = (dt.date.fromisoformat(day) + dt.timedelta(days=2)).isoformat()
    tasks = [_task(t, day, "high") for t in answer]
    tasks += [_task(t, day, rng.choice(OTHER_PRIORITIES)) for t in titles[len(answer) : 4]]
    tasks += [_task(t, other_day, "high") for t in titles[4:]]
    return tasks, answer


def _completed_on(rng: random.Random, day: str) -> tuple[list[dict[str, object]], list[str]]:
    titles = _titles(rng, 7)
    answer = titles[: rng.randrange(2, 4)]
    other_day = (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()
    tasks = [_task(t, day, completed=True) for t in answer]
    tasks += [_task(t, day) for t in titles[len(answer) : 5]]
    tasks += [_task(t, other_day, completed=True) for t in titles[5:]]
    return tasks, answer


def _incomplete_by(rng: random.Random, day: str) -> tuple[list[dict[str, object]], list[str]]:
    titles = _titles(rng, 7)
    answer = titles[:3]
    later = (dt.date.fromisoformat(day) + dt.timedelta(days=3)).isoformat()
    tasks = [_task(t, day, rng.choice(OTHER_PRIORITIES)) for t in answer]
    tasks += [_task(t, day, completed=True) for t in titles[3:5]]
    tasks += [_task(t, later) for t in titles[5:]]
    return tasks, answer


def _high_priority(rng: random.Random) -> Params:
    titles = _titles(rng, 7, _OPENED_SHAPES)
    answer = titles[: rng.randrange(1, 4)]
    tasks = [_task(t, _day(rng.randrange(0, 10)), "high") for t in answer]
    tasks += [
        _task(t, _day(rng.randrange(0, 10)), rng.choice(OTHER_PRIORITIES))
        for t in titles[len(answer) :]
    ]
    rng.shuffle(tasks)
    return {"tasks": tasks, "answer": answer}


def _next_week(rng: random.Random) -> Params:
    monday = TODAY + dt.timedelta(days=7 - TODAY.weekday())
    titles = _titles(rng, 8)
    count = rng.randrange(2, 6)
    tasks = [
        _task(t, (monday + dt.timedelta(days=rng.randrange(0, 7))).isoformat())
        for t in titles[:count]
    ]
    tasks += [_task(t, _day(rng.choice((0, 1, 2, 3, 4, 14, 15, 20)))) for t in titles[count:]]
    rng.shuffle(tasks)
    return {"tasks": tasks, "count": count}


def _as_listed(p: Params, titles: list[str]) -> list[str]:
    """`titles` in the order the list shows them (open tasks, then completed ones), so that an
    answer read off the screen goes top to bottom."""
    task = {str(t["title"]): t for t in p["tasks"]}
    return sorted(
        titles,
        key=lambda title: (
            bool(task[title]["completed"]),
            *list_order(str(task[title]["due"]), title),
        ),
    )


def _answer_steps(p: Params, show_completed: bool = False) -> list[PlanStep]:
    steps = [open_app("Tasks")]
    if show_completed:
        steps += [tap("More options"), tap("Show completed")]
    return [*steps, done(answer=", ".join(_as_listed(p, p["answer"])))]


def _priority_steps(p: Params, day: str | None = None) -> list[PlanStep]:
    """The list does not show priorities, a task's own page does: open each task that could be
    an answer (those due on `day`, if given), note the high ones, go back, then answer."""
    candidates = {
        str(t["title"]): t
        for t in p["tasks"]
        if not t["completed"] and (day is None or t["due"] == day)
    }
    steps = [open_app("Tasks")]
    for title in _as_listed(p, list(candidates)):
        steps.append(tap(title))
        if candidates[title]["priority"] == "high":
            steps.append(remember("High", f"High priority: {title}"))
        steps.append(key("back"))
    return [*steps, done(answer=", ".join(_as_listed(p, p["answer"])))]


def _titled(state: State, title: str) -> list[dict[str, object]]:
    return [
        t for t in state["todo_tasks"] if normalize_text(str(t["title"])) == normalize_text(title)
    ]


TASKS: list[Task] = [
    Task(
        name="TasksAddTask",
        app=TASKS_APP,
        family="todo",
        sample=_add,
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: [
            open_app("Tasks"),
            tap("New task"),
            type_in(None, p["title"]),
            tap("No due date"),
            *pick_date_steps(dt.date.fromisoformat(p["due_iso"])),
            tap(p["priority"].capitalize()),
            tap("Save"),
            done(),
        ],
        check=lambda s, p, a: _added(s, p) and len(s["todo_tasks"]) == len(p["tasks"]) + 1,
        changes=lambda p: {"todo_tasks": named("title", p["title"])},
        max_steps=12,
    ),
    Task(
        name="TasksCompleteTask",
        app=TASKS_APP,
        family="todo",
        sample=_one_of_many,
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: [open_app("Tasks"), tap("complete box", near=p["title"]), done()],
        check=lambda s, p, a: (
            all(t["completed"] for t in _titled(s, p["title"]))
            and len(_titled(s, p["title"])) == 1
            and _others_unchanged(s, p)
        ),
        changes=lambda p: {"todo_tasks": named("title", p["title"])},
        max_steps=8,
    ),
    Task(
        name="TasksDeleteTask",
        app=TASKS_APP,
        family="todo",
        sample=_one_of_many,
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: [
            open_app("Tasks"),
            tap(p["title"]),
            tap("More options"),
            tap("Delete task"),
            tap("Delete"),
            done(),
        ],
        check=lambda s, p, a: (
            not _titled(s, p["title"])
            and _others_unchanged(s, p)
            and len(s["todo_tasks"]) == len(p["tasks"]) - 1
        ),
        changes=lambda p: {"todo_tasks": named("title", p["title"])},
        max_steps=10,
    ),
    Task(
        name="TasksDueOnDate",
        app=TASKS_APP,
        family="question",
        sample=_question(_due_on, range(0, 12)),
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=_answer_steps,
        check=lambda s, p, a: same_titles(a, p["answer"]),
        max_steps=8,
    ),
    Task(
        name="TasksHighPriorityTasks",
        app=TASKS_APP,
        family="question",
        sample=_high_priority,
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=_priority_steps,
        check=lambda s, p, a: same_titles(a, p["answer"]),
        max_steps=20,  # the plan opens all seven tasks: 16 steps
    ),
    Task(
        name="TasksHighPriorityTasksDueOnDate",
        app=TASKS_APP,
        family="question",
        sample=_question(_high_due_on, range(0, 10)),
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: _priority_steps(p, day=str(p["due_iso"])),
        check=lambda s, p, a: same_titles(a, p["answer"]),
        max_steps=16,
    ),
    Task(
        name="TasksCompletedTasksForDate",
        app=TASKS_APP,
        family="question",
        sample=_question(_completed_on, range(-3, 3)),
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: _answer_steps(p, show_completed=True),
        check=lambda s, p, a: same_titles(a, p["answer"]),
        max_steps=10,
    ),
    Task(
        name="TasksIncompleteTasksOnDate",
        app=TASKS_APP,
        family="question",
        sample=_question(_incomplete_by, range(0, 8)),
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=_answer_steps,
        check=lambda s, p, a: same_titles(a, p["answer"]),
        max_steps=10,
    ),
    Task(
        name="TasksDueNextWeek",
        app=TASKS_APP,
        family="question",
        sample=_next_week,
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: [open_app("Tasks"), done(answer=str(p["count"]))],
        check=lambda s, p, a: same_digits(a, str(p["count"])),
        max_steps=8,
    ),
]

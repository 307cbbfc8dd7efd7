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


_TITLES_ONLY = "Answer with the titles only, separated by commas."

TASKS: list[Task] = [
    Task(
        name="TasksAddTask",
        app=TASKS_APP,
        family="todo",
        templates=(
            "In the Tasks app, add a task {title} due {date} with {priority} priority.",
            "Create a {priority} priority task called {title} in Tasks, due on {date}.",
            "Would it be possible to put a new task named {title} in the Tasks app, with a due "
            "date of {date} and {priority} priority?",
            "I need a to-do {title} in Tasks that is due {date}; set its priority to {priority}.",
            "Tasks app: new task {title}, due {date}, {priority} priority.",
            "Since {title} is due {date}, please save it in Tasks as a {priority} priority task.",
            "Hey, can you put {title} in Tasks real quick? It's due {date} and it's {priority} "
            "priority.",
            "So I don't forget, create the task {title} in the Tasks app, set its due date to "
            "{date} and its priority to {priority}.",
            "Would you mind adding a {priority}-priority to-do, {title}, due {date}, to the Tasks "
            "app?",
            "The Tasks app should end up with a new task, {title}, due {date} and marked "
            "{priority} priority.",
            "Let's schedule {title} in Tasks for {date}, then set the priority to {priority}.",
            "To-do for Tasks: {title} / due {date} / {priority} priority.",
            "Add {title} to my to-dos in Tasks: due {date}, priority {priority}.",
        ),
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
        templates=(
            "Mark the task {title} as complete in the Tasks app.",
            "I finished {title}: check it off in Tasks.",
            "Mind ticking off the task {title} in the Tasks app?",
            "Tasks app: {title} is done, mark it completed.",
            "I'd like {title} marked as done in Tasks.",
            "Set the task {title} to completed in Tasks, since I've already finished it.",
            "Hey, {title} is finished, so can you check the box for it in Tasks?",
            "Since I wrapped up {title} this morning, mark it as done in the Tasks app.",
            "Would you mind marking the task {title} finished in Tasks?",
            "The task {title} should end up marked complete in the Tasks app.",
            "Let's check off {title} in the Tasks app.",
            "Done with {title}. Please tick it off in Tasks.",
            "In Tasks, complete the to-do {title}.",
        ),
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
        templates=(
            "Delete the task {title} from the Tasks app.",
            "Remove {title} from my to-do list in Tasks.",
            "When you get a chance, could you erase the task {title} in the Tasks app?",
            "I no longer need {title} in Tasks; please delete it.",
            "Tasks app: remove task {title}.",
            "The to-do {title} is cancelled, so delete it from the Tasks app.",
            "Hey, can you delete {title} from Tasks real quick?",
            "Because plans changed, please remove the task {title} from the Tasks app.",
            "Would you mind taking {title} off my Tasks list? Just delete it.",
            "The task {title} should no longer be in the Tasks app; delete it.",
            "Let's clear {title} off my to-do list in Tasks by deleting it.",
            "Task to delete in the Tasks app: {title}.",
            "In Tasks, get rid of the task {title}.",
        ),
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
        templates=(
            "What tasks do I have due {date} in Tasks app? " + _TITLES_ONLY,
            "Which to-dos in the Tasks app are due on {date}? " + _TITLES_ONLY,
            "Could you check which tasks in the Tasks app are due {date}? " + _TITLES_ONLY,
            "I need to know what is due {date} in my Tasks app. " + _TITLES_ONLY,
            "Tasks app, due {date}: which tasks? " + _TITLES_ONLY,
            "Open Tasks and find every task whose due date is {date}. " + _TITLES_ONLY,
            "Hey, what's due {date} in my Tasks app? " + _TITLES_ONLY,
            "To plan that day, tell me which tasks in the Tasks app have a due date of {date}. "
            + _TITLES_ONLY,
            "Would you mind looking up the to-dos due on {date} in Tasks? " + _TITLES_ONLY,
            "Which items in the Tasks app come due on {date}? " + _TITLES_ONLY,
            "Let's see what the Tasks app has scheduled as due {date}: which tasks are they? "
            + _TITLES_ONLY,
            "Tasks app check: everything due {date}? " + _TITLES_ONLY,
            "List the tasks due {date} in Tasks. " + _TITLES_ONLY,
        ),
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
        templates=(
            "What are my high priority tasks in Tasks app? " + _TITLES_ONLY,
            "Which tasks in the Tasks app have high priority? " + _TITLES_ONLY,
            "Could you find the tasks in the Tasks app that are set to high priority? "
            + _TITLES_ONLY,
            "I need my high priority tasks from the Tasks app. " + _TITLES_ONLY,
            "Tasks app, priority high: which tasks? " + _TITLES_ONLY,
            "Before I plan my day, I want to know which tasks in Tasks are high priority. "
            + _TITLES_ONLY,
            "Hey, which of my tasks in the Tasks app are marked high priority? " + _TITLES_ONLY,
            "To see what matters most, tell me the tasks in Tasks with a priority of high. "
            + _TITLES_ONLY,
            "Would you mind pulling up every task set to high priority in the Tasks app? "
            + _TITLES_ONLY,
            "What does the Tasks app show as high priority? " + _TITLES_ONLY,
            "Let's go through Tasks and pick out the high priority tasks. " + _TITLES_ONLY,
            "High priority tasks in the Tasks app? " + _TITLES_ONLY,
            "Name every high-priority to-do in Tasks. " + _TITLES_ONLY,
        ),
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
        templates=(
            "Which tasks with high priority are due {date} in the Tasks app? " + _TITLES_ONLY,
            "In Tasks, what high-priority to-dos fall due on {date}? " + _TITLES_ONLY,
            "Could you find the tasks in the Tasks app that have high priority and are due "
            "{date}? " + _TITLES_ONLY,
            "I need to know which high priority to-dos are due {date} in Tasks. " + _TITLES_ONLY,
            "Tasks app, due {date}, priority high: which tasks? " + _TITLES_ONLY,
            "Of the tasks due {date} in the Tasks app, which ones are high priority? "
            + _TITLES_ONLY,
            "Hey, what high-priority stuff is due {date} in the Tasks app? " + _TITLES_ONLY,
            "For {date}, tell me which tasks in Tasks are both high priority and due that day. "
            + _TITLES_ONLY,
            "Would you mind checking the Tasks app for to-dos due {date} that are marked high "
            "priority? " + _TITLES_ONLY,
            "Which of my to-dos are set to high priority with a due date of {date} in the Tasks "
            "app? " + _TITLES_ONLY,
            "Let's go through the Tasks app and find high-priority tasks with {date} as the due "
            "date. " + _TITLES_ONLY,
            "Due {date} and high priority in Tasks: what are they? " + _TITLES_ONLY,
            "List the high priority tasks due {date} in Tasks. " + _TITLES_ONLY,
        ),
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
        templates=(
            "Which tasks have I completed for {date} in Tasks app? " + _TITLES_ONLY,
            "In the Tasks app, which tasks due {date} are already done? " + _TITLES_ONLY,
            "Could you check which tasks due {date} I have already finished in the Tasks app? "
            + _TITLES_ONLY,
            "I need the tasks for {date} that are marked done in Tasks. " + _TITLES_ONLY,
            "Tasks app, due {date}, completed: which tasks? " + _TITLES_ONLY,
            "Looking back at {date} in the Tasks app, which of the tasks due that day did I "
            "complete? " + _TITLES_ONLY,
            "Hey, which of my tasks due {date} did I already check off in Tasks? " + _TITLES_ONLY,
            "For my weekly review, tell me the tasks due {date} in the Tasks app that are marked "
            "complete. " + _TITLES_ONLY,
            "Would you mind finding the finished tasks with a due date of {date} in the Tasks app? "
            + _TITLES_ONLY,
            "What did I get done among the tasks due {date} in Tasks? " + _TITLES_ONLY,
            "Let's look at completed tasks in the Tasks app and pick the ones due {date}. "
            + _TITLES_ONLY,
            "Done tasks due {date} in the Tasks app? " + _TITLES_ONLY,
            "List the completed to-dos that were due {date} in Tasks. " + _TITLES_ONLY,
        ),
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
        templates=(
            "What incomplete tasks do I still have to do by {date} in Tasks app? " + _TITLES_ONLY,
            "Which unfinished to-dos in Tasks are due by {date}? " + _TITLES_ONLY,
            "Could you check which tasks in the Tasks app are still open and due by {date}? "
            + _TITLES_ONLY,
            "I need to know what I haven't finished in Tasks that is due by {date}. "
            + _TITLES_ONLY,
            "Tasks app, due by {date}, not completed: which tasks? " + _TITLES_ONLY,
            "Of my to-dos due by {date} in the Tasks app, which are still incomplete? "
            + _TITLES_ONLY,
            "Hey, what's still left to do by {date} in my Tasks app? " + _TITLES_ONLY,
            "To catch up, tell me which tasks in the Tasks app are due by {date} but not checked "
            "off. " + _TITLES_ONLY,
            "Would you mind finding the uncompleted to-dos in Tasks that are due by {date}? "
            + _TITLES_ONLY,
            "Which pending tasks in the Tasks app are due by {date}? " + _TITLES_ONLY,
            "Let's check the Tasks app for to-dos due by {date} that I haven't ticked off. "
            + _TITLES_ONLY,
            "Pending to-dos due by {date}, Tasks app? " + _TITLES_ONLY,
            "List the tasks in Tasks that are not done yet and due by {date}. " + _TITLES_ONLY,
        ),
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
        templates=(
            "How many tasks do I have due next week in Tasks app? Assume the week starts from "
            "Monday. Express your answer as a single integer.",
            "In the Tasks app, count the to-dos due next week (Monday to Sunday). Answer with a "
            "number.",
            "Could you count the tasks in the Tasks app that are due next week? The week starts "
            "on Monday. Express your answer as a single integer.",
            "I need the number of to-dos due next week in Tasks, counting the week from Monday. "
            "Answer with a number.",
            "Tasks app, next week (weeks start Monday): number of tasks due? Answer with a number.",
            "Next week looks busy: in the Tasks app, how many tasks are due then, with the week "
            "starting on Monday? Express your answer as a single integer.",
            "Hey, how many to-dos are due next week in my Tasks app? Count the week from Monday. "
            "Answer with a number.",
            "To plan ahead, count the tasks in the Tasks app due next week, taking Monday as the "
            "first day. Express your answer as a single integer.",
            "Would you mind telling me the number of tasks due next week in Tasks, with weeks "
            "beginning on Monday? Answer with a number.",
            "What's the count of tasks in the Tasks app due during next week (a Monday-to-Sunday "
            "week)? Answer with a number.",
            "Let's count next week's due tasks in the Tasks app; the week begins on Monday. "
            "Express your answer as a single integer.",
            "Number of Tasks app tasks due next week, weeks starting Monday? Answer with a number.",
            "How many tasks fall due next week, Monday through Sunday, in Tasks? Give a single "
            "integer.",
        ),
        sample=_next_week,
        setup=lambda p: {"todo_tasks": p["tasks"]},
        plan=lambda p: [open_app("Tasks"), done(answer=str(p["count"]))],
        check=lambda s, p, a: same_digits(a, str(p["count"])),
        max_steps=8,
    ),
]

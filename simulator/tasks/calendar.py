"""Calendar: adding and deleting events, and questions about the schedule."""

from __future__ import annotations

import random

from simulator.state import CALENDAR
from simulator.tasks import pools
from simulator.tasks.app_steps import same_titles
from simulator.tasks.base import (
    Params,
    Task,
    add_event_steps,
    alarm_time,
    combine,
    done,
    generated,
    named,
    normalize_text,
    open_calendar,
    same_digits,
    same_text,
    same_time,
    tap,
)

# Days after today (Tuesday, October 15 2024) that goals name, as they name them.
DAYS = {
    "2024-10-16": "Wednesday, October 16",
    "2024-10-17": "Thursday, October 17",
    "2024-10-18": "Friday, October 18",
}
TITLE = generated(pools.event_title, "title")


def week_of_events(rng: random.Random) -> Params:
    """Two or three events on the asked day, and one on each of the others."""
    day = rng.choice(list(DAYS))
    count = rng.randrange(2, 4)
    titles = pools.distinct(rng, pools.event_title, count + len(DAYS) - 1)
    times = sorted(pools.distinct_times(rng, count, avoid=("09:00",)))
    on_day = [
        {"title": title, "date": day, "time": hhmm}
        for title, hhmm in zip(titles[:count], times, strict=True)
    ]
    others = [
        {"title": title, "date": other, "time": "09:00"}
        for title, other in zip(titles[count:], [d for d in DAYS if d != day], strict=False)
    ]
    return {"date": day, "day": DAYS[day], "events": on_day + others}


def titles_on(p: Params) -> list[str]:
    return [event["title"] for event in p["events"] if event["date"] == p["date"]]


def next_event(rng: random.Random) -> Params:
    """Today's events: one already over (it is 9:41), the next one, and a later one."""
    past, upcoming, later = pools.distinct(rng, pools.event_title, 3)
    minute = rng.randrange(9 * 60 + 45, 17 * 60 + 30)  # after it is 9:41, before the later one
    start = f"{minute // 60:02d}:{minute % 60:02d}"
    return {
        "title": upcoming,
        "events": [
            {"title": past, "date": "2024-10-15", "time": "08:00"},
            {"title": later, "date": "2024-10-15", "time": "17:45"},
            {"title": upcoming, "date": "2024-10-15", "time": start},
        ],
    }


def maybe_events_on_day(rng: random.Random) -> Params:
    day = rng.choice(list(DAYS))
    busy = rng.random() < 0.5
    events = [
        {"title": title, "date": date, "time": "11:00"}
        for title, date in zip(pools.distinct(rng, pools.event_title, len(DAYS)), DAYS, strict=True)
        if date != day or busy
    ]
    return {"date": day, "day": DAYS[day], "busy": busy, "events": events}


def yes_or_no(given: str | None, expected: bool) -> bool:
    if given is None:
        return False
    words = normalize_text(given).replace(",", " ").split()
    return bool(words) and words[0] == ("yes" if expected else "no")


TASKS: list[Task] = [
    Task(
        name="SimpleCalendarAddOneEvent",
        app=CALENDAR,
        family="calendar",
        sample=combine(TITLE, alarm_time),
        plan=lambda p: [*open_calendar(), *add_event_steps(p["title"], p["hhmm"]), done()],
        check=lambda s, p, a: any(
            normalize_text(e["title"]) == normalize_text(p["title"])
            and e["time"] == p["hhmm"]
            and e["date"] == s["date"]
            for e in s["events"]
        ),
        changes=lambda p: {"events": named("title", p["title"])},
        max_steps=16,
    ),
    Task(
        name="SimpleCalendarDeleteOneEvent",
        app=CALENDAR,
        family="calendar",
        sample=TITLE,
        setup=lambda p: {
            "events": [
                {"title": p["title"], "date": "2024-10-15", "time": "15:00"},
                {"title": "Flight to Oslo", "date": "2024-10-17", "time": "08:10"},
            ]
        },
        plan=lambda p: [
            *open_calendar(),
            tap(p["title"]),
            tap("Delete event"),
            tap("Delete"),
            done(),
        ],
        check=lambda s, p, a: [e["title"] for e in s["events"]] == ["Flight to Oslo"],
        changes=lambda p: {"events": named("title", p["title"])},
        max_steps=10,
    ),
    Task(
        name="SimpleCalendarEventTime",
        app=CALENDAR,
        family="question",
        sample=combine(TITLE, alarm_time),
        setup=lambda p: {
            "events": [
                {"title": p["title"], "date": "2024-10-17", "time": p["hhmm"]},
                {"title": "Standup", "date": "2024-10-15", "time": "09:30"},
            ]
        },
        # read beside the event's title: a new event's form shows a start time too
        plan=lambda p: [*open_calendar(), done(answer=p["time"], near=p["title"])],
        check=lambda s, p, a: same_time(a, p["hhmm"]),
        max_steps=8,
    ),
    Task(
        name="SimpleCalendarEventCount",
        app=CALENDAR,
        family="question",
        sample=lambda rng: {"count": rng.randrange(1, 4)},
        setup=lambda p: {
            "events": [
                {"title": f"Meeting {i + 1}", "date": "2024-10-15", "time": f"1{i}:00"}
                for i in range(p["count"])
            ]
            + [{"title": "Dinner", "date": "2024-10-16", "time": "19:00"}]
        },
        plan=lambda p: [*open_calendar(), done(answer=str(p["count"]))],
        check=lambda s, p, a: same_digits(a, str(p["count"])),
        max_steps=8,
    ),
    Task(
        name="SimpleCalendarEventsOnDate",
        app=CALENDAR,
        family="question",
        sample=week_of_events,
        setup=lambda p: {"events": p["events"]},
        plan=lambda p: [*open_calendar(), done(answer=", ".join(titles_on(p)))],
        check=lambda s, p, a: same_titles(a, titles_on(p)),
        max_steps=8,
    ),
    Task(
        name="SimpleCalendarNextEvent",
        app=CALENDAR,
        family="question",
        sample=next_event,
        setup=lambda p: {"events": p["events"]},
        plan=lambda p: [*open_calendar(), done(answer=p["title"])],
        check=lambda s, p, a: same_text(a, p["title"]),
        max_steps=8,
    ),
    Task(
        name="SimpleCalendarAnyEventsOnDate",
        app=CALENDAR,
        family="question",
        sample=maybe_events_on_day,
        setup=lambda p: {"events": p["events"]},
        plan=lambda p: [*open_calendar(), done(answer="yes" if p["busy"] else "no")],
        check=lambda s, p, a: yes_or_no(a, p["busy"]),
        max_steps=8,
    ),
    Task(
        name="SimpleCalendarDeleteEventsOnDate",
        app=CALENDAR,
        family="calendar",
        sample=week_of_events,
        setup=lambda p: {"events": p["events"]},
        plan=lambda p: [
            *open_calendar(),
            *[
                step
                for title in titles_on(p)
                for step in (tap(title), tap("Delete event"), tap("Delete"))
            ],
            done(),
        ],
        check=lambda s, p, a: (
            sorted(e["title"] for e in s["events"])
            == sorted(e["title"] for e in p["events"] if e["date"] != p["date"])
        ),
        changes=lambda p: {"events": named("title", *titles_on(p))},
        max_steps=16,
    ),
]

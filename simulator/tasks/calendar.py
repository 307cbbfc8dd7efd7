"""Calendar: adding and deleting events, and questions about the schedule."""

from __future__ import annotations

from simulator.state import CALENDAR
from simulator.tasks.base import (
    EVENTS,
    Task,
    add_event_steps,
    alarm_time,
    combine,
    done,
    normalize_text,
    open_calendar,
    pick,
    same_digits,
    same_time,
    tap,
)

TASKS: list[Task] = [
    Task(
        name="SimpleCalendarAddOneEvent",
        app=CALENDAR,
        family="calendar",
        templates=(
            'Create a calendar event "{title}" today at {time}.',
            'Add "{title}" to my calendar for {time} today.',
            'Put an event called "{title}" in today\'s schedule at {time}.',
        ),
        sample=combine(pick(EVENTS, "title"), alarm_time),
        plan=lambda p: [*open_calendar(), *add_event_steps(p["title"], p["hhmm"]), done()],
        check=lambda s, p, a: any(
            normalize_text(e["title"]) == normalize_text(p["title"])
            and e["time"] == p["hhmm"]
            and e["date"] == s["date"]
            for e in s["events"]
        ),
        max_steps=16,
    ),
    Task(
        name="SimpleCalendarDeleteOneEvent",
        app=CALENDAR,
        family="calendar",
        templates=(
            'Delete the event "{title}" from my calendar.',
            'Remove "{title}" from the calendar.',
            'Cancel my "{title}" event and delete it from the calendar.',
        ),
        sample=pick(EVENTS, "title"),
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
        max_steps=10,
    ),
    Task(
        name="SimpleCalendarEventTime",
        app=CALENDAR,
        family="question",
        templates=(
            'At what time does "{title}" start on Thursday?',
            'When on Thursday is "{title}"?',
            'What is the start time of Thursday\'s "{title}" event?',
        ),
        sample=combine(pick(EVENTS, "title"), alarm_time),
        setup=lambda p: {
            "events": [
                {"title": p["title"], "date": "2024-10-17", "time": p["hhmm"]},
                {"title": "Standup", "date": "2024-10-15", "time": "09:30"},
            ]
        },
        plan=lambda p: [*open_calendar(), done(answer=p["time"])],
        check=lambda s, p, a: same_time(a, p["hhmm"]),
        max_steps=8,
    ),
    Task(
        name="SimpleCalendarEventCount",
        app=CALENDAR,
        family="question",
        templates=(
            "How many events do I have today?",
            "Count today's events in my calendar.",
            "How busy is today: how many calendar events are there?",
        ),
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
]

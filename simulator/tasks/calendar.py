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
        templates=(
            'Create a calendar event "{title}" today at {time}.',
            'Add "{title}" to my calendar for {time} today.',
            'Could you schedule "{title}" for today at {time}?',
            'In Calendar, make a new event named "{title}" at {time} today.',
            'I have "{title}" at {time} today, so please save it as an event.',
            'New event today at {time}: "{title}".',
            'Hey, can you pop "{title}" into my calendar at {time} today real quick?',
            'Before I forget: I\'ve got "{title}" at {time} today, so add it to the calendar.',
            'Would you mind creating a "{title}" event in Calendar for {time} today?',
            'My calendar should end up with an event "{title}" today at {time}.',
            'Open Calendar, then add an event titled "{title}" for {time} today.',
            'Let\'s book "{title}" on the calendar for today, starting at {time}.',
            'Put an event called "{title}" in today\'s schedule at {time}.',
        ),
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
        templates=(
            'Delete the event "{title}" from my calendar.',
            'Remove "{title}" from the calendar.',
            'Could you erase the "{title}" event from my calendar?',
            'In Calendar, get rid of "{title}".',
            'I no longer need "{title}" in my calendar, so please delete that event.',
            '"{title}" should be removed from my calendar.',
            'Hey, could you quickly delete "{title}" from my calendar?',
            'Plans changed: "{title}" has to be deleted from my calendar.',
            'Would you please delete the calendar event "{title}" for me?',
            'Open Calendar, find "{title}", then delete that event.',
            'It would help if "{title}" were deleted from my calendar.',
            'Let\'s clear "{title}" out of the calendar.',
            'Cancel my "{title}" event and delete it from the calendar.',
        ),
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
        templates=(
            'At what time does "{title}" start on Thursday?',
            'When on Thursday is "{title}"?',
            'Could you check my calendar and tell me when "{title}" starts on Thursday?',
            'In Calendar, find Thursday\'s "{title}" event and give me its starting time.',
            'I need to know the time "{title}" begins on Thursday.',
            '"{title}" on Thursday: what time does it begin?',
            'Quick question: what time is "{title}" on Thursday?',
            'Before I plan my Thursday, I\'d like to know when "{title}" kicks off.',
            'Would you look up "{title}" on Thursday in Calendar and tell me what time it starts?',
            'Open Calendar, go to Thursday, then read me the time "{title}" is set for.',
            'Thursday, "{title}": starting time?',
            'It would help if you could find out when "{title}" starts on Thursday.',
            'What is the start time of Thursday\'s "{title}" event?',
        ),
        sample=combine(TITLE, alarm_time),
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
            "Could you count the events in my calendar for today?",
            "Tell me the number of events I have scheduled today.",
            "In Calendar, check how many events today has.",
            "Today's calendar: number of events?",
            "Hey, how many events have I got today?",
            "Before I start my day, I'd like to know how many events are on today's calendar.",
            "Would you open Calendar and count how many events I have for today?",
            "What's the total number of events in my calendar today?",
            "Open Calendar, then tell me how many events are scheduled for today.",
            "Today's event count in Calendar, please.",
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
    Task(
        name="SimpleCalendarEventsOnDate",
        app=CALENDAR,
        family="question",
        templates=(
            "What events do I have on {day}? Answer with their titles.",
            "List the titles of my calendar events on {day}.",
            "Could you tell me what is scheduled on {day}? Answer with their titles.",
            "In Calendar, look at {day} and name every event on it. Answer with their titles.",
            "I'm planning {day}; what's already on my schedule? Answer with their titles.",
            "Event titles for {day} from my calendar, please.",
            "Hey, what's on my calendar for {day}? Answer with their titles.",
            "Before I book anything on {day}, tell me the titles of the events I already have "
            "that day.",
            "Would you mind listing every event title in my calendar on {day}?",
            "Open Calendar, go to {day}, then read me the titles of all its events.",
            "It would help to know what I've got planned on {day}. Answer with their titles.",
            "Let's see what {day} holds in my calendar. Answer with their titles.",
            "Which events are in my calendar for {day}? Give just the titles.",
        ),
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
        templates=(
            "What is my next event today? Answer with its title.",
            "Which calendar event comes up next?",
            "Could you check what's coming up next on today's calendar? Answer with its title.",
            "In Calendar, find the upcoming event for today. Answer with its title.",
            "I need to know which event I have next today. Answer with its title.",
            "Next event today: title?",
            "Hey, what's up next on my calendar today? Answer with its title.",
            "Before I head out, I'd like to know which event is coming next today. Answer with "
            "its title.",
            "Would you check which of today's calendar events happens next? Answer with its title.",
            "Open Calendar, then name the event I have coming up next today.",
            "What do I have coming up next in Calendar today? Answer with its title.",
            "Upcoming calendar event for today: what is it called?",
            "Tell me the title of the next event in my calendar.",
        ),
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
        templates=(
            "Do I have any events on {day}? Answer yes or no.",
            "Is there anything in my calendar on {day}? Yes or no.",
            "Could you check whether my calendar has something scheduled on {day}? "
            "Answer yes or no.",
            "In Calendar, look at {day}: is any event planned? Answer yes or no.",
            "I need to know if there are events on {day}. Answer yes or no.",
            "{day} calendar: any events scheduled? Answer yes or no.",
            "Hey, is anything booked on {day} in my calendar? Answer yes or no.",
            "Before I make plans for {day}, tell me if my calendar already has an event then. "
            "Answer yes or no.",
            "Would you look at my calendar and see whether {day} has any events? Answer yes or no.",
            "Open Calendar, go to {day}, then say whether there is at least one event. Answer yes "
            "or no.",
            "We need to know whether my calendar shows events on {day}. Answer yes or no.",
            "Any calendar events for {day}, yes or no?",
            "Am I free on {day}, with no calendar events at all? Answer yes if I have events, "
            "no if I have none.",
        ),
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
        templates=(
            "Delete all events on {day} from my calendar.",
            "Clear my calendar for {day}: remove every event that day.",
            "Could you erase every event I have on {day}?",
            "In Calendar, get rid of all the events on {day}.",
            "I'm taking {day} off, so please delete everything in my calendar for that day.",
            "{day}: delete all calendar events.",
            "Hey, can you clear out all my calendar events for {day}?",
            "Plans for {day} fell through, so every event on that day has to be deleted from my "
            "calendar.",
            "Would you delete everything on {day} in Calendar for me?",
            "Open Calendar, go to {day}, then delete its events one by one until none are left.",
            "My calendar should end up with nothing left on {day} once its events are deleted.",
            "Let's empty {day} in the calendar: delete all of its events.",
            "Remove each event scheduled on {day}; keep the other days.",
        ),
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

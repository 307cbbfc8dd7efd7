"""Tasks that carry information from one app into another."""

from __future__ import annotations

from simulator.state import CALENDAR, CONTACTS, MESSAGES, SETTINGS
from simulator.tasks import pools
from simulator.tasks.base import (
    Task,
    add_contact_steps,
    add_event_steps,
    alarm_matches,
    alarm_time,
    allow_notifications,
    combine,
    done,
    generated,
    has_contact,
    named,
    open_app,
    open_calendar,
    open_messages,
    person,
    remember,
    same_digits,
    same_time,
    send_text_steps,
    sent,
    sent_to,
    set_alarm_steps,
    tap,
    the_alarm,
    type_in,
    with_person,
)
from simulator.tasks.settings import SETTINGS_PATHS

TASKS: list[Task] = [
    Task(
        name="ContactsAddContactAndSms",
        app=CONTACTS,
        family="multi_app",
        sample=combine(person, generated(pools.message_text, "text")),
        plan=lambda p: [
            open_app("Contacts"),
            *add_contact_steps(p["first"], p["last"], p["phone"]),
            tap("Text"),
            allow_notifications(),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: (
            has_contact(s, p["name"], p["phone"]) and sent(s, p["name"], p["text"])
        ),
        changes=lambda p: {"contacts": named("name", p["name"]), "messages": sent_to(p["name"])},
        max_steps=18,
    ),
    Task(
        name="ClockAlarmFromSms",
        app=MESSAGES,
        family="multi_app",
        sample=alarm_time,
        setup=lambda p: {
            "inbox": [{"from": "Alice Martin", "text": f"Can you set an alarm for {p['time']}?"}]
        },
        plan=lambda p: [
            *open_messages(),
            tap("Alice Martin"),
            remember(p["time"], f"alarm time {p['time']}"),
            open_app("Clock"),
            *set_alarm_steps(p["hhmm"]),
            done(),
        ],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True),
        changes=the_alarm,
        max_steps=16,
    ),
    Task(
        name="SimpleSmsSendContactNumber",
        app=MESSAGES,
        family="multi_app",
        sample=person,
        setup=with_person,
        plan=lambda p: [
            open_app("Contacts"),
            tap(p["name"]),
            remember(p["phone"], f"{p['name']}'s number {p['phone']}"),
            *open_messages(),
            *send_text_steps("Bob Chen", p["phone"]),
            done(),
        ],
        check=lambda s, p, a: any(
            m["to"] == "Bob Chen" and same_digits(m["text"], p["phone"]) for m in s["messages"]
        ),
        changes=lambda p: {"messages": sent_to("Bob Chen")},
        max_steps=16,
    ),
    Task(
        name="TurnOnDarkThemeAndSetAlarm",
        app=SETTINGS,
        family="multi_app",
        sample=alarm_time,
        plan=lambda p: [
            open_app("Settings"),
            *SETTINGS_PATHS["dark_theme"],
            open_app("Clock"),
            *set_alarm_steps(p["hhmm"]),
            done(),
        ],
        check=lambda s, p, a: s["dark_theme"] is True and alarm_matches(s, p["hhmm"], enabled=True),
        changes=lambda p: {"dark_theme": None, **the_alarm(p)},
        max_steps=16,
    ),
    Task(
        name="SimpleCalendarAddEventWithContactNumber",
        app=CALENDAR,
        family="multi_app",
        sample=alarm_time,
        plan=lambda p: [
            open_app("Contacts"),
            tap("Carmen López"),
            remember("+34 612 345 678", "Carmen López's number +34 612 345 678"),
            *open_calendar(),
            *add_event_steps("Call +34 612 345 678", p["hhmm"]),
            done(),
        ],
        check=lambda s, p, a: any(
            e["title"].startswith("Call")
            and same_digits(e["title"], "+34 612 345 678")
            and e["time"] == p["hhmm"]
            for e in s["events"]
        ),
        changes=lambda p: {"events": named("time", p["hhmm"])},
        max_steps=18,
    ),
    Task(
        name="ContactsAddContactFromSms",
        app=CONTACTS,
        family="multi_app",
        sample=person,
        setup=lambda p: {
            "inbox": [{"from": "Bob Chen", "text": f"{p['name']}'s number is {p['phone']}"}]
        },
        plan=lambda p: [
            *open_messages(),
            tap("Bob Chen"),
            remember(p["phone"], f"{p['name']}'s number {p['phone']}"),
            open_app("Contacts"),
            *add_contact_steps(p["first"], p["last"], p["phone"]),
            done(),
        ],
        check=lambda s, p, a: has_contact(s, p["name"], p["phone"]),
        changes=lambda p: {"contacts": named("name", p["name"])},
        max_steps=14,
    ),
    Task(
        name="SimpleSmsSendEventTime",
        app=MESSAGES,
        family="multi_app",
        sample=combine(generated(pools.event_title, "title"), alarm_time),
        setup=lambda p: {
            "events": [
                {"title": p["title"], "date": "2024-10-15", "time": p["hhmm"]},
                {"title": "Dinner", "date": "2024-10-16", "time": "19:00"},
            ]
        },
        plan=lambda p: [
            *open_calendar(),
            remember(p["title"], f'"{p["title"]}" starts at {p["time"]}'),
            *open_messages(),
            *send_text_steps("Alice Martin", p["time"]),
            done(),
        ],
        check=lambda s, p, a: any(
            m["to"] == "Alice Martin" and same_time(m["text"], p["hhmm"]) for m in s["messages"]
        ),
        changes=lambda p: {"messages": sent_to("Alice Martin")},
        max_steps=14,
    ),
]

"""Clock: alarms, added, labelled, switched, deleted and asked about."""

from __future__ import annotations

from simulator.state import CLOCK
from simulator.tasks.base import (
    LABELS,
    Task,
    alarm_matches,
    alarm_time,
    combine,
    done,
    open_app,
    pick,
    same_time,
    set_alarm_steps,
    tap,
    type_in,
)

TASKS: list[Task] = [
    Task(
        name="ClockAlarmAdd",
        app=CLOCK,
        family="alarm",
        templates=(
            "Set an alarm for {time}.",
            "Wake me up at {time}: add an alarm.",
            "Create a new alarm at {time}.",
        ),
        sample=alarm_time,
        plan=lambda p: [open_app("Clock"), *set_alarm_steps(p["hhmm"]), done()],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True),
        max_steps=12,
    ),
    Task(
        name="ClockAlarmAddWithLabel",
        app=CLOCK,
        family="alarm",
        templates=(
            'Set an alarm for {time} with the label "{label}".',
            'Add a {time} alarm labelled "{label}".',
            'I need an alarm called "{label}" at {time}.',
        ),
        sample=combine(alarm_time, pick(LABELS, "label")),
        plan=lambda p: [
            open_app("Clock"),
            *set_alarm_steps(p["hhmm"]),
            tap("Add label"),
            type_in(None, p["label"]),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True, label=p["label"]),
        max_steps=15,
    ),
    Task(
        name="ClockAlarmTurnOff",
        app=CLOCK,
        family="alarm",
        templates=(
            "Turn off the {time} alarm.",
            "Switch off my {time} alarm, but keep it.",
            "Disable the alarm set for {time}.",
        ),
        sample=alarm_time,
        setup=lambda p: {
            "alarms": [
                {"time": p["hhmm"], "enabled": True, "label": ""},
                {"time": "23:55", "enabled": True, "label": "Late"},
            ]
        },
        plan=lambda p: [open_app("Clock"), tap(f"{p['time']} alarm"), done()],
        check=lambda s, p, a: (
            alarm_matches(s, p["hhmm"], enabled=False) and alarm_matches(s, "23:55", enabled=True)
        ),
        max_steps=8,
    ),
    Task(
        name="ClockAlarmTurnOn",
        app=CLOCK,
        family="alarm",
        templates=(
            "Switch on my {time} alarm.",
            "Turn the {time} alarm back on.",
            "Enable the alarm at {time}.",
        ),
        sample=alarm_time,
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": False, "label": ""}]},
        plan=lambda p: [open_app("Clock"), tap(f"{p['time']} alarm"), done()],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True),
        max_steps=8,
    ),
    Task(
        name="ClockAlarmDelete",
        app=CLOCK,
        family="alarm",
        templates=(
            "Delete the {time} alarm and keep the others.",
            "Remove my {time} alarm; leave the other alarms alone.",
            "Get rid of the alarm at {time}, only that one.",
        ),
        sample=alarm_time,
        setup=lambda p: {
            "alarms": [
                {"time": "04:00", "enabled": False, "label": ""},
                {"time": p["hhmm"], "enabled": True, "label": ""},
                {"time": "23:55", "enabled": True, "label": ""},
            ]
        },
        plan=lambda p: [
            open_app("Clock"),
            tap("Expand alarm", near=p["time"]),
            tap("Delete"),
            done(),
        ],
        check=lambda s, p, a: not alarm_matches(s, p["hhmm"]) and len(s["alarms"]) == 2,
        max_steps=10,
    ),
    Task(
        name="ClockAlarmTurnOffVerify",
        app=CLOCK,
        family="already_done",
        templates=(
            "Make sure the {time} alarm is off.",
            "Check that my {time} alarm is switched off.",
            "The {time} alarm must not ring. See to it.",
        ),
        sample=alarm_time,
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": False, "label": ""}]},
        plan=lambda p: [done()],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=False),
        max_steps=6,
    ),
    Task(
        name="ClockAlarmTime",
        app=CLOCK,
        family="question",
        templates=(
            'At what time is my "{label}" alarm set?',
            'When does the alarm labelled "{label}" go off?',
            'Tell me the time of the "{label}" alarm.',
        ),
        sample=combine(alarm_time, pick(LABELS, "label")),
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": True, "label": p["label"]}]},
        plan=lambda p: [open_app("Clock"), done(answer=p["time"])],
        check=lambda s, p, a: same_time(a, p["hhmm"]),
        max_steps=8,
    ),
]

"""Clock: alarms, added, labelled, switched, deleted and asked about."""

from __future__ import annotations

import random

from simulator.state import CLOCK
from simulator.tasks import pools
from simulator.tasks.base import (
    SCENERY_TIMES,
    Params,
    Task,
    alarm_matches,
    alarm_time,
    combine,
    done,
    generated,
    named,
    open_app,
    same_digits,
    same_text,
    same_time,
    set_alarm_steps,
    tap,
    the_alarm,
    time_input_steps,
    twelve_hour,
    type_in,
)


def two_alarm_times(rng: random.Random) -> Params:
    """An alarm's time and another one to move it to."""
    old, new = pools.distinct_times(rng, 2, avoid=SCENERY_TIMES)
    return {"hhmm": old, "time": twelve_hour(old), "new_hhmm": new, "new_time": twelve_hour(new)}


def some_alarms(rng: random.Random) -> Params:
    """Three or four alarms at different times, at least one of them on."""
    times = sorted(pools.distinct_times(rng, rng.randrange(3, 5)))
    enabled = [rng.random() < 0.5 for _ in times]
    enabled[rng.randrange(len(times))] = True
    return {
        "alarms": [
            {"time": hhmm, "enabled": on, "label": ""}
            for hhmm, on in zip(times, enabled, strict=True)
        ]
    }


def labelled_alarms(rng: random.Random) -> Params:
    """Two labelled alarms; the question is about the first."""
    first, second = pools.distinct_times(rng, 2)
    label, other = pools.distinct(rng, pools.alarm_label, 2)
    return {"hhmm": first, "time": twelve_hour(first), "label": label, "other": (second, other)}


TASKS: list[Task] = [
    Task(
        name="ClockAlarmAdd",
        app=CLOCK,
        family="alarm",
        sample=alarm_time,
        plan=lambda p: [open_app("Clock"), *set_alarm_steps(p["hhmm"]), done()],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True),
        changes=the_alarm,
        max_steps=12,
    ),
    Task(
        name="ClockAlarmAddWithLabel",
        app=CLOCK,
        family="alarm",
        sample=combine(alarm_time, generated(pools.alarm_label, "label")),
        plan=lambda p: [
            open_app("Clock"),
            *set_alarm_steps(p["hhmm"]),
            tap("Add label"),
            type_in(None, p["label"]),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True, label=p["label"]),
        changes=the_alarm,
        max_steps=15,
    ),
    Task(
        name="ClockAlarmTurnOff",
        app=CLOCK,
        family="alarm",
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
        changes=the_alarm,
        max_steps=8,
    ),
    Task(
        name="ClockAlarmTurnOn",
        app=CLOCK,
        family="alarm",
        sample=alarm_time,
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": False, "label": ""}]},
        plan=lambda p: [open_app("Clock"), tap(f"{p['time']} alarm"), done()],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True),
        changes=the_alarm,
        max_steps=8,
    ),
    Task(
        name="ClockAlarmDelete",
        app=CLOCK,
        family="alarm",
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
        changes=the_alarm,
        max_steps=10,
    ),
    Task(
        name="ClockAlarmTurnOffVerify",
        app=CLOCK,
        family="already_done",
        sample=alarm_time,
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": False, "label": ""}]},
        # already off, but only a look at the alarm says so
        plan=lambda p: [open_app("Clock"), tap("Expand alarm", near=p["time"]), done()],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=False),
        max_steps=6,
    ),
    Task(
        name="ClockAlarmTime",
        app=CLOCK,
        family="question",
        sample=combine(alarm_time, generated(pools.alarm_label, "label")),
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": True, "label": p["label"]}]},
        plan=lambda p: [open_app("Clock"), done(answer=p["time"])],
        check=lambda s, p, a: same_time(a, p["hhmm"]),
        max_steps=8,
    ),
    Task(
        name="ClockAlarmChangeTime",
        app=CLOCK,
        family="alarm",
        sample=two_alarm_times,
        setup=lambda p: {
            "alarms": [
                {"time": p["hhmm"], "enabled": True, "label": ""},
                {"time": "23:55", "enabled": True, "label": "Late"},
            ]
        },
        plan=lambda p: [
            open_app("Clock"),
            tap(p["time"]),
            *time_input_steps(p["new_hhmm"]),
            done(),
        ],
        check=lambda s, p, a: (
            alarm_matches(s, p["new_hhmm"], enabled=True)
            and not alarm_matches(s, p["hhmm"])
            and alarm_matches(s, "23:55", enabled=True, label="Late")
            and len(s["alarms"]) == 2
        ),
        changes=lambda p: {"alarms": named("time", p["hhmm"], p["new_hhmm"])},
        max_steps=12,
    ),
    Task(
        name="ClockAlarmAddLabel",
        app=CLOCK,
        family="alarm",
        sample=combine(alarm_time, generated(pools.alarm_label, "label")),
        setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": True, "label": ""}]},
        plan=lambda p: [
            open_app("Clock"),
            tap("Expand alarm", near=p["time"]),
            tap("Add label"),
            type_in(None, p["label"]),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True, label=p["label"]),
        changes=the_alarm,
        max_steps=10,
    ),
    Task(
        name="ClockAlarmLabel",
        app=CLOCK,
        family="question",
        sample=labelled_alarms,
        setup=lambda p: {
            "alarms": [
                {"time": p["hhmm"], "enabled": True, "label": p["label"]},
                {"time": p["other"][0], "enabled": True, "label": p["other"][1]},
            ]
        },
        plan=lambda p: [open_app("Clock"), done(answer=p["label"])],
        check=lambda s, p, a: same_text(a, p["label"]),
        max_steps=8,
    ),
    Task(
        name="ClockAlarmCountEnabled",
        app=CLOCK,
        family="question",
        sample=some_alarms,
        setup=lambda p: {"alarms": p["alarms"]},
        plan=lambda p: [
            open_app("Clock"),
            done(answer=str(sum(alarm["enabled"] for alarm in p["alarms"]))),
        ],
        check=lambda s, p, a: same_digits(a, str(sum(alarm["enabled"] for alarm in p["alarms"]))),
        max_steps=8,
    ),
    Task(
        name="ClockAlarmTurnOffAll",
        app=CLOCK,
        family="alarm",
        sample=some_alarms,
        setup=lambda p: {"alarms": p["alarms"]},
        plan=lambda p: [
            open_app("Clock"),
            *[
                tap(f"{twelve_hour(alarm['time'])} alarm")
                for alarm in p["alarms"]
                if alarm["enabled"]
            ],
            done(),
        ],
        check=lambda s, p, a: (
            len(s["alarms"]) == len(p["alarms"]) and not any(x["enabled"] for x in s["alarms"])
        ),
        changes=lambda p: {"alarms": named("time", *(alarm["time"] for alarm in p["alarms"]))},
        max_steps=10,
    ),
]

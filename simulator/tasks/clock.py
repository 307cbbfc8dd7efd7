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
        templates=(
            "Set an alarm for {time}.",
            "Wake me up at {time}: add an alarm.",
            "Could you add an alarm for {time}?",
            "In Clock, put in an alarm for {time}.",
            "Alarm for {time}, please.",
            "I have to be up by {time} tomorrow, so please set an alarm.",
            "Hey, can you set me an alarm for {time} real quick?",
            "So I don't miss it, please schedule an alarm for {time}.",
            "Would you mind setting up an alarm that rings at {time}?",
            "It would help to have an alarm going off at {time}.",
            "There should be a {time} alarm in Clock when you're done.",
            "Open Clock, then add a {time} alarm.",
            "Create a new alarm at {time}.",
        ),
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
        templates=(
            'Set an alarm for {time} with the label "{label}".',
            'Add a {time} alarm labelled "{label}".',
            'Could you set a {time} alarm with "{label}" as its label?',
            'In Clock, make a {time} alarm whose label is "{label}".',
            'New alarm: {time}, label "{label}".',
            'Please add an alarm at {time} and label it "{label}" so I know what it is for.',
            'Hey, set up a {time} alarm and name it "{label}", would you?',
            'Before I forget, put a {time} alarm in Clock and tag it "{label}".',
            'Would you mind adding an alarm at {time} that carries the label "{label}"?',
            'It would be great if a {time} alarm with the label "{label}" were set.',
            'To do in Clock: {time} alarm, labelled "{label}".',
            'Add an alarm for {time}, then give it the label "{label}".',
            'I need an alarm called "{label}" at {time}.',
        ),
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
        templates=(
            "Turn off the {time} alarm.",
            "Switch off my {time} alarm, but keep it.",
            "Could you switch my {time} alarm off?",
            "In Clock, flip the switch of the {time} alarm to off.",
            "{time} alarm: off.",
            "I won't need the {time} alarm this week, so turn it off but keep it in the list.",
            "Hey, can you switch the {time} alarm off real quick? Don't delete it.",
            "Since I'm off work tomorrow, turn off my {time} alarm but leave it in Clock.",
            "Would you mind silencing the {time} alarm by turning its switch off?",
            "The {time} alarm should end up switched off but still saved.",
            "Let's turn off the {time} alarm; it can stay in the list.",
            "Open Clock, find the {time} alarm, then toggle it off.",
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
        changes=the_alarm,
        max_steps=8,
    ),
    Task(
        name="ClockAlarmTurnOn",
        app=CLOCK,
        family="alarm",
        templates=(
            "Switch on my {time} alarm.",
            "Turn the {time} alarm back on.",
            "Could you turn on the {time} alarm?",
            "In Clock, flip the switch of my {time} alarm to on.",
            "{time} alarm: on.",
            "I need my {time} alarm to ring again, so please switch it on.",
            "Hey, can you turn my {time} alarm on real quick?",
            "Because I have work again tomorrow, reactivate the {time} alarm.",
            "Would you mind activating my {time} alarm?",
            "The {time} alarm should end up switched on.",
            "{time} alarm needs to be on.",
            "Open Clock and then toggle the {time} alarm on.",
            "Enable the alarm at {time}.",
        ),
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
        templates=(
            "Delete the {time} alarm and keep the others.",
            "Remove my {time} alarm; leave the other alarms alone.",
            "Could you delete my {time} alarm? Keep all the other alarms.",
            "In Clock, remove the {time} alarm and nothing else.",
            "{time} alarm: delete it, leave the rest.",
            "I no longer use the {time} alarm, so please erase it but keep every other alarm.",
            "Hey, can you delete my {time} alarm real quick? The other alarms stay.",
            "Since my schedule changed, remove the {time} alarm but leave the others untouched.",
            "Would you mind having the {time} alarm deleted, without touching any other alarm?",
            "The {time} alarm should be deleted, while every other alarm stays as it is.",
            "Delete: {time} alarm. Keep: all others.",
            "Open Clock, then erase just the {time} alarm.",
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
        changes=the_alarm,
        max_steps=10,
    ),
    Task(
        name="ClockAlarmTurnOffVerify",
        app=CLOCK,
        family="already_done",
        templates=(
            "Make sure the {time} alarm is off.",
            "Check that my {time} alarm is switched off.",
            "Could you ensure my {time} alarm is turned off?",
            "In Clock, confirm that the {time} alarm is disabled.",
            "{time} alarm: it should be off.",
            "I want to sleep in tomorrow, so I need the {time} alarm to be off.",
            "Hey, can you double-check that my {time} alarm is off?",
            "Before I go to bed, verify the {time} alarm is switched off; turn it off if it isn't.",
            "Would you mind confirming my {time} alarm is off?",
            "The {time} alarm should end up off; if it already is, leave it.",
            "Check: {time} alarm off.",
            "Open Clock and look at the {time} alarm; if it's on, then switch it off.",
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
            'What time does my "{label}" alarm ring?',
            'In Clock, find the alarm labelled "{label}" and say when it is set for.',
            '"{label}" alarm: which time?',
            'I forgot when my "{label}" alarm goes off; could you look up its time?',
            'Hey, what time\'s the "{label}" alarm for?',
            'Before I plan my day, I need to know when the "{label}" alarm is going to go off.',
            'Would you mind checking what time the "{label}" alarm is set to?',
            'It would help to know the time my "{label}" alarm is scheduled for.',
            'Alarm time for "{label}", please.',
            'Open Clock, spot the "{label}" alarm and report its time.',
            'Tell me the time of the "{label}" alarm.',
        ),
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
        templates=(
            "Change my {time} alarm to {new_time}.",
            "Move the {time} alarm to {new_time}.",
            "Could you reschedule my {time} alarm to {new_time}?",
            "In Clock, edit the {time} alarm so it goes off at {new_time}.",
            "Alarm {time}: make it {new_time}.",
            "My plans moved, so please shift the {time} alarm to {new_time}.",
            "Hey, could you set the {time} alarm to {new_time} real quick?",
            "Because tomorrow starts differently, adjust the {time} alarm to {new_time}.",
            "Would you mind changing the {time} alarm so that it's set for {new_time}?",
            "The alarm currently at {time} should end up at {new_time}.",
            "Alarm time change: from {time} to {new_time}.",
            "Open the {time} alarm in Clock, then set its time to {new_time}.",
            "I want the alarm that rings at {time} to ring at {new_time} instead.",
        ),
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
        templates=(
            'Label my {time} alarm "{label}".',
            'Give the {time} alarm the label "{label}".',
            'Could you put the label "{label}" on my {time} alarm?',
            'In Clock, add the label "{label}" to the {time} alarm.',
            '{time} alarm: label it "{label}".',
            'I want to remember what my {time} alarm is for, so please label it "{label}".',
            'Hey, tag my {time} alarm with "{label}", would you?',
            'Before I forget what it\'s for, set the label of the {time} alarm to "{label}".',
            'Would you mind labelling my {time} alarm "{label}"?',
            'The {time} alarm should end up with "{label}" as its label.',
            'Label for the {time} alarm: "{label}".',
            'Open the {time} alarm in Clock, then type "{label}" as its label.',
            'Name the alarm at {time} "{label}".',
        ),
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
        templates=(
            "What is the label of my {time} alarm?",
            "What is the {time} alarm called?",
            "Tell me the label on my {time} alarm.",
            "In Clock, look at the {time} alarm and say what its label is.",
            "{time} alarm: what label?",
            "I forgot what I named the {time} alarm; what does its label say?",
            "Hey, what's the {time} alarm labelled as?",
            "Since I can't recall what the {time} alarm is for, what label is on it?",
            "Would you mind reading me the label of the {time} alarm?",
            "It would help to know the name I gave my {time} alarm.",
            "Label of the {time} alarm?",
            "Open Clock, check the {time} alarm, then report its label.",
            "Which label does the alarm at {time} have?",
        ),
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
        templates=(
            "How many of my alarms are switched on?",
            "Count the alarms that are on.",
            "Could you tell me how many alarms are turned on?",
            "In Clock, count how many alarms have their switch on.",
            "Number of alarms that are on?",
            "I want to know how many of my alarms are active right now; please count them.",
            "Hey, how many alarms have I got turned on right now?",
            "Before I go to sleep, I'd like a count of the alarms that are active.",
            "Would you mind counting my active alarms and telling me the total?",
            "It would help to know how many alarms are set to on right now.",
            "Active alarms: how many?",
            "Open Clock, go through the list, then say how many alarms are on.",
            "How many alarms will ring? Give the number of enabled alarms.",
        ),
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
        templates=(
            "Turn off all my alarms.",
            "Switch every alarm off, without deleting any.",
            "Could you switch off every one of my alarms but keep them all?",
            "In Clock, set the switch of every alarm to off.",
            "All alarms: off. Don't delete any.",
            "I'm on holiday this week, so please turn all of my alarms off without removing any.",
            "Hey, can you shut off all my alarms real quick? Don't delete them.",
            "Since I'm working from home all week, switch off every alarm but keep them saved.",
            "Would you mind turning all the alarms off while leaving them in the list?",
            "Every alarm should end up switched off, and all of them still there.",
            "Alarms: all off, none deleted.",
            "Open Clock, then toggle off every alarm that is on, keeping all of them.",
            "Disable each of my alarms.",
        ),
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

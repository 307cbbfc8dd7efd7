"""Clock: the stopwatch started, paused, reset and read, and the timer set and started."""

from __future__ import annotations

import random
import re

from simulator.apps.clock import entry_parts, stopwatch_text
from simulator.state import CLOCK
from simulator.tasks.base import Params, State, Task, done, keys, open_app, tap, type_in


def _timer(rng: random.Random) -> Params:
    hours, minutes, seconds = rng.randrange(0, 24), rng.randrange(1, 60), rng.randrange(0, 60)
    return {
        "hours": hours,
        "minutes": minutes,
        "seconds": seconds,
        "digits": f"{hours:02d}{minutes:02d}{seconds:02d}",
    }


def _short_timer(rng: random.Random) -> Params:
    # the keypad takes up to 99 minutes before the seconds
    minutes, seconds = rng.randrange(1, 100), rng.randrange(5, 60)
    return {"minutes": minutes, "seconds": seconds, "digits": f"{minutes:02d}{seconds:02d}"}


def _timer_entered(state: State, p: Params) -> bool:
    timer = state["timer"]
    wanted = (p["hours"], p["minutes"], p["seconds"])
    return timer["duration"] == 0 and entry_parts(timer["entry"]) == wanted


def _seconds_said(answer: str | None) -> int | None:
    """Seconds in "2:05", "0:02:05" or "2 minutes 5 seconds"; None when none are said."""
    if answer is None:
        return None
    clock = re.search(r"(?:(\d+):)?(\d{1,2}):(\d{2})", answer)
    if clock:
        hours, minutes, seconds = (int(part or 0) for part in clock.groups())
        return hours * 3600 + minutes * 60 + seconds
    minutes_match = re.search(r"(\d+)\s*min", answer)
    seconds_match = re.search(r"(\d+)\s*s", answer)
    if minutes_match is None and seconds_match is None:
        return None
    minutes = int(minutes_match.group(1)) if minutes_match else 0
    return minutes * 60 + (int(seconds_match.group(1)) if seconds_match else 0)


def _paused_at(rng: random.Random) -> Params:
    elapsed = rng.randrange(15, 2 * 3600)
    return {"elapsed": elapsed, "shown": stopwatch_text(elapsed)}


TASKS: list[Task] = [
    Task(
        name="ClockStopWatchRunning",
        app=CLOCK,
        family="stopwatch",
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), tap("Start"), done()],
        check=lambda s, p, a: s["stopwatch"]["running"] is True,
        changes=keys("stopwatch"),
        max_steps=8,
    ),
    Task(
        name="ClockStopWatchPausedVerify",
        app=CLOCK,
        family="already_done",
        setup=lambda p: {"stopwatch": {"running": False, "elapsed": 0, "laps": []}},
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), done()],
        check=lambda s, p, a: s["stopwatch"]["running"] is False,
        max_steps=6,
    ),
    Task(
        name="ClockStopWatchPause",
        app=CLOCK,
        family="stopwatch",
        sample=_paused_at,
        setup=lambda p: {"stopwatch": {"running": True, "elapsed": p["elapsed"], "laps": []}},
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), tap("Pause"), done()],
        check=lambda s, p, a: (
            s["stopwatch"]["running"] is False and s["stopwatch"]["elapsed"] > p["elapsed"]
        ),
        changes=keys("stopwatch"),
        max_steps=8,
    ),
    Task(
        name="ClockStopWatchReset",
        app=CLOCK,
        family="stopwatch",
        sample=_paused_at,
        setup=lambda p: {
            "stopwatch": {"running": False, "elapsed": p["elapsed"], "laps": [p["elapsed"]]}
        },
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), tap("Reset"), done()],
        check=lambda s, p, a: s["stopwatch"] == {"running": False, "elapsed": 0, "laps": []},
        changes=keys("stopwatch"),
        max_steps=8,
    ),
    Task(
        name="ClockStopWatchTime",
        app=CLOCK,
        family="question",
        sample=_paused_at,
        setup=lambda p: {"stopwatch": {"running": False, "elapsed": p["elapsed"], "laps": []}},
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), done(answer=p["shown"])],
        check=lambda s, p, a: _seconds_said(a) == p["elapsed"],
        max_steps=8,
    ),
    Task(
        name="ClockTimerEntry",
        app=CLOCK,
        family="timer",
        sample=_timer,
        plan=lambda p: [open_app("Clock"), tap("Timer"), type_in(None, p["digits"]), done()],
        check=lambda s, p, a: _timer_entered(s, p),
        changes=keys("timer"),
        max_steps=8,
    ),
    Task(
        name="ClockTimerStart",
        app=CLOCK,
        family="timer",
        sample=_short_timer,
        plan=lambda p: [
            open_app("Clock"),
            tap("Timer"),
            type_in(None, p["digits"]),
            tap("Start"),
            done(),
        ],
        check=lambda s, p, a: (
            s["timer"]["running"] is True
            and s["timer"]["duration"] == p["minutes"] * 60 + p["seconds"]
        ),
        changes=keys("timer"),
        max_steps=8,
    ),
]

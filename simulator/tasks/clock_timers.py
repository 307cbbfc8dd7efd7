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
        templates=(
            "Run the stopwatch.",
            "Start the stopwatch in the Clock app.",
            "Could you start the stopwatch?",
            "In Clock, open the stopwatch and press Start.",
            "Stopwatch: start it.",
            "I want to time how long this takes, so please start the stopwatch.",
            "Hey, can you kick off the stopwatch real quick?",
            "Before I begin, please start the stopwatch in Clock.",
            "Would you mind starting the Clock stopwatch?",
            "The stopwatch should end up running.",
            "Open Clock, go to the stopwatch, then tap Start.",
            "Let's start timing with the stopwatch.",
            "Get the Clock's stopwatch going.",
        ),
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), tap("Start"), done()],
        check=lambda s, p, a: s["stopwatch"]["running"] is True,
        changes=keys("stopwatch"),
        max_steps=8,
    ),
    Task(
        name="ClockStopWatchPausedVerify",
        app=CLOCK,
        family="already_done",
        templates=(
            "Pause the stopwatch.",
            "Make sure the Clock's stopwatch is paused.",
            "Could you check that the stopwatch is paused?",
            "In Clock, ensure the stopwatch is stopped.",
            "Stopwatch: paused.",
            "I need the Clock's stopwatch to be paused, please.",
            "Hey, double-check that the stopwatch is paused, would you?",
            "Before I leave, I want the stopwatch in Clock to be paused.",
            "Would you confirm the Clock's stopwatch is in a paused state?",
            "Open Clock, go to the stopwatch, and see to it that it is paused.",
            "Let's have the stopwatch paused.",
            "Check: stopwatch paused in Clock.",
            "The stopwatch should not be running; pause it if it is.",
        ),
        setup=lambda p: {"stopwatch": {"running": False, "elapsed": 0, "laps": []}},
        plan=lambda p: [open_app("Clock"), tap("Stopwatch"), done()],
        check=lambda s, p, a: s["stopwatch"]["running"] is False,
        max_steps=6,
    ),
    Task(
        name="ClockStopWatchPause",
        app=CLOCK,
        family="stopwatch",
        templates=(
            "The stopwatch has been running for {shown}; pause it.",
            "Stop the running stopwatch in the Clock app (it shows about {shown}).",
            "Could you pause the stopwatch? It is running and shows about {shown}.",
            "In Clock, hit Pause on the running stopwatch (around {shown} so far).",
            "Running stopwatch, about {shown}: pause it.",
            "I'm done timing, so please pause the stopwatch that has been going for {shown}.",
            "Hey, can you pause the stopwatch real quick? It's running, around {shown} now.",
            "I've finished measuring, so stop the stopwatch; it reads about {shown}.",
            "Would you mind pausing the running stopwatch in Clock? It shows roughly {shown}.",
            "The stopwatch, running at about {shown}, should end up paused.",
            "Open Clock, go to the stopwatch (it reads about {shown}), then tap Pause.",
            "Let's freeze the running stopwatch; it's near {shown}.",
            "Pause the Clock's stopwatch, which is at {shown} and counting.",
        ),
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
        templates=(
            "Reset the stopwatch, which is paused at {shown}.",
            "The Clock's stopwatch stopped at {shown}: reset it to zero.",
            "Could you reset the paused stopwatch? It shows {shown}.",
            "In Clock, tap Reset on the stopwatch; it is paused at {shown}.",
            "Stopwatch paused at {shown}: reset.",
            "I'm about to time something new, so please reset the stopwatch stopped at {shown}.",
            "Hey, can you reset the stopwatch real quick? It's paused at {shown}.",
            "The stopwatch is stopped at {shown}; please reset it in Clock so it reads zero again.",
            "Would you mind resetting the stopwatch that's paused at {shown}?",
            "The paused stopwatch shows {shown} and should end up reset to zero.",
            "Open Clock, go to the stopwatch paused at {shown}, then press Reset.",
            "Let's reset the stopwatch to zero; right now it is paused on {shown}.",
            "Clear the stopwatch's {shown} and its laps with Reset.",
        ),
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
        templates=(
            "What time does the paused stopwatch show? Answer like 2:05.",
            "Read the Clock's stopwatch: how much time is on it?",
            "Could you tell me the time on the paused stopwatch? Answer like 2:05.",
            "In Clock, look at the stopwatch, which is paused, and say what it shows.",
            "Paused stopwatch reading? Answer like 2:05.",
            "I stopped the stopwatch a moment ago and need its time; what does it read?",
            "Hey, what's on the paused stopwatch right now? Answer like 2:05.",
            "Before I write it down, I need the time showing on the paused stopwatch. Answer like "
            "2:05.",
            "Would you read out the paused stopwatch's time in Clock? Answer like 2:05.",
            "Open Clock, check the paused stopwatch, then report its time. Answer like 2:05.",
            "What reading is on the stopped stopwatch? Answer like 2:05.",
            "We paused the stopwatch; what time does it display? Answer like 2:05.",
            "How long has the stopwatch counted so far? It is paused.",
        ),
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
        templates=(
            "Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds. Do "
            "not start the timer.",
            "Set the Clock's timer to {hours} h {minutes} min {seconds} s without starting it.",
            "Could you set up a timer for {hours} hours, {minutes} minutes, {seconds} seconds? "
            "Do not start it.",
            "In Clock, type {hours} hours {minutes} minutes {seconds} seconds into the timer "
            "and don't press Start.",
            "Timer: {hours} h {minutes} min {seconds} s. Don't start it.",
            "I'll need a {hours} h {minutes} min {seconds} s timer later, so enter it now but "
            "do not start it yet.",
            "Hey, can you set the timer to {hours} h {minutes} min {seconds} s real quick? Just "
            "don't start it.",
            "Before the meeting, load a {hours} h {minutes} min {seconds} s timer in Clock, but "
            "hold off on starting it.",
            "Would you type a timer of {hours} hours, {minutes} minutes, {seconds} seconds into "
            "Clock without pressing Start?",
            "The timer should end up showing {hours} hours {minutes} minutes {seconds} seconds, "
            "not yet running.",
            "Open Clock, go to Timer, then key in {hours} h {minutes} min {seconds} s. Do not tap "
            "Start.",
            "Let's prepare a {hours}-hour, {minutes}-minute, {seconds}-second timer without "
            "running it.",
            "Enter {hours} hours, {minutes} minutes and {seconds} seconds on the timer, but "
            "leave it stopped.",
        ),
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
        templates=(
            "Start a timer for {minutes} minutes and {seconds} seconds.",
            "Set a {minutes} min {seconds} s timer in the Clock app and start it.",
            "Could you run a timer of {minutes} minutes and {seconds} seconds?",
            "In Clock, enter {minutes} minutes {seconds} seconds on the timer and press Start.",
            "Timer for {minutes} min {seconds} s: start it now.",
            "I'm boiling eggs, so please set a timer for {minutes} minutes and {seconds} seconds "
            "and start it.",
            "Hey, can you start a {minutes} min {seconds} s timer real quick?",
            "My tea needs {minutes} minutes and {seconds} seconds, so get a timer running for "
            "that long.",
            "Would you mind starting a timer in Clock set to {minutes} minutes {seconds} seconds?",
            "A timer of {minutes} minutes and {seconds} seconds should end up running in Clock.",
            "Open Clock, go to Timer, type {minutes} min {seconds} s, then tap Start.",
            "Let's time {minutes} minutes and {seconds} seconds: set the timer and start it.",
            "Count down {minutes} minutes {seconds} seconds with the Clock's timer.",
        ),
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

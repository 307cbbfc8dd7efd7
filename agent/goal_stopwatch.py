"""Whether a goal asks the stopwatch to be running or stopped, and which a screen shows.

The stopwatch is a switch without a switch widget: its page shows a Start (or Resume) button
while it stands still and Pause (or Stop) while it counts. A small model opens that page and
claims a goal such as "get the stopwatch going" on the Start button it never pressed; the
guards hold such a claim to the state the stopwatch was last shown in.
"""

from __future__ import annotations

import re

from agent.goal_items import asks_for_answer
from agent.screen import Screen

_STOPWATCH = re.compile(r"\bstop\s?watch\b", re.IGNORECASE)
# Words that ask it to count, and words that ask it to stand still. "go" alone is left out:
# "go to the stopwatch" asks for a page, not a state.
_RUNNING_WORDS = re.compile(
    r"\b(?:start(?:s|ed|ing)?|going|count(?:s|ing)?|run(?:s|ning)?|tim(?:e|ing)\s+(?:me|my|it)"
    r"|timing|begin|resume|tick(?:ing)?|kick\s+off|set\s+off)\b",
    re.IGNORECASE,
)
_STOPPED_WORDS = re.compile(
    # a reset stopwatch stands at zero
    r"\b(?:paus(?:e|ed|ing)|stop(?:s|ped|ping)?|halt(?:ed)?|hold|freeze|frozen|reset|zero)\b",
    re.IGNORECASE,
)
# "isn't counting", "shouldn't be running": the negations of a state, which
# `agent.goal_items`' reading of negated verbs of doing ("don't delete") leaves out
_NEGATION_BEFORE = re.compile(
    r"\b(?:not|never|no\s+longer|isn['’]?t|aren['’]?t|shouldn['’]?t|mustn['’]?t|don['’]?t"
    r"|doesn['’]?t|won['’]?t)\s+(?:be\s+|keep\s+|still\s+)?$",
    re.IGNORECASE,
)
_RUNNING_BUTTONS = {"pause", "stop"}
_STOPPED_BUTTONS = {"start", "resume"}


def stopwatch_wish(goal: str) -> bool | None:
    """True when the goal asks the stopwatch to count, False when it asks it to stand still,
    None when the goal is not about its state or says both ("start it, I'll stop it later"),
    or asks a question about it."""
    if not _STOPWATCH.search(goal) or asks_for_answer(goal):
        return None
    words = _STOPWATCH.sub("stopwatch", goal)  # "stop watch" holds no word "stop"
    running = stopped = False
    for word in _RUNNING_WORDS.finditer(words):
        if _NEGATION_BEFORE.search(words[: word.start()]):
            stopped = True
        else:
            running = True
    stopped |= _STOPPED_WORDS.search(words) is not None
    if running == stopped:
        return None
    return running


def stopwatch_running(screen: Screen) -> bool | None:
    """Whether the stopwatch `screen` shows is counting; None on any other page. The page is
    the one whose title, or selected tab, is "Stopwatch"."""
    on_page = any(
        element.label.casefold() == "stopwatch" and (element.selected or not element.clickable)
        for element in screen.elements
    )
    if not on_page:
        return None
    buttons = {element.label.casefold() for element in screen.elements if element.clickable}
    running, stopped = bool(buttons & _RUNNING_BUTTONS), bool(buttons & _STOPPED_BUTTONS)
    if running == stopped:
        return None
    return running

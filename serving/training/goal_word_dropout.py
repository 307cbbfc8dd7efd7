"""Goals with some of their words left out, so that a policy learns to act on each word a goal
says rather than on the whole sentence it was trained on.

A policy trained from scratch on a dozen phrasings per task learns those sentences, and an
unseen sentence over the same words ("Enable the battery percentage." where training said
"Turn on the battery percentage in the status bar.") can send it to the wrong task. Showing a
share of the demonstrations with a few words of the goal missing (word dropout) teaches it
that a goal's meaning rests on several words, any of which may be absent or said otherwise.

What is never left out: the values the task was given (names, titles, numbers: the reply may
copy them), quoted text, words with digits, names (a capital letter other than a sentence's
first: "Bob Chen", "Markor", "Wi-Fi"; or, in a goal written in lower case, the demonstration's
`names`: "wifi", "pro expense") and the words that decide which way a goal goes (on, off,
not, enable, delete, ...) or gives a value its unit (min, hours, ...): without them the same
sentence would ask for something else, and the demonstration's reply would teach a guess. Short
goals keep every word: with few words, each is likely the only one that names the task.
"""

from __future__ import annotations

import random
import re

from serving.training.demo import Demo

# Each word that may go is left out with this probability (at least one always goes).
WORD_DROP_RATE = 0.15
# Goals with fewer words that may go keep all of them.
MIN_DROPPABLE_WORDS = 5
# Words that decide what a goal asks (which way, which action) or what a number means.
KEPT_WORDS = frozenset(
    {
        *("on", "off", "not", "no", "never", "don't", "doesn't", "isn't", "mustn't", "won't"),
        *("enable", "enabled", "disable", "disabled", "activate", "activated", "deactivate"),
        *("deactivated", "unmute", "mute", "muted", "start", "stop", "stopped", "pause"),
        *("without", "only", "every", "all", "keep", "remove", "delete", "add", "create"),
        *("send", "resend", "reply", "forward", "rename", "move", "copy", "mark", "complete"),
        *("h", "hr", "hrs", "hour", "hours", "min", "mins", "minute", "minutes", "s", "sec"),
        *("secs", "second", "seconds", "am", "pm", "a.m.", "p.m."),
    }
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_SENTENCE_END = re.compile(r"[.?!:;]\s*$")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|'[^']*'(?!\w)")


def _protected_spans(goal: str, kept: list[str]) -> list[tuple[int, int]]:
    spans = [match.span() for match in _QUOTED.finditer(goal)]
    for value in kept:
        if value:
            spans.extend(match.span() for match in re.finditer(re.escape(value), goal))
    return spans


def _is_name(goal: str, word: re.Match[str]) -> bool:
    text = word.group(0)
    if any(c.isupper() for c in text[1:]):
        return True
    starts_sentence = not goal[: word.start()].strip() or bool(
        _SENTENCE_END.search(goal[: word.start()])
    )
    return text[0].isupper() and not starts_sentence


def droppable_words(goal: str, kept: list[str]) -> list[re.Match[str]]:
    """The words of `goal` that may be left out, in order; none of `kept` (the task's values
    and the goal's names) loses a word."""
    spans = _protected_spans(goal, kept)
    return [
        word
        for word in _WORD.finditer(goal)
        if word.group(0).casefold().replace("’", "'") not in KEPT_WORDS
        and not _is_name(goal, word)
        and not any(start < word.end() and word.start() < end for start, end in spans)
    ]


def shorten(goal: str, kept: list[str], rng: random.Random) -> str | None:
    """`goal` with some of its droppable words left out, or None when it is too short."""
    words = droppable_words(goal, kept)
    if len(words) < MIN_DROPPABLE_WORDS:
        return None
    dropped = [word for word in words if rng.random() < WORD_DROP_RATE] or [rng.choice(words)]
    text = goal
    for word in reversed(dropped):
        start, end = word.span()
        rest = text[end:].lstrip(" ")
        # the word goes with the spaces after it, or before it where punctuation follows
        if (
            rest
            and (rest[0].isalnum() or rest[0] in "\"“'(")
            and end < len(text)
            and text[end] == " "
        ):
            text = text[:start] + rest
        else:
            text = text[:start].rstrip(" ") + text[end:]
    return text


def _shown_goal(demo: Demo) -> str | None:
    """The demonstration's goal where a user turn shows it."""
    goal = demo.goal
    if goal and any(
        isinstance(m.get("content"), str) and goal in m["content"]
        for m in demo.messages
        if m.get("role") == "user"
    ):
        return goal
    return None


def _kept(demo: Demo) -> list[str]:
    return [*demo.values, *demo.names]


def can_shorten(demo: Demo) -> bool:
    goal = _shown_goal(demo)
    return goal is not None and len(droppable_words(goal, _kept(demo))) >= MIN_DROPPABLE_WORDS


def shorten_goal(demo: Demo, rng: random.Random) -> Demo | None:
    """`demo` with words left out of its goal wherever a user turn shows the goal, or None
    when the demonstration does not say its goal or the goal is too short."""
    goal = _shown_goal(demo)
    if goal is None:
        return None
    shorter = shorten(goal, _kept(demo), rng)
    if shorter is None:
        return None
    messages = [
        {**m, "content": m["content"].replace(goal, shorter)}
        if m.get("role") == "user" and isinstance(m.get("content"), str)
        else m
        for m in demo.messages
    ]
    return demo.model_copy(update={"messages": messages})

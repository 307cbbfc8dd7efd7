"""Rewordings of a task's goal template for demonstrations, so that a policy learns to act on
what a goal asks rather than on one fixed sentence.

People write the same request many ways, and a policy trained only on simulator goals has to
be shown them (the real model brings them from pretraining). A rewording:

- swaps phrases for others of the same meaning from a general lexicon of phone vocabulary
  ("turn off", "switch off", "disable"; "Wi-Fi", "WiFi", "WLAN"; "airplane mode", "flight
  mode"; "to-do", "todo"). The lexicon is not drawn from any one task: each group applies to
  every goal that uses one of its phrases, and every group has a phrase some training phrasing
  uses (a test checks this). Groups can introduce words a held-out phrasing uses, so the
  held-out phrasing measures unseen sentences over known words, not unseen words;
- calls an app by another name people use for it: its store name ("Simple Calendar Pro"), what
  it is for ("the expense tracker") or "the ... app" (`APP_NAMES`), where the name stands on its
  own (not "a Markor note");
- moves words where the meaning stays: "turn on Wi-Fi" and "turn Wi-Fi on"; "In Markor, move
  ..." and "Move ... in Markor";
- says it tersely: without "please", "hey" or "for me", without articles, a switch goal as
  "Wi-Fi on";
- changes case: the whole goal in lower case (as people type on phones), rarely in capitals or
  title case, or only the names of settings and apps in lower case or with one capital;
- puts a one-sentence instruction in a request ("Please ...", "Can you ...?") or drops its full
  stop;
- writes the rows of a goal that lists records (expenses, recipes) another way: `key: value`
  pairs, commas, bars or semicolons, bulleted or numbered (`reformat_listing`);
- writes a time of day or a day another way people write it (`restate_values`): "6:29pm" or
  "18:29" for "6:29 PM"; "tomorrow", "Friday", "Oct 18", "the 18th" for a date, said from the
  simulator's today. These are the views of `evals.goals.views` that are ways of writing a
  value, never a goal's words.

Parameters (`{name}`) and quoted text are never reworded, and a listing's rows keep every value
exactly as given, so the task's check and the values a reply copies from the goal stay valid. A
rewording never says the task's held-out template, not even inside a request.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from typing import Any

from evals.goals.views import VIEWS
from simulator.tasks import TASKS, Task

# Phrases of one meaning, any of which may stand for another (matched whole-word, any case). A
# phrase written with a capital (a name such as "WLAN") keeps its own case when it comes in.
WORDS: tuple[tuple[str, ...], ...] = (
    ("turn on", "switch on", "enable", "activate"),
    ("turn off", "switch off", "disable", "deactivate"),
    ("turn", "switch"),
    ("delete", "remove", "erase", "get rid of"),
    ("create", "add"),
    ("make sure", "check that", "ensure", "see to it that"),
    ("what is", "tell me"),
    ("change", "update", "edit", "modify"),
    ("which", "what"),
    ("named", "called"),
    ("look up", "find"),
    ("open", "launch"),
    ("record", "log"),
    ("reply", "respond"),
    ("go to", "head to", "navigate to"),
    ("right away", "immediately", "straight away"),
    ("I need", "I want", "I'd like"),
    ("folder", "directory"),
    ("phone number", "mobile number", "phone no."),
)
# The same, for the names of settings and items: other names and other spellings.
THING_NAMES: tuple[tuple[str, ...], ...] = (
    ("Wi-Fi", "WiFi", "WLAN"),
    ("airplane mode", "flight mode", "aeroplane mode", "airplane-mode"),
    ("dark theme", "dark mode"),
    ("Battery Saver", "power-saving mode", "battery saving mode", "power saver"),
    ("Do Not Disturb", "DND", "do-not-disturb"),
    ("auto-rotate", "autorotate", "auto rotate", "screen auto-rotate"),
    ("developer options", "developer settings", "dev options"),
    ("stopwatch", "stop watch", "stop-watch"),
    ("to-do", "todo", "to do item"),
)
SYNONYMS = WORDS + THING_NAMES
# The names of the simulator's apps as goals write them (first), then other names people use
# for the same app. Matched with their case ("Tasks" the app, not "tasks"), and swapped only
# where the name stands on its own: not after "the", "my" or "a", and not before a noun.
APP_NAMES: tuple[tuple[str, ...], ...] = (
    ("Pro Expense", "the Pro Expense app", "the expense tracker", "the expenses app"),
    ("Markor", "the Markor app", "the notes app", "the Markor notes app"),
    ("Broccoli", "the Broccoli app", "the recipe app", "Broccoli Recipe App"),
    ("the Tasks app", "Tasks", "the to-do app", "the to-do list app", "Tasks.org"),
    ("Calendar", "Simple Calendar Pro", "the calendar app", "Simple Calendar"),
    ("Clock", "the Clock app", "the clock app", "the alarm clock app"),
    ("Contacts", "the Contacts app", "the contacts app", "the address book"),
    ("Messages", "the Messages app", "the SMS app", "the messaging app"),
    ("Settings", "the Settings app", "the settings app", "system settings"),
    ("Files", "the Files app", "the file manager", "Files by Google"),
)
SWAP_PROBABILITY = 0.5
APP_NAME_PROBABILITY = 0.4
WORD_ORDER_PROBABILITY = 0.35
TERSE_PROBABILITY = 0.25
# How often a one-sentence instruction is put in a request, and the requests.
REQUEST_PROBABILITY = 0.3
REQUESTS = (
    *("Please {}.", "{}, please.", "Can you {}?", "Could you {}?", "Would you {}?"),
    *("I want you to {}.", "I need you to {}.", "I'd like you to {}.", "Go ahead and {}."),
    *("{} for me.", "Hey, {}.", "Can you please {}?", "{} when you can.", "Kindly {}."),
)
# The case a goal comes out in, by weight: as written, all lower case, all capitals, title
# case, or only the names of apps and settings lowered or given one capital ("WiFi" -> "wifi",
# "Wifi").
CASES = {
    **{"as written": 0.66, "lower": 0.12, "upper": 0.02, "title": 0.03},
    **{"names lower": 0.13, "names capitalized": 0.04},
}
LISTING_PROBABILITY = 0.5
# How often a time of day or a date is written another way (`restate_values`).
VALUE_VIEW_PROBABILITY = 0.4
# Words that start an instruction (a goal that starts otherwise is not put in a request).
_INSTRUCTION_VERBS = frozenset(
    {
        *("turn", "switch", "enable", "activate", "disable", "deactivate", "get", "make"),
        *("delete", "remove", "erase", "create", "add", "save", "set", "record", "log"),
        *("check", "ensure", "see", "change", "update", "edit", "modify", "rename", "mark"),
        *("find", "look", "open", "launch", "read", "go", "start", "pause", "stop", "reset"),
        *("reply", "respond", "send", "text", "write", "move", "copy", "put"),
    }
)

_THING_NAME_PHRASES = frozenset(phrase for group in THING_NAMES for phrase in group)
_SYNONYM_OF = {phrase.casefold(): group for group in SYNONYMS for phrase in group}
# Longest phrases first, so "turn on" is one match rather than "turn" and a stray "on".
_PHRASE = re.compile(
    r"(?<![\w-])("
    + "|".join(re.escape(p) for p in sorted(_SYNONYM_OF, key=len, reverse=True))
    + r")(?![\w-])",
    re.IGNORECASE,
)
_APP_NAME_OF = {name: group for group in APP_NAMES for name in group}
# A name stands on its own when punctuation, the end or one of these words follows it.
_AFTER_A_NAME = (
    "and|then|to|for|with|as|from|in|on|so|by|where|real|right|first|once|under|into|"
    "should|when|while|before|after|instead|too|also|please"
)
_APP_NAME = re.compile(
    r"(?<![\w-])(?<!\bthe )(?<!\bmy )(?<!\ba )(?<!\bThe )(?<!\bMy )("
    + "|".join(re.escape(n) for n in sorted(_APP_NAME_OF, key=len, reverse=True))
    + rf")(?=\s*[.,;:!?\n]|\s*$|\s+(?:{_AFTER_A_NAME})\b)"
)
# Words with capitals in a row: a name ("Bob Chen", "Do Not Disturb").
_CAPITALIZED_RUN = re.compile(r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*")
# What a rewording leaves alone: parameters and quoted text.
_PROTECTED = re.compile(r"\{[^{}]*\}|\"[^\"]*\"|“[^”]*”")
# A protected span while the rest is reworded: a stand-in no case change or word pattern alters.
_HELD = re.compile("\x00(\\d+)\x00")
# First words that may lose their capital: those the phrasings or the lexicon also write in
# lower case (so a name such as "Alice" keeps it).
_LOWER_CASE_WORDS = frozenset(
    word
    for text in [
        *(task.templates[i] for task in TASKS for i in task.training_phrasings),
        *(phrase for group in SYNONYMS for phrase in group),
    ]
    for word in re.findall(r"\b[a-z][\w'-]*", _PROTECTED.sub(" ", text))
)

# Word order. A thing switched: up to three words, none of them one that ends it.
_ENDS_A_THING = (
    "and|then|in|for|so|before|after|once|right|real|when|while|if|at|to|from|please|on|off|"
    "first|also|too|now|again|that|which|who|with|whose|labelled|called|named"
)
_THING_WORD = rf"(?!(?:{_ENDS_A_THING})\b)[\w\x00'’-]+"
_THING = rf"{_THING_WORD}(?:\s+{_THING_WORD}){{0,2}}?"
_THING_ENDS = rf"(?=\s*[.,;:!?\n]|\s*$|\s+(?:{_ENDS_A_THING})\b)"
_TURN_ON_THING = re.compile(
    rf"\b(?P<verb>turn|switch)\s+(?P<state>on|off)\s+(?P<thing>{_THING}){_THING_ENDS}",
    re.IGNORECASE,
)
_TURN_THING_ON = re.compile(
    rf"\b(?P<verb>turn|switch)\s+(?!(?:it|them|this|that|everything)\b)(?P<thing>{_THING})"
    rf"\s+(?P<state>on|off)\b{_THING_ENDS}",
    re.IGNORECASE,
)
_APP_WORDS = "|".join(re.escape(n) for n in sorted(_APP_NAME_OF, key=len, reverse=True))
# "In Markor, move ..." (one sentence) and "Move ... in Markor."
_APP_FIRST = re.compile(rf"^(?P<prep>In|Using) (?P<app>{_APP_WORDS}), (?P<rest>[^.;:!?\n]+)\.$")
_APP_LAST = re.compile(rf"^(?P<rest>[^.;:!?\n]+) in (?P<app>{_APP_WORDS})\.$")

# Terse forms.
_POLITE = (
    re.compile(r"^(?:Please|Kindly|Hey,?)\s+", re.IGNORECASE),
    re.compile(r",?\s+please(?=[.!?]?$)", re.IGNORECASE),
    re.compile(r"\s+(?:for me|real quick)(?=[.!?]?$)", re.IGNORECASE),
)
_ARTICLE = re.compile(r"\b(?:the|a|an)\s+(?=[\w\x00])", re.IGNORECASE)
_SWITCH_GOAL = (
    re.compile(rf"^(?:turn|switch)\s+(?P<state>on|off)\s+(?P<thing>{_THING})[.!]?$", re.I),
    re.compile(rf"^(?:turn|switch)\s+(?P<thing>{_THING})\s+(?P<state>on|off)[.!]?$", re.I),
)

# Rows of a listing, and ways to write them.
_ROW_SEPARATORS = (" | ", ", ", "; ")
_ROW_STARTS = ("", "", "- ", "* ", "{n}. ")


def reword(template: str, rng: random.Random) -> str:
    """One rewording of `template`, chosen by `rng` (it may come out unchanged)."""
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(match.group())
        return f"\x00{len(held) - 1}\x00"

    text = _PROTECTED.sub(hold, template)
    text = _swap_phrases(text, rng)
    text = _swap_app_names(text, rng)
    text = _reorder(text, rng)
    if rng.random() < TERSE_PROBABILITY:
        text = _terse(text, rng)
    text = _frame(text, rng)
    text = _change_case(text, rng)
    return _HELD.sub(lambda match: held[int(match.group(1))], text)


def training_goal_template(task: Task, phrasing: int, rng: random.Random) -> str:
    """A rewording of training phrasing `phrasing`, or the phrasing itself where the rewording
    would say the held-out template (alone or in a request)."""
    template = task.templates[phrasing]
    reworded = reword(template, rng)
    held_out = task.templates[task.held_out_phrasing]
    return template if _plain(held_out) in _plain(reworded) else reworded


def training_goal(task: Task, seed: int, phrasing: int, rng: random.Random) -> str:
    """The goal of a reworded training episode: `training_goal_template` filled with the
    seed's parameters, a listing of records written another way (`reformat_listing`), and
    times and dates as people also write them (`restate_values`)."""
    template = training_goal_template(task, phrasing, rng)
    return template.format(**restate_values(reformat_listing(task.params(seed), rng), rng))


# A field that says a time of day -> the parameter with the same time on the 24-hour clock.
_TIME_FIELDS = {"time": "hhmm", "new_time": "new_hhmm"}
_TIME_VIEWS = ("compact", "24-hour")
# A field that says a day -> the parameter with the same day as an ISO date.
_DATE_FIELDS = {"day": "date", "date": "due_iso"}
_DATE_VIEWS = ("relative", "short", "day_month", "ordinal", "weekday_ordinal")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _time_view(view: str, twelve_hour: str, hhmm: str) -> str:
    return hhmm if view == "24-hour" else VIEWS[view](twelve_hour)


def restate_values(params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """`params` with each time of day and day a goal says written another way, each about
    `VALUE_VIEW_PROBABILITY` of the time: "6:29pm", "18:29"; "tomorrow",
    "Friday", "Oct 18", "18 Oct", "the 18th", "Friday the 18th", the day said from the
    phone's today as people say it. The value stays the one the task asks for."""
    restated = dict(params)
    for field, hhmm in _TIME_FIELDS.items():
        if field in params and hhmm in params and rng.random() < VALUE_VIEW_PROBABILITY:
            restated[field] = _time_view(rng.choice(_TIME_VIEWS), params[field], params[hhmm])
    for field, iso in _DATE_FIELDS.items():
        day = params.get(iso)
        restate = field in params and isinstance(day, str) and _ISO_DATE.fullmatch(day)
        if restate and rng.random() < VALUE_VIEW_PROBABILITY:
            restated[field] = VIEWS[rng.choice(_DATE_VIEWS)](day)
    return restated


def reformat_listing(params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """`params` with its `listing` (one line a record of `rows`) written another way, about
    `LISTING_PROBABILITY` of the time; every value stays exactly as the listing gave it."""
    listing, rows = params.get("listing"), params.get("rows")
    if not isinstance(listing, str) or not isinstance(rows, list):
        return dict(params)
    lines = listing.split("\n")
    if len(lines) != len(rows) or rng.random() >= LISTING_PROBABILITY:
        return dict(params)
    cells = [_row_cells(line, row) for line, row in zip(lines, rows, strict=True)]
    if any(found is None for found in cells):
        return dict(params)
    start = rng.choice(_ROW_STARTS)
    keyed = rng.random() < 0.4
    separator = rng.choice(_ROW_SEPARATORS)
    # a value with the separator in it would read as two
    if any(separator.strip() in cell for found in cells if found for _, cell in found):
        separator = " | "
    written = [
        start.format(n=number)
        + separator.join(
            f"{key.replace('_', ' ')}: {cell}" if keyed else cell for key, cell in found
        )
        for number, found in enumerate(filter(None, cells), 1)
    ]
    return {**params, "listing": "\n".join(written)}


def kept_names(template: str, goal: str) -> list[str]:
    """The phrases of `goal` (a rewording of `template`) that name an app, a setting or a
    person, in whatever case the rewording left them: what must stay in the goal for it to ask
    what it asks (`serving.training.goal_word_dropout` keeps them). Names are the lexicon's
    app and setting names, and the runs of words `template` writes with capitals ("Bob Chen"),
    less the capital that starts a sentence."""
    capitalized = []
    unprotected = _PROTECTED.sub("x", template)
    for run in _CAPITALIZED_RUN.finditer(unprotected):
        words = run.group().split(" ")
        if _starts_sentence(unprotected, run.start()):
            words = words[1:] if not any(c.isupper() for c in words[0][1:]) else words
        capitalized.append(" ".join(words))
    names = [*(n for group in APP_NAMES for n in group), *_THING_NAME_PHRASES, *capitalized]
    found = [
        match.group()
        for name in sorted(set(filter(None, names)), key=len, reverse=True)
        for match in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", goal, re.IGNORECASE)
    ]
    return list(dict.fromkeys(found))


def _row_cells(line: str, row: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """The `(key, value as written)` cells `line` is made of, each a value of `row` (a
    number as written, with or without a $), joined by one separator; None if it is not."""
    renderings = {key: _renderings(value) for key, value in row.items()}
    separator = " | " if " | " in line else ", "

    def cells_from(position: int, used: frozenset[str]) -> list[tuple[str, str]] | None:
        if position == len(line):
            return []
        for key, forms in renderings.items():
            if key in used:
                continue
            for form in forms:
                end = position + len(form)
                if not form or not line.startswith(form, position):
                    continue
                if end == len(line):
                    return [(key, form)]
                if line.startswith(separator, end):
                    rest = cells_from(end + len(separator), used | {key})
                    if rest is not None:
                        return [(key, form), *rest]
        return None

    return cells_from(0, frozenset())


def _renderings(value: Any) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return []
    if isinstance(value, str):
        return [value]
    return [f"${value:.2f}", f"{value:.2f}", str(value)]


def _swap_phrases(text: str, rng: random.Random) -> str:
    def swap(match: re.Match[str]) -> str:
        found = match.group()
        if rng.random() >= SWAP_PROBABILITY:
            return found
        others = [p for p in _SYNONYM_OF[found.casefold()] if p.casefold() != found.casefold()]
        chosen = rng.choice(others)
        if chosen != chosen.lower() or not _starts_sentence(text, match.start()):
            return chosen
        return chosen[0].upper() + chosen[1:]

    return _PHRASE.sub(swap, text)


def _swap_app_names(text: str, rng: random.Random) -> str:
    def swap(match: re.Match[str]) -> str:
        found = match.group()
        at_start = _starts_sentence(text, match.start())
        # a one-word name that starts a sentence may be a plain word with a capital ("Tasks due")
        if rng.random() >= APP_NAME_PROBABILITY or (at_start and " " not in found):
            return found
        chosen = rng.choice([name for name in _APP_NAME_OF[found] if name != found])
        return chosen[0].upper() + chosen[1:] if at_start else chosen

    return _APP_NAME.sub(swap, text)


def _reorder(text: str, rng: random.Random) -> str:
    def particle(match: re.Match[str]) -> str:
        if rng.random() >= WORD_ORDER_PROBABILITY:
            return match.group()
        verb, state, thing = match.group("verb", "state", "thing")
        if match.re is _TURN_ON_THING:
            return f"{verb} {thing} {state}"
        return f"{verb} {state} {thing}"

    text = _TURN_THING_ON.sub(particle, _TURN_ON_THING.sub(particle, text))
    if rng.random() < WORD_ORDER_PROBABILITY:
        first, last = _APP_FIRST.match(text), _APP_LAST.match(text)
        if first is not None:
            rest = first.group("rest")
            text = f"{rest[0].upper()}{rest[1:]} {first.group('prep').lower()} {first['app']}."
        elif last is not None and _first_word(last.group("rest")) in _INSTRUCTION_VERBS:
            rest = last.group("rest")
            text = f"In {last.group('app')}, {_lower_first(rest)}."
    return text


def _terse(text: str, rng: random.Random) -> str:
    """`text` said shortly: without politeness, without most articles, a switch as 'X on'."""
    for politeness in _POLITE:
        text = politeness.sub("", text)
    text = _ARTICLE.sub(lambda match: "" if rng.random() < 0.7 else match.group(), text)
    for switch in _SWITCH_GOAL:
        found = switch.match(text)
        if found is not None and rng.random() < 0.5:
            text = f"{found.group('thing')} {found.group('state')}"
            break
    return text[0].upper() + text[1:] if text[:1].islower() and _is_word_start(text) else text


def _frame(text: str, rng: random.Random) -> str:
    """A request around a one-sentence instruction, or a lower-case start, no full stop."""
    if rng.random() < REQUEST_PROBABILITY and _is_one_instruction(text):
        request = rng.choice(REQUESTS)
        instruction = text[:-1] if request.startswith("{}") else _lower_first(text[:-1])
        return request.format(instruction)
    if rng.random() < 0.3:
        text = _lower_first(text)
    if rng.random() < 0.3 and text.endswith(".") and "\n" not in text:
        text = text[:-1]
    return text


def _change_case(text: str, rng: random.Random) -> str:
    case = rng.choices(list(CASES), weights=list(CASES.values()))[0]
    changes: dict[str, Callable[[str], str]] = {
        "as written": lambda t: t,
        "lower": str.lower,
        "upper": str.upper,
        "title": lambda t: re.sub(r"[^\W\d_][\w'’-]*", lambda m: _capital(m.group()), t),
        "names lower": lambda t: _change_names(t, str.lower),
        "names capitalized": lambda t: _change_names(t, str.capitalize),
    }
    return changes[case](text)


def _change_names(text: str, change: Callable[[str], str]) -> str:
    """The names of apps and settings in `text` ("Wi-Fi", "Pro Expense") changed."""
    names = sorted({*(n for group in APP_NAMES for n in group), *_THING_NAME_PHRASES}, key=len)
    pattern = "|".join(re.escape(name) for name in reversed(names))
    return re.sub(
        rf"(?<![\w-])(?:{pattern})(?![\w-])",
        lambda match: " ".join(
            change(word) if word != word.lower() else word for word in match.group().split(" ")
        ),
        text,
    )


def _starts_sentence(text: str, position: int) -> bool:
    before = text[:position].rstrip(" ")
    return not before or before[-1] in ".!?\n"


def _capital(word: str) -> str:
    return word[0].upper() + word[1:]


def _is_word_start(text: str) -> bool:
    return bool(re.match(r"[^\W\d_]", text))


def _first_word(text: str) -> str:
    match = re.match(r"[\w'-]*", text)
    return match.group().casefold() if match else ""


def _lower_first(text: str) -> str:
    """`text` with a lower-case first letter where its first word is one the goals write in
    lower case (so a name such as "Alice" or "WLAN" keeps its capital)."""
    if _first_word(text) in _LOWER_CASE_WORDS and not text[:2].isupper():
        return text[0].lower() + text[1:]
    return text


def _is_one_instruction(text: str) -> bool:
    """One sentence, ending in a full stop, that starts with a verb: it reads right after
    "Please" or "Can you"."""
    return (
        _first_word(text) in _INSTRUCTION_VERBS
        and text.endswith(".")
        and not re.search(r"[.!?;:\n]", _HELD.sub("x", text)[:-1])
    )


def _plain(text: str) -> str:
    return re.sub(r"[\s.!?]+", " ", text.casefold()).strip()

"""Rewordings of a task's goal template for demonstrations, so that a policy learns to act on
what a goal asks rather than on one fixed sentence.

A rewording swaps phrases for others of the same meaning from a general lexicon of phone
vocabulary ("turn off", "switch off", "disable", "deactivate"; "Wi-Fi", "WLAN"; "airplane mode",
"flight mode"), varies the surface (a lower-case first letter, no final full stop) and may put
a one-sentence instruction in a request ("Please ...", "Can you ...?"). The real model brings
this vocabulary from pretraining; a policy trained only on simulator goals has to be shown it.
The lexicon is not drawn from any one task: each group applies to every goal that uses one of
its phrases, and every group has a phrase some training phrasing uses (a test checks this).
Groups can introduce words a held-out phrasing uses, so the held-out phrasing measures unseen
sentences over known words, not unseen words. A rewording never says the task's held-out
template, not even inside a request, and parameters (`{name}`) and quoted text are never touched.
"""

from __future__ import annotations

import random
import re

from simulator.tasks import TASKS, Task

# Phrases of one meaning, any of which may stand for another (matched whole-word, any case). A
# phrase written with a capital (a name such as "WLAN") keeps its own case when it comes in.
SYNONYMS: tuple[tuple[str, ...], ...] = (
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
    ("Wi-Fi", "WLAN"),
    ("airplane mode", "flight mode", "aeroplane mode"),
    ("dark theme", "dark mode"),
    ("Battery Saver", "power-saving mode", "battery saving mode"),
)
SWAP_PROBABILITY = 0.5
# How often a one-sentence instruction is put in a request, and the requests.
REQUEST_PROBABILITY = 0.3
REQUESTS = (
    *("Please {}.", "{}, please.", "Can you {}?", "Could you {}?", "Would you {}?"),
    *("I want you to {}.", "I need you to {}.", "I'd like you to {}.", "Go ahead and {}."),
    *("{} for me.", "Hey, {}.", "Can you please {}?", "{} when you can.", "Kindly {}."),
)
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

_SYNONYM_OF = {phrase.casefold(): group for group in SYNONYMS for phrase in group}
# Longest phrases first, so "turn on" is one match rather than "turn" and a stray "on".
_PHRASE = re.compile(
    r"\b(" + "|".join(re.escape(p) for p in sorted(_SYNONYM_OF, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
# What a rewording leaves alone: parameters and quoted text.
_PROTECTED = re.compile(r"\{[^{}]*\}|\"[^\"]*\"|“[^”]*”")
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


def reword(template: str, rng: random.Random) -> str:
    """One rewording of `template`, chosen by `rng` (it may come out unchanged)."""
    pieces: list[str] = []
    position = 0
    for protected in _PROTECTED.finditer(template):
        pieces.append(_swap_phrases(template[position : protected.start()], rng, position == 0))
        pieces.append(protected.group())
        position = protected.end()
    pieces.append(_swap_phrases(template[position:], rng, position == 0))
    text = "".join(pieces)
    if rng.random() < REQUEST_PROBABILITY and _is_one_instruction(text):
        request = rng.choice(REQUESTS)
        instruction = text[:-1] if request.startswith("{}") else _lower_first(text[:-1])
        return request.format(instruction)
    if rng.random() < 0.3:
        text = _lower_first(text)
    if rng.random() < 0.3 and text.endswith(".") and "\n" not in text:
        text = text[:-1]
    return text


def training_goal_template(task: Task, phrasing: int, rng: random.Random) -> str:
    """A rewording of training phrasing `phrasing`, or the phrasing itself where the rewording
    would say the held-out template (alone or in a request)."""
    template = task.templates[phrasing]
    reworded = reword(template, rng)
    held_out = task.templates[task.held_out_phrasing]
    return template if _plain(held_out) in _plain(reworded) else reworded


def _swap_phrases(text: str, rng: random.Random, starts_goal: bool) -> str:
    def swap(match: re.Match[str]) -> str:
        found = match.group()
        if rng.random() >= SWAP_PROBABILITY:
            return found
        others = [p for p in _SYNONYM_OF[found.casefold()] if p.casefold() != found.casefold()]
        chosen = rng.choice(others)
        if chosen != chosen.lower() or not (starts_goal and match.start() == 0):
            return chosen
        return chosen[0].upper() + chosen[1:]

    return _PHRASE.sub(swap, text)


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
    body = _PROTECTED.sub("x", text)
    return (
        _first_word(text) in _INSTRUCTION_VERBS
        and body.endswith(".")
        and not re.search(r"[.!?;:\n]", body[:-1])
    )


def _plain(text: str) -> str:
    return re.sub(r"[\s.!?]+", " ", text.casefold()).strip()

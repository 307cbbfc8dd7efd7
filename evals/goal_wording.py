"""Rewordings of a task's goal template for demonstrations, so that a policy learns to act on
what a goal asks rather than on one fixed sentence.

A rewording swaps phrases for others of the same meaning ("Turn on" for "Switch on", "Delete"
for "Remove", "What is" for "Tell me") and varies the surface (a lower-case first letter, no
final full stop). Every phrase it can introduce already occurs in some task's training
phrasings (a test checks this), so rewordings recombine the training vocabulary across tasks
and bring in no word of a held-out phrasing that the training phrasings lack: scores on the
held-out phrasing keep measuring unseen wording. Parameters (`{name}`) and quoted text are never
touched, and a rewording that would equal the task's held-out template is not used.
"""

from __future__ import annotations

import random
import re

from simulator.tasks import TASKS, Task

# Phrases of one meaning, any of which may stand for another (matched whole-word, any case).
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("turn on", "switch on", "enable"),
    ("turn off", "switch off"),
    ("turn", "switch"),
    ("delete", "remove"),
    ("create", "add"),
    ("make sure", "check that"),
    ("what is", "tell me"),
    ("change", "update"),
    ("which", "what"),
    ("named", "called"),
    ("look up", "find"),
)
SWAP_PROBABILITY = 0.5

_SYNONYM_OF = {phrase: group for group in SYNONYMS for phrase in group}
# Longest phrases first, so "turn on" is one match rather than "turn" and a stray "on".
_PHRASE = re.compile(
    r"\b(" + "|".join(re.escape(p) for p in sorted(_SYNONYM_OF, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
# What a rewording leaves alone: parameters and quoted text.
_PROTECTED = re.compile(r"\{[^{}]*\}|\"[^\"]*\"|“[^”]*”")
# First words that may lose their capital: those the phrasings also write in lower case (so a
# name such as "Alice" keeps it).
_LOWER_CASE_WORDS = frozenset(
    word
    for task in TASKS
    for template in (task.templates[i] for i in task.training_phrasings)
    for word in re.findall(r"\b[a-z][\w'-]*", _PROTECTED.sub(" ", template))
)


def reword(template: str, rng: random.Random) -> str:
    """One rewording of `template`, chosen by `rng` (it may come out unchanged)."""
    pieces: list[str] = []
    position = 0
    for protected in _PROTECTED.finditer(template):
        pieces.append(_swap_phrases(template[position : protected.start()], rng))
        pieces.append(protected.group())
        position = protected.end()
    pieces.append(_swap_phrases(template[position:], rng))
    text = "".join(pieces)
    first_word = re.match(r"[\w'-]*", text)
    if rng.random() < 0.3 and first_word and first_word.group().lower() in _LOWER_CASE_WORDS:
        text = text[0].lower() + text[1:]
    if rng.random() < 0.3 and text.endswith(".") and "\n" not in text:
        text = text[:-1]
    return text


def training_goal_template(task: Task, phrasing: int, rng: random.Random) -> str:
    """A rewording of training phrasing `phrasing`, or the phrasing itself where the rewording
    would be the held-out template."""
    template = task.templates[phrasing]
    reworded = reword(template, rng)
    held_out = task.templates[task.held_out_phrasing]
    return template if _plain(reworded) == _plain(held_out) else reworded


def _swap_phrases(text: str, rng: random.Random) -> str:
    def swap(match: re.Match[str]) -> str:
        found = match.group()
        if rng.random() >= SWAP_PROBABILITY:
            return found
        others = [p for p in _SYNONYM_OF[found.casefold()] if p != found.casefold()]
        chosen = rng.choice(others)
        return chosen[0].upper() + chosen[1:] if found[0].isupper() else chosen

    return _PHRASE.sub(swap, text)


def _plain(text: str) -> str:
    return re.sub(r"[\s.!?]+", " ", text.casefold()).strip()

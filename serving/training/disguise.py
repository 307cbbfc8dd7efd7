"""Copied values disguised as new strings, so that remembering values cannot pay.

A demonstration whose reply types or answers a value the request shows (a name from the goal, a
number on the screen) can be learnt two ways: copy the value from the request, or remember
which value goes with which request. A small model trained for many epochs does the second,
and then writes a remembered value where a new one was asked for. Disguising breaks the
shortcut: each copied value is replaced, wherever the request and the reply show it, by a
string made for this demonstration (every letter or digit swapped for a random one of its
kind), so the only way to predict it is to copy it.

Removing the shortcut is not enough from scratch: a model trained from nothing on
demonstrations half of whose copied values were disguised learnt to write made-up strings of
the same look instead. Continuing a policy that already knew the apps and screens, the same
disguising made it copy (the `sim` model card has both runs). `phone-agent train --disguise` is
therefore an option for such a continued run, off by default.

A copied value is a string argument of the reply, or a comma-separated part of one, that is
one of the values the episode's task was given (the demonstration's `values`: names, numbers,
texts, titles, or a part of one, such as the minutes of a time) and that a user turn shows as
a whole word; so is any such value that the reply's free text (a `Remember:` line) says as a
whole word. What the task did not choose (an app's name, a contact every phone has, a word
the instructions or tools use) and element numbers ("[12]") are never disguised, so what the
model learns about the apps, the screens and the tools stays true.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from typing import Any

from serving.training.demo import Demo

_MIN_LENGTH = 2
# A value stands alone: no letter, digit or underscore touches it, nor element brackets.
_BEFORE = r"(?<![\w\[])"
_AFTER = r"(?![\w\]])"
_BLOCK = 128  # code points: letters are swapped within their script's block of the table


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    """A tool call's arguments, decoded where they are a JSON string (as on the wire)."""
    arguments = call.get("function", {}).get("arguments") or "{}"
    return dict(json.loads(arguments) if isinstance(arguments, str) else arguments)


def _string_arguments(target: dict[str, Any]) -> Iterator[str]:
    for call in target.get("tool_calls") or []:
        yield from (value for value in _arguments(call).values() if isinstance(value, str))


def _free_text(target: dict[str, Any]) -> str:
    """What the reply says beside its calls: reasoning, and lines such as `Remember: ...`."""
    return "\n".join(target.get(key) or "" for key in ("content", "reasoning_content"))


def _is_user_text(message: dict[str, Any]) -> bool:
    return message.get("role") != "system" and isinstance(message.get("content"), str)


def _pattern(values: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(value) for value in sorted(values, key=len, reverse=True))
    return re.compile(f"{_BEFORE}(?:{alternatives}){_AFTER}")


def copied_values(demo: Demo) -> list[str]:
    """The values the reply copies from the request, longest first."""
    if not demo.values:
        return []
    users = [m["content"] for m in demo.messages if _is_user_text(m)]
    found: set[str] = set()
    # free text copies a value anywhere within it, not as a whole argument
    said = _free_text(demo.target)
    for given in demo.values:
        alone = _pattern([given])
        if (
            len(given) >= _MIN_LENGTH
            and alone.search(said)
            and any(alone.search(text) for text in users)
        ):
            found.add(given)
    for argument in _string_arguments(demo.target):
        for part in {argument, *argument.split(",")}:
            value = part.strip()
            if len(value) < _MIN_LENGTH or not any(c.isalnum() for c in value):
                continue
            alone = _pattern([value])
            if any(alone.search(given) for given in demo.values) and any(
                alone.search(text) for text in users
            ):
                found.add(value)
    if found:  # only then: the tools and the system prompt are most of a request's text
        instructions = json.dumps(demo.tools, ensure_ascii=False) + "".join(
            str(m.get("content") or "") for m in demo.messages if m.get("role") == "system"
        )
        found = {value for value in found if value not in instructions}
    return sorted(found, key=len, reverse=True)


@cache
def _alphabet(block: int, category: str) -> str:
    """The characters of one Unicode category in one block of the table."""
    start = block * _BLOCK
    return "".join(
        chr(point)
        for point in range(start, start + _BLOCK)
        if unicodedata.category(chr(point)) == category
    )


class _Cipher:
    """The same stand-in for a character every time within one demonstration, so a value and
    a part of it (a full name and its first name) stay consistent wherever they appear."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._swaps: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        return "".join(self._swap(c) for c in text)

    def _swap(self, char: str) -> str:
        if not (char.isalpha() or char.isdigit()):
            return char
        if char not in self._swaps:
            alphabet = _alphabet(ord(char) // _BLOCK, unicodedata.category(char))
            self._swaps[char] = self._rng.choice(alphabet) if alphabet else char
        return self._swaps[char]


def disguise(demo: Demo, rng: random.Random) -> Demo | None:
    """`demo` with its copied values disguised, or None when the reply copies nothing."""
    values = copied_values(demo)
    if not values:
        return None
    pattern = _pattern(values)
    cipher = _Cipher(rng)

    def hide(text: str) -> str:
        return pattern.sub(lambda match: cipher(match.group(0)), text)

    messages = [
        {**m, "content": hide(m["content"])} if _is_user_text(m) else m for m in demo.messages
    ]
    target = dict(demo.target)
    for key in ("content", "reasoning_content"):
        if target.get(key):
            target[key] = hide(target[key])
    calls = []
    for call in target.get("tool_calls") or []:
        hidden = {k: hide(v) if isinstance(v, str) else v for k, v in _arguments(call).items()}
        function = {**call.get("function", {}), "arguments": json.dumps(hidden, ensure_ascii=False)}
        calls.append({**call, "function": function})
    if calls:
        target["tool_calls"] = calls
    return demo.model_copy(update={"messages": messages, "target": target})
